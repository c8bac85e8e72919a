/*
 * Phase 1 of message combining (src/pattern/combine.c) on virtual ranks, without MPI.
 * For each topology it checks that the pattern moves every block correctly:
 *   - levels are symmetric: b's level with a has out and in swapped, word for word;
 *   - a process hands over, and finally sends, only blocks it holds: its own (for an edge it
 *     may combine) or ones it took in an earlier level;
 *   - every combinable edge reaches its target exactly once, by a combined message whose
 *     announcement (incoming) matches the sender's duty, or held for itself at the end;
 *     edges that may not be combined (duplicates, self loops) never are;
 *   - running twice gives the same pattern (the MPI driver relies on determinism);
 *   - the depth the cost model chooses never predicts a slower call than direct;
 *   - the estimate of a call stopped after k levels is the sum of its rounds, each priced by
 *     common/cost_model.h's nhood_cost_round (hand-computed on 4 processes).
 * It also prints how many messages combining saves for allgather.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "pattern/combine.h"
#include "topology/topology.h"
#include "topospec.h"
#include "unit.h"

/* How many times `rank` occurs in list. */
static int occurrences(const int *list, int n, int rank) {
  int c = 0;
  for (int i = 0; i < n; i++) c += list[i] == rank;
  return c;
}

static int combinable_edge(NHOOD_Topo const *topos, int from, int to) {
  return from != to && occurrences(topos[from]->destinations, topos[from]->outdegree, to) == 1 &&
         occurrences(topos[to]->sources, topos[to]->indegree, from) == 1;
}

static int same_records(const nhood_records *a, const nhood_records *b) {
  return a->nrecords == b->nrecords && a->nwords == b->nwords &&
         (a->nwords == 0 || memcmp(a->words, b->words, sizeof(int) * (size_t)a->nwords) == 0);
}

static uint64_t pair_key(int source, int target) { return ((uint64_t)(uint32_t)source << 32) | (uint32_t)target; }

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The (source, target) blocks a process holds: a sorted set that grows level by level. */
typedef struct {
  uint64_t *keys;
  int n, capacity;
} held_set;

static void held_add(held_set *h, const nhood_records *r) {
  for (const int *x = r->words; x < NHOOD_RECORDS_END(*r); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++) {
      if (h->n == h->capacity) {
        h->capacity = h->capacity ? 2 * h->capacity : 64;
        h->keys = realloc(h->keys, sizeof *h->keys * (size_t)h->capacity);
      }
      h->keys[h->n++] = pair_key(x[2 + k], x[0]);
    }
  if (h->n > 0) qsort(h->keys, (size_t)h->n, sizeof *h->keys, compare_u64);
}

static int held_has(const held_set *h, uint64_t key) {
  return h->n > 0 && bsearch(&key, h->keys, (size_t)h->n, sizeof key, compare_u64) != NULL;
}

/* Every block named in r is held by `me`: its own block for a combinable edge, or taken. */
static int holds_all(NHOOD_Topo const *topos, int me, const held_set *h, const nhood_records *r) {
  for (const int *x = r->words; x < NHOOD_RECORDS_END(*r); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++) {
      int source = x[2 + k], target = x[0];
      if (source == me ? !combinable_edge(topos, me, target) : !held_has(h, pair_key(source, target))) return 0;
    }
  return 1;
}

static const int *find_record(const nhood_records *r, int key) {
  for (const int *x = r->words; x < NHOOD_RECORDS_END(*r); x += 2 + x[1])
    if (x[0] == key) return x;
  return NULL;
}

/* Checks one pattern set; returns the messages an allgather needs with it (exchanges +
 * combined + edges left direct) and sets *direct to what the direct algorithm needs. */
static long long verify(const char *name, int P, NHOOD_Topo const *topos, const nhood_combine_pattern *pat,
                        long long *direct) {
  long long messages = 0, edges = 0;
  /* delivered[from * P + to]: how often the edge from -> to is carried by combining */
  unsigned char *delivered = calloc((size_t)P * (size_t)P, 1);
  int ok = 1;
  for (int a = 0; a < P; a++) {
    held_set held = {0};
    ok &= pat[a].nlevels == pat[0].nlevels;
    for (int l = 0; l < pat[a].nlevels; l++) {
      const nhood_combine_level *x = &pat[a].levels[l];
      if (x->partner < 0) continue;
      const nhood_combine_level *y = x->partner < P ? &pat[x->partner].levels[l] : NULL;
      ok &= y != NULL && y->partner == a && same_records(&x->out, &y->in) && same_records(&x->in, &y->out);
      ok &= holds_all(topos, a, &held, &x->out);
      held_add(&held, &x->in);
      messages += x->out.nrecords > 0;
    }
    ok &= holds_all(topos, a, &held, &pat[a].duties) && holds_all(topos, a, &held, &pat[a].self);
    ok &= pat[a].self.nrecords <= 1 && (pat[a].self.nrecords == 0 || pat[a].self.words[0] == a);
    for (const int *x = pat[a].duties.words; x < NHOOD_RECORDS_END(pat[a].duties); x += 2 + x[1]) {
      ok &= x[0] != a && x[0] >= 0 && x[0] < P;
      if (x[0] < 0 || x[0] >= P) continue;
      const int *announced = find_record(&pat[x[0]].incoming, a);
      ok &= announced != NULL && announced[1] == x[1] && memcmp(announced + 2, x + 2, sizeof(int) * (size_t)x[1]) == 0;
      for (int k = 0; k < x[1]; k++) delivered[(size_t)x[2 + k] * (size_t)P + (size_t)x[0]]++;
      messages++;
    }
    for (const int *x = pat[a].self.words; x < NHOOD_RECORDS_END(pat[a].self); x += 2 + x[1])
      for (int k = 0; k < x[1]; k++) delivered[(size_t)x[2 + k] * (size_t)P + (size_t)a]++;
    ok &= pat[a].incoming.nrecords <= P;
    free(held.keys);
  }
  for (int a = 0; a < P; a++)
    for (int j = 0; j < topos[a]->outdegree; j++) {
      int b = topos[a]->destinations[j];
      if (b == MPI_PROC_NULL || b == a) continue;
      edges++;
      int combined = pat[0].nlevels > 0 && combinable_edge(topos, a, b);
      ok &= delivered[(size_t)a * (size_t)P + (size_t)b] == combined;
      if (!combined) messages++;
    }
  free(delivered);
  CHECK(ok, "%s: pattern inconsistent", name);
  *direct = edges;
  return messages;
}

static int same_patterns(int P, const nhood_combine_pattern *x, const nhood_combine_pattern *y) {
  for (int r = 0; r < P; r++) {
    if (x[r].nlevels != y[r].nlevels || !same_records(&x[r].duties, &y[r].duties) ||
        !same_records(&x[r].self, &y[r].self) || !same_records(&x[r].incoming, &y[r].incoming))
      return 0;
    for (int l = 0; l < x[r].nlevels; l++)
      if (x[r].levels[l].partner != y[r].levels[l].partner || !same_records(&x[r].levels[l].out, &y[r].levels[l].out) ||
          !same_records(&x[r].levels[l].in, &y[r].levels[l].in))
        return 0;
  }
  return 1;
}

/* Builds, checks and prints the pattern of one topology: forced as deep as the hypercube
 * goes (theta 1), which must save messages where expect_savings says so, and as the cost
 * model chooses, which must not predict a slower call than direct. */
static void run_spec(const char *spec_text, int P, int expect_savings) {
  char err[256] = "";
  topospec spec;
  CHECK(topospec_parse(spec_text, &spec, err, sizeof err) == 0, "%s: %s", spec_text, err);
  NHOOD_Topo *topos = calloc((size_t)P, sizeof *topos);
  for (int r = 0; r < P; r++) {
    topospec_rank mine;
    CHECK(topospec_for_rank(&spec, r, P, &mine, err, sizeof err) == 0, "%s rank %d: %s", spec_text, r, err);
    CHECK(NHOOD_Topo_create_adjacent(mine.indegree, mine.sources, MPI_UNWEIGHTED, mine.outdegree, mine.destinations,
                                     MPI_UNWEIGHTED, MPI_INFO_NULL, &topos[r]) == MPI_SUCCESS,
          "topology");
    topospec_rank_free(&mine);
  }
  for (int model = 0; model < 2; model++) {
    nhood_combine_params params;
    nhood_combine_params_default(&params);
    if (!model) params.theta = 1, params.force_levels = 64;
    nhood_combine_pattern *a = calloc((size_t)P, sizeof *a), *b = calloc((size_t)P, sizeof *b);
    nhood_bsp_stats stats;
    CHECK(nhood_combine_build_local(P, topos, &params, a, &stats) == MPI_SUCCESS, "%s: phase 1 failed", spec_text);
    CHECK(nhood_combine_build_local(P, topos, &params, b, NULL) == MPI_SUCCESS, "%s: phase 1 rerun failed", spec_text);
    CHECK(same_patterns(P, a, b), "%s: phase 1 is not deterministic", spec_text);
    long long direct = 0, with = verify(spec_text, P, topos, a, &direct);
    printf(
        "  %-26s P=%-5d %-6s supersteps %3d levels %2d  allgather messages %lld -> %lld (%.0f%%)  "
        "model %.1f -> %.1f us  wall %.3f s\n",
        spec_text, P, model ? "model" : "forced", stats.supersteps, a[0].nlevels, direct, with,
        direct ? 100.0 * (double)(direct - with) / (double)direct : 0.0, a[0].predicted_us[0], a[0].predicted_us[1],
        stats.wall_s);
    if (!model && expect_savings) CHECK(with < direct, "%s: combining saved nothing", spec_text);
    if (model) CHECK(a[0].predicted_us[1] <= a[0].predicted_us[0], "%s: the model chose a slower depth", spec_text);
    for (int r = 0; r < P; r++) {
      nhood_combine_pattern_free(&a[r]);
      nhood_combine_pattern_free(&b[r]);
    }
    nhood_bsp_stats_free(&stats);
    free(a);
    free(b);
  }
  for (int r = 0; r < P; r++) NHOOD_Topo_free(&topos[r]);
  free(topos);
  topospec_free(&spec);
}

/* Duplicate edges and self loops stay direct; a rank with only those takes no part. */
static void run_multigraph(void) {
  enum { P = 6 };
  NHOOD_Topo topos[P];
  for (int r = 0; r < P; r++) {
    /* everyone sends to everyone else, plus a second edge to (r+1) and a self loop */
    int dst[P + 2], src[P + 2], nd = 0, ns = 0;
    for (int q = 0; q < P; q++)
      if (q != r) dst[nd++] = q, src[ns++] = q;
    dst[nd++] = (r + 1) % P;
    src[ns++] = (r + P - 1) % P;
    dst[nd++] = r;
    src[ns++] = r;
    CHECK(NHOOD_Topo_create_adjacent(ns, src, MPI_UNWEIGHTED, nd, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, &topos[r]) ==
              MPI_SUCCESS,
          "multigraph topology");
  }
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  params.theta = 1;
  params.force_levels = 64;
  nhood_combine_pattern pat[P];
  CHECK(nhood_combine_build_local(P, topos, &params, pat, NULL) == MPI_SUCCESS, "multigraph phase 1");
  long long direct = 0;
  verify("multigraph", P, topos, pat, &direct);
  CHECK(pat[0].nlevels == 3, "multigraph: 6 processes have a fold level and 2 hypercube levels, not %d",
        pat[0].nlevels);
  for (int r = 0; r < P; r++) {
    nhood_combine_pattern_free(&pat[r]);
    NHOOD_Topo_free(&topos[r]);
  }
}

/* Phase 1 on 4 processes that all send to all, under params; checks the depth and the
 * estimates without combining and at that depth. */
static void expect_estimate(const nhood_combine_params *params, int depth, double direct, double with,
                            const char *what) {
  enum { P = 4 };
  NHOOD_Topo topos[P];
  for (int r = 0; r < P; r++) {
    int others[P - 1], n = 0;
    for (int q = 0; q < P; q++)
      if (q != r) others[n++] = q;
    CHECK(NHOOD_Topo_create_adjacent(n, others, MPI_UNWEIGHTED, n, others, MPI_UNWEIGHTED, MPI_INFO_NULL, &topos[r]) ==
              MPI_SUCCESS,
          "all-to-all topology");
  }
  nhood_combine_pattern pat[P];
  CHECK(nhood_combine_build_local(P, topos, params, pat, NULL) == MPI_SUCCESS, "%s: phase 1", what);
  CHECK(pat[0].nlevels == depth && fabs(pat[0].predicted_us[0] - direct) < 1e-9 &&
            fabs(pat[0].predicted_us[1] - with) < 1e-9,
        "%s: depth %d, %.6f -> %.6f us; expected depth %d, %.3f -> %.3f", what, pat[0].nlevels, pat[0].predicted_us[0],
        pat[0].predicted_us[1], depth, direct, with);
  for (int r = 0; r < P; r++) {
    nhood_combine_pattern_free(&pat[r]);
    NHOOD_Topo_free(&topos[r]);
  }
}

/* Every process of 4 sends 8-byte blocks to the 3 others. Direct: one round of 3 sends and
 * (estimated by the sends) 3 receives of 8 B. Level 0 hands 2 blocks to the partner and takes
 * 2 (one round: pack 16 B, send 16 B, receive 16 B); after it a process sends one combined
 * message of 2 blocks (packed) and holds one block for itself; level 1 moves 2 blocks each
 * way again and leaves only the 3 blocks held for oneself. The unpack round copies what
 * arrived (estimated by what was sent) and what is held. */
static void run_estimate(void) {
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  params.cost = (nhood_cost_params){.L = 10, .o = 1, .g = 0.5, .G = 0.01, .Gcopy = 0.001, .eager = 1e9};
  /* direct: 10 + 1*6 + 0.5*2 + 0.01*24 = 17.24. A level: 0.001*16 + 10 + 1*2 + 0.01*16 =
   * 12.176. Depth 1: a level, a final round like a level, unpack 0.001*(16 + 8): 24.376.
   * Depth 2: two levels, no final messages, unpack 0.001*24: 24.376 as well. */
  expect_estimate(&params, 0, 17.24, 17.24, "latency-bound: direct");
  params.force_levels = 2;
  expect_estimate(&params, 2, 17.24, 24.376, "two levels forced");
  /* Above eager = 12, the 16-byte messages pay rdv at both ends and rdv_round once per
   * round (3*2 + 2 = 8 in each of the two rounds with messages); direct's 8 bytes do not. */
  params.cost.eager = 12;
  params.cost.rdv = 3;
  params.cost.rdv_round = 2;
  expect_estimate(&params, 2, 17.24, 40.376, "two levels forced, rendezvous");
  /* No latency: messages dominate. Direct 7.24; depth 1 and 2 both 2*2.176 + 0.024 = 4.376,
   * and the shallower of equal depths wins (at least 10% less than direct). */
  params.force_levels = -1;
  params.cost = (nhood_cost_params){.L = 0, .o = 1, .g = 0.5, .G = 0.01, .Gcopy = 0.001, .eager = 1e9};
  expect_estimate(&params, 1, 7.24, 4.376, "overhead-bound: one level");
}

int main(void) {
  const int sizes[] = {1, 2, 3, 17, 256};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    run_spec("er:density=0,seed=1", sizes[i], 0);
    run_spec("er:density=0.3,seed=2", sizes[i], sizes[i] >= 17);
    run_spec("er:density=1,seed=3", sizes[i], sizes[i] >= 3);
  }
  run_spec("er:density=0.05,seed=4", 1024, 1);
  run_spec("moore:d=2,r=2", 256, 1);
  run_spec("moore:d=2,r=2,periodic=0", 64, 1);
  run_spec("vonneumann:d=3,r=1", 64, 0);
  run_multigraph();
  run_estimate();
  return unit_summary("test_pattern");
}
