#include "selection/select.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "engine/native_mpi.h"
#include "pattern/combine.h"
#include "pattern/node.h"

/* "mpi" where this process can run MPI's own collective (the API layer agrees over processes). */
static const char *unfit_native(const nhood_topo *t, const nhood_coll_args *a) {
  return nhood_native_applies_locally(t, a->kind)
             ? NULL
             : "MPI's own cannot give MPI-4.1's result here (MPI_PROC_NULL neighbors, Cartesian channels, a "
               "reduction, or a known bug of this MPI)";
}

/* far-first (schedule/far_first.c): only the registry calls it. */
int nhood_build_far_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

/* Every algorithm the library has, in the order "auto" breaks ties in: what needs the least
 * set-up first, MPI's own last (its communicator is collective to create). A field left out
 * is 0 or NULL: applies everywhere, no pattern, one schedule, any placement. */
static const nhood_algorithm algorithms[] = {
    {.name = "direct",
     .description = "one message per edge in one round, as MPICH and Open MPI do; the baseline",
     .build = nhood_build_direct},
    {.name = "staggered",
     .description = "direct's messages, each process sending first to the ranks after its own (cyclically), so "
                    "that the first messages do not all head for the same node",
     .fallback = "direct",
     .build = nhood_build_staggered,
     .across_nodes = 1},
    {.name = "combine",
     .description = "cumulative message combining over common neighborhoods: about log2 P levels of exchanges with "
                    "hypercube partners, then one combined message per target; the pattern is built collectively "
                    "at first use",
     .fallback = "direct",
     .pattern = &nhood_combine_kind},
    {.name = "node",
     .description = "node-aware aggregation: blocks for another node gathered on-node, one message per pair of "
                    "nodes, handed out on-node; the node pairs spread over each node's processes by volume; the "
                    "pattern is built collectively at first use",
     .fallback = "direct",
     .pattern = &nhood_node_kind},
    {.name = "node-tree",
     .description = "node-aware aggregation for small blocks: node's routes, with the on-node gather and hand-out "
                    "along a hypercube of the node's processes (log2 k rounds of one message each, not up to k - 1 "
                    "messages); the pattern is built collectively at first use",
     .fallback = "direct",
     .pattern = &nhood_node_tree_kind},
    {.name = "cart-direct",
     .description = "isomorphic neighborhoods: a round per offset",
     .unfit = nhood_unfit_cart_direct,
     .fallback = "direct",
     .build = nhood_build_cart_direct,
     .needs_grid = 1},
    {.name = "cart-dim",
     .description = "isomorphic neighborhoods: combining along dimensions, a round per dimension and coordinate value",
     .unfit = nhood_unfit_cart_dim,
     .fallback = "cart-direct",
     .build = nhood_build_cart_dim,
     .needs_grid = 1},
    {.name = "cart-dim-batch",
     .description = "isomorphic neighborhoods: combining along dimensions, a round per dimension",
     .unfit = nhood_unfit_cart_dim,
     .fallback = "cart-direct",
     .build = nhood_build_cart_dim_batch,
     .needs_grid = 1},
    {.name = "cart-bruck",
     .description = "isomorphic neighborhoods: Bruck-like hops, logarithmically many; hops no block takes together "
                    "share a round",
     .unfit = nhood_unfit_cart_bruck,
     .fallback = "cart-dim",
     .build = nhood_build_cart_bruck,
     .needs_grid = 1},
    {.name = "cart-2hop",
     .description = "isomorphic neighborhoods: two rounds, each dimension's values in one of them or split by sign (5 "
                    "+ 5 messages for 3-D Moore r=1)",
     .unfit = nhood_unfit_cart_2hop,
     .fallback = "cart-dim-batch",
     .build = nhood_build_cart_2hop,
     .needs_grid = 1},
    {.name = "far-first",
     .description = "direct's messages, each process sending first to the ranks farthest from its own, which under "
                    "block placement are on other nodes: the network messages start first",
     .fallback = "direct",
     .build = nhood_build_far_first,
     .across_nodes = 1},
    {.name = "mpi",
     .description = "the MPI library's own MPI_Neighbor_* on a distributed-graph communicator nhood creates at first "
                    "use",
     .unfit = unfit_native,
     .fallback = "direct",
     .native = 1},
};
#define NALGORITHMS (sizeof algorithms / sizeof algorithms[0])

const nhood_algorithm *nhood_algorithm_by_name(const char *name) {
  for (size_t k = 0; k < NALGORITHMS; k++)
    if (strcmp(algorithms[k].name, name) == 0) return &algorithms[k];
  return NULL;
}

/* Built once from the table, so it cannot drift. */
static char names[256];
static void build_names(void) {
  snprintf(names, sizeof names, "auto");
  for (size_t k = 0; k < NALGORITHMS; k++) {
    strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, algorithms[k].name, sizeof names - strlen(names) - 1);
  }
}

const char *nhood_algorithm_names(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_names);
  return names;
}

int nhood_algorithm_count(void) { return (int)NALGORITHMS; }
const nhood_algorithm *nhood_algorithm_at(int k) { return &algorithms[k]; }

/* An algorithm with a forwarding pattern runs the shared Phase 2 with its kind of pattern
 * (schedule/algorithms.h); the others, their own builder. */
int nhood_algorithm_needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return alg->pattern && nhood_forwarding_needs_size_pass(alg->pattern, t, a);
}

static int build_exchange(const void *algorithm, const nhood_topo *t, const nhood_coll_args *a, int me,
                          nhood_sched *s) {
  const nhood_algorithm *alg = algorithm;
  return alg->pattern ? nhood_build_forwarding(alg->pattern, t, a, me, s) : alg->build(t, a, me, s);
}

int nhood_algorithm_build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                          nhood_sched *s) {
  if (alg->native) return nhood_error(MPI_ERR_INTERN, "the algorithm \"mpi\" has no schedule");
  return nhood_coll_reduces(a->kind) ? nhood_build_reduce(build_exchange, alg, t, a, me, s)
                                     : build_exchange(alg, t, a, me, s);
}

const char *nhood_algorithm_unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return alg->pattern ? nhood_unfit_forwarding(alg->pattern, t) : alg->unfit ? alg->unfit(t, a) : NULL;
}

/* NHOOD_FALLBACK: "error" (2), "print" (1), else silent (0); read once. */
static int fallback_mode(void) {
  static atomic_int mode = -1;
  int m = atomic_load(&mode);
  if (m < 0) {
    const char *v = getenv("NHOOD_FALLBACK");
    m = v && strcmp(v, "error") == 0 ? 2 : v && strcmp(v, "print") == 0 ? 1 : 0;
    atomic_store(&mode, m);
  }
  return m;
}

const nhood_algorithm *nhood_algorithm_resolve(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                                               const nhood_coll_args *a) {
  const char *why = why_not ? why_not : nhood_algorithm_unfit(alg, t, a);
  for (int hops = 0; why != NULL && alg->fallback != NULL && hops < (int)NALGORITHMS; hops++) {
    alg = nhood_algorithm_by_name(alg->fallback);
    why = nhood_algorithm_unfit(alg, t, a);
  }
  return why ? NULL : alg;
}

int nhood_select_fallback(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                          const nhood_coll_args *a, const nhood_algorithm **ran) {
  const char *why = why_not ? why_not : nhood_algorithm_unfit(alg, t, a);
  if (why == NULL) {
    *ran = alg;
    return MPI_SUCCESS;
  }
  if (fallback_mode() == 2)
    return nhood_error(MPI_ERR_ARG, "algorithm \"%s\" does not apply to this %s: %s (NHOOD_FALLBACK=error)", alg->name,
                       nhood_coll_names[a->kind], why);
  const nhood_algorithm *next = nhood_algorithm_resolve(alg, why, t, a);
  if (next == NULL) return nhood_error(MPI_ERR_INTERN, "no algorithm applies after \"%s\"'s fallbacks", alg->name);
  if (fallback_mode() == 1)
    fprintf(stderr, "nhood: %s runs as %s: \"%s\" does not apply (%s)\n", nhood_coll_names[a->kind], next->name,
            alg->name, why_not ? why_not : nhood_algorithm_unfit(alg, t, a));
  *ran = next;
  return MPI_SUCCESS;
}

int nhood_select(const char *requested, const nhood_topo *t, const nhood_coll_args *a, const nhood_algorithm **chosen) {
  const nhood_algorithm *alg = nhood_algorithm_by_name(requested);
  if (alg == NULL)
    return nhood_error(MPI_ERR_INFO, "unknown algorithm \"%s\" (known: %s)", requested, nhood_algorithm_names());
  return nhood_select_fallback(alg, NULL, t, a, chosen);
}

/* ---- auto ------------------------------------------------------------------------------ */

int nhood_size_class(double bytes) {
  if (bytes < 1) return 0;
  int cls = 1 + (int)floor(log2(bytes));
  return cls < NHOOD_SIZE_CLASSES ? cls : NHOOD_SIZE_CLASSES - 1;
}

double nhood_size_class_bytes(int cls) { return cls == 0 ? 0 : ldexp(1.4142135623730951, cls - 1); }

double nhood_call_block_bytes(const nhood_coll_args *a, const nhood_topo *t) {
  if (a->kind != NHOOD_ALLTOALLV && a->kind != NHOOD_ALLTOALLW) return (double)a->sendcount * a->send_type_size;
  double total = 0;
  for (int j = 0; j < t->outdegree; j++) {
    int size = a->send_type_size;
    if (a->kind == NHOOD_ALLTOALLW && nhood_type_size(a->sendtypes[j], &size) != MPI_SUCCESS) size = 0;
    total += (double)a->sendcounts[j] * size;
  }
  return t->outdegree > 0 ? total / t->outdegree : 0;
}

/* A call of `kind` with one-byte blocks (MPI_BYTE), the shape the model prices: every size
 * class scales it. The arrays need max(indegree, outdegree) entries. */
static nhood_coll_args unit_call(nhood_coll_kind kind, int isomorphic_sizes, int *ones, int *displs, MPI_Aint *bdispls,
                                 MPI_Datatype *types) {
  return (nhood_coll_args){.kind = kind,
                           .sendcount = 1,
                           .recvcount = 1,
                           .sendtype = MPI_BYTE,
                           .recvtype = MPI_BYTE,
                           .sendcounts = ones,
                           .recvcounts = ones,
                           .sdispls = displs,
                           .rdispls = displs,
                           .sdispls_bytes = bdispls,
                           .rdispls_bytes = bdispls,
                           .sendtypes = types,
                           .recvtypes = types,
                           .send_extent = 1,
                           .recv_extent = 1,
                           .send_type_size = 1,
                           .recv_type_size = 1,
                           .op = MPI_SUM,
                           .isomorphic_sizes = isomorphic_sizes};
}

/* Predictions of one algorithm's schedule at every class into row[] (a call) and, where
 * prow is not NULL, prow[] (a persistent request's start: without the size pass). */
static int predict_algorithm(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                             const nhood_cost_params *p, const nhood_nodes *nodes, double row[], double prow[],
                             double nic[4]) {
  int rc = MPI_SUCCESS;
  double fixed = 0; /* time that does not grow with the blocks: a size pass */
  nhood_sched s = {0};
  nhood_coll_args shape = *a;
  if (nhood_algorithm_needs_size_pass(alg, t, a)) {
    /* The v and w collectives of combine and node first exchange sizes, then run the
     * allgather or alltoall shape with the sizes known. */
    int *own_sizes = NULL;
    NHOOD_TRY(nhood_build_combine_size_pass(t, nhood_pattern_of(t, alg->pattern, NULL), a, me, &s, &own_sizes));
    free(own_sizes);
    fixed = nhood_cost_predict(&s, p, 1.0, nodes, me, NULL);
    nhood_sched_free(&s);
    shape.kind = a->kind == NHOOD_ALLGATHERV ? NHOOD_ALLGATHER : NHOOD_ALLTOALL;
  }
  NHOOD_TRY(nhood_algorithm_build(alg, t, &shape, me, &s));
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
    double data = nhood_cost_predict(&s, p, nhood_size_class_bytes(c), nodes, me, NULL);
    row[c] = fixed + data;
    if (prow) prow[c] = data;
  }
  if (nic) nhood_cost_predict(&s, p, 1.0, nodes, me, nic); /* one-byte blocks: messages, bytes per block */
  nhood_sched_free(&s);
cleanup:
  return rc;
}

int nhood_auto_costs(const nhood_topo *t, const nhood_topo *grid, nhood_coll_kind kind, int isomorphic_sizes, int me,
                     const nhood_cost_params *p, const nhood_nodes *nodes, double *costs, double *persistent_costs,
                     double *nic) {
  int rc = MPI_SUCCESS, n = t->indegree > t->outdegree ? t->indegree : t->outdegree;
  if (grid && grid->indegree > n) n = grid->indegree; /* a view has a block per offset */
  int *ones = malloc(((size_t)n + 1) * 2 * sizeof(int));
  MPI_Aint *bdispls = malloc(((size_t)n + 1) * sizeof(MPI_Aint));
  MPI_Datatype *types = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
  if (!ones || !bdispls || !types) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
    goto cleanup;
  }
  int *displs = ones + n + 1;
  for (int k = 0; k < n; k++) ones[k] = 1, displs[k] = k, bdispls[k] = k, types[k] = MPI_BYTE;
  nhood_coll_args a = unit_call(kind, isomorphic_sizes, ones, displs, bdispls, types);
  int direct = -1;
  for (int k = 0; k < (int)NALGORITHMS; k++) {
    double *row = costs + (size_t)k * NHOOD_SIZE_CLASSES,
           *prow = persistent_costs ? persistent_costs + (size_t)k * NHOOD_SIZE_CLASSES : NULL;
    const nhood_algorithm *alg = &algorithms[k];
    if (alg->native) continue; /* priced from direct's row, below */
    const nhood_topo *on = alg->needs_grid && grid ? grid : t;
    if (nic) memset(nic + 4 * k, 0, 4 * sizeof *nic);
    /* auto considers only what applies, and what gains at the interfaces only on several nodes */
    if (nhood_algorithm_unfit(alg, on, &a) != NULL || (alg->across_nodes && (!nodes || nodes->nnodes < 2))) {
      for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) row[c] = INFINITY;
      if (prow) memcpy(prow, row, NHOOD_SIZE_CLASSES * sizeof *prow);
      continue;
    }
    NHOOD_TRY(predict_algorithm(alg, on, &a, me, p, nodes, row, prow, nic ? nic + 4 * k : NULL));
    if (alg->fallback == NULL) direct = k; /* the one that always applies */
  }
  for (int k = 0; k < (int)NALGORITHMS; k++) {
    if (!algorithms[k].native) continue;
    if (nic) memset(nic + 4 * k, 0, 4 * sizeof *nic);
    int ok = direct >= 0 && nhood_algorithm_unfit(&algorithms[k], t, &a) == NULL;
    if (nic && direct >= 0) memcpy(nic + 4 * k, nic + 4 * direct, 4 * sizeof *nic); /* the same messages */
    for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
      size_t at = (size_t)k * NHOOD_SIZE_CLASSES + c, from = (size_t)direct * NHOOD_SIZE_CLASSES + c;
      costs[at] = ok ? p->mpi_factor * costs[from] : INFINITY;
      if (persistent_costs) persistent_costs[at] = ok ? p->mpi_factor * persistent_costs[from] : INFINITY;
    }
  }
cleanup:
  free(ones);
  free(bdispls);
  free(types);
  return rc;
}

void nhood_auto_add_nic(const nhood_cost_params *p, const double *nic, double *costs) {
  for (int k = 0; k < (int)NALGORITHMS; k++)
    for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
      double b = nhood_size_class_bytes(c),
             scaled[4] = {nic[4 * k], nic[4 * k + 1] * b, nic[4 * k + 2], nic[4 * k + 3] * b};
      double *cost = &costs[(size_t)k * NHOOD_SIZE_CLASSES + c], t = nhood_cost_nic(p, scaled);
      if (t > *cost) *cost = t;
    }
}

/* Whether auto may pick table entry k: priced, and for a persistent request not MPI's own
 * where this MPI has no persistent neighborhood collectives. */
static double price(const double *costs, int k, int cls, int persistent) {
  if (algorithms[k].native && persistent && !nhood_native_persistent_supported()) return INFINITY;
  return costs[(size_t)k * NHOOD_SIZE_CLASSES + cls];
}

int nhood_algorithm_is_baseline(const nhood_algorithm *alg) { return alg->fallback == NULL || alg->native; }
static int is_baseline(int k) { return nhood_algorithm_is_baseline(&algorithms[k]); }

static int cheapest(const double *costs, int cls, int persistent, int baseline_only, int skip[]) {
  int best = -1;
  double best_cost = INFINITY;
  for (int k = 0; k < (int)NALGORITHMS; k++) {
    double c = price(costs, k, cls, persistent);
    if ((baseline_only && !is_baseline(k)) || (skip && skip[k])) continue;
    if (c < best_cost) best = k, best_cost = c;
  }
  return best;
}

static int choose_index(const double *costs, int cls, int persistent, double margin) {
  int best = cheapest(costs, cls, persistent, 0, NULL), base = cheapest(costs, cls, persistent, 1, NULL);
  if (best < 0) return 0; /* nothing priced: direct always runs */
  if (base >= 0 && !is_baseline(best) &&
      price(costs, best, cls, persistent) * (1 + margin) > price(costs, base, cls, persistent))
    return base;
  return best;
}

const nhood_algorithm *nhood_auto_choose(const double *costs, int cls, int persistent, double margin) {
  return &algorithms[choose_index(costs, cls, persistent, margin)];
}

int nhood_auto_shortlist(const double *costs, int cls, int persistent, double margin,
                         const nhood_algorithm *list[NHOOD_SHORTLIST_MAX]) {
  int taken[NALGORITHMS] = {0}, n = 0;
  int first = choose_index(costs, cls, persistent, margin);
  double first_cost = price(costs, first, cls, persistent);
  taken[first] = 1;
  list[n++] = &algorithms[first];
  /* The baselines next: direct and MPI's own send the same messages, but their
   * implementations differ measurably (docs/PERFORMANCE.md), and MPI's own is what "auto"
   * must not lose to. */
  for (int base; n < NHOOD_SHORTLIST_MAX && (base = cheapest(costs, cls, persistent, 1, taken)) >= 0;) {
    taken[base] = 1;
    list[n++] = &algorithms[base];
  }
  while (n < NHOOD_SHORTLIST_MAX) {
    int next = cheapest(costs, cls, persistent, 0, taken);
    if (next < 0 || !(price(costs, next, cls, persistent) <= NHOOD_SHORTLIST_SPREAD * first_cost)) break;
    taken[next] = 1;
    list[n++] = &algorithms[next];
  }
  return n;
}
