/*
 * A blocking call's schedule of one round (`direct`'s, most often), resolved to the arguments of
 * its MPI calls for one pair of buffers: a run is what an exchange written by hand does, the
 * round's local copies (self loops: periodic dimensions of size 1 or 2, graphs that name the
 * process itself), MPI_Irecv in a loop, the sends, and one MPI_Waitall. A thread
 * that repeats such a call keeps one of its own (api/call_cache.c), so that the repeat skips the
 * engine's walk and the task between. Failures are reported as the engine reports them
 * (engine.h): every operation is posted and completed, then the first failure is returned,
 * naming its operation.
 *
 * A send of at most NHOOD_FLAT_EAGER_BYTES is a blocking MPI_Send, not an MPI_Isend: no request
 * to make and complete, and for so few bytes MPI's send is a copy and a return. That cannot
 * deadlock: every process posts all of the round's receives before its first send, so each
 * send's receive is posted, or will be once its process enters the call, whatever the others
 * do. Sends keep the schedule's order (two to one peer with one tag match in that order).
 *
 * The local operations run first, through the engine's transport, as the engine runs a round:
 * the same results and, where one fails, the same first failure.
 *
 * The structure and the run are here, inline, so that a repeat runs without another call
 * between it and MPI (common/hot.h); only nhood_flat_round_run reads them.
 */
#ifndef NHOOD_ENGINE_FLAT_ROUND_H
#define NHOOD_ENGINE_FLAT_ROUND_H

#include <mpi.h>

#include "common/commctx.h"
#include "common/mpi_util.h"
#include "engine/transport_mpi.h"
#include "schedule/schedule.h"

/* The largest send that is a blocking MPI_Send: what MPI copies out at once and returns. Open
 * MPI 4.1's shared-memory transport sends up to 256 B inline; a larger blocking send waits
 * until the receiving process has taken its fragment, which made `direct` several times slower
 * at 512 B and 1 KiB on many processes sharing few cores. Where another
 * MPI's send of this size waits for its receiver, that costs the wait, not a deadlock (above). */
#define NHOOD_FLAT_EAGER_BYTES 256

/* One MPI_Irecv, MPI_Isend or MPI_Send, its arguments ready but the tag window's base. */
typedef struct {
  void *buf;
  MPI_Datatype type;
  int count, peer, tag;
  int eager; /* a send by MPI_Send (it takes no request slot) */
} nhood_flat_op;

/* A local operation: a copy or, where op is not MPI_OP_NULL, a reduction (count and type the
 * source's). */
typedef struct {
  const void *src;
  void *dst;
  MPI_Datatype stype, dtype;
  int scount, dcount;
  MPI_Op op;
  nhood_op entries[2]; /* the schedule's (source, target), which a failure names */
} nhood_flat_local;

typedef struct nhood_flat_round {
  nhood_mpi_transport_ctx slots; /* the communicator, requests and statuses */
  const nhood_flat_local *local; /* the local operations, run first */
  int nlocal;
  nhood_commctx *ctx;  /* the tag windows' */
  int n, nrecv, ntags; /* the receives come first, then the sends, each in the schedule's order */
  int nslots;          /* requests: the receives', then the sends' that are not eager */
  const nhood_op *ops; /* the schedule's entries in that order (a failure names one) */
  const int *slot_op;  /* the operation of each request slot */
  char call[64];       /* what a failure's message names the call */
  nhood_flat_op flat[];
} nhood_flat_round;

/* The flat round of schedule s on ctx's communicator between sendbuf and recvbuf; NULL where s
 * is not one round without scratch, or out of memory (a flat round is optional). The
 * caller keeps ctx while the flat round lives. A failure's message ends with `call`
 * ("neighborhood allgather (direct)"), as the caller of the engine adds. */
nhood_flat_round *nhood_flat_round_create(const nhood_sched *s, nhood_commctx *ctx, const void *sendbuf, void *recvbuf,
                                          const char *call);
/* NULL is ignored. */
void nhood_flat_round_free(nhood_flat_round *f);

/* Operation k could not be posted (code): its request slot, if it has one, is emptied
 * (completing the round skips it) and the first such failure kept. */
static inline void nhood_flat_round_post_failed(MPI_Request *slot, int k, int code, int *failed, int *failed_code) {
  if (slot) *slot = MPI_REQUEST_NULL;
  if (*failed < 0) *failed = k, *failed_code = code;
}
/* The end of a run that failed: operation `posted` could not be posted (code `post_code`; -1:
 * all were), or MPI_Waitall returned `wait_code`; local_code and local_error: the first local
 * operation's failure (nhood_flat_round_local), which comes first. */
int nhood_flat_round_failed(nhood_flat_round *f, int posted, int post_code, int wait_code, int local_code,
                            char *local_error);
/* Runs the local operations; NULL, or the first failure's saved error (common/errors.h's
 * nhood_error_save: the code with its message, the operation described). */
char *nhood_flat_round_local(nhood_flat_round *f, int *code);

/* A run, in a tag window of the context's (reserved as for any run of the schedule). */
static inline int nhood_flat_round_run(nhood_flat_round *f) {
  int local_code = MPI_SUCCESS;
  char *local_error = f->nlocal ? nhood_flat_round_local(f, &local_code) : NULL;
  int tag_base = nhood_commctx_reserve_tags(f->ctx, f->ntags), failed = -1, failed_code = MPI_SUCCESS, k = 0;
  MPI_Comm comm = f->slots.comm;
  MPI_Request *requests = f->slots.requests;
  for (; k < f->nrecv; k++) {
    const nhood_flat_op *op = &f->flat[k];
    int code = MPI_Irecv(op->buf, op->count, op->type, op->peer, tag_base + op->tag, comm, &requests[k]);
    if (code != MPI_SUCCESS) nhood_flat_round_post_failed(&requests[k], k, code, &failed, &failed_code);
  }
  for (MPI_Request *slot = &requests[k]; k < f->n; k++) {
    const nhood_flat_op *op = &f->flat[k];
    int code = op->eager ? MPI_Send(op->buf, op->count, op->type, op->peer, tag_base + op->tag, comm)
                         : MPI_Isend(op->buf, op->count, op->type, op->peer, tag_base + op->tag, comm, slot++);
    if (code != MPI_SUCCESS) nhood_flat_round_post_failed(op->eager ? NULL : slot - 1, k, code, &failed, &failed_code);
  }
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_begin();
  int code = MPI_Waitall(f->nslots, requests, f->slots.statuses);
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_end();
  if (code == MPI_SUCCESS && failed < 0 && local_code == MPI_SUCCESS) return MPI_SUCCESS;
  return nhood_flat_round_failed(f, failed, failed_code, code, local_code, local_error);
}

#endif
