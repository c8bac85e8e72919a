/*
 * The engine runs a schedule: start, test, wait; persistent requests restart the same
 * schedule. It walks rounds (see schedule.h), and only ever tests the operations it has
 * posted in the current round.
 *
 * Data movement goes through a transport, so the engine is tested without MPI (a fake
 * transport in tests/unit) and runs over MPI in the library (transport_mpi.c). Posted
 * operations live in numbered slots 0..max_comm_per_round-1 of the transport.
 *
 * A failed operation (a truncated receive, a local copy into too small a block) does not
 * stop the schedule: the other processes expect this one's later messages and would hang.
 * The engine remembers the first failure, with a message that names the operation, runs the
 * schedule to its end and then reports it. Only a failure of the transport itself (one that
 * names no slot) stops at once.
 */
#ifndef NHOOD_ENGINE_ENGINE_H
#define NHOOD_ENGINE_ENGINE_H

#include "schedule/schedule.h"

typedef struct nhood_transport {
  int (*post_send)(void *ctx, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag);
  int (*post_recv)(void *ctx, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag);
  /* Waits for slots [0, nslots). When an operation failed, returns its error class with
   * *failed = its slot, once every slot completed; *failed = -1 for a failure of the
   * transport itself. */
  int (*wait)(void *ctx, int nslots, int *failed);
  /* *done = 1 when slots [0, nslots) have all completed. Failures as for wait, except that
   * other slots may still be in flight (*done = 0): test again. */
  int (*test)(void *ctx, int nslots, int *done, int *failed);
  /* Local copy of (count, type) at src into (count, type) at dst; MPI_ERR_TRUNCATE when the
   * source holds more data than the target. */
  int (*copy)(void *ctx, const void *src, int scount, MPI_Datatype stype, void *dst, int dcount, MPI_Datatype dtype);
  /* dst = src op dst, element-wise. */
  int (*reduce)(void *ctx, const void *src, void *dst, int count, MPI_Datatype type, MPI_Op op);
  /* Optional: posts a round's communication ops[0, n) into slots 0..n-1 in one call, as
   * post_send and post_recv would one by one (the address of an entry is base[op->buf] +
   * op->offset, its tag tag_base + op->tag). Every entry is posted; the first that failed is
   * returned, with *failed = its index. */
  int (*post_round)(void *ctx, const nhood_op *ops, int n, char *const base[], int tag_base, int *failed);
} nhood_transport;

typedef struct nhood_exec {
  const nhood_sched *sched;
  const nhood_transport *transport;
  void *transport_ctx;
  char *base[NHOOD_NBUFS]; /* send, receive and scratch buffers */
  int tag_base;
  int round;           /* current round; sched->nrounds once complete */
  int nposted;         /* slots in use in the current round */
  int error;           /* class of this run's first failed operation, or MPI_SUCCESS */
  char *error_message; /* its message (owned), reported when the run ends */
} nhood_exec;

/* Adds what a failed operation was to the error message (common/errors.h): "receive block 3
 * from rank 5", "a message (blocks combined) to rank 2", ...; target: a local operation's. */
void nhood_op_describe(const nhood_op *op, const nhood_op *target);

/* Prepares an execution; buffers are fixed for its lifetime (persistent semantics). */
void nhood_exec_init(nhood_exec *e, const nhood_sched *s, const nhood_transport *t, void *tctx, const void *sendbuf,
                     void *recvbuf, void *scratch);
/* Begins (or restarts) the schedule with the given tag window; a run that completes at once
 * (local operations only) reports its failure here. */
int nhood_exec_start(nhood_exec *e, int tag_base);
/* Advance and complete a run; the first failed operation's error is returned when the run
 * has completed (with *done = 1). */
int nhood_exec_test(nhood_exec *e, int *done);
int nhood_exec_wait(nhood_exec *e);
/* A whole run at once (a blocking call): nhood_exec_start, then nhood_exec_wait. A schedule of
 * one round of communication and nothing else (`direct`'s, most often) is posted in one call of
 * the transport's post_round where it has one. */
int nhood_exec_run(nhood_exec *e, int tag_base);
/* Frees what a run that did not complete still holds (nothing once it completed). */
void nhood_exec_free(nhood_exec *e);
static inline int nhood_exec_done(const nhood_exec *e) { return e->round >= e->sched->nrounds; }

#endif
