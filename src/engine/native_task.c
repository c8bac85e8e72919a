/* Tasks on MPI's own collectives (engine/native_task.h). */
#include "engine/native_task.h"

#include <stdlib.h>

#include "common/errors.h"
#include "common/hot.h"
#include "common/mpi_util.h"
#include "engine/owned_args.h"

/*
 * A persistent request's completions are where MPI reports a truncated receive, and it
 * reports it to MPI_COMM_WORLD's handler (common/mpi_util.h), so they run inside
 * nhood_errors_return_begin/end. That swap costs four MPI calls and two locks per start and
 * wait, as much as the rest of nhood's route to MPI's own. A persistent request's counts and datatypes are fixed at
 * init, so whether a receive can be truncated is the same at every start: the first start also exchanges every block's
 * size with the neighbors (one MPI_Ineighbor_alltoall on the same graph), and once that has completed, a process where
 * no neighbor sends more than the block it receives starts and completes without the swap. Where one does, the swap
 * stays and every start reports MPI_ERR_TRUNCATE as before. What MPI could still report there is its own failure, which
 * MPI's own request, called directly, reports to the same handler.
 */
typedef enum { SIZES_UNSENT, SIZES_PENDING, SIZES_SETTLED } sizes_state;

typedef struct {
  nhood_task task;
  nhood_mode mode;
  nhood_native_graph *graph; /* retained */
  MPI_Request request;       /* MPI's: persistent (made at creation) or the running non-blocking one */
  nhood_owned_args args;     /* copies where owned; otherwise the caller's arguments */
  int owned;                 /* persistent, or a non-blocking call whose arrays are transient */
  nhood_sched summary;
  /* Whether starts and completions swap MPI's error handlers: always for a non-blocking call;
   * for a persistent request until its exchange of block sizes (above) showed it need not. */
  int indegree, outdegree, swap;
  sizes_state sizes;
  MPI_Request sizes_request;
  long long *sizes_out, *sizes_in;
} native_task;

NHOOD_HOT static int result(int code, const char *call) {
  return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, call);
}

/* The bytes of block i sent (send = 1) or received by this call; -1 where MPI cannot say. */
static long long block_bytes(const nhood_coll_args *a, int send, int i) {
  nhood_region r = send ? nhood_send_block(a, i) : nhood_recv_block(a, i);
  int size = 0;
  if (nhood_type_size(r.type, &size) != MPI_SUCCESS) return -1;
  return (long long)size * r.count;
}

/* At a persistent request's first start: posts the exchange of block sizes. Where that
 * fails, the swap stays. */
static void post_sizes(native_task *k) {
  k->sizes = SIZES_SETTLED;
  size_t n = (size_t)k->outdegree + (size_t)k->indegree;
  if (!(k->sizes_out = malloc((n ? n : 1) * sizeof *k->sizes_out))) return;
  k->sizes_in = k->sizes_out + k->outdegree;
  for (int i = 0; i < k->outdegree; i++)
    if ((k->sizes_out[i] = block_bytes(&k->args.args, 1, i)) < 0) return;
  if (MPI_Ineighbor_alltoall(k->sizes_out, 1, MPI_LONG_LONG, k->sizes_in, 1, MPI_LONG_LONG, k->graph->comm,
                             &k->sizes_request) == MPI_SUCCESS)
    k->sizes = SIZES_PENDING;
}

/* Completes the exchange of sizes (blocking: waits; otherwise tests) and, once complete,
 * turns the swap off where no neighbor sends more than this process receives. Called once a
 * run completed: every neighbor has started the request, so its sizes are on their way. */
static void settle_sizes(native_task *k, int blocking) {
  if (k->sizes != SIZES_PENDING) return;
  int done = 1;
  nhood_errors_return_begin();
  int code =
      blocking ? MPI_Wait(&k->sizes_request, MPI_STATUS_IGNORE) : MPI_Test(&k->sizes_request, &done, MPI_STATUS_IGNORE);
  nhood_errors_return_end();
  if (code == MPI_SUCCESS && !done) return;
  k->sizes = SIZES_SETTLED;
  int fits = code == MPI_SUCCESS;
  for (int i = 0; fits && i < k->indegree; i++) {
    long long expected = block_bytes(&k->args.args, 0, i);
    fits = expected >= 0 && k->sizes_in[i] <= expected;
  }
  if (fits) k->swap = 0;
}

NHOOD_HOT static int native_begin(nhood_task *t, int tag_base) {
  native_task *k = (native_task *)t;
  (void)tag_base; /* MPI's collective tags its own messages */
  switch (k->mode) {
    case NHOOD_BLOCKING:
      return nhood_native_call(&k->args.args, k->graph->comm, NHOOD_NATIVE_BLOCKING, NULL);
    case NHOOD_NONBLOCKING:
      return nhood_native_call(&k->args.args, k->graph->comm, NHOOD_NATIVE_START, &k->request);
    default: {
      if (k->sizes == SIZES_UNSENT) post_sizes(k);
      if (k->swap) nhood_errors_return_begin(); /* MPI's error handlers: above */
      int code = MPI_Start(&k->request);
      if (k->swap) nhood_errors_return_end();
      return result(code, "MPI_Start");
    }
  }
}

NHOOD_HOT static int native_progress(nhood_task *t, int *done) {
  native_task *k = (native_task *)t;
  *done = 1;
  if (k->mode == NHOOD_BLOCKING) return MPI_SUCCESS; /* begin completed the run */
  *done = 0;
  if (k->swap) nhood_errors_return_begin();
  int code = MPI_Test(&k->request, done, MPI_STATUS_IGNORE);
  if (k->swap) nhood_errors_return_end();
  if (code != MPI_SUCCESS) *done = 1; /* a failure completes the run */
  if (*done) settle_sizes(k, 0);
  return result(code, "MPI_Test");
}

NHOOD_HOT static int native_wait(nhood_task *t) {
  native_task *k = (native_task *)t;
  if (k->mode == NHOOD_BLOCKING) return MPI_SUCCESS;
  if (k->swap) nhood_errors_return_begin();
  int code = MPI_Wait(&k->request, MPI_STATUS_IGNORE);
  if (k->swap) nhood_errors_return_end();
  settle_sizes(k, 1);
  return result(code, "MPI_Wait");
}

static const nhood_sched *native_schedule(const nhood_task *t) { return &((const native_task *)t)->summary; }

static void native_rebind(nhood_task *t, const nhood_coll_args *a) {
  native_task *k = (native_task *)t;
  if (k->mode == NHOOD_BLOCKING) k->args.args = *a;
}

static void native_release(nhood_task *t) {
  native_task *k = (native_task *)t;
  settle_sizes(k, 1); /* a collective's request cannot be freed */
  free(k->sizes_out);
  if (k->request != MPI_REQUEST_NULL) MPI_Request_free(&k->request);
  if (k->owned) nhood_owned_args_free(&k->args);
  nhood_native_graph_release(k->graph);
  nhood_sched_free(&k->summary);
  free(k);
}

static const nhood_task_ops native_ops = {
    .begin = native_begin,
    .progress = native_progress,
    .wait = native_wait,
    .schedule = native_schedule,
    .rebind = native_rebind,
    .release = native_release,
};

int nhood_native_task_create(const nhood_coll_args *a, const struct nhood_topo *t, nhood_native_graph *graph,
                             nhood_mode mode, nhood_task **task) {
  int rc = MPI_SUCCESS;
  native_task *k = calloc(1, sizeof *k);
  *task = NULL;
  if (!k) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  k->task.ops = &native_ops;
  k->task.ntags = 0;
  k->mode = mode;
  nhood_native_graph_retain(graph);
  k->graph = graph;
  k->request = MPI_REQUEST_NULL;
  k->indegree = t->indegree;
  k->outdegree = t->outdegree;
  k->swap = 1;
  k->sizes = mode == NHOOD_PERSISTENT ? SIZES_UNSENT : SIZES_SETTLED;
  k->sizes_request = MPI_REQUEST_NULL;
  k->owned = mode == NHOOD_PERSISTENT || (mode == NHOOD_NONBLOCKING && a->transient);
  if (k->owned)
    NHOOD_TRY(nhood_owned_args_init(&k->args, a, t->indegree, t->outdegree));
  else
    k->args.args = *a;
  NHOOD_TRY(nhood_sched_init(&k->summary, "mpi", 0, 0));
  NHOOD_TRY(nhood_sched_finish(&k->summary));
  k->summary.comm_rounds = 1;
  k->summary.nsends = t->outdegree;
  k->summary.nrecvs = t->indegree;
  if (mode == NHOOD_PERSISTENT)
    NHOOD_TRY(nhood_native_call(&k->args.args, graph->comm, NHOOD_NATIVE_INIT, &k->request));
  *task = &k->task;
  return MPI_SUCCESS;
cleanup:
  native_release(&k->task);
  return rc;
}
