/*
 * The cost model's parameters and its price of one round: the one formula that "auto"
 * (selection/cost.h, which walks a schedule round by round) and combine's depth choice
 * (pattern/combine.h, which prices a call stopped after k levels) both use. It lives below
 * both layers so that neither has a copy of the numbers or of the formula.
 *
 *   L      latency of a round: from the first injection to the arrival of the last byte (µs)
 *   o      CPU overhead of one message, paid by the sender and again by the receiver (µs)
 *   g      gap between two injections of one process (µs)
 *   G      time per byte of a message (µs/byte); a round's byte time is G times the larger of
 *          the bytes it sends and the bytes it receives
 *   Gcopy  time per byte of a local copy or reduction (µs/byte)
 *   mpi_factor  MPI's own neighborhood collective relative to nhood's direct schedule (both
 *          post one send and one receive per neighbor in MPICH and Open MPI; a value below 1
 *          says the MPI library does that faster)
 *   eager  the largest message (bytes) that MPI sends eagerly; larger ones go by rendezvous,
 *          a handshake before the data (LogGPS's S)
 *   rdv    the extra time of a message larger than eager, at each end, like o (µs; 0: no
 *          rendezvous cost, whatever eager says)
 *   rdv_round  the extra time of a round in which at least one message is larger than eager:
 *          the wait for the handshake, which the round's messages share (µs; 0 in the presets)
 *   setup  not a time of a call: nhood's set-up on a communicator (its first call under "auto":
 *          the private communicator, what it learns, the decision, the trial) in allreduces of
 *          the communicator (selection/cold.h prices them); nhood-calibrate measures it
 *   margin  not a time: the relative error the model is known to make. "auto" takes a schedule
 *          with more rounds or copies than one message per neighbor only where it is predicted
 *          faster by more than this (selection/select.h); nhood-calibrate writes its fit's
 *          largest error, clamped to [0.1, 0.5]
 *
 * A round with s sends, r receives, local bytes c, communication bytes max(S, R), and s' sends
 * and r' receives larger than eager takes
 *
 *   Gcopy*c + [s + r > 0] * (L + o*(s + r) + g*max(s - 1, 0) + G*max(S, R))
 *           + rdv*(s' + r') + rdv_round*[s' + r' > 0]
 *
 * The rendezvous term is what lets the model see a schedule's messages cross the eager limit:
 * combining makes few large messages out of many small ones, and past the limit each of them
 * waits for a handshake that the direct schedule's small messages never need (Open MPI's
 * shared-memory limit is 4 KiB). When every message is past it, the schedule with fewer
 * messages pays fewer handshakes. A handshake costs in two ways: CPU work at both ends of each
 * message (rdv), and a wait for the other side to answer, which the messages of one round
 * share (rdv_round). nhood-calibrate tells them apart with rounds of 1 to 16 messages above
 * the limit.
 *
 * A call takes the sum of its rounds (selection/cost.h says how "auto" uses that, and
 * nhood-sim's LogGP evaluator, tools/sim/loggp.h, is the separate check on this simpler
 * model).
 *
 * Parameters come from a file (NHOOD_PARAMS, or the one nhood-calibrate --save wrote for
 * this node; selection/cost.h chooses) or from the presets, by placement (docs/TUNING.md).
 * The file holds lines "key = value" with the keys above or
 * "preset = NAME" (ib-edr, shm) as a base that later lines override; '#' starts a comment.
 */
#ifndef NHOOD_COMMON_COST_MODEL_H
#define NHOOD_COMMON_COST_MODEL_H

#include <stddef.h>
#include <stdio.h>

typedef struct nhood_cost_params {
  double L, o, g;    /* µs */
  double G, Gcopy;   /* µs per byte */
  double mpi_factor; /* dimensionless */
  double eager;      /* bytes */
  double rdv;        /* µs per message end */
  double rdv_round;  /* µs per round */
  double margin;     /* dimensionless */
  /* Two levels (a communicator over several nodes): a message between two processes of one
   * node costs node_L, node_o, node_g and node_G in place of L, o, g and G; a message between
   * nodes also passes its sender's and its receiver's network interface, which each node's
   * processes share: nic_o per message and nic_G per byte (the interface's message rate and
   * bandwidth). On one node every message is on-node and L, o, g, G price it (the presets for
   * one node set node_* equal to them). */
  double node_L, node_o, node_g, node_G; /* µs, µs per byte */
  double nic_o, nic_G;                   /* µs per message, µs per byte, per node */
  /* Not a time of a call: what nhood's set-up on a communicator costs (its first call under
   * "auto"), in allreduces of that communicator (selection/cold.h). */
  double setup;
} nhood_cost_params;

/* The presets' margin: about what the model was measured to get wrong on one machine
 * (nhood-calibrate's largest round error at 4-32 processes, rounded down). */
#define NHOOD_COST_MARGIN 0.25
/* The presets' setup: the middle of what nhood-calibrate's set-up measurement (auto's first
 * calls on new communicators of 1-4 ring neighbors, less as many later calls) gave, in the
 * allreduces selection/cold.h prices, at 2, 4 and 8 processes on a 2-core machine with Open
 * MPI 4.1. */
#define NHOOD_COST_SETUP 100

/* The named preset (ib-edr: InfiniBand EDR-like; shm: shared memory-like); 0, or 1 when
 * no preset has that name. docs/SIM.md says where the numbers come from. */
int nhood_cost_preset(const char *name, nhood_cost_params *out);
/* "ib-edr, shm" for messages. */
const char *nhood_cost_preset_names(void);
/* The built-in defaults: the ib-edr preset, mpi_factor 1. */
void nhood_cost_params_default(nhood_cost_params *out);
/* The parameters for processes that share one node, f processes per CPU: the shm preset up
 * to f = 1, above that every term scaled for time-sharing (the rules in cost_model.c). */
void nhood_cost_params_node(double f, nhood_cost_params *out);
/* 1 when every parameter is a non-negative number (what the file reader accepts), else 0. */
int nhood_cost_params_valid(const nhood_cost_params *p);

/* Reads a parameter file over *out (keys it does not name keep their values). 0, or 1 with
 * a message naming the file, the line and the problem. */
int nhood_cost_params_read(const char *path, nhood_cost_params *out, char *err, size_t errlen);
/* Writes every parameter in the file format, after the comment lines in `header` (may be
 * NULL; each of its lines gets a "# "). 0, or 1 when writing fails. */
int nhood_cost_params_write(FILE *out, const nhood_cost_params *p, const char *header);

/* What one process does in one round: the inputs of the formula above. On several nodes the
 * messages between processes of one node are counted apart (node_*) and priced with node_L,
 * node_o, node_g and node_G: the round's latency is L where a message crosses the network, else
 * node_L, and the terms of both kinds add up. */
typedef struct nhood_cost_round_load {
  int sends, recvs;                /* s, r: messages (between nodes, where nodes are told apart) */
  double sent, received;           /* S, R: their bytes */
  double copied;                   /* c: bytes copied or reduced locally */
  int sends_rdv, recvs_rdv;        /* s', r': the messages larger than eager (nhood_cost_is_rendezvous) */
  int node_sends, node_recvs;      /* messages within the node (last: positional initializers stay valid) */
  double node_sent, node_received; /* their bytes */
} nhood_cost_round_load;

/* 1 when a message of `bytes` goes by rendezvous (larger than eager; eager bytes are still
 * sent eagerly), else 0. */
static inline int nhood_cost_is_rendezvous(const nhood_cost_params *p, double bytes) { return bytes > p->eager; }

/* The predicted time (µs) of one round, by the formula above. */
double nhood_cost_round(const nhood_cost_params *p, const nhood_cost_round_load *r);

#endif
