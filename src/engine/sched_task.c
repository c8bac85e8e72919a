/* Schedule tasks (engine/sched_task.h). */
#include "engine/sched_task.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/hot.h"
#include "engine/engine.h"
#include "engine/flat_round.h"
#include "engine/transport_mpi.h"

typedef struct {
  nhood_task task;
  nhood_sched sched;
  nhood_mpi_transport_ctx transport;
  nhood_exec exec;
  void *scratch;
} sched_task;

NHOOD_HOT static int sched_begin(nhood_task *t, int tag_base) {
  sched_task *k = (sched_task *)t;
  nhood_mpi_transport_ctx_new_run(&k->transport);
  return nhood_exec_start(&k->exec, tag_base);
}

NHOOD_HOT static int sched_run(nhood_task *t, int tag_base) {
  sched_task *k = (sched_task *)t;
  nhood_mpi_transport_ctx_new_run(&k->transport);
  return nhood_exec_run(&k->exec, tag_base);
}

NHOOD_HOT static int sched_progress(nhood_task *t, int *done) {
  return nhood_exec_test(&((sched_task *)t)->exec, done);
}

NHOOD_HOT static int sched_wait(nhood_task *t) { return nhood_exec_wait(&((sched_task *)t)->exec); }

NHOOD_HOT static const nhood_sched *sched_schedule(const nhood_task *t) { return &((const sched_task *)t)->sched; }

static void sched_release(nhood_task *t) {
  sched_task *k = (sched_task *)t;
  nhood_exec_free(&k->exec);
  nhood_mpi_transport_ctx_free(&k->transport);
  nhood_sched_free(&k->sched);
  free(k->scratch);
  free(k);
}

static const nhood_task_ops sched_ops = {
    .begin = sched_begin,
    .progress = sched_progress,
    .wait = sched_wait,
    .run = sched_run,
    .schedule = sched_schedule,
    .rebind = NULL,
    .release = sched_release,
};

int nhood_sched_task_create(nhood_sched *s, MPI_Comm comm, const void *sendbuf, void *recvbuf, nhood_task **task) {
  int rc = MPI_SUCCESS;
  sched_task *k = calloc(1, sizeof *k);
  *task = NULL;
  if (!k) {
    nhood_sched_free(s); /* and empties it */
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  }
  k->task.ops = &sched_ops;
  k->sched = *s;
  memset(s, 0, sizeof *s);
  k->task.ntags = k->sched.ntags;
  if (k->sched.scratch_bytes > 0 && !(k->scratch = malloc((size_t)k->sched.scratch_bytes))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for %lld bytes of scratch", (long long)k->sched.scratch_bytes);
    goto cleanup;
  }
  NHOOD_TRY(nhood_mpi_transport_ctx_init(&k->transport, comm, k->sched.max_comm_per_round));
  nhood_exec_init(&k->exec, &k->sched, &nhood_mpi_transport, &k->transport, sendbuf, recvbuf, k->scratch);
  *task = &k->task;
  return MPI_SUCCESS;
cleanup:
  sched_release(&k->task);
  return rc;
}

const void *nhood_sched_task_scratch(const nhood_task *t) {
  return t->ops == &sched_ops ? ((const sched_task *)t)->scratch : NULL;
}

nhood_flat_round *nhood_sched_task_flatten(const nhood_task *t, nhood_commctx *ctx, const void *sendbuf, void *recvbuf,
                                           const char *call) {
  if (t->ops != &sched_ops || ((const sched_task *)t)->transport.comm != ctx->comm) return NULL;
  return nhood_flat_round_create(&((const sched_task *)t)->sched, ctx, sendbuf, recvbuf, call);
}
