/*
 * Bulk-synchronous programs: how nhood writes its distributed pattern algorithms.
 *
 * A program is a step function run by every rank once per superstep: it reads the messages
 * sent to it in the previous superstep (its inbox), updates its own state, and writes messages
 * for the next superstep (its outbox). Messages are arrays of ints. Besides messages, each
 * superstep carries one global vote: every rank may raise a flag, and in the next superstep
 * every rank sees whether any rank raised it (a logical OR over ranks).
 *
 * The same program runs under two drivers:
 *   - bsp_mpi.c:   one rank per MPI process, over a communicator (sparse exchange with
 *                  synchronous sends and a non-blocking barrier, so a superstep costs
 *                  O(messages + log P), never O(P));
 *   - bsp_local.c: all ranks of a virtual machine in one process, deterministically, with
 *                  per-superstep statistics, so the real code is tested and costed at
 *                  thousands of virtual ranks (nhood-sim).
 * Both deliver a rank's inbox sorted by source rank and, per source, in sending order, so a
 * deterministic program computes the same result under either driver.
 *
 * The program ends when, after a superstep, every rank has reported done and no message is
 * in flight.
 */
#ifndef NHOOD_PATTERN_BSP_H
#define NHOOD_PATTERN_BSP_H

#include <stddef.h>

typedef struct {
  int source;
  int count;
  const int *data;
} nhood_bsp_message;

typedef struct {
  int superstep; /* 0 for the first */
  int any_vote;  /* OR of the votes cast in the previous superstep (0 at superstep 0) */
  const nhood_bsp_message *messages;
  int nmessages; /* sorted by source, then sending order */
} nhood_bsp_inbox;

/* Messages one rank writes in one superstep (an append-only buffer of int records). */
typedef struct {
  int *words; /* records: dest, count, data[count] */
  size_t nwords, capacity;
  int nmessages;
  int vote; /* raise to 1 to vote */
  int done; /* set to 1 when this rank has finished */
} nhood_bsp_outbox;

/* Appends a message of count ints for rank dest. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int nhood_bsp_send(nhood_bsp_outbox *out, int dest, const int *data, int count);
/* Reserves a message of count ints for dest and returns where to write them (NULL when out
 * of memory); saves a copy when the payload is built in place. */
int *nhood_bsp_send_reserve(nhood_bsp_outbox *out, int dest, int count);

/* One superstep of one rank; returns MPI_SUCCESS or an error class (which stops the run on
 * every rank). */
typedef int (*nhood_bsp_step_fn)(void *state, const nhood_bsp_inbox *in, nhood_bsp_outbox *out);

/* What a run cost: the maxima over ranks are per superstep, then summed (the critical path
 * of a bulk-synchronous run). */
typedef struct {
  int supersteps;
  long long msgs_max;      /* sum over supersteps of the most messages a rank sent */
  long long bytes_max;     /* the same for bytes (payload only) */
  long long recv_msgs_max; /* the same for messages received */
  double compute_max_s;    /* the same for a rank's time in its step function (local driver) */
  double wall_s;           /* wall time of the whole run */
  /* Per-superstep maxima (local driver), for a LogGP projection; owned by the stats. */
  int nsteps_recorded;
  int *step_msgs, *step_recv_msgs;
  long long *step_bytes;
  double *step_compute_s;
} nhood_bsp_stats;

void nhood_bsp_stats_free(nhood_bsp_stats *stats);

#endif
