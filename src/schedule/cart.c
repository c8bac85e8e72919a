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
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
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

typedef struct {
  const nhood_topo *t;
  const nhood_coll_args *a;
  nhood_sched *s;
  int nd, n, alltoall, sb, batch;
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
  MPI_Aint at = b->scratch;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->rep_now[i];
    if (offset_of(b, i)[k] != v || b->stamp[key] == b->stamp_value || !moves(b, X, i, k)) continue;
    b->stamp[key] = b->stamp_value;
    NHOOD_TRY(nhood_sched_copy(b->s, b->now[key], scratch_bytes(at + (MPI_Aint)nout * b->sb, b->sb)));
    nout++;
  }
  if (nout) {
    int to[MAX_DIMS];
    memcpy(to, X, sizeof(int) * (size_t)b->nd);
    to[k] += v;
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->t->periods, to);
    if (peer == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "cart-dim: a block would leave the grid");
    NHOOD_TRY(nhood_sched_send(b->s, peer, tag, scratch_bytes(at, nout * b->sb)));
  }
  at += (MPI_Aint)nout * b->sb;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->rep_next[i];
    if (offset_of(b, i)[k] != v || b->stamp[key] == b->stamp_value || !moves(b, from, i, k)) continue;
    b->stamp[key] = b->stamp_value;
    b->next[key] = scratch_bytes(at + (MPI_Aint)nin * b->sb, b->sb);
    nin++;
  }
  if (nin) {
    int peer = nhood_cart_rank_of(b->nd, b->t->dims, b->t->periods, from);
    if (peer == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "cart-dim: a block would come from outside the grid");
    NHOOD_TRY(nhood_sched_recv(b->s, peer, tag, scratch_bytes(at, nin * b->sb)));
  }
  b->scratch = at + (MPI_Aint)nin * b->sb;
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
  if (a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLTOALL) return nhood_build_cart_direct(t, a, me, s);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "cart-dim: at most %d dimensions", MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets;
  dim_builder b = {.t = t, .a = a, .s = s, .nd = t->ndims, .n = n, .batch = batch};
  b.alltoall = a->kind == NHOOD_ALLTOALL;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  MPI_Aint bytes = (MPI_Aint)a->sendcount * a->send_type_size;
  if (bytes != (MPI_Aint)a->recvcount * a->recv_type_size || bytes > 1 << 30)
    return nhood_error(MPI_ERR_TRUNCATE,
                       "%s: a block is %lld bytes to send but %lld to receive (they must be equal, below 1 GiB)",
                       batch ? "cart-dim-batch" : "cart-dim", (long long)bytes,
                       (long long)a->recvcount * a->recv_type_size);
  b.sb = (int)bytes;
  size_t m = (size_t)(n + 1);
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
