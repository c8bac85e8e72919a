/*
 * What the files of the cart algorithms share (src/schedule/cart_*.c; private to them).
 *
 * Schedules for isomorphic neighborhoods: every process has the same relative offsets
 * C_0..C_{s-1} on a Cartesian grid (topologies from NHOOD_Topo_create_cart_offsets, or the
 * view of a graph on the grid found under it, topology/grid.h), so each
 * process computes its whole schedule locally, with no communication (after Träff,
 * Carpen-Amarie, Hunold and Rougier, "Message-combining algorithms for isomorphic, sparse
 * collective communication"). Receive block i of process X holds send block i of X - C_i
 * (allgather: X - C_i's one block), as the topology's lists say.
 *
 * One file per algorithm: cart_direct.c, cart_dim.c (cart-dim and cart-dim-batch),
 * cart_bruck.c and cart_2hop.c (the plans of hops of cart-bruck and cart-2hop). cart_hops.c
 * builds the schedule of a plan of hops for both, and cart_blocks.c holds the block table
 * through which cart-dim and the hop algorithms combine blocks into messages.
 *
 * Where the topology is not isomorphic these algorithms build the direct schedule. The
 * combining ones (cart-dim, cart-dim-batch, cart-bruck, cart-2hop) combine the v and w
 * collectives only under NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, when a forwarder knows each
 * block's size from its own; otherwise those run as cart-direct (a size pass for irregular
 * sizes is not built).
 */
#ifndef NHOOD_SCHEDULE_CART_INTERNAL_H
#define NHOOD_SCHEDULE_CART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "schedule/algorithms.h"

#define MAX_DIMS 64

static inline int cart_applies(const nhood_topo *t) { return t->kind == NHOOD_TOPO_CART_OFFSETS; }

/* Whether the combining cart algorithms can combine this call: allgather and alltoall always;
 * the v and w collectives when the caller asserts isomorphic sizes (nhood.h), for then a
 * process that forwards the block of offset i knows its size: its own. */
static inline int combinable(const nhood_coll_args *a) {
  return a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLTOALL ||
         (a->isomorphic_sizes &&
          (a->kind == NHOOD_ALLGATHERV || a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW));
}

/* Why a cart algorithm does not apply (NULL: it does); combining: one of the combining ones. */
static inline const char *cart_unfit(const nhood_topo *t, const nhood_coll_args *a, int combining) {
  if (!cart_applies(t))
    return "the topology is not isomorphic (neither NHOOD_Topo_create_cart_offsets nor a graph on a grid found "
           "under it)";
  if (combining && !combinable(a))
    return "its blocks may differ in size between processes (no " NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES ")";
  if (combining && t->grid_partial &&
      (a->kind == NHOOD_ALLGATHERV || a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW))
    return "a graph on an open grid has no block where a neighbor is missing, so forwarders cannot know the sizes";
  return NULL;
}

static inline const int *offset_of(const nhood_topo *t, int i) { return t->offsets + (size_t)i * t->ndims; }

/* ---- the block table (cart_blocks.c) ----------------------------------------------------- */

/* Where each block lies while a combining schedule is built, message by message. Blocks are
 * keyed by offset index (alltoall) or, for allgather, by the smallest offset with the same
 * route so far (its blocks are the same data, which moves once). A round moves a key's
 * region from `now` to `next`; blocks that stay are copied over. Shared by cart-dim and
 * cart-bruck, which differ only in routes. */
typedef struct {
  int n, alltoall;
  int *sizes;               /* per offset: bytes of its block */
  int *key_now, *key_next;  /* per offset: the key of its block before / after this round */
  nhood_region *now, *next; /* per key: where its block lies */
  int *stamp, stamp_value;  /* marks keys already listed in one message */
  MPI_Aint scratch;         /* scratch bytes used so far */
} block_table;

void nhood_cart_table_free(block_table *b);
int nhood_cart_table_init(block_table *b, const nhood_coll_args *a, int n, const char *name);

/* After a round: blocks not in it stay where they were; `next` becomes `now`. */
void nhood_cart_table_advance(block_table *b, int (*stays)(const void *ctx, int i), const void *ctx);

/* One message each way: the blocks with in_message(ctx, i, 0) out to `to`, the blocks with
 * in_message(ctx, i, 1) in from `from` (the same test, made from the sender's point of view),
 * each key once, in offset order on both ends. MPI_PROC_NULL peers are an internal error:
 * routes never leave the grid. */
int nhood_cart_table_message(block_table *b, nhood_sched *s, int (*in_message)(const void *ctx, int i, int incoming),
                             const void *ctx, int to, int from, int tag, const char *name);

/* Every block has arrived: receive block i is the block of offset i, where it exists. */
int nhood_cart_table_deliver(block_table *b, const nhood_coll_args *a, nhood_sched *s,
                             int (*arrived)(const void *ctx, int i), const void *ctx);

/* ---- routes as sums of hops: cart-bruck and cart-2hop ----------------------------------- */

/* A plan of hops H_0..H_{m-1} (vectors on the grid), grouped into rounds of consecutive
 * hops, such that every offset is the sum of a subset of them (its mask) with at most one
 * hop from each round. A hop is one message to X + H; a round's hops are one round of
 * messages, and since a block takes at most one of them their order does not matter. */
#define MAX_HOPS 64
typedef struct {
  int m, nd;
  int *vec;       /* m x nd: hop j moves by vec[j * nd + k] along dimension k */
  uint64_t *mask; /* per offset */
  int nrounds;
  int round_end[MAX_HOPS]; /* round r holds hops [r ? round_end[r-1] : 0, round_end[r]) */
} hop_plan;

/* Fills h (vec and mask allocated, zeroed); returns 0 when no plan of at most MAX_HOPS hops
 * exists (the builder then falls back). */
typedef int (*hop_planner)(const nhood_topo *t, hop_plan *h);

/* The schedule of a hop plan: per round, per hop j, one message to X + H_j and one from
 * X - H_j (tag j), holding the blocks whose masks take hop j. */
int nhood_cart_build_hops(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, const char *name,
                          hop_planner plan);
/* Why the hop algorithm with this planner does not apply: cart_unfit, or no plan (it runs the
 * planner, the same on every process, as the offsets are). */
const char *nhood_cart_hops_unfit(const nhood_topo *t, const nhood_coll_args *a, hop_planner plan);

#endif
