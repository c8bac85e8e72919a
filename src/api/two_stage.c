/* Two-stage requests (api/request.h): a size pass, then the data schedule built from it. */
#include <stdlib.h>
#include <string.h>

#include "api/request.h"
#include "common/errors.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"
#include "topology/topology.h"

struct nhood_two_stage {
  struct nhood_topo topo;   /* what the builders read: degrees, lists (owned), pattern (retained) */
  nhood_coll_args args;     /* arrays owned; derived datatypes duplicated (dups) */
  void *arrays[6];
  MPI_Datatype *dups;
  int ndups;
  nhood_sched pass;
  int *own_sizes;           /* the pass's send buffer */
  void *pass_scratch;       /* what the pass received: the sizes the data schedule is built from */
  nhood_mpi_transport_ctx pass_transport;
  nhood_exec pass_exec;
  int borrowed;             /* a blocking call: lists and arguments are the caller's (no copies) */
  int in_pass;              /* the pass is running */
  int built;                /* req->sched is the data schedule */
};

static int copy_array(struct nhood_two_stage *ts, int k, const void *src, size_t bytes, const void **dst) {
  *dst = NULL;
  if (src == NULL) return MPI_SUCCESS;
  if (!(ts->arrays[k] = malloc(bytes ? bytes : 1))) return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  memcpy(ts->arrays[k], src, bytes);
  *dst = ts->arrays[k];
  return MPI_SUCCESS;
}

/* Replaces *type by a duplicate the request owns when it is a derived datatype. */
static int own_type(struct nhood_two_stage *ts, MPI_Datatype *type, int capacity) {
  int rc = MPI_SUCCESS, nints, naddrs, ntypes, combiner;
  if (*type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Type_get_envelope(*type, &nints, &naddrs, &ntypes, &combiner));
  if (combiner == MPI_COMBINER_NAMED) return MPI_SUCCESS;
  if (!ts->dups && !(ts->dups = malloc(sizeof *ts->dups * (size_t)capacity)))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for datatypes");
  NHOOD_MPI_CALL(MPI_Type_dup(*type, &ts->dups[ts->ndups]));
  *type = ts->dups[ts->ndups++];
cleanup:
  return rc;
}

static int own_args(struct nhood_two_stage *ts, const nhood_coll_args *a, int indeg, int outdeg) {
  int rc = MPI_SUCCESS;
  size_t in = (size_t)indeg, out = (size_t)outdeg;
  nhood_coll_args *c = &ts->args;
  *c = *a;
  NHOOD_TRY(copy_array(ts, 0, a->sendcounts, sizeof(int) * out, (const void **)&c->sendcounts));
  NHOOD_TRY(copy_array(ts, 1, a->sdispls, sizeof(int) * out, (const void **)&c->sdispls));
  NHOOD_TRY(copy_array(ts, 2, a->sdispls_bytes, sizeof(MPI_Aint) * out, (const void **)&c->sdispls_bytes));
  NHOOD_TRY(copy_array(ts, 3, a->recvcounts, sizeof(int) * in, (const void **)&c->recvcounts));
  NHOOD_TRY(copy_array(ts, 4, a->rdispls, sizeof(int) * in, (const void **)&c->rdispls));
  NHOOD_TRY(copy_array(ts, 5, a->rdispls_bytes, sizeof(MPI_Aint) * in, (const void **)&c->rdispls_bytes));
  /* The type arrays are copied with room to replace their derived entries. */
  MPI_Datatype *sendtypes = NULL, *recvtypes = NULL;
  if (a->sendtypes && !(c->sendtypes = sendtypes = malloc(sizeof *sendtypes * (out + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  if (a->recvtypes && !(c->recvtypes = recvtypes = malloc(sizeof *recvtypes * (in + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  int capacity = 2 + (sendtypes ? outdeg : 0) + (recvtypes ? indeg : 0);
  NHOOD_TRY(own_type(ts, &c->sendtype, capacity));
  NHOOD_TRY(own_type(ts, &c->recvtype, capacity));
  for (int j = 0; sendtypes && j < outdeg; j++) {
    sendtypes[j] = a->sendtypes[j];
    NHOOD_TRY(own_type(ts, &sendtypes[j], capacity));
  }
  for (int i = 0; recvtypes && i < indeg; i++) {
    recvtypes[i] = a->recvtypes[i];
    NHOOD_TRY(own_type(ts, &recvtypes[i], capacity));
  }
cleanup:
  return rc;
}

static int snapshot_topology(struct nhood_two_stage *ts, NHOOD_Topo topo) {
  struct nhood_topo *t = &ts->topo;
  t->kind = topo->kind;
  t->indegree = topo->indegree;
  t->outdegree = topo->outdegree;
  t->nchannels = 1; /* two-stage calls are never on Cartesian channels (nhood_combine_needs_size_pass) */
  t->max_rank = topo->max_rank;
  t->pattern = topo->pattern;
  nhood_combine_pattern_retain(t->pattern);
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
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (int k = 0; k < ts->ndups && !finalized; k++) MPI_Type_free(&ts->dups[k]);
  free(ts->dups);
  for (int k = 0; k < 6; k++) free(ts->arrays[k]);
  if (!ts->borrowed) {
    free((void *)ts->args.sendtypes);
    free((void *)ts->args.recvtypes);
    free(ts->topo.sources);
    free(ts->topo.destinations);
  }
  nhood_combine_pattern_release(ts->topo.pattern);
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
  if (ts->borrowed) ts->args = *a;
  else NHOOD_TRY(own_args(ts, a, topo->indegree, topo->outdegree));
  NHOOD_TRY(nhood_build_combine_size_pass(&ts->topo, &ts->args, req->ctx->rank, &ts->pass, &ts->own_sizes));
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
  NHOOD_TRY(nhood_build_combine_sized(&ts->topo, &ts->args, req->ctx->rank, ts->pass_scratch, &req->sched));
  if (req->sched.ntags > ts->pass.ntags)
    return nhood_error(MPI_ERR_INTERN, "a data schedule needs more tags than its size pass reserved");
  NHOOD_TRY(nhood_request_prepare_exec(req, ts->args.sendbuf, ts->args.recvbuf));
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
  if (ts && !ts->built) {
    ts->in_pass = 1;
    return nhood_exec_start(&ts->pass_exec, req->tag_base);
  }
  return nhood_exec_start(&req->exec, data_tag_base(req));
}

int nhood_request_progress(struct nhood_request *req, int *done) {
  struct nhood_two_stage *ts = req->two_stage;
  *done = 0;
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
  if (ts && ts->in_pass) {
    int rc = nhood_exec_wait(&ts->pass_exec);
    if (rc == MPI_SUCCESS) rc = finish_pass(req);
    if (rc != MPI_SUCCESS) return rc;
  }
  return nhood_exec_wait(&req->exec);
}
