/* Schedule builders, one per algorithm. Each turns (topology, call arguments, own rank)
 * into a finished schedule, or returns an error with the schedule freed. */
#ifndef NHOOD_SCHEDULE_ALGORITHMS_H
#define NHOOD_SCHEDULE_ALGORITHMS_H

#include "schedule/collargs.h"
#include "schedule/schedule.h"
#include "topology/topology.h"

typedef struct nhood_topo nhood_topo;
struct nhood_combine_pattern;
struct nhood_commctx;

typedef int (*nhood_builder)(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* Where a builder makes its own schedule: NULL when it can build this call, else a short
 * reason. The selection layer asks before it builds (selection/select.h); a builder never
 * builds another algorithm's schedule, and returns MPI_ERR_INTERN where it does not apply. */
typedef const char *(*nhood_unfit)(const nhood_topo *t, const nhood_coll_args *a);

int nhood_build_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* Direct's messages, each process sending first to the ranks after its own (cyclically), so
 * that the processes' first messages do not all head for the lowest ranks' node
 * (schedule/staggered.c). Applies everywhere. */
int nhood_build_staggered(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

/* Message combining over common neighborhoods (Phase 2): needs the pattern attached to the
 * topology (pattern/combine.h). It does not apply without a pattern, on Cartesian channels,
 * or where the pattern has no level (the cost model chose none, on every process alike).
 *
 * Allgather and alltoall take one schedule. The v and w collectives take two, because a
 * process that forwards a block must first learn its size (schedule/combine.c): when
 * nhood_combine_needs_size_pass says so, run the size pass's schedule (own_sizes, which the
 * builder allocates and fills, is its send buffer; it has no receive buffer), then build the
 * data schedule from the size pass's scratch. nhood_build_combine refuses such calls. */
int nhood_build_combine(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
const char *nhood_unfit_combine(const nhood_topo *t, const nhood_coll_args *a);
int nhood_combine_needs_size_pass(const nhood_topo *t, const nhood_coll_args *a);
/* The two stages of combine or node, with the pattern given (a request keeps its own
 * reference to it). */
int nhood_build_combine_size_pass(const nhood_topo *t, const struct nhood_combine_pattern *p, const nhood_coll_args *a,
                                  int me, nhood_sched *s, int **own_sizes);
int nhood_build_combine_sized(const nhood_topo *t, const struct nhood_combine_pattern *p, const nhood_coll_args *a,
                              int me, const void *size_pass_scratch, nhood_sched *s);

/* Node-aware aggregation (pattern/node.h): the same Phase 2 as combine over the node
 * pattern: blocks for another node gathered on-node, one message per pair of nodes, handed
 * out on-node. It does not apply without its pattern, on Cartesian channels, or where no
 * process has a neighbor on another node. The v and w collectives take a size pass as combine's. */
int nhood_build_node(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
const char *nhood_unfit_node(const nhood_topo *t, const nhood_coll_args *a);
int nhood_node_needs_size_pass(const nhood_topo *t, const nhood_coll_args *a);
/* node-tree (pattern/node.h): node's routes with the on-node steps along a hypercube of the
 * node's processes, log2 k rounds of one message each instead of up to k - 1 messages. */
int nhood_build_node_tree(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
const char *nhood_unfit_node_tree(const nhood_topo *t, const nhood_coll_args *a);
int nhood_node_tree_needs_size_pass(const nhood_topo *t, const nhood_coll_args *a);

/* The forwarding patterns a topology may carry, one per algorithm that has a Phase 1. */
typedef enum {
  NHOOD_PATTERN_NONE,
  NHOOD_PATTERN_COMBINE,
  NHOOD_PATTERN_NODE,
  NHOOD_PATTERN_NODE_TREE,
  NHOOD_PATTERN_KINDS
} nhood_pattern_kind;

/* The pattern of a kind attached to a topology: by the API layer at the first use on a
 * communicator context (owner, retained; NULL for nhood-sim's virtual ranks). Attaching takes
 * the caller's reference to the pattern (NULL detaches; on failure the caller keeps it) and
 * releases what was attached. */
struct nhood_combine_pattern *nhood_pattern_of(const nhood_topo *t, nhood_pattern_kind kind,
                                               const struct nhood_commctx **owner);
int nhood_pattern_attach(nhood_topo *t, nhood_pattern_kind kind, struct nhood_combine_pattern *p,
                         struct nhood_commctx *owner);

/* Isomorphic neighborhoods (topologies from NHOOD_Topo_create_cart_offsets), schedules
 * computed locally (schedule/cart_*.c): cart-direct (a round per offset), cart-dim (combining
 * along dimensions, a round per dimension and coordinate value), cart-dim-batch (a round
 * per dimension), cart-bruck (logarithmically many rounds of few messages) and cart-2hop
 * (two rounds, dimensions split between them). They apply to those topologies only; the
 * combining ones to allgather and alltoall, and to the v and w collectives under
 * NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES; cart-bruck and cart-2hop where their planners find a
 * plan. */
int nhood_build_cart_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
int nhood_build_cart_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
int nhood_build_cart_dim_batch(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
int nhood_build_cart_bruck(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
int nhood_build_cart_2hop(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
const char *nhood_unfit_cart_direct(const nhood_topo *t, const nhood_coll_args *a);
const char *nhood_unfit_cart_dim(const nhood_topo *t, const nhood_coll_args *a); /* and cart-dim-batch */
const char *nhood_unfit_cart_bruck(const nhood_topo *t, const nhood_coll_args *a);
const char *nhood_unfit_cart_2hop(const nhood_topo *t, const nhood_coll_args *a);

/* Reduce and scatter-reduce (schedule/reduce.c): the exchange `build` makes for allgather or
 * alltoall, its receive blocks in scratch, then a round that reduces them into the receive
 * vector. */
int nhood_build_reduce(nhood_builder build, const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

/* The local copies of edges from this process to itself (shared by the builders). */
int nhood_sched_add_self_copies(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

#endif
