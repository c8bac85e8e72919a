/*
 * cart-bruck: its plan of hops, Bruck-like (cart_hops.c builds the schedule of the plan).
 *
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
 */
#include <stdint.h>

#include "schedule/cart_internal.h"

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

int nhood_build_cart_bruck(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_cart_build_hops(t, a, me, s, "cart-bruck", bruck_plan);
}

const char *nhood_unfit_cart_bruck(const nhood_topo *t, const nhood_coll_args *a) {
  return nhood_cart_hops_unfit(t, a, bruck_plan);
}
