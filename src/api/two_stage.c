/* Two-stage requests (api/request.h): a size pass, then the data schedule built from it. */
#include <stdlib.h>
#include <string.h>

#include "api/owned_args.h"
#include "api/request.h"
#include "engine/native_mpi.h"
#include "common/errors.h"
#include "common/mpi_util.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"
#include "topology/topology.h"

struct nhood_two_stage {
  struct nhood_topo topo;                /* what the builders read: degrees, lists (owned) */
  struct nhood_combine_pattern *pattern; /* retained */
  nhood_owned_args owned;                /* the arguments: copies, unless borrowed */
  nhood_sched pass;
  int *own_sizes;     /* the pass's send buffer */
  void *pass_scratch; /* what the pass received: the sizes the data schedule is built from */
  nhood_mpi_transport_ctx pass_transport;
  nhood_exec pass_exec;
  int borrowed; /* a blocking call: lists and arguments are the caller's (no copies) */
  int in_pass;  /* the pass is running */
  int built;    /* req->sched is the data schedule */
};

static int snapshot_topology(struct nhood_two_stage *ts, NHOOD_Topo topo) {
  struct nhood_topo *t = &ts->topo;
  t->kind = topo->kind;
  t->indegree = topo->indegree;
  t->outdegree = topo->outdegree;
  t->nchannels = 1; /* two-stage calls are never on Cartesian channels (nhood_combine_needs_size_pass) */
  t->max_rank = topo->max_rank;
  ts->pattern = nhood_combine_pattern_of(topo, NULL);
  nhood_combine_pattern_retain(ts->pattern);
  if (ts->borrowed) {
    t->sources = topo->sources;
    t->destinations = topo->destinations;
    return MPI_SUCCESS;
  }
  t->sources = malloc(sizeof(int) * (size_t)(topo->indegree + 1));
  t->destinations = malloc(sizeof(int) * (size_t)(topo->outdegree + 1));
  if (!t->sources || !t->destinations) return nhood_error(MPI_ERR_NO_MEM, "out of memory copying a topology");
  memcpy(t->sources, topo->sources, sizeof(int) * (size_t)topo->indegree);
  memcpy(t->destinations, topo->destinations, sizeof(int) * (size_t)topo->outdegree);
  return MPI_SUCCESS;
}

void nhood_two_stage_free(struct nhood_two_stage *ts) {
  if (!ts) return;
  if (!ts->borrowed) {
    nhood_owned_args_free(&ts->owned);
    free(ts->topo.sources);
    free(ts->topo.destinations);
  }
  nhood_combine_pattern_release(ts->pattern);
  nhood_exec_free(&ts->pass_exec);
  nhood_mpi_transport_ctx_free(&ts->pass_transport);
  nhood_sched_free(&ts->pass);
  free(ts->own_sizes);
  free(ts->pass_scratch);
  free(ts);
}

int nhood_two_stage_init(struct nhood_request *req, NHOOD_Topo topo, const nhood_coll_args *a) {
  int rc = MPI_SUCCESS;
  struct nhood_two_stage *ts = calloc(1, sizeof *ts);
  if (!ts) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  req->two_stage = ts;
  /* A blocking call completes before it returns, so it reads the caller's lists and
   * arguments in place; the others keep copies. */
  ts->borrowed = req->mode == NHOOD_BLOCKING;
  NHOOD_TRY(snapshot_topology(ts, topo));
  if (ts->borrowed)
    ts->owned.args = *a;
  else
    NHOOD_TRY(nhood_owned_args_init(&ts->owned, a, topo->indegree, topo->outdegree));
  NHOOD_TRY(nhood_build_combine_size_pass(&ts->topo, ts->pattern, &ts->owned.args, req->ctx->rank, &ts->pass,
                                          &ts->own_sizes));
  if (ts->pass.scratch_bytes > 0 && !(ts->pass_scratch = malloc((size_t)ts->pass.scratch_bytes)))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for a size pass");
  NHOOD_TRY(nhood_mpi_transport_ctx_init(&ts->pass_transport, req->ctx->comm, ts->pass.max_comm_per_round));
  nhood_exec_init(&ts->pass_exec, &ts->pass, &nhood_mpi_transport, &ts->pass_transport, ts->own_sizes, NULL,
                  ts->pass_scratch);
cleanup:
  return rc; /* on failure the caller releases req, and with it ts */
}

int nhood_request_ntags(const struct nhood_request *req) {
  /* The data schedule of a two-stage request takes as many tags as its pass (finish_pass checks). */
  return req->two_stage ? 2 * req->two_stage->pass.ntags : req->sched.ntags;
}

const nhood_sched *nhood_request_schedule(const struct nhood_request *req) {
  return req->two_stage && !req->two_stage->built ? &req->two_stage->pass : &req->sched;
}

static int data_tag_base(const struct nhood_request *req) {
  return req->tag_base + (req->two_stage ? req->two_stage->pass.ntags : 0);
}

/* The pass completed: build the data schedule from its result and start it. */
static int finish_pass(struct nhood_request *req) {
  struct nhood_two_stage *ts = req->two_stage;
  int rc = MPI_SUCCESS;
  ts->in_pass = 0;
  NHOOD_TRY(nhood_build_combine_sized(&ts->topo, ts->pattern, &ts->owned.args, req->ctx->rank, ts->pass_scratch,
                                      &req->sched));
  if (req->sched.ntags > ts->pass.ntags)
    return nhood_error(MPI_ERR_INTERN, "a data schedule needs more tags than its size pass reserved");
  NHOOD_TRY(nhood_request_prepare_exec(req, ts->owned.args.sendbuf, ts->owned.args.recvbuf));
  ts->built = 1;
  NHOOD_TRY(nhood_exec_start(&req->exec, data_tag_base(req)));
  return MPI_SUCCESS;
cleanup:
  if (!ts->built) { /* a persistent request may be started again: leave it as before */
    nhood_mpi_transport_ctx_free(&req->transport);
    nhood_sched_free(&req->sched);
    free(req->scratch);
    req->scratch = NULL;
  }
  return rc;
}

int nhood_request_begin(struct nhood_request *req) {
  struct nhood_two_stage *ts = req->two_stage;
  if (req->native) {
    if (req->mode == NHOOD_PERSISTENT) {
      nhood_errors_return_begin();
      int code = MPI_Start(&req->native_request);
      nhood_errors_return_end();
      return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, "MPI_Start");
    }
    return nhood_native_call(&req->args.args, req->graph->comm, NHOOD_NATIVE_START, &req->native_request);
  }
  if (ts && !ts->built) {
    ts->in_pass = 1;
    return nhood_exec_start(&ts->pass_exec, req->tag_base);
  }
  return nhood_exec_start(&req->exec, data_tag_base(req));
}

int nhood_request_progress(struct nhood_request *req, int *done) {
  struct nhood_two_stage *ts = req->two_stage;
  *done = 0;
  if (req->native) {
    nhood_errors_return_begin(); /* MPI's error handlers: common/mpi_util.h */
    int code = MPI_Test(&req->native_request, done, MPI_STATUS_IGNORE);
    nhood_errors_return_end();
    return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, "MPI_Test");
  }
  if (ts && ts->in_pass) {
    int rc = nhood_exec_test(&ts->pass_exec, done);
    if (rc != MPI_SUCCESS || !*done) {
      *done = 0;
      return rc;
    }
    if ((rc = finish_pass(req)) != MPI_SUCCESS) return rc;
  }
  return nhood_exec_test(&req->exec, done);
}

int nhood_request_wait(struct nhood_request *req) {
  struct nhood_two_stage *ts = req->two_stage;
  if (req->native) {
    nhood_errors_return_begin();
    int code = MPI_Wait(&req->native_request, MPI_STATUS_IGNORE);
    nhood_errors_return_end();
    return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, "MPI_Wait");
  }
  if (ts && ts->in_pass) {
    int rc = nhood_exec_wait(&ts->pass_exec);
    if (rc == MPI_SUCCESS) rc = finish_pass(req);
    if (rc != MPI_SUCCESS) return rc;
  }
  return nhood_exec_wait(&req->exec);
}
