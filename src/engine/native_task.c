/* Tasks on MPI's own collectives (engine/native_task.h). */
#include "engine/native_task.h"

#include <stdlib.h>

#include "common/errors.h"
#include "common/hot.h"
#include "common/mpi_util.h"
#include "engine/owned_args.h"

typedef struct {
  nhood_task task;
  nhood_mode mode;
  nhood_native_graph *graph; /* retained */
  MPI_Request request;       /* MPI's: persistent (made at creation) or the running non-blocking one */
  nhood_owned_args args;     /* persistent: copies; otherwise the caller's arguments */
  nhood_sched summary;
} native_task;

NHOOD_HOT static int result(int code, const char *call) {
  return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, call);
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
      nhood_errors_return_begin(); /* MPI's error handlers: common/mpi_util.h */
      int code = MPI_Start(&k->request);
      nhood_errors_return_end();
      return result(code, "MPI_Start");
    }
  }
}

NHOOD_HOT static int native_progress(nhood_task *t, int *done) {
  native_task *k = (native_task *)t;
  *done = 1;
  if (k->mode == NHOOD_BLOCKING) return MPI_SUCCESS; /* begin completed the run */
  *done = 0;
  nhood_errors_return_begin();
  int code = MPI_Test(&k->request, done, MPI_STATUS_IGNORE);
  nhood_errors_return_end();
  if (code != MPI_SUCCESS) *done = 1; /* a failure completes the run */
  return result(code, "MPI_Test");
}

NHOOD_HOT static int native_wait(nhood_task *t) {
  native_task *k = (native_task *)t;
  if (k->mode == NHOOD_BLOCKING) return MPI_SUCCESS;
  nhood_errors_return_begin();
  int code = MPI_Wait(&k->request, MPI_STATUS_IGNORE);
  nhood_errors_return_end();
  return result(code, "MPI_Wait");
}

static const nhood_sched *native_schedule(const nhood_task *t) { return &((const native_task *)t)->summary; }

static void native_rebind(nhood_task *t, const nhood_coll_args *a) {
  native_task *k = (native_task *)t;
  if (k->mode == NHOOD_BLOCKING) k->args.args = *a;
}

static void native_release(nhood_task *t) {
  native_task *k = (native_task *)t;
  if (k->request != MPI_REQUEST_NULL) MPI_Request_free(&k->request);
  if (k->mode == NHOOD_PERSISTENT) nhood_owned_args_free(&k->args);
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
  if (mode == NHOOD_PERSISTENT)
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
