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

/* The box the offsets span: per dimension its extent, its stride in the box, and how many
 * choices its values have (1: all 0; 2: one sign; 4: both signs). */
typedef struct {
  int nd, n, box, first_free;
  int lo[MAX_DIMS], hi[MAX_DIMS], options[MAX_DIMS], stride[MAX_DIMS];
} two_hop_box;

/* 0 where the box or its free dimensions are too many to search. */
static int two_hop_box_of(const nhood_topo *t, two_hop_box *b) {
  int free_dims = 0;
  b->nd = t->ndims, b->n = t->noffsets, b->box = 1, b->first_free = -1;
  for (int k = b->nd - 1; k >= 0; k--) {
    b->lo[k] = b->hi[k] = 0;
    for (int i = 0; i < b->n; i++) {
      int v = offset_of(t, i)[k];
      if (v < b->lo[k]) b->lo[k] = v;
      if (v > b->hi[k]) b->hi[k] = v;
    }
    b->options[k] = b->lo[k] == 0 && b->hi[k] == 0 ? 1 : (b->lo[k] < 0 && b->hi[k] > 0 ? 4 : 2);
    if (b->options[k] > 1) free_dims++, b->first_free = k;
    b->stride[k] = b->box;
    if ((double)b->box * (b->hi[k] - b->lo[k] + 1) > TWO_HOP_MAX_BOX) return 0;
    b->box *= b->hi[k] - b->lo[k] + 1;
  }
  return free_dims <= TWO_HOP_MAX_FREE_DIMS;
}

/* Tries every choice per dimension (odometer-wise, each offset's point in either round
 * updated as a dimension changes) and keeps in best[] the one with the fewest hops, then
 * rounds, then hops in the larger round. code: 2n entries; seen: box entries, zeroed. The
 * best number of hops, or -1 where none fits MAX_HOPS. */
static int two_hop_search(const nhood_topo *t, const two_hop_box *b, int *code, int *seen, int best[]) {
  int nd = b->nd, n = b->n;
  /* Round swapping: the first dimension with values tries "all in round 1" and, with both
   * signs, "non-negative in round 1" only (choices 0 and 2). */
  int first_choices[2] = {0, 2}, first_index = 0; /* into first_choices, for dimension first_free */
  int choice[MAX_DIMS] = {0}, best_msgs = -1, best_rounds = 0, best_larger = 0, stamp = 0;
  for (int q = 0; q < 2; q++) /* every choice starts at 0: everything in round 1 */
    for (int i = 0; i < n; i++) {
      code[q * n + i] = 0;
      for (int k = 0; k < nd; k++) code[q * n + i] += two_hop_term(0, q, offset_of(t, i)[k], b->hi[k], b->stride[k]);
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
      if (k == b->first_free) {
        carry = ++first_index == (b->options[k] == 4 ? 2 : 1);
        if (carry) first_index = 0;
        choice[k] = first_choices[first_index];
      } else {
        carry = ++choice[k] == b->options[k];
        if (carry) choice[k] = 0;
      }
      if (choice[k] != before)
        for (int q = 0; q < 2; q++)
          for (int i = 0; i < n; i++) {
            int v = offset_of(t, i)[k];
            code[q * n + i] += two_hop_term(choice[k], q, v, b->hi[k], b->stride[k]) -
                               two_hop_term(before, q, v, b->hi[k], b->stride[k]);
          }
      if (!carry) break;
    }
    if (k == nd) return best_msgs;
  }
}

/* Round q's hops under best[] in ascending order of their points; each offset's mask. seen[]
 * maps a point to its hop index + 1 (cleared first: the search's stamps are spent). */
static void two_hop_emit(const nhood_topo *t, const two_hop_box *b, const int best[], int *code, int *seen,
                         hop_plan *h) {
  int nd = b->nd, n = b->n;
  memset(seen, 0, sizeof(int) * (size_t)b->box);
  h->nrounds = 0;
  for (int q = 0; q < 2; q++) {
    int first = h->m;
    for (int i = 0; i < n; i++) {
      code[i] = 0;
      for (int k = 0; k < nd; k++) code[i] += two_hop_term(best[k], q, offset_of(t, i)[k], b->hi[k], b->stride[k]);
      if (code[i] != 0) seen[code[i]] = 1;
    }
    for (int c = 1; c < b->box; c++)
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
}

static int two_hop_plan(const nhood_topo *t, hop_plan *h) {
  two_hop_box b;
  int best[MAX_DIMS] = {0};
  if (!two_hop_box_of(t, &b)) return 0;
  int *code = malloc(sizeof(int) * ((size_t)2 * b.n + (size_t)b.box + 2));
  if (!code) return -1;
  int *seen = code + 2 * b.n;
  memset(seen, 0, sizeof(int) * (size_t)b.box);
  int found = two_hop_search(t, &b, code, seen, best) >= 0;
  if (found) two_hop_emit(t, &b, best, code, seen, h);
  free(code);
  return found;
}

int nhood_build_cart_2hop(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_cart_build_hops(t, a, me, s, "cart-2hop", two_hop_plan);
}

const char *nhood_unfit_cart_2hop(const nhood_topo *t, const nhood_coll_args *a) {
  return nhood_cart_hops_unfit(t, a, two_hop_plan);
}
