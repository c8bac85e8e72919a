/*
 * Phase 1 of message combining (src/pattern/combine.c) on virtual ranks, without MPI.
 * For each topology it checks that the pattern routes every edge at most once and only
 * through consistent pairs:
 *   - pairs are symmetric: b's pair with a has mine/theirs swapped, the same step, and the
 *     common set they split has at least theta targets, each a single edge of both;
 *   - what each target expects (its incoming list) is exactly what agents send it;
 *   - no edge is delivered by two combined messages;
 *   - running twice gives the same pattern (the MPI driver relies on determinism).
 * It also prints how many messages combining saves for allgather.
 */
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

static int is_single_edge(NHOOD_Topo const *topos, int from, int to) {
  return from != to && occurrences(topos[from]->destinations, topos[from]->outdegree, to) == 1 &&
         occurrences(topos[to]->sources, topos[to]->indegree, from) == 1;
}

static const nhood_combine_pair *pair_with(const nhood_combine_pattern *p, int partner) {
  for (int k = 0; k < p->npairs; k++)
    if (p->pairs[k].partner == partner) return &p->pairs[k];
  return NULL;
}

static int same_list(const int *a, int na, const int *b, int nb) {
  return na == nb && (na == 0 || memcmp(a, b, sizeof(int) * (size_t)na) == 0);
}

/* Checks one pattern set; returns the messages an allgather needs with it (direct + pair
 * exchanges + combined) and sets *direct to what the direct algorithm needs. */
static long long verify(const char *name, int P, NHOOD_Topo const *topos, const nhood_combine_pattern *pat,
                        int theta, long long *direct) {
  long long edges = 0, combined_edges = 0, combined_msgs = 0, exchanges = 0;
  /* delivered[from * P + to]: how often the edge from -> to is carried by a combined message */
  unsigned char *delivered = calloc((size_t)P * (size_t)P, 1);
  int ok = 1;
  for (int r = 0; r < P; r++) edges += topos[r]->outdegree;
  for (int a = 0; a < P; a++)
    for (int k = 0; k < pat[a].npairs; k++) {
      const nhood_combine_pair *x = &pat[a].pairs[k];
      const nhood_combine_pair *y = x->partner >= 0 && x->partner < P ? pair_with(&pat[x->partner], a) : NULL;
      ok &= y != NULL && y->step == x->step && same_list(x->mine, x->nmine, y->theirs, y->ntheirs) &&
            same_list(x->theirs, x->ntheirs, y->mine, y->nmine);
      ok &= x->nmine + x->ntheirs >= theta;
      exchanges++; /* a sends its block to its partner once per pair */
      for (int i = 0; i < x->nmine; i++) {
        int t = x->mine[i];
        ok &= is_single_edge(topos, a, t) && is_single_edge(topos, x->partner, t);
        /* t must expect exactly this message: (agent a, other partner) once */
        int expected = 0;
        for (int j = 0; j < pat[t].nincoming; j++)
          expected += pat[t].incoming[j].agent == a && pat[t].incoming[j].other == x->partner;
        ok &= expected == 1;
        delivered[(size_t)a * P + t]++;
        delivered[(size_t)x->partner * P + t]++;
        combined_msgs++;
      }
    }
  long long incoming_total = 0;
  for (int t = 0; t < P; t++) incoming_total += pat[t].nincoming;
  ok &= incoming_total == combined_msgs; /* nobody expects a message no agent sends */
  for (size_t e = 0; e < (size_t)P * P; e++) {
    ok &= delivered[e] <= 1;
    combined_edges += delivered[e];
  }
  CHECK(ok, "%s: pattern inconsistent", name);
  free(delivered);
  *direct = edges;
  return edges - combined_edges + exchanges + combined_msgs;
}

static int same_patterns(int P, const nhood_combine_pattern *x, const nhood_combine_pattern *y) {
  for (int r = 0; r < P; r++) {
    if (x[r].npairs != y[r].npairs || x[r].nincoming != y[r].nincoming) return 0;
    for (int k = 0; k < x[r].npairs; k++)
      if (x[r].pairs[k].partner != y[r].pairs[k].partner ||
          !same_list(x[r].pairs[k].mine, x[r].pairs[k].nmine, y[r].pairs[k].mine, y[r].pairs[k].nmine))
        return 0;
    if (x[r].nincoming && memcmp(x[r].incoming, y[r].incoming, sizeof *x[r].incoming * (size_t)x[r].nincoming))
      return 0;
  }
  return 1;
}

static void run_spec(const char *spec_text, int P, int expect_savings) {
  char err[256] = "";
  topospec spec;
  CHECK(topospec_parse(spec_text, &spec, err, sizeof err) == 0, "%s: %s", spec_text, err);
  NHOOD_Topo *topos = calloc((size_t)P, sizeof *topos);
  for (int r = 0; r < P; r++) {
    topospec_rank mine;
    CHECK(topospec_for_rank(&spec, r, P, &mine, err, sizeof err) == 0, "%s rank %d: %s", spec_text, r, err);
    CHECK(NHOOD_Topo_create_adjacent(mine.indegree, mine.sources, NULL, mine.outdegree, mine.destinations, NULL,
                                     MPI_INFO_NULL, &topos[r]) == MPI_SUCCESS,
          "topology");
    topospec_rank_free(&mine);
  }
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  nhood_combine_pattern *a = calloc((size_t)P, sizeof *a), *b = calloc((size_t)P, sizeof *b);
  nhood_bsp_stats stats;
  CHECK(nhood_combine_build_local(P, topos, &params, a, &stats) == MPI_SUCCESS, "%s: phase 1 failed", spec_text);
  CHECK(nhood_combine_build_local(P, topos, &params, b, NULL) == MPI_SUCCESS, "%s: phase 1 rerun failed", spec_text);
  CHECK(same_patterns(P, a, b), "%s: phase 1 is not deterministic", spec_text);
  long long direct = 0, with = verify(spec_text, P, topos, a, params.theta, &direct);
  printf("  %-28s P=%-5d supersteps %3d steps %d  allgather messages %lld -> %lld (%.0f%%)  wall %.3f s\n", spec_text,
         P, stats.supersteps, a[0].steps, direct, with, direct ? 100.0 * (double)(direct - with) / (double)direct : 0.0,
         stats.wall_s);
  if (expect_savings) CHECK(with < direct, "%s: combining saved nothing", spec_text);
  CHECK(with <= direct, "%s: combining increased the message count", spec_text);
  for (int r = 0; r < P; r++) {
    nhood_combine_pattern_free(&a[r]);
    nhood_combine_pattern_free(&b[r]);
    NHOOD_Topo_free(&topos[r]);
  }
  nhood_bsp_stats_free(&stats);
  free(a);
  free(b);
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
    CHECK(NHOOD_Topo_create_adjacent(ns, src, NULL, nd, dst, NULL, MPI_INFO_NULL, &topos[r]) == MPI_SUCCESS,
          "multigraph topology");
  }
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  params.theta = 2;
  nhood_combine_pattern pat[P];
  CHECK(nhood_combine_build_local(P, topos, &params, pat, NULL) == MPI_SUCCESS, "multigraph phase 1");
  long long direct = 0;
  verify("multigraph", P, topos, pat, params.theta, &direct);
  for (int r = 0; r < P; r++) {
    nhood_combine_pattern_free(&pat[r]);
    NHOOD_Topo_free(&topos[r]);
  }
}

int main(void) {
  const int sizes[] = {1, 2, 3, 17, 256};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    run_spec("er:density=0,seed=1", sizes[i], 0);
    run_spec("er:density=0.3,seed=2", sizes[i], sizes[i] >= 17);
    run_spec("er:density=1,seed=3", sizes[i], sizes[i] >= 17);
  }
  run_spec("er:density=0.05,seed=4", 1024, 1);
  run_spec("moore:d=2,r=2", 256, 1);
  run_spec("moore:d=2,r=2,periodic=0", 64, 1);
  run_spec("vonneumann:d=3,r=1", 64, 0);
  run_multigraph();
  return unit_summary("test_pattern");
}
