/* Two-stage tasks (api/two_stage.h): a size pass, then the data schedule built from it. */
#include "selection/families/two_stage.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "engine/owned_args.h"
#include "engine/sched_task.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"
#include "topology/topology.h"

/* What the data schedule is built from, besides the pass's result. */
typedef struct {
  struct nhood_topo topo;                /* what the builders read: degrees, lists (owned) */
  struct nhood_combine_pattern *pattern; /* retained */
  nhood_owned_args owned;                /* the arguments: copies, unless borrowed */
  int *own_sizes;                        /* the pass's send buffer */
  MPI_Comm comm;
  int rank;
  int borrowed; /* a blocking call: lists and arguments are the caller's (no copies) */
} two_stage;

static int snapshot_topology(two_stage *ts, NHOOD_Topo topo, nhood_pattern_kind *kind) {
  struct nhood_topo *t = &ts->topo;
  t->kind = topo->kind;
  t->indegree = topo->indegree;
  t->outdegree = topo->outdegree;
  t->nchannels = 1; /* two-stage calls are never on Cartesian channels (nhood_forwarding_needs_size_pass) */
  t->max_rank = topo->max_rank;
  ts->pattern = nhood_pattern_of(topo, kind, NULL);
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

static void free_two_stage(void *p) {
  two_stage *ts = p;
  if (!ts) return;
  if (!ts->borrowed) {
    nhood_owned_args_free(&ts->owned);
    free(ts->topo.sources);
    free(ts->topo.destinations);
  }
  nhood_combine_pattern_release(ts->pattern);
  free(ts->own_sizes);
  free(ts);
}

/* The chain's dependency handler: the pass completed, its scratch holds the sizes. */
static int build_data(void *user, nhood_task *pass, nhood_task **data) {
  two_stage *ts = user;
  int rc = MPI_SUCCESS;
  nhood_sched s;
  memset(&s, 0, sizeof s);
  NHOOD_TRY(
      nhood_build_combine_sized(&ts->topo, ts->pattern, &ts->owned.args, ts->rank, nhood_sched_task_scratch(pass), &s));
  return nhood_sched_task_create(&s, ts->comm, ts->owned.args.sendbuf, ts->owned.args.recvbuf, data);
cleanup:
  nhood_sched_free(&s);
  return rc;
}

int nhood_two_stage_create(NHOOD_Topo topo, nhood_pattern_kind *kind, const nhood_coll_args *a,
                           const nhood_commctx *ctx, nhood_mode mode, nhood_task **task) {
  int rc = MPI_SUCCESS;
  nhood_sched s;
  nhood_task *pass = NULL;
  two_stage *ts = calloc(1, sizeof *ts);
  memset(&s, 0, sizeof s);
  *task = NULL;
  if (!ts) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  ts->comm = ctx->comm;
  ts->rank = ctx->rank;
  /* A blocking call completes before it returns, so it reads the caller's lists and
   * arguments in place; the others keep copies. */
  ts->borrowed = mode == NHOOD_BLOCKING;
  NHOOD_TRY(snapshot_topology(ts, topo, kind));
  if (ts->borrowed)
    ts->owned.args = *a;
  else
    NHOOD_TRY(nhood_owned_args_init(&ts->owned, a, topo->indegree, topo->outdegree));
  NHOOD_TRY(nhood_build_combine_size_pass(&ts->topo, ts->pattern, &ts->owned.args, ts->rank, &s, &ts->own_sizes));
  NHOOD_TRY(nhood_sched_task_create(&s, ts->comm, ts->own_sizes, NULL, &pass));
  return nhood_chain_create(pass, pass->ntags, build_data, ts, free_two_stage, task);
cleanup:
  nhood_sched_free(&s);
  free_two_stage(ts);
  return rc;
}
