/* The algorithm registry (selection/registry.h): the table, and the calls on its entries. */
#include "selection/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/combine.h"
#include "pattern/node.h"
#include "selection/family.h"

#define SCHEDULE(...) \
  .family = &nhood_family_schedule, .data = &(const nhood_schedule_data) { __VA_ARGS__ }

/* Every algorithm the library has, in the order "auto" breaks ties in: what needs the least
 * set-up first, MPI's own last (its communicator is collective to create). */
static const nhood_algorithm algorithms[] = {
    {.name = "direct",
     .description = "one message per edge in one round, as MPICH and Open MPI do; the baseline",
     SCHEDULE(.build = nhood_build_direct),
     .baseline = 1},
    {.name = "staggered",
     .description = "direct's messages, each process sending first to the ranks after its own (cyclically), so "
                    "that the first messages do not all head for the same node",
     SCHEDULE(.build = nhood_build_staggered, .across_nodes = 1),
     .fallback = "direct"},
    {.name = "combine",
     .description = "cumulative message combining over common neighborhoods: about log2 P levels of exchanges with "
                    "hypercube partners, then one combined message per target; the pattern is built collectively "
                    "at first use",
     .family = &nhood_family_forwarding,
     .data = &nhood_combine_kind,
     .fallback = "direct"},
    {.name = "node",
     .description = "node-aware aggregation: blocks for another node gathered on-node, one message per pair of "
                    "nodes, handed out on-node; the node pairs spread over each node's processes by volume; the "
                    "pattern is built collectively at first use",
     .family = &nhood_family_forwarding,
     .data = &nhood_node_kind,
     .fallback = "direct"},
    {.name = "node-tree",
     .description = "node-aware aggregation for small blocks: node's routes, with the on-node gather and hand-out "
                    "along a hypercube of the node's processes (log2 k rounds of one message each, not up to k - 1 "
                    "messages); the pattern is built collectively at first use",
     .family = &nhood_family_forwarding,
     .data = &nhood_node_tree_kind,
     .fallback = "direct"},
    {.name = "cart-direct",
     .description = "isomorphic neighborhoods: a round per offset",
     SCHEDULE(.build = nhood_build_cart_direct, .unfit = nhood_unfit_cart_direct, .on_grid = 1),
     .fallback = "direct"},
    {.name = "cart-dim",
     .description = "isomorphic neighborhoods: combining along dimensions, a round per dimension and coordinate value",
     SCHEDULE(.build = nhood_build_cart_dim, .unfit = nhood_unfit_cart_dim, .on_grid = 1),
     .fallback = "cart-direct"},
    {.name = "cart-dim-batch",
     .description = "isomorphic neighborhoods: combining along dimensions, a round per dimension",
     SCHEDULE(.build = nhood_build_cart_dim_batch, .unfit = nhood_unfit_cart_dim, .on_grid = 1),
     .fallback = "cart-direct"},
    {.name = "cart-bruck",
     .description = "isomorphic neighborhoods: Bruck-like hops, logarithmically many; hops no block takes together "
                    "share a round",
     SCHEDULE(.build = nhood_build_cart_bruck, .unfit = nhood_unfit_cart_bruck, .on_grid = 1),
     .fallback = "cart-dim"},
    {.name = "cart-2hop",
     .description = "isomorphic neighborhoods: two rounds, each dimension's values in one of them or split by sign (5 "
                    "+ 5 messages for 3-D Moore r=1)",
     SCHEDULE(.build = nhood_build_cart_2hop, .unfit = nhood_unfit_cart_2hop, .on_grid = 1),
     .fallback = "cart-dim-batch"},
    {.name = "far-first",
     .description = "direct's messages, each process sending first to the ranks farthest from its own, which under "
                    "block placement are on other nodes: the network messages start first",
     SCHEDULE(.build = nhood_build_far_first, .across_nodes = 1),
     .fallback = "direct"},
    {.name = "largest-first",
     .description = "direct's messages, each process sending first to the destination it sends the most bytes to: "
                    "the long transfers of an irregular alltoallv or alltoallw start first",
     SCHEDULE(.build = nhood_build_largest_first, .unfit = nhood_unfit_largest_first, .across_nodes = 1),
     .fallback = "direct"},
    {.name = "mpi",
     .description = "the MPI library's own MPI_Neighbor_* on a distributed-graph communicator nhood creates at first "
                    "use",
     .family = &nhood_family_native,
     .data = "direct",
     .fallback = "direct",
     .baseline = 1},
};
#define NALGORITHMS ((int)(sizeof algorithms / sizeof algorithms[0]))
_Static_assert(sizeof algorithms / sizeof algorithms[0] <= NHOOD_ALGORITHMS_MAX, "NHOOD_ALGORITHMS_MAX");

const nhood_algorithm *nhood_algorithm_by_name(const char *name) {
  for (int k = 0; k < NALGORITHMS; k++)
    if (strcmp(algorithms[k].name, name) == 0) return &algorithms[k];
  return NULL;
}

/* Built once from the table, so it cannot drift. */
static char names[256];
static void build_names(void) {
  snprintf(names, sizeof names, "auto");
  for (int k = 0; k < NALGORITHMS; k++) {
    strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, algorithms[k].name, sizeof names - strlen(names) - 1);
  }
}

const char *nhood_algorithm_names(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_names);
  return names;
}

int nhood_algorithm_count(void) { return NALGORITHMS; }
const nhood_algorithm *nhood_algorithm_at(int k) { return &algorithms[k]; }
int nhood_algorithm_index(const nhood_algorithm *alg) { return (int)(alg - algorithms); }
int nhood_algorithm_is_baseline(const nhood_algorithm *alg) { return alg->baseline; }

/* ---- the ops, with their defaults ------------------------------------------------------ */

int nhood_algorithm_learn(const nhood_algorithm *alg, nhood_learner *l) {
  return alg->family->learn ? alg->family->learn(alg, l) : MPI_SUCCESS;
}

const nhood_topo *nhood_algorithm_on(const nhood_algorithm *alg, const nhood_topo *t, const nhood_grid_view *view,
                                     nhood_coll_args *a) {
  return alg->family->on ? alg->family->on(alg, t, view, a) : t;
}

const char *nhood_algorithm_unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return alg->family->unfit(alg, t, a);
}

int nhood_algorithm_agree(const nhood_algorithm *alg, nhood_learner *l, const nhood_coll_args *a, nhood_mode mode,
                          nhood_ready *r) {
  return alg->family->agree ? alg->family->agree(alg, l, a, mode, r) : MPI_SUCCESS;
}

int nhood_algorithm_priced(const nhood_algorithm *alg, nhood_learner *l, nhood_coll_kind kind, int everywhere) {
  return alg->family->priced ? alg->family->priced(alg, l, kind, everywhere) : MPI_SUCCESS;
}

int nhood_algorithm_price(const nhood_algorithm *alg, int k, const struct nhood_pricing *in) {
  return alg->family->price(alg, k, in);
}

int nhood_algorithm_has_schedule(const nhood_algorithm *alg) { return alg->family->build != NULL; }

int nhood_algorithm_needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return alg->family->needs_size_pass && alg->family->needs_size_pass(alg, t, a);
}

int nhood_algorithm_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                              nhood_sched *s, int **own_sizes) {
  if (!alg->family->size_pass) return nhood_error(MPI_ERR_INTERN, "the algorithm \"%s\" takes no size pass", alg->name);
  return alg->family->size_pass(alg, t, a, me, s, own_sizes);
}

/* The exchange a reduction wraps (schedule/reduce.c), without sizes: reductions take none. */
static int build_exchange(const void *algorithm, const nhood_topo *t, const nhood_coll_args *a, int me,
                          nhood_sched *s) {
  const nhood_algorithm *alg = algorithm;
  return alg->family->build(alg, t, a, me, NULL, s);
}

int nhood_algorithm_build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                          const void *sizes, nhood_sched *s) {
  if (!alg->family->build) return nhood_error(MPI_ERR_INTERN, "the algorithm \"%s\" has no schedule", alg->name);
  int rc = nhood_coll_reduces(a->kind) ? nhood_build_reduce(build_exchange, alg, t, a, me, s)
                                       : alg->family->build(alg, t, a, me, sizes, s);
  if (rc == MPI_SUCCESS && (rc = nhood_sched_local_messages(s, me)) != MPI_SUCCESS)
    nhood_sched_free(s); /* as a builder that fails leaves nothing to free */
  return rc;
}

int nhood_algorithm_make_task(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo,
                              const nhood_coll_args *a, nhood_commctx *ctx, nhood_mode mode, nhood_task **task) {
  return alg->family->make_task(alg, r, topo, a, ctx, mode, task);
}
