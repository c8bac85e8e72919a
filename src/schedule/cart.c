/*
 * Schedules for isomorphic neighborhoods: every process has the same relative offsets
 * C_0..C_{s-1} on a Cartesian grid (topologies from NHOOD_Topo_create_cart_offsets), so each
 * process computes its whole schedule locally, with no communication (after Träff,
 * Carpen-Amarie, Hunold and Rougier, "Message-combining algorithms for isomorphic, sparse
 * collective communication"). Receive block i of process X holds send block i of X - C_i
 * (allgather: X - C_i's one block), as the topology's lists say.
 *
 *   cart-direct     s rounds; in round i, send block i to X + C_i and receive block i from
 *                   X - C_i. Every process does the same in the same round, so no round waits
 *                   on one that has not started; it spreads the traffic over time.
 *   cart-dim        message combining along dimensions: a block moves dimension after
 *                   dimension, by c_0 in the first, c_1 in the second, ..., through the
 *                   processes in between (which need not be neighbors), and travels with every
 *                   other block that takes the same hop. One round per (dimension, distinct
 *                   non-zero coordinate value): 2d rounds for a Moore neighborhood of radius 1.
 *   cart-dim-batch  the same messages, a dimension's messages all in one round: d rounds,
 *                   fewer latencies when a dimension has several coordinate values (radius > 1).
 *   cart-bruck      Bruck-like combining: every offset is a sum of some of a few hops (binary
 *                   digits per dimension, plus one negative hop where a dimension has both
 *                   signs: the fewest one-dimensional hops that reach every coordinate value),
 *                   a hop is one message to X + H, and a round holds the hops that no block
 *                   takes together (+1 and -1 for radius 1, +1 and +2 for radius 2): Moore
 *                   radius 1 takes 1 round and 2 messages per dimension, radius 2 takes 2 rounds
 *                   and 3 messages, and offsets of one sign take one message per round (1, 2, 4,
 *                   ... as in Bruck's allgather). Routes may pass processes outside the
 *                   neighborhood, and wrap around non-periodic dimensions too (every point of
 *                   the grid is a process), so only sources and targets must exist.
 *   cart-2hop       two rounds whose hops may move along several dimensions: each dimension's
 *                   values go to round 1, to round 2, or are split by sign between them (3-D
 *                   Moore radius 1: 5 + 5 messages where cart-dim-batch sends 3 rounds of 2).
 *                   cart-bruck and cart-2hop share one builder for plans of hops.
 *
 * Dimension order routing never leaves the grid: after the hops of dimensions < k a block
 * sits at a point whose coordinates are its source's or its target's, one by one. On
 * non-periodic dimensions a block moves only if its source and its final target exist, and
 * both ends of a message compute the same list from their coordinates, so MPI_PROC_NULL
 * neighbors never break forwarding. Blocks are identified by offset index (alltoall), or for
 * allgather by the part of the route already travelled, since the blocks of all offsets that
 * share it are the same data: each moves once.
 *
 * Where the topology is not isomorphic these algorithms build the direct schedule. The
 * combining ones (cart-dim, cart-dim-batch, cart-bruck, cart-2hop) combine the v and w
 * collectives only under NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, when a forwarder knows each
 * block's size from its own; otherwise those run as cart-direct (a size pass for irregular
 * sizes is not built).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "nhood.h"
#include "schedule/algorithms.h"

#define MAX_DIMS 64

static int cart_applies(const nhood_topo *t) { return t->kind == NHOOD_TOPO_CART_OFFSETS; }

int nhood_build_cart_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  int rc = MPI_SUCCESS;
  NHOOD_TRY(nhood_sched_init(s, "cart-direct", 2 * t->noffsets, 1));
  for (int i = 0; i < t->noffsets; i++) {
    if (t->sources[i] == me) { /* an offset that wraps to X itself: send block i is receive block i */
      NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, i), nhood_recv_block(a, i)));
      continue;
    }
    /* One tag is enough: two messages between the same processes belong to offsets that are
     * equal on the grid, and both ends order them by offset index. */
    if (t->sources[i] != MPI_PROC_NULL) NHOOD_TRY(nhood_sched_recv(s, t->sources[i], 0, nhood_recv_block(a, i)));
    if (t->destinations[i] != MPI_PROC_NULL)
      NHOOD_TRY(nhood_sched_send(s, t->destinations[i], 0, nhood_send_block(a, i)));
    NHOOD_TRY(nhood_sched_fence(s));
  }
  NHOOD_TRY(nhood_sched_finish(s));
  return MPI_SUCCESS;
cleanup:
  nhood_sched_free(s);
  return rc;
}

/* ---- dimension-wise combining ------------------------------------------------------------ */

/* Whether the combining cart algorithms can combine this call: allgather and alltoall always;
 * the v and w collectives when the caller asserts isomorphic sizes (nhood.h), for then a
 * process that forwards the block of offset i knows its size: its own. */
static int combinable(const nhood_coll_args *a) {
  return a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLTOALL ||
         (a->isomorphic_sizes &&
          (a->kind == NHOOD_ALLGATHERV || a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW));
}

/* Bytes of a block; type_size is the call's send or receive type size (alltoallw asks MPI
 * except for MPI_BYTE, the others need no MPI call, which lets nhood-sim build schedules
 * without MPI_Init). */
static int region_bytes(const nhood_coll_args *a, nhood_region r, int type_size, MPI_Aint *bytes) {
  int rc = MPI_SUCCESS, size = type_size;
  if (a->kind == NHOOD_ALLTOALLW) NHOOD_MPI_CALL(nhood_type_size(r.type, &size));
  *bytes = (MPI_Aint)r.count * size;
cleanup:
  return rc;
}

/* sizes[i] = the bytes of the block of offset i, the same on every process: send block i and
 * receive block i must agree (with isomorphic sizes, receive block i is send block i of
 * another process). */
static int block_sizes(const nhood_coll_args *a, int n, const char *name, int *sizes) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n; i++) {
    MPI_Aint send = 0, recv = 0;
    NHOOD_TRY(region_bytes(a, nhood_send_block(a, i), a->send_type_size, &send));
    NHOOD_TRY(region_bytes(a, nhood_recv_block(a, i), a->recv_type_size, &recv));
    if (send != recv || send > 1 << 30)
      return nhood_error(MPI_ERR_TRUNCATE,
                         "%s: block %d is %lld bytes to send but %lld to receive (they must be equal, below 1 GiB%s)",
                         name, i, (long long)send, (long long)recv,
                         a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLTOALL
                             ? ""
                             : ", as " NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES " asserts");
    sizes[i] = (int)send;
  }
cleanup:
  return rc;
}

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

static void table_free(block_table *b) {
  free(b->sizes);
  free(b->key_now);
  free(b->key_next);
  free(b->stamp);
  free(b->now);
  free(b->next);
  memset(b, 0, sizeof *b); /* freeing twice (a failed table_init, then its caller) is harmless */
}

static int table_init(block_table *b, const nhood_coll_args *a, int n, const char *name) {
  size_t m = (size_t)(n + 1);
  memset(b, 0, sizeof *b);
  b->n = n;
  b->alltoall = a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLGATHERV;
  b->sizes = malloc(sizeof(int) * m);
  b->key_now = malloc(sizeof(int) * m);
  b->key_next = malloc(sizeof(int) * m);
  b->stamp = calloc(m, sizeof(int));
  b->now = calloc(m, sizeof *b->now);
  b->next = calloc(m, sizeof *b->next);
  if (!b->sizes || !b->key_now || !b->key_next || !b->stamp || !b->now || !b->next) {
    table_free(b);
    return nhood_error(MPI_ERR_NO_MEM, "%s: out of memory building a schedule", name);
  }
  int rc = block_sizes(a, n, name, b->sizes);
  if (rc != MPI_SUCCESS) table_free(b);
  return rc;
}

/* After a round: blocks not in it stay where they were; `next` becomes `now`. */
static void table_advance(block_table *b, int (*stays)(const void *ctx, int i), const void *ctx) {
  for (int i = 0; i < b->n; i++)
    if (stays(ctx, i)) b->next[b->key_next[i]] = b->now[b->key_now[i]];
  int *keys = b->key_now;
  b->key_now = b->key_next;
  b->key_next = keys;
  nhood_region *where = b->now;
  b->now = b->next;
  b->next = where;
}

static nhood_region scratch_bytes(MPI_Aint offset, int count) {
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH, 0};
}

/* One message each way: the blocks with in_message(ctx, i, 0) out to `to`, the blocks with
 * in_message(ctx, i, 1) in from `from` (the same test, made from the sender's point of view),
 * each key once, in offset order on both ends. MPI_PROC_NULL peers are an internal error:
 * routes never leave the grid. */
static int table_message(block_table *b, nhood_sched *s, int (*in_message)(const void *ctx, int i, int incoming),
                         const void *ctx, int to, int from, int tag, const char *name) {
  int rc = MPI_SUCCESS, nout = 0, nin = 0;
  MPI_Aint at = b->scratch, out_bytes = 0, in_bytes = 0;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_now[i];
    if (b->stamp[key] == b->stamp_value || !in_message(ctx, i, 0)) continue;
    b->stamp[key] = b->stamp_value;
    NHOOD_TRY(nhood_sched_copy(s, b->now[key], scratch_bytes(at + out_bytes, b->sizes[key])));
    out_bytes += b->sizes[key];
    nout++;
  }
  if (nout) {
    if (to == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "%s: a block would leave the grid", name);
    NHOOD_TRY(nhood_sched_send(s, to, tag, scratch_bytes(at, (int)out_bytes)));
  }
  at += out_bytes;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_next[i];
    if (b->stamp[key] == b->stamp_value || !in_message(ctx, i, 1)) continue;
    b->stamp[key] = b->stamp_value;
    b->next[key] = scratch_bytes(at + in_bytes, b->sizes[key]);
    in_bytes += b->sizes[key];
    nin++;
  }
  if (nin) {
    if (from == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "%s: a block would come from outside the grid", name);
    NHOOD_TRY(nhood_sched_recv(s, from, tag, scratch_bytes(at, (int)in_bytes)));
  }
  b->scratch = at + in_bytes;
cleanup:
  return rc;
}

/* Every block has arrived: receive block i is the block of offset i, where it exists. */
static int table_deliver(block_table *b, const nhood_coll_args *a, nhood_sched *s,
                         int (*arrived)(const void *ctx, int i), const void *ctx) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < b->n; i++)
    if (arrived(ctx, i)) NHOOD_TRY(nhood_sched_copy(s, b->now[b->key_now[i]], nhood_recv_block(a, i)));
  s->scratch_bytes = b->scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  return rc;
}

/* ---- cart-dim and cart-dim-batch --------------------------------------------------------- */

typedef struct {
  const nhood_topo *t;
  int nd, k, v; /* the current phase (dimension k) and message (coordinate value v) */
  int from[MAX_DIMS];
  block_table tab;
} dim_builder;

static const int *offset_of(const nhood_topo *t, int i) { return t->offsets + (size_t)i * t->ndims; }

/* Rank at holder + sign * (the part of C_i in dimensions [from, to)), or MPI_PROC_NULL. */
static int rank_at(const nhood_topo *t, const int *holder, int i, int from, int to, int sign) {
  int c[MAX_DIMS];
  const int *off = offset_of(t, i);
  for (int d = 0; d < t->ndims; d++) c[d] = holder[d] + (d >= from && d < to ? sign * off[d] : 0);
  return nhood_cart_rank_of(t->ndims, t->dims, t->periods, c);
}

/* Whether the block of offset i held at `holder` before phase k moves: its source
 * holder - C_i[<k] and its final target holder + C_i[>=k] exist. */
static int moves(const nhood_topo *t, const int *holder, int i, int k) {
  return rank_at(t, holder, i, 0, k, -1) != MPI_PROC_NULL && rank_at(t, holder, i, k, t->ndims, 1) != MPI_PROC_NULL;
}

/* keys[i] = the smallest j whose route through dimensions < upto equals i's (alltoall: i). */
static void route_keys(const dim_builder *b, int upto, int *keys) {
  for (int i = 0; i < b->tab.n; i++) {
    keys[i] = i;
    if (b->tab.alltoall) continue;
    for (int j = 0; j < i; j++) {
      const int *x = offset_of(b->t, i), *y = offset_of(b->t, j);
      int same = 1;
      for (int d = 0; d < upto && same; d++) same = x[d] == y[d];
      if (same) {
        keys[i] = j;
        break;
      }
    }
  }
}

static int dim_in_message(const void *ctx, int i, int incoming) {
  const dim_builder *b = ctx;
  return offset_of(b->t, i)[b->k] == b->v && moves(b->t, incoming ? b->from : b->t->coords, i, b->k);
}

static int dim_stays(const void *ctx, int i) {
  const dim_builder *b = ctx;
  return offset_of(b->t, i)[b->k] == 0;
}

static int dim_arrived(const void *ctx, int i) {
  const dim_builder *b = ctx;
  return moves(b->t, b->t->coords, i, b->nd);
}

static int compare_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/* The distinct non-zero values of coordinate k, ascending; returns how many. */
static int phase_values(const nhood_topo *t, int k, int *values) {
  int m = 0;
  for (int i = 0; i < t->noffsets; i++)
    if (offset_of(t, i)[k] != 0) values[m++] = offset_of(t, i)[k];
  qsort(values, (size_t)m, sizeof *values, compare_int);
  int distinct = 0;
  for (int j = 0; j < m; j++)
    if (distinct == 0 || values[j] != values[distinct - 1]) values[distinct++] = values[j];
  return distinct;
}

static int build_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, int batch) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  if (!combinable(a)) return nhood_build_cart_direct(t, a, me, s);
  const char *name = batch ? "cart-dim-batch" : "cart-dim";
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "%s: at most %d dimensions", name, MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets, *values = NULL;
  dim_builder b = {.t = t, .nd = t->ndims};
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  NHOOD_TRY(table_init(&b.tab, a, n, name));
  if (!(values = malloc(sizeof(int) * (size_t)(n + 1)))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "%s: out of memory building a schedule", name);
    goto cleanup;
  }
  /* Tags: a message per coordinate value of a phase; the most values any phase has (the same
   * on every process, as the offsets are). */
  int ntags = 1;
  for (int k = 0; k < b.nd; k++) {
    int nv = phase_values(t, k, values);
    if (nv > ntags) ntags = nv;
  }
  NHOOD_TRY(nhood_sched_init(s, name, 4 * n + 4, ntags));
  route_keys(&b, 0, b.tab.key_now);
  for (int i = 0; i < n; i++) b.tab.now[b.tab.key_now[i]] = nhood_send_block(a, i);
  for (int k = 0; k < b.nd; k++) {
    b.k = k;
    route_keys(&b, k + 1, b.tab.key_next);
    int nv = phase_values(t, k, values);
    for (int j = 0; j < nv; j++) {
      int to[MAX_DIMS];
      b.v = values[j];
      memcpy(b.from, t->coords, sizeof(int) * (size_t)b.nd);
      memcpy(to, t->coords, sizeof(int) * (size_t)b.nd);
      b.from[k] -= b.v; /* the process that sends to X in this message */
      to[k] += b.v;
      NHOOD_TRY(table_message(&b.tab, s, dim_in_message, &b, nhood_cart_rank_of(b.nd, t->dims, t->periods, to),
                              nhood_cart_rank_of(b.nd, t->dims, t->periods, b.from), j, name));
      if (!batch) NHOOD_TRY(nhood_sched_fence(s));
    }
    if (batch && nv) NHOOD_TRY(nhood_sched_fence(s));
    table_advance(&b.tab, dim_stays, &b);
  }
  NHOOD_TRY(table_deliver(&b.tab, a, s, dim_arrived, &b));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  table_free(&b.tab);
  free(values);
  return rc;
}

int nhood_build_cart_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 0);
}

int nhood_build_cart_dim_batch(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 1);
}

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

static const int *hop_of(const hop_plan *h, int j) { return h->vec + (size_t)j * h->nd; }

/* cart-bruck's hops: each along one dimension, one per binary digit. Per dimension with
 * coordinate values in [lo, hi]: when lo >= 0 the hops are 1, 2, ..., 2^(b-1) with 2^b > hi
 * (binary digits); when hi <= 0 their negatives; otherwise, with R = max(hi, -lo) and
 * 2^b > R, the hops 1, 2, ..., 2^(b-1) and -(2^b - 1): a value v >= 0 takes its binary
 * digits, a value v < 0 takes the last hop and the digits of v + 2^b - 1. That reaches
 * 2^(b+1) - 1 >= 2R + 1 values with b + 1 hops, the fewest any set of one-dimensional hops can
 * (m hops make at most 2^m sums, and 2R + 1 is odd). Moore radius 1 takes 2 hops per
 * dimension (+1, -1), radius 2 takes 3 (+1, +2, -3).
 *
 * Consecutive hops that no offset's mask holds together form one round. One message per round
 * cannot reach the bound ceil(log2(s+1)) + 1 for 3-D Moore radius 2 (8 rounds for 125
 * values): a randomized search over 8 hops mixing dimensions never covered more than 123 of
 * them, and an exhaustive one found no 5 hops in [-4, 4]^2 covering 2-D radius 2. With the
 * sharing it takes 6. */
static int bits_for(int value) { /* smallest b with 2^b > value */
  int b = 0;
  while (b < 31 && (1L << b) <= value) b++;
  return b;
}

static void add_axis_hop(hop_plan *h, int k, int step) {
  h->vec[(size_t)h->m * h->nd + k] = step;
  h->m++;
}

static int bruck_plan(const nhood_topo *t, hop_plan *h) {
  int nd = t->ndims, n = t->noffsets;
  for (int k = 0; k < nd; k++) {
    int lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
      int v = t->offsets[(size_t)i * nd + k];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (lo == 0 && hi == 0) continue;
    int mixed = lo < 0 && hi > 0, sign = hi > 0 ? 1 : -1;
    int b = bits_for(mixed ? (hi > -lo ? hi : -lo) : (hi > 0 ? hi : -lo));
    if (h->m + b + mixed > MAX_HOPS) return 0;
    int first = h->m;
    for (int j = 0; j < b; j++) add_axis_hop(h, k, sign * (1 << j));
    if (mixed) add_axis_hop(h, k, -((1 << b) - 1));
    for (int i = 0; i < n; i++) {
      int v = t->offsets[(size_t)i * nd + k];
      unsigned digits = (unsigned)(v * sign);
      if (mixed && v < 0) {
        digits = (unsigned)(v + (1 << b) - 1);
        h->mask[i] |= (uint64_t)1 << (first + b);
      }
      for (int j = 0; j < b; j++)
        if (digits >> j & 1) h->mask[i] |= (uint64_t)1 << (first + j);
    }
  }
  /* Rounds: a hop joins the current round unless some offset takes it and one already there. */
  h->nrounds = 0;
  uint64_t current = 0;
  for (int j = 0; j < h->m; j++) {
    int shares = current != 0;
    for (int i = 0; i < n && shares; i++)
      if ((h->mask[i] >> j & 1) && (h->mask[i] & current)) shares = 0;
    if (!shares && current) h->nrounds++;
    current = (shares ? current : 0) | (uint64_t)1 << j;
    h->round_end[h->nrounds] = j + 1;
  }
  if (current) h->nrounds++;
  return 1;
}

/* cart-2hop: two rounds, every block in at most two hops, one per round. Each dimension's
 * coordinate values go to round 1, to round 2, or (where they have both signs) are split:
 * the non-negative ones in one round, the negative ones in the other. An offset's hop in
 * round q is then the vector of its coordinates that went to round q, and a round sends one
 * message per distinct non-zero hop its offsets take.
 *
 * For 3-D Moore radius 1 splitting one dimension gives two rounds of 5 messages: x and y >= 0
 * first, then y < 0 and z (the sums of {0, ±x, +y, +y±x} and {0, -y, ±z, -y±z} are the 27
 * points of the cube), where cart-dim-batch takes 3 rounds of 2. Under LogGP a round of m
 * messages each way takes about max(m o, o + L) + m o, as the sends overlap the wire latency:
 * 2 x 3.0 against 3 x 2.1 µs with ib-edr (nhood-sim: 6.0 against 6.3). The library's cost
 * model adds latency and overheads instead (L + 2 m o + g (m - 1) per round) and prices the
 * two rounds above three, so "auto" picks cart-2hop only where that sum favours it too.
 *
 * The plan is the assignment with the fewest messages, then the fewest rounds, then the
 * smaller larger round (balanced rounds hide more send overhead behind a round's latency),
 * found by trying all of them: 4 choices per dimension with both signs, 2 per dimension
 * with one. Swapping the rounds gives an equal plan, so the first dimension that takes values
 * keeps its non-negative values in round 1. With more than 6 such dimensions, more than
 * 2^16 points in the box of the offsets, or more than MAX_HOPS hops the builder falls back to
 * cart-dim-batch. The plan depends on the offsets only, so every process finds the same. */
#define TWO_HOP_MAX_FREE_DIMS 6
#define TWO_HOP_MAX_BOX (1 << 16)

/* The round (0 or 1) that a non-zero coordinate value v takes under choice c: 0 all in round
 * 1, 1 all in round 2, 2 non-negative in round 1 and negative in round 2, 3 the other way. */
static int two_hop_round(int c, int v) { return c < 2 ? c : (c == 2) == (v < 0); }

/* Offset i's hop in round q under choice[] as a point of the offsets' box (0 for the zero
 * hop): coordinate k, when it goes to round q, contributes its value shifted into
 * [0, hi - lo] (0 for 0) times the box's stride. */
static int two_hop_term(int c, int q, int v, int hi, int stride) {
  return v != 0 && two_hop_round(c, v) == q ? (v > 0 ? v : hi - v) * stride : 0;
}

static int two_hop_plan(const nhood_topo *t, hop_plan *h) {
  int nd = t->ndims, n = t->noffsets, lo[MAX_DIMS], hi[MAX_DIMS], options[MAX_DIMS], stride[MAX_DIMS];
  int free_dims = 0, box = 1, first_free = -1;
  for (int k = nd - 1; k >= 0; k--) {
    lo[k] = hi[k] = 0;
    for (int i = 0; i < n; i++) {
      int v = offset_of(t, i)[k];
      if (v < lo[k]) lo[k] = v;
      if (v > hi[k]) hi[k] = v;
    }
    options[k] = lo[k] == 0 && hi[k] == 0 ? 1 : (lo[k] < 0 && hi[k] > 0 ? 4 : 2);
    if (options[k] > 1) free_dims++, first_free = k;
    stride[k] = box;
    if ((double)box * (hi[k] - lo[k] + 1) > TWO_HOP_MAX_BOX) return 0;
    box *= hi[k] - lo[k] + 1;
  }
  if (free_dims > TWO_HOP_MAX_FREE_DIMS) return 0;
  /* Round swapping: the first dimension with values tries "all in round 1" and, with both
   * signs, "non-negative in round 1" only (choices 0 and 2). */
  int first_choices[2] = {0, 2};
  int *code = malloc(sizeof(int) * ((size_t)2 * n + (size_t)box + 2)), *seen = code + 2 * n;
  if (!code) return -1;
  memset(seen, 0, sizeof(int) * (size_t)box);
  int choice[MAX_DIMS] = {0}, best[MAX_DIMS] = {0}, best_msgs = -1, best_rounds = 0, best_larger = 0, stamp = 0;
  int first_index = 0;        /* into first_choices, for dimension first_free */
  for (int q = 0; q < 2; q++) /* every choice starts at 0: everything in round 1 */
    for (int i = 0; i < n; i++) {
      code[q * n + i] = 0;
      for (int k = 0; k < nd; k++) code[q * n + i] += two_hop_term(0, q, offset_of(t, i)[k], hi[k], stride[k]);
    }
  for (;;) {
    int m[2] = {0, 0};
    for (int q = 0; q < 2; q++) {
      stamp++;
      for (int i = 0; i < n; i++) {
        int c = code[q * n + i];
        if (c != 0 && seen[c] != stamp) seen[c] = stamp, m[q]++;
      }
    }
    int msgs = m[0] + m[1], rounds = (m[0] > 0) + (m[1] > 0), larger = m[0] > m[1] ? m[0] : m[1];
    if (msgs <= MAX_HOPS && (best_msgs < 0 || msgs < best_msgs || (msgs == best_msgs && rounds < best_rounds) ||
                             (msgs == best_msgs && rounds == best_rounds && larger < best_larger))) {
      best_msgs = msgs, best_rounds = rounds, best_larger = larger;
      memcpy(best, choice, sizeof(int) * (size_t)nd);
    }
    /* The next assignment, odometer-wise; codes follow each dimension that changes. */
    int k = 0;
    for (; k < nd; k++) {
      int before = choice[k], carry;
      if (k == first_free) {
        carry = ++first_index == (options[k] == 4 ? 2 : 1);
        if (carry) first_index = 0;
        choice[k] = first_choices[first_index];
      } else {
        carry = ++choice[k] == options[k];
        if (carry) choice[k] = 0;
      }
      if (choice[k] != before)
        for (int q = 0; q < 2; q++)
          for (int i = 0; i < n; i++) {
            int v = offset_of(t, i)[k];
            code[q * n + i] +=
                two_hop_term(choice[k], q, v, hi[k], stride[k]) - two_hop_term(before, q, v, hi[k], stride[k]);
          }
      if (!carry) break;
    }
    if (k == nd) break;
  }
  if (best_msgs < 0) {
    free(code);
    return 0;
  }
  /* Round q's hops in ascending order of their points; each offset's mask. seen[] now maps a
   * point to its hop index + 1 (the stamps are spent: clear it first). */
  memset(seen, 0, sizeof(int) * (size_t)box);
  h->nrounds = 0;
  for (int q = 0; q < 2; q++) {
    int first = h->m;
    for (int i = 0; i < n; i++) {
      code[i] = 0;
      for (int k = 0; k < nd; k++) code[i] += two_hop_term(best[k], q, offset_of(t, i)[k], hi[k], stride[k]);
      if (code[i] != 0) seen[code[i]] = 1;
    }
    for (int c = 1; c < box; c++)
      if (seen[c]) seen[c] = ++h->m;
    for (int i = 0; i < n; i++) {
      if (code[i] == 0) continue;
      int j = seen[code[i]] - 1;
      h->mask[i] |= (uint64_t)1 << j;
      for (int k = 0; k < nd; k++) {
        int v = offset_of(t, i)[k];
        h->vec[(size_t)j * nd + k] = v != 0 && two_hop_round(best[k], v) == q ? v : 0;
      }
    }
    for (int i = 0; i < n; i++)
      if (code[i] != 0) seen[code[i]] = 0;
    if (h->m > first) h->round_end[h->nrounds++] = h->m;
  }
  free(code);
  return 1;
}

typedef struct {
  const nhood_topo *t;
  const hop_plan *h;
  int nd, j;          /* the current hop */
  uint64_t round;     /* the hops of the current round */
  int from[MAX_DIMS]; /* the process that sends to X by hop j */
  block_table tab;
} hop_builder;

/* Whether the block of offset i, held at `holder` before hop j, moves at all: its source
 * (holder minus the hops it took before hop j, wrapping) and its target (source + C_i) exist
 * in the grid's own terms. Intermediate points wrap around every dimension, so a route never
 * passes a process that does not exist, periodic or not. */
static int hop_moves(const hop_builder *b, const int *holder, int i, int j) {
  const int *off = offset_of(b->t, i);
  int source[MAX_DIMS];
  memcpy(source, holder, sizeof(int) * (size_t)b->nd);
  for (int q = 0; q < j; q++)
    if (b->h->mask[i] >> q & 1)
      for (int k = 0; k < b->nd; k++) source[k] -= hop_of(b->h, q)[k];
  for (int k = 0; k < b->nd; k++) {
    if (b->t->periods[k]) continue;
    int d = b->t->dims[k], x = ((source[k] % d) + d) % d;
    if (x + off[k] < 0 || x + off[k] >= d) return 0;
  }
  return 1;
}

/* keys[i] = the smallest offset whose mask agrees with i's on hops < upto (alltoall: i). */
static void hop_keys(const hop_builder *b, int upto, int *keys) {
  uint64_t low = upto >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << upto) - 1);
  for (int i = 0; i < b->tab.n; i++) {
    keys[i] = i;
    if (b->tab.alltoall) continue;
    for (int q = 0; q < i; q++)
      if (((b->h->mask[i] ^ b->h->mask[q]) & low) == 0) {
        keys[i] = q;
        break;
      }
  }
}

static int hop_in_message(const void *ctx, int i, int incoming) {
  const hop_builder *b = ctx;
  return (b->h->mask[i] >> b->j & 1) && hop_moves(b, incoming ? b->from : b->t->coords, i, b->j);
}

static int hop_stays(const void *ctx, int i) {
  const hop_builder *b = ctx;
  return !(b->h->mask[i] & b->round);
}

static int hop_arrived(const void *ctx, int i) {
  const hop_builder *b = ctx;
  return hop_moves(b, b->t->coords, i, b->h->m);
}

/* The schedule of a hop plan: per round, per hop j, one message to X + H_j and one from
 * X - H_j (tag j), holding the blocks whose masks take hop j. Where `plan` finds no plan, it
 * builds `fallback`'s schedule. */
static int build_hops(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, const char *name,
                      hop_planner plan, nhood_builder fallback) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  if (!combinable(a)) return nhood_build_cart_direct(t, a, me, s);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "%s: at most %d dimensions", name, MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets, nd = t->ndims;
  hop_plan h = {.nd = nd};
  hop_builder b = {.t = t, .h = &h, .nd = nd};
  int wrap[MAX_DIMS];
  for (int k = 0; k < nd; k++) wrap[k] = 1;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  NHOOD_TRY(table_init(&b.tab, a, n, name));
  h.mask = calloc((size_t)(n + 1), sizeof *h.mask);
  h.vec = calloc((size_t)MAX_HOPS * (size_t)(nd > 0 ? nd : 1), sizeof *h.vec);
  int planned = h.mask && h.vec ? plan(t, &h) : -1;
  if (planned < 0) {
    rc = nhood_error(MPI_ERR_NO_MEM, "%s: out of memory building a schedule", name);
    goto cleanup;
  }
  if (planned == 0) {
    rc = fallback(t, a, me, s);
    goto cleanup;
  }
  NHOOD_TRY(nhood_sched_init(s, name, 4 * n + 4, h.m > 0 ? h.m : 1));
  hop_keys(&b, 0, b.tab.key_now);
  for (int i = 0; i < n; i++) b.tab.now[b.tab.key_now[i]] = nhood_send_block(a, i);
  for (int r = 0, j = 0; r < h.nrounds; r++) {
    int end = h.round_end[r];
    b.round = (end >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << end) - 1) & ~(((uint64_t)1 << j) - 1);
    hop_keys(&b, end, b.tab.key_next);
    for (; j < end; j++) { /* no block takes two hops of a round, so each sees one message */
      int to[MAX_DIMS];
      b.j = j;
      for (int k = 0; k < nd; k++) {
        b.from[k] = t->coords[k] - hop_of(&h, j)[k];
        to[k] = t->coords[k] + hop_of(&h, j)[k];
      }
      NHOOD_TRY(table_message(&b.tab, s, hop_in_message, &b, nhood_cart_rank_of(nd, t->dims, wrap, to),
                              nhood_cart_rank_of(nd, t->dims, wrap, b.from), j, name));
    }
    NHOOD_TRY(nhood_sched_fence(s));
    table_advance(&b.tab, hop_stays, &b);
  }
  b.j = h.m;
  NHOOD_TRY(table_deliver(&b.tab, a, s, hop_arrived, &b));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  table_free(&b.tab);
  free(h.mask);
  free(h.vec);
  return rc;
}

int nhood_build_cart_bruck(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_hops(t, a, me, s, "cart-bruck", bruck_plan, nhood_build_cart_dim);
}

int nhood_build_cart_2hop(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_hops(t, a, me, s, "cart-2hop", two_hop_plan, nhood_build_cart_dim_batch);
}
