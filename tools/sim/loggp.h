/*
 * LogGP prediction of one collective call from its schedules (not from any measured time):
 * a deterministic evaluation (for a given noise seed) of every virtual rank's rounds under
 * the model below, which docs/SIM.md states with its sources.
 *
 *   L      latency: from the end of injection to the arrival of the last byte
 *   o      CPU overhead of one message, at the sender and again at the receiver
 *   g      gap: minimum time between the starts of two injections of one rank
 *   G      time per byte of a message (bandwidth 1/G)
 *   Gcopy  time per byte of a local copy (default G/4)
 *   ocopy  CPU time of one local copy beyond its bytes (µs; 0 by default)
 *   O      time per byte the sender's CPU spends on a message (LogGOPS's O; 0 by default):
 *          through shared memory the sender copies the bytes in as the receiver copies
 *          them out, while a NIC reads them from memory without the CPU
 *
 *   round  CPU time of one communication round beyond its messages' o: posting the batch and
 *          completing it (µs; 0 by default)
 *   oself, Gself  a message to oneself, through MPI: CPU time at each end (default o, node_o
 *          with two levels) and the receiver's time per byte (default Gcopy), no latency
 *   step, ostep  a message of more than step bytes between two processes costs ostep more
 *          (µs) at each end: an MPI's switch of protocol within shared memory (Open MPI
 *          4.1's sends up to 256 bytes inline and others through a buffer it takes and
 *          returns); 0 by default
 *   Lbyte  latency per byte after the first of a message between two processes, where L
 *          applies (one level, or within a node): a lone message waits for its bytes to
 *          cross (through shared memory, the cache lines the sender wrote), messages sent
 *          together cross at once; 0 by default
 *   noise  a process's delay per communication round, as its distribution: the quantiles at
 *          the probabilities of loggp_noise_p (µs; all 0 by default)
 *   skew   the same for the call's first round, where given: processes enter a call at
 *          different times (after a barrier, its exit's skew; in a program, its imbalance)
 *   noise0 the zero of noise and skew (µs): a delay drawn is the quantile less noise0, 0 where
 *          below. Measured delays are times over the fastest round, whose place is an
 *          extreme of the sample; nhood-calibrate fits where the typical round's costs end
 *          and its delay begins. 0 by default
 *
 * A rank runs its rounds in order. A round starts when the previous one ended (the first at
 * 0). A round with messages first keeps the CPU busy round + d, d the rank's delay in that
 * round: noise's quantile (skew's in round 0, where given) at a probability drawn from
 * (seed, rank, round), so that a seed gives one reproducible run and seed 0 none (d = 0).
 * Its local copies take ocopy + bytes * Gcopy each.
 * Then its sends go out in schedule order: a send of m bytes starts at max(CPU free,
 * previous start + g + (m_prev - 1) G), keeps the CPU busy o + (m - 1) O, has its last byte
 * out at start + o + max((m - 1) G, (m - 1) O), and its first byte at the destination at
 * start + o + (m - 1) O + L + (m - 1) Lbyte (with O = Lbyte = 0: start + o + L). Then the
 * CPU takes each of the round's receives in order of arrival: it starts at max(CPU free,
 * arrival, previous receive's start + g + (m_prev - 1) G), keeps the CPU busy
 * o + (m - 1) G and is done then. The receiver pays the bytes again, one message after
 * another, as LogGOPSim charges them: a lone message costs the same as where only the
 * sender paid them (o + L + (m - 1) G + o), and messages arriving together at one process
 * queue for its bandwidth. The round ends when its receives are done and its sends are out.
 * The call takes as long as the slowest rank.
 *
 * Two levels (ranks_per_node k >= 1; rank r is on node r / k, the last node may have fewer).
 * A message between two ranks of one node is priced as above with node_L, node_o, node_g,
 * node_G, node_O (node_o at its receiver too), and meets no network interface (NIC). A message
 * between nodes is priced with L, o, g, G at both processes as above and also passes the
 * sending node's NIC and then the receiving node's; each is a FIFO server shared by its
 * node's ranks, one per direction (links are full duplex), which a message of m bytes keeps
 * busy c = nic_o + m nic_G:
 *
 *   h  = start + o + (m - 1) O          handed to the NIC: the CPU has posted it
 *   s  = max(h, injection side free);   that side is then free at s + c
 *   e  = max(out, s + c)                last byte out of the source NIC, out as above
 *   h' = s + L                          its first byte at the destination NIC
 *   s' = max(h', ejection side free);   that side is then free at s' + c
 *   last = max(e + L, s' + c)           its last byte at the destination process
 *
 * and the receiver's CPU takes it as above from its arrival, last - (m - 1) G (its first
 * byte, the receiver paying (m - 1) G as in one level).
 *
 * The NIC streams what the process hands it (cut-through), so it cannot be done before the
 * process's last byte is out (e >= out), nor the destination NIC before the last byte has
 * crossed (arrival >= e + L). A message alone thus arrives as in one level, or at
 * start + o + c + L where c exceeds (m - 1) G: the presets' L and G were measured end to
 * end, through both NICs, and handing the NIC the message only at out (store and forward)
 * would charge its bytes three times, G + 2 nic_G (a lone 64 KiB message 2.4x its ib-edr
 * time). What the NICs add is their sharing: ranks of one node that send at once wait for
 * each other's c, as do messages arriving at once at one node. With
 * nic_o = nic_G = 0 and node_* = L, o, g, G the times are those of one level exactly. The
 * sender's round waits for out only, as in one level (an eager send's buffer is free once
 * its bytes are handed over).
 *
 * Messages pair as MPI pairs them (per destination, source and tag, in order). Each NIC
 * serves in order of h (resp. h'), ties broken by sending rank, then its send number: the
 * evaluation takes NIC events from one queue in that global order. Every time depends only
 * on the schedules, so the result does not depend on the order in which ranks are
 * evaluated. Counts are bytes: schedules must use MPI_BYTE.
 */
#ifndef NHOOD_SIM_LOGGP_H
#define NHOOD_SIM_LOGGP_H

#include <stddef.h>

#include "common/cost_model.h"
#include "schedule/schedule.h"

/* The probabilities at which noise= gives the delay's quantiles; between two of them the
 * quantile is interpolated linearly. */
#define LOGGP_NOISE_POINTS 15
/* 0, 0.1, ..., 0.9, 0.95, 0.99, 0.999, 0.9999, 1: the tail in detail, since among thousands of
 * processes one is in it nearly every round */
extern const double loggp_noise_p[LOGGP_NOISE_POINTS];

typedef struct loggp_params {
  double L, o, g;  /* microseconds */
  double G, Gcopy; /* microseconds per byte */
  /* The library's rendezvous term (common/cost_model.h), taken from a preset (0 otherwise): the
   * evaluator here has none, nhood-info's cost model uses it. */
  double eager, rdv;
  /* Two levels, as above: a message within one node, and each node's NIC. */
  double node_L, node_o, node_g, node_G; /* µs, µs per byte */
  double nic_o, nic_G;                   /* µs per message, µs per byte */
  double O, node_O;                      /* µs per byte at the sender's CPU, between nodes and within one */
  double ocopy;                          /* µs per local copy beside its bytes' Gcopy */
  int ranks_per_node;                    /* 0: one level, every message priced with L, o, g, G */
  double round;                          /* µs per communication round */
  double oself, Gself;                   /* a message to oneself: µs at each end, µs per byte */
  double step, ostep;                    /* above step bytes, ostep µs more at each end */
  double Lbyte;                          /* µs per byte after the first, added to L */
  double noise[LOGGP_NOISE_POINTS];      /* µs: quantiles of the delay per round, non-decreasing */
  double skew[LOGGP_NOISE_POINTS];       /* µs: the same in round 0; all 0: noise's */
  double noise0;                         /* µs: subtracted from every delay drawn (not below 0) */
  unsigned seed;                         /* 0: no noise drawn */
} loggp_params;

/* Whether any delay can be drawn (a quantile of noise or skew above 0). */
int loggp_has_noise(const loggp_params *p);

/* The parameters both models share, copied field by field: a cost-model set (a preset, a
 * file) as LogGP parameters (ranks_per_node 0), and LogGP parameters into a cost-model set
 * (its other fields, mpi_factor, rdv_round and margin, left as they are). */
void loggp_from_cost(const nhood_cost_params *p, loggp_params *out);
void loggp_to_cost(const loggp_params *m, nhood_cost_params *p);

/* Parses "loggp:preset=NAME" (ib-edr, shm) or "loggp:L=..,o=..,g=..,G=.." (µs and µs per
 * byte), optionally with Gcopy=.., node_L=.., node_o=.., node_g=.., node_G=.., nic_o=..,
 * nic_G=.., O=.., node_O=.., ocopy=.., round=.., oself=.., Gself=.., step=.., ostep=.., Lbyte=..,
 * noise=Q0/Q1/.../Q14 (the quantiles at loggp_noise_p) and skew= (the same for the first round); keys after a preset
 * override it. Without a preset node_* default to L, o, g, G and nic_*, round, noise and skew to 0; oself to node_o and
 * Gself to Gcopy. ranks_per_node and seed are left 0 (nhood-sim's --ranks-per-node and --seeds set them). 0, or 1 with
 * a message. */
int loggp_parse(const char *spec, loggp_params *out, char *err, size_t errlen);

/* The model line of a file: its first line that is not empty and does not start with '#',
 * into text[len]; option names the option in messages. 0, or 1 with a message. */
int loggp_read_model_file(const char *option, const char *path, char *text, size_t len, char *err, size_t errlen);

typedef struct loggp_prediction {
  double time_us;   /* finish time of the slowest rank */
  int slowest_rank; /* -1 when no rank has anything to do */
} loggp_prediction;

/* Evaluates scheds[0..nranks-1]. 0, or 1 with a message when the schedules cannot complete
 * (a receive without a matching send, a message nobody receives), ranks_per_node < 0, or
 * memory runs out. Memory: O(ranks + messages in flight). */
int loggp_predict(int nranks, const nhood_sched *scheds, const loggp_params *p, loggp_prediction *out, char *err,
                  size_t errlen);

#endif
