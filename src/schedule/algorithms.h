/* Schedule builders, one per algorithm. Each turns (topology, call arguments, own rank)
 * into a finished schedule, or returns an error with the schedule freed. */
#ifndef NHOOD_SCHEDULE_ALGORITHMS_H
#define NHOOD_SCHEDULE_ALGORITHMS_H

#include "schedule/collargs.h"
#include "schedule/schedule.h"
#include "topology/topology.h"

typedef struct nhood_topo nhood_topo;
struct nhood_combine_pattern;
struct nhood_pattern_kind;

typedef int (*nhood_builder)(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* Where a builder makes its own schedule: NULL when it can build this call, else a short
 * reason. The selection layer asks before it builds (selection/select.h); a builder never
 * builds another algorithm's schedule, and returns MPI_ERR_INTERN where it does not apply. */
typedef const char *(*nhood_unfit)(const nhood_topo *t, const nhood_coll_args *a);

int nhood_build_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* direct's schedule under another name, its sends ordered by key(t, a, me, destination),
 * smallest first; equal keys (edges to one destination among them) keep list order, which
 * keeps MPI's pairing within a channel. key NULL: list order. For the algorithms that send
 * direct's messages in another order (staggered, far-first, largest-first). */
typedef long long (*nhood_send_key)(const nhood_topo *t, const nhood_coll_args *a, int me, int destination);
int nhood_build_direct_ordered(const nhood_topo *t, const nhood_coll_args *a, int me, const char *name,
                               nhood_send_key key, nhood_sched *s);
/* Direct's messages, each process sending first to the ranks after its own (cyclically), so
 * that the processes' first messages do not all head for the lowest ranks' node
 * (schedule/staggered.c). Applies everywhere. */
int nhood_build_staggered(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* Direct's messages, each process sending first to the ranks farthest from its own (under
 * block placement, on other nodes) (schedule/far_first.c). Applies everywhere. */
int nhood_build_far_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
/* Direct's messages, the destinations a process sends the most bytes to first
 * (schedule/largest_first.c). Alltoallv and alltoallw only. */
int nhood_build_largest_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);
const char *nhood_unfit_largest_first(const nhood_topo *t, const nhood_coll_args *a);

/* The algorithms with a forwarding pattern (pattern/kind.h: combine, node, node-tree) share
 * one Phase 2 (schedule/combine.c), told apart by the kind of pattern their registry entry
 * names. They do not apply without their pattern attached to the topology, on Cartesian
 * channels, or where the pattern has no round (the same on every process).
 *
 * Allgather and alltoall take one schedule. The v and w collectives take two, because a
 * process that forwards a block must first learn its size: when
 * nhood_forwarding_needs_size_pass says so, run the size pass's schedule (own_sizes, which the
 * builder allocates and fills, is its send buffer; it has no receive buffer), then build the
 * data schedule from the size pass's scratch. nhood_build_forwarding refuses such calls. */
const char *nhood_unfit_forwarding(struct nhood_pattern_kind *kind, const nhood_topo *t);
int nhood_forwarding_needs_size_pass(struct nhood_pattern_kind *kind, const nhood_topo *t, const nhood_coll_args *a);
int nhood_build_forwarding(struct nhood_pattern_kind *kind, const nhood_topo *t, const nhood_coll_args *a, int me,
                           nhood_sched *s);
/* The two stages, with the pattern given (a request keeps its own reference to it). */
int nhood_build_combine_size_pass(const nhood_topo *t, const struct nhood_combine_pattern *p, const nhood_coll_args *a,
                                  int me, nhood_sched *s, int **own_sizes);
int nhood_build_combine_sized(const nhood_topo *t, const struct nhood_combine_pattern *p, const nhood_coll_args *a,
                              int me, const void *size_pass_scratch, nhood_sched *s);

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
 * alltoall with the algorithm it is given (the registry's entry, opaque here), its receive
 * blocks in scratch, then a round that reduces them into the receive vector. */
typedef int (*nhood_exchange_builder)(const void *algorithm, const nhood_topo *t, const nhood_coll_args *a, int me,
                                      nhood_sched *s);
int nhood_build_reduce(nhood_exchange_builder build, const void *algorithm, const nhood_topo *t,
                       const nhood_coll_args *a, int me, nhood_sched *s);

/* The local copies of edges from this process to itself (shared by the builders). */
int nhood_sched_add_self_copies(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

#endif
