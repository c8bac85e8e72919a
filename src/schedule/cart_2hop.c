/*
 * cart-2hop: its plan of hops, two rounds, found by searching how the dimensions' values are
 * split between them (cart_hops.c builds the schedule of the plan).
 *
 *   cart-2hop       two rounds whose hops may move along several dimensions: each dimension's
 *                   values go to round 1, to round 2, or are split by sign between them (3-D
 *                   Moore radius 1: 5 + 5 messages where cart-dim-batch sends 3 rounds of 2).
 *                   cart-bruck and cart-2hop share one builder for plans of hops.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/cart_internal.h"

/* cart-2hop: two rounds, every block in at most two hops, one per round. Each dimension's
 * coordinate values go to round 1, to round 2, or (where they have both signs) are split:
 * the non-negative ones in one round, the negative ones in the other. An offset's hop in
 * round q is then the vector of its coordinates that went to round q, and a round sends one
 * message per distinct non-zero hop its offsets take.
 *
 * For 3-D Moore radius 1 splitting one dimension gives two rounds of 5 messages: x and y >= 0
 * first, then y < 0 and z (the sums of {0, ±x, +y, +y±x} and {0, -y, ±z, -y±z} are the 27
 * points of the cube), where cart-dim-batch takes 3 rounds of 2. Under LogGP a round of m
 * messages each way takes about max(m o, o + L) + m o, as the sends overlap the wire latency,
 * so the two rounds can win (docs/PERFORMANCE.md, "Isomorphic neighborhoods").
 * The library's cost model adds latency and overheads instead (L + 2 m o + g (m - 1) per
 * round) and prices the two rounds above three, so "auto" picks cart-2hop only where that sum
 * favours it too.
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

int nhood_build_cart_2hop(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_cart_build_hops(t, a, me, s, "cart-2hop", two_hop_plan);
}

const char *nhood_unfit_cart_2hop(const nhood_topo *t, const nhood_coll_args *a) {
  return nhood_cart_hops_unfit(t, a, two_hop_plan);
}
