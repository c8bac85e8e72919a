/*
 * cart-dim and cart-dim-batch: the same routes, dimension after dimension, with a round per
 * message or per dimension. Blocks combine through the block table (cart_blocks.c).
 *
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
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "schedule/cart_internal.h"

typedef struct {
  const nhood_topo *t;
  int nd, k, v; /* the current phase (dimension k) and message (coordinate value v) */
  int from[MAX_DIMS];
  block_table tab;
} dim_builder;

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

const char *nhood_unfit_cart_dim(const nhood_topo *t, const nhood_coll_args *a) { return cart_unfit(t, a, 1); }

static int build_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, int batch) {
  const char *name = batch ? "cart-dim-batch" : "cart-dim";
  (void)me; /* every process computes its schedule from its coordinates */
  if (cart_unfit(t, a, 1)) return nhood_error(MPI_ERR_INTERN, "%s built for a call it does not apply to", name);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "%s: at most %d dimensions", name, MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets, *values = NULL;
  dim_builder b = {.t = t, .nd = t->ndims};
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  NHOOD_TRY(nhood_cart_table_init(&b.tab, a, n, name));
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
      NHOOD_TRY(nhood_cart_table_message(&b.tab, s, dim_in_message, &b,
                                         nhood_cart_rank_of(b.nd, t->dims, t->periods, to),
                                         nhood_cart_rank_of(b.nd, t->dims, t->periods, b.from), j, name));
      if (!batch) NHOOD_TRY(nhood_sched_fence(s));
    }
    if (batch && nv) NHOOD_TRY(nhood_sched_fence(s));
    nhood_cart_table_advance(&b.tab, dim_stays, &b);
  }
  NHOOD_TRY(nhood_cart_table_deliver(&b.tab, a, s, dim_arrived, &b));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  nhood_cart_table_free(&b.tab);
  free(values);
  return rc;
}

int nhood_build_cart_dim(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 0);
}

int nhood_build_cart_dim_batch(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return build_dim(t, a, me, s, 1);
}
