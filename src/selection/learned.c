#include "selection/learned.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "engine/native_mpi.h"
#include "pattern/combine.h"
#include "topology/grid.h"

struct learned {
  nhood_commctx *owner;                /* retained (first: nhood_ctx_state) */
  int grid_searched;                   /* the search for a grid under a graph ran */
  nhood_grid_view *grid;               /* what it found; NULL: none */
  nhood_native_graph *graph;           /* for "mpi"; NULL until needed; requests retain it */
  signed char native_ok[NHOOD_NCOLLS]; /* -1: not agreed yet */
  nhood_nodes nodes;                   /* nodes of NHOOD_INFO_RANKS_PER_NODE (nodes.per_node > 0 once set) */
};

int nhood_ctx_state(NHOOD_Topo topo, nhood_topo_key *key, size_t size, nhood_commctx *ctx, void (*reset)(void *),
                    void **out) {
  nhood_commctx **s = nhood_topo_attr(topo, key);
  if (s == NULL) {
    int rc = MPI_SUCCESS;
    if (!(s = calloc(1, size))) return nhood_error(MPI_ERR_NO_MEM, "out of memory for %s", key->name);
    if ((rc = nhood_topo_attr_set(topo, key, s)) != MPI_SUCCESS) {
      free(s);
      return rc;
    }
  }
  if (*s != ctx) {
    reset(s);
    if (*s) nhood_commctx_release(*s);
    nhood_commctx_retain(ctx);
    *s = ctx;
  }
  *out = s;
  return MPI_SUCCESS;
}

void nhood_ctx_state_free(void *state, void (*reset)(void *)) {
  nhood_commctx **s = state;
  if (s == NULL) return;
  reset(s);
  if (*s) nhood_commctx_release(*s);
  free(s);
}

/* What the topology learned on its owner's context (requests on the old graph communicator
 * hold references of their own). The node blocks of NHOOD_INFO_RANKS_PER_NODE stay. */
static void forget(void *value) {
  struct learned *s = value;
  nhood_native_graph_release(s->graph);
  s->graph = NULL;
  nhood_grid_view_free(s->grid);
  s->grid = NULL;
  s->grid_searched = 0;
  memset(s->native_ok, -1, sizeof s->native_ok);
}

static void free_state(void *value) {
  if (value) nhood_nodes_free(&((struct learned *)value)->nodes);
  nhood_ctx_state_free(value, forget);
}

/* What a topology learned lives on it, freed with it. */
static nhood_topo_key state_key = NHOOD_TOPO_KEY("what a topology learned", free_state);

static int state_of(NHOOD_Topo topo, nhood_commctx *ctx, struct learned **out) {
  void *s = NULL;
  int rc = nhood_ctx_state(topo, &state_key, sizeof **out, ctx, forget, &s);
  *out = s;
  return rc;
}

int nhood_cost_params_of(nhood_commctx *ctx, const nhood_cost_params **out) {
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
  struct learned *s = NULL;
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
    rc = nhood_cost_params_of(ctx, &env.cost);
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
  struct learned *s = NULL;
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

int nhood_native_agree(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, int persistent,
                       const char **why_not, nhood_native_graph **graph) {
  int rc = MPI_SUCCESS;
  struct learned *s = NULL;
  *why_not = NULL;
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

int nhood_native_known(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_kind kind, int ok) {
  int rc = MPI_SUCCESS;
  struct learned *s = NULL;
  NHOOD_TRY(state_of(topo, ctx, &s));
  if (s->native_ok[kind] < 0) s->native_ok[kind] = (signed char)(ok != 0);
cleanup:
  return rc;
}

/* The learner's services on a communicator (selection/registry.h). */
static int learn_pattern(nhood_learner *l, nhood_pattern_kind *kind) {
  return nhood_ensure_pattern(l->topo, l->ctx, kind);
}

static int learn_grid(nhood_learner *l) { return nhood_grid_of(l->topo, l->ctx, &l->view); }

nhood_learner nhood_learner_on(NHOOD_Topo topo, nhood_commctx *ctx) {
  return (nhood_learner){.pattern = learn_pattern, .grid = learn_grid, .topo = topo, .ctx = ctx};
}

int nhood_algorithm_prepare(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_args *a, nhood_mode mode,
                            const nhood_algorithm *alg, nhood_ready *r) {
  int rc = MPI_SUCCESS;
  nhood_learner l = nhood_learner_on(topo, ctx);
  *r = (nhood_ready){.on = topo};
  NHOOD_TRY(nhood_algorithm_learn(alg, &l));
  r->on = nhood_algorithm_on(alg, topo, l.view, a);
  NHOOD_TRY(nhood_algorithm_agree(alg, &l, a, mode, r));
cleanup:
  return rc;
}

int nhood_algorithm_ready(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_args *a, nhood_mode mode,
                          const nhood_algorithm **alg, nhood_ready *r) {
  int rc = nhood_algorithm_prepare(topo, ctx, a, mode, *alg, r);
  return rc == MPI_SUCCESS ? nhood_select_fallback(*alg, r->why_not, r->on, a, alg) : rc;
}
