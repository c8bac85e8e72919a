#include "api/first_use.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/topologies.h"
#include "common/errors.h"
#include "engine/native_mpi.h"
#include "pattern/combine.h"
#include "pattern/node.h"
#include "schedule/algorithms.h"
#include "selection/measured.h"
#include "selection/tune.h"
#include "topology/grid.h"

/* The cost model's verdict for one collective: predicted times, maximum over processes. */
typedef struct decision {
  int fixed_class;                         /* >= 0: every call uses this class (see nhood_auto_resolve) */
  double fixed_bytes;                      /* the block size that class came from, for the tuning rules */
  nhood_trial *trials[NHOOD_SIZE_CLASSES]; /* of blocking calls, per class; NULL: none yet */
  double costs[];                          /* nhood_algorithm_count() x NHOOD_SIZE_CLASSES for calls, then as many for a
                                              persistent request's starts (a v collective's size pass left out) */
} decision;

/* The entries of one table of a decision's costs. */
static size_t table_entries(void) { return (size_t)nhood_algorithm_count() * NHOOD_SIZE_CLASSES; }

static void free_decision(decision *d) {
  if (d == NULL) return;
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) free(d->trials[c]);
  free(d);
}

struct nhood_first_use {
  nhood_commctx *owner;                 /* retained */
  int grid_searched;                    /* the search for a grid under a graph ran */
  nhood_grid_view *grid;                /* what it found; NULL: none */
  nhood_native_graph *graph;            /* for "mpi"; NULL until needed; requests retain it */
  signed char native_ok[NHOOD_NCOLLS];  /* -1: not agreed yet */
  decision *decisions[NHOOD_NCOLLS][2]; /* [kind][isomorphic_sizes] */
  nhood_nodes nodes;                    /* nodes of NHOOD_INFO_RANKS_PER_NODE (nodes.per_node > 0 once set) */
};

static void drop_decisions(struct nhood_first_use *state) {
  for (int k = 0; k < NHOOD_NCOLLS; k++)
    for (int iso = 0; iso < 2; iso++) {
      free_decision(state->decisions[k][iso]);
      state->decisions[k][iso] = NULL;
    }
}

static void free_state(void *value) {
  struct nhood_first_use *state = value;
  if (state == NULL) return;
  drop_decisions(state);
  nhood_grid_view_free(state->grid);
  nhood_native_graph_release(state->graph);
  if (state->owner) nhood_commctx_release(state->owner);
  nhood_nodes_free(&state->nodes);
  free(state);
}

/* What a topology learned lives on it, freed with it. */
static nhood_topo_key state_key = NHOOD_TOPO_KEY("first-use state", free_state);

/* topo's state on ctx: on a context it has not seen last, everything it learned starts over
 * (requests on the old graph communicator hold references of their own). */
static int state_of(NHOOD_Topo topo, nhood_commctx *ctx, struct nhood_first_use **out) {
  struct nhood_first_use *s = nhood_topo_attr(topo, &state_key);
  if (s == NULL) {
    int rc = MPI_SUCCESS;
    if (!(s = calloc(1, sizeof *s))) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a topology's state");
    if ((rc = nhood_topo_attr_set(topo, &state_key, s)) != MPI_SUCCESS) {
      free(s);
      return rc;
    }
  }
  if (s->owner != ctx) {
    nhood_native_graph_release(s->graph);
    s->graph = NULL;
    drop_decisions(s);
    nhood_grid_view_free(s->grid);
    s->grid = NULL;
    s->grid_searched = 0;
    memset(s->native_ok, -1, sizeof s->native_ok);
    if (s->owner) nhood_commctx_release(s->owner);
    nhood_commctx_retain(ctx);
    s->owner = ctx;
  }
  *out = s;
  return MPI_SUCCESS;
}

/* The parameters "auto" and combine's depth choice use on ctx (selection/cost.h), chosen once
 * per communicator (tried again after a failure): the placement the first time
 * (collectively), then the files. On an error *out stays NULL where the placement failed,
 * else points at the defaults. */
static int params_of(nhood_commctx *ctx, const nhood_cost_params **out) {
  const nhood_placement *where = NULL;
  int rc = MPI_SUCCESS;
  *out = NULL;
  if (!ctx->params_known) {
    NHOOD_TRY(nhood_commctx_placement(ctx, &where));
    nhood_cost_params_default(&ctx->params);
    rc = nhood_cost_params_for(where, ctx->size, &ctx->params);
    ctx->params_known = rc == MPI_SUCCESS;
  }
  *out = &ctx->params;
cleanup:
  return rc;
}

int nhood_nodes_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_nodes **nodes) {
  int rc = MPI_SUCCESS;
  struct nhood_first_use *s = NULL;
  if (topo->ranks_per_node <= 0) return nhood_commctx_nodes(ctx, nodes);
  NHOOD_TRY(state_of(topo, ctx, &s));
  if (s->nodes.per_node == 0) nhood_nodes_blocks(&s->nodes, ctx->size, topo->ranks_per_node);
  *nodes = &s->nodes;
cleanup:
  return rc;
}

int nhood_ensure_pattern(NHOOD_Topo topo, nhood_commctx *ctx, nhood_pattern_kind *kind) {
  const nhood_commctx *owner = NULL;
  if (kind == NULL || (nhood_pattern_of(topo, kind, &owner) != NULL && owner == ctx)) return MPI_SUCCESS;
  nhood_phase1_env env = {.comm = ctx->comm};
  int rc = MPI_SUCCESS;
  if (kind->needs & NHOOD_PHASE1_COST) {
    /* A parameter file that cannot be read leaves the defaults here; "auto" reports it. */
    rc = params_of(ctx, &env.cost);
    if (env.cost == NULL) return rc; /* the placement could not be found */
  }
  if (kind->needs & NHOOD_PHASE1_NODES) NHOOD_TRY(nhood_nodes_for(topo, ctx, &env.nodes));
  env.tag = nhood_commctx_reserve_tags(ctx, 1);
  nhood_combine_pattern *pattern = calloc(1, sizeof *pattern);
  if (!pattern) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a forwarding pattern");
  if ((rc = kind->build_mpi(kind, &env, topo, pattern)) != MPI_SUCCESS) {
    free(pattern);
    return rc;
  }
  if ((rc = nhood_pattern_attach(topo, kind, pattern, ctx)) != MPI_SUCCESS) nhood_combine_pattern_release(pattern);
cleanup:
  return rc;
}

/* NHOOD_GRID=off turns the search off (read at each search: it runs once per topology and
 * communicator). */
static int grid_search_off(void) {
  const char *v = getenv("NHOOD_GRID");
  return v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0);
}

/* The search of topology/grid.h over the communicator: three allreduces, the last two only
 * where a grid can pay. The communicator's own Cartesian grid, where it has one, is the only
 * candidate. */
static int search_grid(NHOOD_Topo topo, nhood_commctx *ctx, nhood_grid_view **out) {
  int rc = MPI_SUCCESS, status = MPI_UNDEFINED, ndims = 0, dims[NHOOD_GRID_MAX_DIMS];
  uint64_t ok = 0, all = 0;
  int *v = NULL, *h = NULL;
  nhood_grid_search s = {0};
  *out = NULL;
  if (topo->kind != NHOOD_TOPO_ADJACENT || ctx->size < 4 || grid_search_off()) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Topo_test(ctx->comm, &status));
  if (status == MPI_CART) {
    int periods[NHOOD_GRID_MAX_DIMS], coords[NHOOD_GRID_MAX_DIMS];
    NHOOD_MPI_CALL(MPI_Cartdim_get(ctx->comm, &ndims));
    if (ndims == 0 || ndims > NHOOD_GRID_MAX_DIMS) return MPI_SUCCESS; /* the same everywhere: no search */
    NHOOD_MPI_CALL(MPI_Cart_get(ctx->comm, ndims, dims, periods, coords));
  }
  NHOOD_TRY(nhood_grid_search_init(ctx->size, ndims, dims, &s));
  size_t n = nhood_grid_screen_len(&s);
  if (!(v = malloc(sizeof(int) * n))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory searching for the grid of a graph");
    goto cleanup;
  }
  nhood_grid_screen(topo, ctx->rank, &s, v);
  NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT, MPI_MAX, ctx->comm));
  if ((n = nhood_grid_plan(&s, v)) == 0) goto cleanup;
  if (!(h = calloc(n, sizeof(int)))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory searching for the grid of a graph");
    goto cleanup;
  }
  nhood_grid_histogram(topo, ctx->rank, &s, h);
  NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, h, (int)n, MPI_INT, MPI_MAX, ctx->comm));
  ok = nhood_grid_verify(topo, ctx->rank, &s, h);
  NHOOD_MPI_CALL(MPI_Allreduce(&ok, &all, 1, MPI_UINT64_T, MPI_BAND, ctx->comm));
  if (all) NHOOD_TRY(nhood_grid_view_create(topo, ctx->rank, &s, h, all, out));
cleanup:
  free(v);
  free(h);
  nhood_grid_search_free(&s);
  return rc;
}

int nhood_grid_of(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_grid_view **view) {
  int rc = MPI_SUCCESS;
  struct nhood_first_use *s = NULL;
  *view = NULL;
  if (topo->kind != NHOOD_TOPO_ADJACENT) return MPI_SUCCESS;
  NHOOD_TRY(state_of(topo, ctx, &s));
  if (!s->grid_searched) {
    NHOOD_TRY(search_grid(topo, ctx, &s->grid));
    s->grid_searched = 1;
  }
  *view = s->grid;
cleanup:
  return rc;
}

int nhood_grid_topo_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_algorithm *alg, nhood_coll_args *a,
                        NHOOD_Topo *on) {
  int rc = MPI_SUCCESS;
  const nhood_grid_view *grid = NULL;
  *on = topo;
  if (!alg->needs_grid) return MPI_SUCCESS;
  NHOOD_TRY(nhood_grid_of(topo, ctx, &grid));
  if (grid) {
    *on = grid->topo;
    a->send_slot = grid->send_slot;
    a->recv_slot = grid->recv_slot;
  }
cleanup:
  return rc;
}

/* The decision for a's collective: predicted locally, maximised over processes in one
 * allreduce that also carries the block-size class (as max and -min), the largest block and
 * a failure flag, so that a process that cannot predict fails the call everywhere. */
static int decide(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, decision **out) {
  int rc = MPI_SUCCESS, local_rc = MPI_SUCCESS;
  size_t ntable = table_entries(), ncosts = 2 * ntable, n = ncosts + 4;
  const nhood_cost_params *params = NULL;
  decision *d = NULL;
  double *v = calloc(n, sizeof *v);
  if (!v) return nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
  const nhood_grid_view *grid = NULL;
  const nhood_nodes *nodes = NULL;
  double *nic = NULL;
  MPI_Comm node_comm = MPI_COMM_NULL;
  for (int k = 0; k < nhood_algorithm_count(); k++) /* the patterns auto prices, in the registry's order */
    NHOOD_TRY(nhood_ensure_pattern(topo, ctx, nhood_algorithm_at(k)->pattern));
  NHOOD_TRY(nhood_nodes_for(topo, ctx, &nodes));
  NHOOD_TRY(nhood_grid_of(topo, ctx, &grid));
  local_rc = params_of(ctx, &params);
  if (params == NULL) NHOOD_TRY(local_rc); /* the placement could not be found */
  /* Two levels where the processes span nodes and their interfaces have a cost: each node's
   * interface load, summed over its processes, bounds every algorithm's time there. */
  int nic_bound = nodes->nnodes > 1 && (params->nic_o > 0 || params->nic_G > 0);
  if (nic_bound && !(nic = calloc(4 * (size_t)nhood_algorithm_count(), sizeof *nic))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
    goto cleanup;
  }
  if (local_rc == MPI_SUCCESS)
    local_rc = nhood_auto_costs(topo, grid ? grid->topo : NULL, a->kind, a->isomorphic_sizes, ctx->rank, params, nodes,
                                v, v + ntable, nic);
  if (nic_bound) {
    NHOOD_MPI_CALL(MPI_Comm_split(ctx->comm, nhood_node_of(nodes, ctx->rank), ctx->rank, &node_comm));
    NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, nic, 4 * nhood_algorithm_count(), MPI_DOUBLE, MPI_SUM, node_comm));
    if (local_rc == MPI_SUCCESS) {
      nhood_auto_add_nic(params, nic, v);
      nhood_auto_add_nic(params, nic, v + ntable);
    }
  }
  double bytes = nhood_call_block_bytes(a, topo);
  int cls = nhood_size_class(bytes);
  v[ncosts] = cls;
  v[ncosts + 1] = -cls;
  v[ncosts + 2] = bytes;
  v[ncosts + 3] = local_rc != MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, ctx->comm));
  if (local_rc != MPI_SUCCESS) {
    rc = local_rc; /* its message is already recorded */
    goto cleanup;
  }
  if (v[ncosts + 3] > 0) {
    rc = nhood_error(MPI_ERR_OTHER, "another process could not predict the algorithms' costs (see its error)");
    goto cleanup;
  }
  if (!(d = calloc(1, sizeof *d + ncosts * sizeof(double)))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for a decision table");
    goto cleanup;
  }
  int varies =
      (a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW || a->kind == NHOOD_ALLGATHERV) && !a->isomorphic_sizes;
  d->fixed_class = varies || v[ncosts] != -v[ncosts + 1] ? (int)v[ncosts] : -1;
  d->fixed_bytes = v[ncosts + 2];
  memcpy(d->costs, v, ncosts * sizeof(double));
  *out = d;
cleanup:
  if (node_comm != MPI_COMM_NULL) MPI_Comm_free(&node_comm);
  free(nic);
  free(v);
  return rc;
}

/* The first tuning rule that names an algorithm for this call: the call's info, the
 * topology's, then NHOOD_TUNE. "" when none does. The call's info is parsed here (it comes
 * with persistent init); the topology's rules were parsed at its creation, and NHOOD_TUNE's
 * are parsed again only when the variable changes. */
static int tuned_algorithm(NHOOD_Topo topo, MPI_Info info, nhood_coll_kind kind, double bytes, char *name) {
  int rc = MPI_SUCCESS, flag = 0;
  name[0] = '\0';
  if (info != MPI_INFO_NULL) {
    char rules[MPI_MAX_INFO_VAL + 1];
    NHOOD_MPI_CALL(MPI_Info_get(info, NHOOD_INFO_TUNE, MPI_MAX_INFO_VAL, rules, &flag));
    if (flag) NHOOD_TRY(nhood_tune_lookup(rules, "info key " NHOOD_INFO_TUNE, kind, bytes, name));
  }
  const char *algo = name[0] == '\0' ? nhood_tune_match(nhood_topo_tune_rules(topo), kind, bytes) : NULL;
  if (algo) snprintf(name, NHOOD_ALGORITHM_NAME_MAX, "%s", algo);
  if (name[0] == '\0') NHOOD_TRY(nhood_tune_env_match(kind, bytes, name));
  if (strcmp(name, "auto") == 0) name[0] = '\0';
cleanup:
  return rc;
}

int nhood_auto_resolve(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, MPI_Info info, nhood_mode mode,
                       const nhood_algorithm **alg, nhood_auto_how *how) {
  int rc = MPI_SUCCESS;
  struct nhood_first_use *s = NULL;
  char name[NHOOD_ALGORITHM_NAME_MAX];
  const nhood_algorithm *list[NHOOD_SHORTLIST_MAX];
  int persistent = mode == NHOOD_PERSISTENT;
  how->trial = NULL;
  how->by = NHOOD_CHOSEN_BY_MODEL;
  NHOOD_TRY(state_of(topo, ctx, &s));
  decision **d = &s->decisions[a->kind][a->isomorphic_sizes != 0];
  if (*d == NULL) {
    NHOOD_TRY(decide(topo, ctx, a, d));
    /* "mpi"'s cost is finite where it can run on every process. */
    for (int k = 0; k < nhood_algorithm_count(); k++)
      if (nhood_algorithm_at(k)->native && s->native_ok[a->kind] < 0)
        s->native_ok[a->kind] = isfinite((*d)->costs[(size_t)k * NHOOD_SIZE_CLASSES]);
  }
  double bytes = (*d)->fixed_class >= 0 ? (*d)->fixed_bytes : nhood_call_block_bytes(a, topo);
  int cls = (*d)->fixed_class >= 0 ? (*d)->fixed_class : nhood_size_class(bytes);
  NHOOD_TRY(tuned_algorithm(topo, info, a->kind, bytes, name));
  if (name[0]) {
    *alg = nhood_algorithm_by_name(name);
    how->by = NHOOD_CHOSEN_BY_RULE;
    return MPI_SUCCESS;
  }
  /* The margin of the parameters the table was priced with (decide chose them on ctx). */
  const double *costs = (*d)->costs + (persistent ? table_entries() : 0);
  int n = nhood_auto_shortlist(costs, cls, persistent, ctx->params.margin, list);
  *alg = list[0];
  if (mode == NHOOD_NONBLOCKING || n == 1 || nhood_trial_rounds() == 0) return MPI_SUCCESS;
  if (persistent) { /* the request's own trial (api/collectives.c builds its task) */
    nhood_trial_init(&how->fresh, list, n, nhood_trial_rounds());
    how->trial = &how->fresh;
    how->shown = &how->fresh;
    how->by = NHOOD_CHOSEN_BY_TRIAL;
    return MPI_SUCCESS;
  }
  nhood_trial **tr = &(*d)->trials[cls];
  if (*tr == NULL) {
    if (!(*tr = malloc(sizeof **tr))) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a trial");
    nhood_trial_init(*tr, list, n, nhood_trial_rounds());
  }
  *alg = (*tr)->cand[nhood_trial_next(*tr)];
  how->by = NHOOD_CHOSEN_BY_TRIAL;
  if ((*tr)->winner < 0) how->trial = *tr;
  how->shown = *tr;
cleanup:
  return rc;
}

int nhood_auto_trial_record(nhood_trial *trial, nhood_commctx *ctx, double seconds) {
  nhood_trial_record(trial, seconds);
  return nhood_trial_due(trial) ? nhood_trial_agree(trial, ctx->comm) : MPI_SUCCESS;
}

int nhood_native_prepare(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, int persistent,
                         const nhood_algorithm *alg, const char **why_not, nhood_native_graph **graph) {
  int rc = MPI_SUCCESS;
  struct nhood_first_use *s = NULL;
  *why_not = NULL;
  if (!alg->native) return MPI_SUCCESS;
  if (persistent && !nhood_native_persistent_supported()) {
    *why_not = "this MPI library has no persistent neighborhood collectives";
    return MPI_SUCCESS;
  }
  NHOOD_TRY(state_of(topo, ctx, &s));
  if (s->native_ok[a->kind] < 0) {
    int ok = nhood_native_applies_locally(topo, a->kind), all = 0;
    NHOOD_MPI_CALL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, ctx->comm));
    s->native_ok[a->kind] = (signed char)all;
  }
  if (!s->native_ok[a->kind]) {
    *why_not = "MPI's own cannot run it on every process (see the registry's reasons)";
    return MPI_SUCCESS;
  }
  if (s->graph == NULL) NHOOD_TRY(nhood_native_graph_create(ctx->comm, topo, &s->graph));
  *graph = s->graph;
cleanup:
  return rc;
}
