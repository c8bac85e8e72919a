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
 *   cart-bruck      Bruck-like combining: one send and one receive per round, a round per hop,
 *                   and every offset a sum of some of the hops (binary digits per dimension,
 *                   plus one negative hop where a dimension has both signs): the fewest
 *                   one-dimensional hops that reach every coordinate value, e.g. 2 per
 *                   dimension for Moore radius 1 and 3 for radius 2. Routes may pass processes
 *                   outside the neighborhood, and wrap around non-periodic dimensions too (every
 *                   point of the grid is a process), so only sources and targets must exist.
 *
 * Dimension order routing never leaves the grid: after the hops of dimensions < k a block
 * sits at a point whose coordinates are its source's or its target's, one by one. On
 * non-periodic dimensions a block moves only if its source and its final target exist, and
 * both ends of a message compute the same list from their coordinates, so MPI_PROC_NULL
 * neighbors never break forwarding. Blocks are identified by offset index (alltoall), or for
 * allgather by the part of the route already travelled, since the blocks of all offsets that
 * share it are the same data: each moves once.
 *
 * Where the topology is not isomorphic these algorithms build the direct schedule; cart-dim
 * builds cart-direct for the v and w collectives (forwarders would first need the block sizes:
 * a size pass, as combine has, is still to come).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "nhood.h"
#include "schedule/algorithms.h"

#define MAX_DIMS 64

static int cart_applies(const nhood_topo *t) { return t->kind == NHOOD_TOPO_CART_OFFSETS; }

int nhood_build_cart_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  int rc = MPI_SUCCESS;
  NHOOD_TRY(nhood_sched_init(s, "cart-direct", 2 * t->noffsets, 1));
  for (int i = 0; i < t->noffsets; i++) {
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
         (a->isomorphic_sizes && (a->kind == NHOOD_ALLGATHERV || a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW));
}

/* Bytes of a block; type_size is the call's send or receive type size (alltoallw asks MPI,
 * the others need no MPI call, which lets nhood-sim build schedules without MPI_Init). */
static int region_bytes(const nhood_coll_args *a, nhood_region r, int type_size, MPI_Aint *bytes) {
  int rc = MPI_SUCCESS, size = type_size;
  if (a->kind == NHOOD_ALLTOALLW) NHOOD_MPI_CALL(MPI_Type_size(r.type, &size));
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

typedef struct {
  const nhood_topo *t;
  const nhood_coll_args *a;
  nhood_sched *s;
  int nd, n, alltoall, batch;
  int *sizes;                   /* per offset: bytes of its block */
  int *rep_now, *rep_next;      /* per offset: the key of its block before / after this phase */
  nhood_region *now, *next;     /* per key: where its block lies */
  int *stamp, stamp_value;      /* marks keys already listed in one message */
  MPI_Aint scratch;
} dim_builder;

static const int *offset_of(const dim_builder *b, int i) { return b->t->offsets + (size_t)i * b->nd; }

/* Rank at holder + sign * (the part of C_i in dimensions [from, to)), or MPI_PROC_NULL. */
static int rank_at(const dim_builder *b, const int *holder, int i, int from, int to, int sign) {
  int c[MAX_DIMS];
  const int *off = offset_of(b, i);
  for (int d = 0; d < b->nd; d++) c[d] = holder[d] + (d >= from && d < to ? sign * off[d] : 0);
  return nhood_cart_rank_of(b->nd, b->t->dims, b->t->periods, c);
}

/* Whether the block of offset i held at `holder` before phase k moves: its source
 * holder - C_i[<k] and its final target holder + C_i[>=k] exist. */
static int moves(const dim_builder *b, const int *holder, int i, int k) {
  return rank_at(b, holder, i, 0, k, -1) != MPI_PROC_NULL && rank_at(b, holder, i, k, b->nd, 1) != MPI_PROC_NULL;
}

/* keys[i] = the smallest j whose route through dimensions < upto equals i's (alltoall: i). */
static void route_keys(const dim_builder *b, int upto, int *keys) {
  for (int i = 0; i < b->n; i++) {
    keys[i] = i;
    if (b->alltoall) continue;
    for (int j = 0; j < i; j++) {
      const int *x = offset_of(b, i), *y = offset_of(b, j);
      int same = 1;
      for (int d = 0; d < upto && same; d++) same = x[d] == y[d];
      if (same) {
        keys[i] = j;
        break;
      }
    }
  }
}

static nhood_region scratch_bytes(MPI_Aint offset, int count) {
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH};
}

/* The message of phase k for coordinate value v: blocks out to X + v e_k, blocks in from
 * X - v e_k, in the same order on both ends (offset index, each key once). */
static int build_message(dim_builder *b, int k, int v, int tag) {
  const int *X = b->t->coords;
  int rc = MPI_SUCCESS, nout = 0, nin = 0, from[MAX_DIMS];
  memcpy(from, X, sizeof(int) * (size_t)b->nd);
  from[k] -= v; /* the process that sends to X in this message */
  MPI_Aint at = b->scratch, out_bytes = 0, in_bytes = 0;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->rep_now[i];
    if (offset_of(b, i)[k] != v || b->stamp[key] == b->stamp_value || !moves(b, X, i, k)) continue;
    b->stamp[key] = b->stamp_value;
    NHOOD_TRY(nhood_sched_copy(b->s, b->now[key], scratch_bytes(at + out_bytes, b->sizes[key])));
    out_bytes += b->sizes[key];
    nout++;
  }
  if (nout) {
    int to[MAX_DIMS];
    memcpy(to, X, sizeof(int) * (size_t)b->nd);
    to[k] += v;
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->t->periods, to);
    if (peer == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "cart-dim: a block would leave the grid");
    NHOOD_TRY(nhood_sched_send(b->s, peer, tag, scratch_bytes(at, (int)out_bytes)));
  }
  at += out_bytes;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->rep_next[i];
    if (offset_of(b, i)[k] != v || b->stamp[key] == b->stamp_value || !moves(b, from, i, k)) continue;
    b->stamp[key] = b->stamp_value;
    b->next[key] = scratch_bytes(at + in_bytes, b->sizes[key]);
    in_bytes += b->sizes[key];
    nin++;
  }
  if (nin) {
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->t->periods, from);
    if (peer == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "cart-dim: a block would come from outside the grid");
    NHOOD_TRY(nhood_sched_recv(b->s, peer, tag, scratch_bytes(at, (int)in_bytes)));
  }
  b->scratch = at + in_bytes;
cleanup:
  return rc;
}

static int compare_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/* The distinct non-zero values of coordinate k, ascending; returns how many. */
static int phase_values(const dim_builder *b, int k, int *values) {
  int m = 0;
  for (int i = 0; i < b->n; i++)
    if (offset_of(b, i)[k] != 0) values[m++] = offset_of(b, i)[k];
  qsort(values, (size_t)m, sizeof *values, compare_int);
  int distinct = 0;
  for (int j = 0; j < m; j++)
    if (distinct == 0 || values[j] != values[distinct - 1]) values[distinct++] = values[j];
  return distinct;
}

static int build_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, int batch) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  if (!combinable(a)) return nhood_build_cart_direct(t, a, me, s);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "cart-dim: at most %d dimensions", MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets;
  dim_builder b = {.t = t, .a = a, .s = s, .nd = t->ndims, .n = n, .batch = batch};
  b.alltoall = a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLGATHERV;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  size_t m = (size_t)(n + 1);
  b.sizes = malloc(sizeof(int) * m);
  if (!b.sizes) return nhood_error(MPI_ERR_NO_MEM, "cart-dim: out of memory building a schedule");
  rc = block_sizes(a, n, batch ? "cart-dim-batch" : "cart-dim", b.sizes);
  if (rc != MPI_SUCCESS) {
    free(b.sizes);
    return rc;
  }
  b.rep_now = malloc(sizeof(int) * m);
  b.rep_next = malloc(sizeof(int) * m);
  b.stamp = calloc(m, sizeof(int));
  b.now = calloc(m, sizeof *b.now);
  b.next = calloc(m, sizeof *b.next);
  int *values = malloc(sizeof(int) * m);
  if (!b.rep_now || !b.rep_next || !b.stamp || !b.now || !b.next || !values) {
    rc = nhood_error(MPI_ERR_NO_MEM, "cart-dim: out of memory building a schedule");
    goto cleanup;
  }
  /* Tags: a message per coordinate value of a phase; the most values any phase has (the same
   * on every process, as the offsets are). */
  int ntags = 1;
  for (int k = 0; k < b.nd; k++) {
    int nv = phase_values(&b, k, values);
    if (nv > ntags) ntags = nv;
  }
  NHOOD_TRY(nhood_sched_init(s, batch ? "cart-dim-batch" : "cart-dim", 4 * n + 4, ntags));
  route_keys(&b, 0, b.rep_now);
  for (int i = 0; i < n; i++) b.now[b.rep_now[i]] = nhood_send_block(a, i);
  for (int k = 0; k < b.nd; k++) {
    route_keys(&b, k + 1, b.rep_next);
    for (int i = 0; i < n; i++) /* blocks that make no hop in this dimension stay */
      if (offset_of(&b, i)[k] == 0) b.next[b.rep_next[i]] = b.now[b.rep_now[i]];
    int nv = phase_values(&b, k, values);
    for (int j = 0; j < nv; j++) {
      NHOOD_TRY(build_message(&b, k, values[j], j));
      if (!batch) NHOOD_TRY(nhood_sched_fence(s));
    }
    if (batch && nv) NHOOD_TRY(nhood_sched_fence(s));
    int *keys = b.rep_now;
    b.rep_now = b.rep_next;
    b.rep_next = keys;
    nhood_region *where = b.now;
    b.now = b.next;
    b.next = where;
  }
  /* Every block has arrived: receive block i is the one that travelled C_i from X - C_i. */
  for (int i = 0; i < n; i++)
    if (moves(&b, t->coords, i, b.nd)) NHOOD_TRY(nhood_sched_copy(s, b.now[b.rep_now[i]], nhood_recv_block(a, i)));
  s->scratch_bytes = b.scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  free(b.sizes);
  free(b.rep_now);
  free(b.rep_next);
  free(b.stamp);
  free(b.now);
  free(b.next);
  free(values);
  return rc;
}

int nhood_build_cart_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 0);
}

int nhood_build_cart_dim_batch(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 1);
}

/* ---- Bruck-like combining: one message per round, logarithmically many rounds ------------ */

/* The hops of cart-bruck: vectors H_0..H_{m-1}, one per round, each along one dimension,
 * such that every offset is the sum of a subset of them (its mask). Per dimension with
 * coordinate values in [lo, hi]: when lo >= 0 the hops are 1, 2, ..., 2^(b-1) with
 * 2^b > hi (binary digits); when hi <= 0 their negatives; otherwise, with R = max(hi, -lo)
 * and 2^b > R, the hops 1, 2, ..., 2^(b-1) and -(2^b - 1): a value v >= 0 takes its binary
 * digits, a value v < 0 takes the last hop and the digits of v + 2^b - 1. That reaches
 * 2^(b+1) - 1 >= 2R + 1 values with b + 1 hops, the fewest any set of one-dimensional hops can
 * (m hops make at most 2^m sums, and 2R + 1 is odd). Moore radius 1 takes 2 hops per
 * dimension (+1, -1), radius 2 takes 3 (+1, +2, -3). */
typedef struct {
  int m;
  int dim[64], step[64];  /* hop j moves by step[j] along dimension dim[j] */
  uint64_t *mask;         /* per offset */
} bruck_hops;

static int bits_for(int value) { /* smallest b with 2^b > value */
  int b = 0;
  while (b < 31 && (1L << b) <= value) b++;
  return b;
}

/* Returns 0 when the hops would exceed 64 (the builder then uses cart-dim). */
static int bruck_plan(const nhood_topo *t, bruck_hops *h) {
  int nd = t->ndims, n = t->noffsets;
  h->m = 0;
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
    if (h->m + b + mixed > 64) return 0;
    int first = h->m;
    for (int j = 0; j < b; j++) h->dim[h->m] = k, h->step[h->m++] = sign * (1 << j);
    if (mixed) h->dim[h->m] = k, h->step[h->m++] = -((1 << b) - 1);
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
  return 1;
}

typedef struct {
  const nhood_topo *t;
  const nhood_coll_args *a;
  nhood_sched *s;
  const bruck_hops *h;
  int nd, n, alltoall;
  int *sizes;                   /* per offset: bytes of its block */
  int *wrap;                    /* ndims ones: intermediate points wrap on every dimension */
  int *key_now, *key_next;      /* per offset: the key of its block before / after this round */
  nhood_region *now, *next;     /* per key: where its block lies */
  int *stamp, stamp_value;
  MPI_Aint scratch;
} bruck_builder;

/* Whether the block of offset i, held at `holder` before round j, moves at all: its source
 * (holder minus the hops it took before round j, wrapping) and its target (source + C_i) exist
 * in the grid's own terms. Intermediate points wrap around every dimension, so a route never
 * passes a process that does not exist, periodic or not. */
static int bruck_moves(const bruck_builder *b, const int *holder, int i, int j) {
  const int *off = b->t->offsets + (size_t)i * b->nd;
  int source[MAX_DIMS];
  memcpy(source, holder, sizeof(int) * (size_t)b->nd);
  for (int q = 0; q < j; q++)
    if (b->h->mask[i] >> q & 1) source[b->h->dim[q]] -= b->h->step[q];
  for (int k = 0; k < b->nd; k++) {
    if (b->t->periods[k]) continue;
    int d = b->t->dims[k], x = ((source[k] % d) + d) % d;
    if (x + off[k] < 0 || x + off[k] >= d) return 0;
  }
  return 1;
}

/* keys[i] = the smallest offset whose mask agrees with i's on rounds < upto (alltoall: i). */
static void bruck_keys(const bruck_builder *b, int upto, int *keys) {
  uint64_t low = upto >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << upto) - 1);
  for (int i = 0; i < b->n; i++) {
    keys[i] = i;
    if (b->alltoall) continue;
    for (int q = 0; q < i; q++)
      if (((b->h->mask[i] ^ b->h->mask[q]) & low) == 0) {
        keys[i] = q;
        break;
      }
  }
}

static int bruck_round(bruck_builder *b, int j) {
  const int *X = b->t->coords;
  int rc = MPI_SUCCESS, nout = 0, nin = 0, from[MAX_DIMS], to[MAX_DIMS];
  memcpy(from, X, sizeof(int) * (size_t)b->nd);
  memcpy(to, X, sizeof(int) * (size_t)b->nd);
  from[b->h->dim[j]] -= b->h->step[j];
  to[b->h->dim[j]] += b->h->step[j];
  uint64_t bit = (uint64_t)1 << j;
  MPI_Aint at = b->scratch, out_bytes = 0, in_bytes = 0;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_now[i];
    if (!(b->h->mask[i] & bit) || b->stamp[key] == b->stamp_value || !bruck_moves(b, X, i, j)) continue;
    b->stamp[key] = b->stamp_value;
    NHOOD_TRY(nhood_sched_copy(b->s, b->now[key], scratch_bytes(at + out_bytes, b->sizes[key])));
    out_bytes += b->sizes[key];
    nout++;
  }
  if (nout) {
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->wrap, to);
    NHOOD_TRY(nhood_sched_send(b->s, peer, j, scratch_bytes(at, (int)out_bytes)));
  }
  at += out_bytes;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_next[i];
    if (!(b->h->mask[i] & bit) || b->stamp[key] == b->stamp_value || !bruck_moves(b, from, i, j)) continue;
    b->stamp[key] = b->stamp_value;
    b->next[key] = scratch_bytes(at + in_bytes, b->sizes[key]);
    in_bytes += b->sizes[key];
    nin++;
  }
  if (nin) {
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->wrap, from);
    NHOOD_TRY(nhood_sched_recv(b->s, peer, j, scratch_bytes(at, (int)in_bytes)));
  }
  b->scratch = at + in_bytes;
cleanup:
  return rc;
}

int nhood_build_cart_bruck(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  if (!cart_applies(t)) return nhood_build_direct(t, a, me, s);
  if (!combinable(a)) return nhood_build_cart_direct(t, a, me, s);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "cart-bruck: at most %d dimensions", MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets;
  size_t m = (size_t)(n + 1);
  bruck_hops h = {.m = 0};
  bruck_builder b = {.t = t, .a = a, .s = s, .h = &h, .nd = t->ndims, .n = n};
  b.alltoall = a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLGATHERV;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  b.sizes = malloc(sizeof(int) * m);
  if (!b.sizes) return nhood_error(MPI_ERR_NO_MEM, "cart-bruck: out of memory building a schedule");
  rc = block_sizes(a, n, "cart-bruck", b.sizes);
  if (rc != MPI_SUCCESS) {
    free(b.sizes);
    return rc;
  }
  h.mask = calloc(m, sizeof *h.mask);
  b.wrap = malloc(sizeof(int) * (size_t)(b.nd + 1));
  b.key_now = malloc(sizeof(int) * m);
  b.key_next = malloc(sizeof(int) * m);
  b.stamp = calloc(m, sizeof(int));
  b.now = calloc(m, sizeof *b.now);
  b.next = calloc(m, sizeof *b.next);
  if (!h.mask || !b.wrap || !b.key_now || !b.key_next || !b.stamp || !b.now || !b.next) {
    rc = nhood_error(MPI_ERR_NO_MEM, "cart-bruck: out of memory building a schedule");
    goto cleanup;
  }
  if (!bruck_plan(t, &h)) {
    rc = nhood_build_cart_dim(t, a, me, s);
    goto cleanup;
  }
  for (int k = 0; k < b.nd; k++) b.wrap[k] = 1;
  NHOOD_TRY(nhood_sched_init(s, "cart-bruck", 4 * n + 4, h.m > 0 ? h.m : 1));
  bruck_keys(&b, 0, b.key_now);
  for (int i = 0; i < n; i++) b.now[b.key_now[i]] = nhood_send_block(a, i);
  for (int j = 0; j < h.m; j++) {
    bruck_keys(&b, j + 1, b.key_next);
    for (int i = 0; i < n; i++) /* blocks that skip this hop stay where they are */
      if (!(h.mask[i] >> j & 1)) b.next[b.key_next[i]] = b.now[b.key_now[i]];
    NHOOD_TRY(bruck_round(&b, j));
    NHOOD_TRY(nhood_sched_fence(s));
    int *keys = b.key_now;
    b.key_now = b.key_next;
    b.key_next = keys;
    nhood_region *where = b.now;
    b.now = b.next;
    b.next = where;
  }
  for (int i = 0; i < n; i++)
    if (bruck_moves(&b, t->coords, i, h.m)) NHOOD_TRY(nhood_sched_copy(s, b.now[b.key_now[i]], nhood_recv_block(a, i)));
  s->scratch_bytes = b.scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  free(b.sizes);
  free(h.mask);
  free(b.wrap);
  free(b.key_now);
  free(b.key_next);
  free(b.stamp);
  free(b.now);
  free(b.next);
  return rc;
}
