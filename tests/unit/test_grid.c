/*
 * The search for the grid under a graph topology (src/topology/grid.c) on virtual ranks, with
 * the reductions done in this process as nhood-sim does them (tests/virtual/sim_grid.c):
 *   - stencils written as adjacency lists (Moore and von Neumann, 2-D and 3-D, radius 1 and
 *     2, periodic and open, dimensions of size 2 and 3, 4 to 4096 ranks) are found, on a grid
 *     of the same size;
 *   - whatever is found is exact: per rank, the view's neighbor at offset i is the graph's at
 *     slot i, every graph block has exactly one offset, and duplicates pair in order;
 *   - a graph that is not a grid's is not taken for one: one edge missing or added (on both
 *     of its ends, so the graph stays valid), two ranks' places swapped, a random graph,
 *     MPI_PROC_NULL in the lists;
 *   - stencils too sparse to pay (von Neumann radius 1) are not searched further.
 */
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "sim_grid.h"
#include "sim_topos.h"
#include "topology/topology.h"
#include "topospec.h"
#include "unit.h"

/* Per rank, the view's lists must be the graph's, read through the slots. */
static int view_is_exact(int nranks, NHOOD_Topo *topos, nhood_grid_view **views, char *why, size_t len) {
  for (int r = 0; r < nranks; r++) {
    const struct nhood_topo *g = topos[r], *v = views[r]->topo;
    for (int side = 0; side < 2; side++) {
      int n = side ? g->outdegree : g->indegree;
      const int *graph = side ? g->destinations : g->sources, *mine = side ? v->destinations : v->sources;
      const int *slot = side ? views[r]->send_slot : views[r]->recv_slot;
      char *seen = calloc((size_t)n + 1, 1);
      int used = 0;
      for (int i = 0; i < v->noffsets; i++) {
        if (mine[i] == MPI_PROC_NULL) {
          if (slot[i] != -1)
            return snprintf(why, len, "rank %d: a missing neighbor has slot %d", r, slot[i]), free(seen), 0;
          continue;
        }
        if (slot[i] < 0 || slot[i] >= n || seen[slot[i]] || graph[slot[i]] != mine[i])
          return snprintf(why, len, "rank %d: %s offset %d maps to slot %d wrongly", r, side ? "send" : "receive", i,
                          slot[i]),
                 free(seen), 0;
        /* Duplicates pair in order: an earlier offset to the same rank has an earlier slot. */
        for (int k = 0; k < i; k++)
          if (mine[k] == mine[i] && slot[k] > slot[i])
            return snprintf(why, len, "rank %d: duplicates of rank %d out of order", r, mine[i]), free(seen), 0;
        seen[slot[i]] = 1;
        used++;
      }
      free(seen);
      if (used != n) return snprintf(why, len, "rank %d: %d of %d graph blocks have an offset", r, used, n), 0;
    }
  }
  return 1;
}

static void free_topos(int nranks, NHOOD_Topo *topos) {
  for (int r = 0; r < nranks; r++)
    if (topos[r] != NHOOD_TOPO_NULL) NHOOD_Topo_free(&topos[r]);
  free(topos);
}

/* The search over the topologies: 1 when a grid is found (then checked for exactness). */
static int search(const char *what, int nranks, NHOOD_Topo *topos, int *grid_size) {
  char err[512];
  nhood_grid_view **views = NULL;
  CHECK(sim_grid_find(nranks, topos, &views, err, sizeof err) == 0, "%s: %s", what, err);
  int found = views && views[0] != NULL;
  for (int r = 1; views && r < nranks; r++)
    CHECK((views[r] != NULL) == found, "%s: rank %d disagrees with rank 0 on the grid", what, r);
  if (found) {
    *grid_size = 1;
    for (int d = 0; d < views[0]->topo->ndims; d++) *grid_size *= views[0]->topo->dims[d];
    CHECK(view_is_exact(nranks, topos, views, err, sizeof err), "%s: %s", what, err);
  }
  sim_grid_free(nranks, views);
  return found;
}

static NHOOD_Topo *make(const char *spec_text, int nranks) {
  topospec spec;
  sim_topos_stats stats;
  char err[256];
  NHOOD_Topo *topos = calloc((size_t)nranks, sizeof *topos);
  if (topospec_parse(spec_text, &spec, err, sizeof err) != 0 ||
      sim_topos_create(&spec, nranks, topos, &stats, err, sizeof err) != 0) {
    CHECK(0, "%s: %s", spec_text, err);
    free_topos(nranks, topos);
    topos = NULL;
  }
  topospec_free(&spec);
  return topos;
}

/* Rebuilds rank r's graph topology from edited lists. */
static void replace(NHOOD_Topo *topos, int r, int in, const int *sources, int out, const int *destinations) {
  NHOOD_Topo t;
  CHECK(NHOOD_Topo_create_adjacent(in, sources, MPI_UNWEIGHTED, out, destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, &t) ==
            MPI_SUCCESS,
        "rebuilding rank %d", r);
  NHOOD_Topo_free(&topos[r]);
  topos[r] = t;
}

/* Drops the edge a -> b (b's first source a, a's first destination b), or adds it. */
static void edit_edge(NHOOD_Topo *topos, int a, int b, int add) {
  const struct nhood_topo *ta = topos[a], *tb = topos[b];
  int *dst = malloc(sizeof(int) * ((size_t)ta->outdegree + 1)), out = ta->outdegree;
  int *src = malloc(sizeof(int) * ((size_t)tb->indegree + 1)), in = tb->indegree;
  memcpy(dst, ta->destinations, sizeof(int) * (size_t)out);
  memcpy(src, tb->sources, sizeof(int) * (size_t)in);
  if (add) {
    dst[out++] = b;
    src[in++] = a;
  } else {
    for (int j = 0; j < out; j++)
      if (dst[j] == b) {
        dst[j] = dst[--out];
        break;
      }
    for (int i = 0; i < in; i++)
      if (src[i] == a) {
        src[i] = src[--in];
        break;
      }
  }
  int in_a = ta->indegree, out_b = tb->outdegree;
  int *src_a = malloc(sizeof(int) * ((size_t)in_a + 1)), *dst_b = malloc(sizeof(int) * ((size_t)out_b + 1));
  memcpy(src_a, ta->sources, sizeof(int) * (size_t)in_a);
  memcpy(dst_b, tb->destinations, sizeof(int) * (size_t)out_b);
  if (a == b) {
    replace(topos, a, in, src, out, dst);
  } else {
    replace(topos, a, in_a, src_a, out, dst);
    replace(topos, b, in, src, out_b, dst_b);
  }
  free(dst);
  free(src);
  free(src_a);
  free(dst_b);
}

/* Ranks a and b trade places: every list names b for a and a for b. */
static void swap_ranks(int nranks, NHOOD_Topo *topos, int a, int b) {
  NHOOD_Topo t = topos[a];
  topos[a] = topos[b];
  topos[b] = t;
  for (int r = 0; r < nranks; r++) {
    const struct nhood_topo *tr = topos[r];
    int *src = malloc(sizeof(int) * ((size_t)tr->indegree + 1)),
        *dst = malloc(sizeof(int) * ((size_t)tr->outdegree + 1));
    for (int i = 0; i < tr->indegree; i++) src[i] = tr->sources[i] == a ? b : tr->sources[i] == b ? a : tr->sources[i];
    for (int j = 0; j < tr->outdegree; j++)
      dst[j] = tr->destinations[j] == a ? b : tr->destinations[j] == b ? a : tr->destinations[j];
    replace(topos, r, tr->indegree, src, tr->outdegree, dst);
    free(src);
    free(dst);
  }
}

typedef struct {
  const char *spec;
  int nranks;
} found_case;

int main(void) {
  static const found_case must_find[] = {
      {"moore:d=2,r=1,graph=1", 4},
      {"moore:d=2,r=1,graph=1", 6},
      {"moore:d=2,r=1,periodic=0,graph=1", 8},
      {"moore:d=3,r=1,periodic=0,graph=1", 8},
      {"moore:d=3,r=1,graph=1", 12},
      {"moore:d=2,r=1,graph=1", 64},
      {"moore:d=2,r=1,periodic=0,graph=1", 64},
      {"moore:d=2,r=2,graph=1", 64},
      {"moore:d=2,r=3,graph=1", 64},
      {"moore:d=3,r=1,graph=1", 64},
      {"moore:d=3,r=1,periodic=0,graph=1", 64},
      {"vonneumann:d=2,r=2,periodic=0,graph=1", 64},
      {"vonneumann:d=3,r=2,periodic=0,graph=1", 64},
      {"moore:d=3,r=1,periodic=0,graph=1", 4096},
      {"moore:d=2,r=1,graph=1", 4096},
  };
  char what[128];
  for (size_t k = 0; k < sizeof must_find / sizeof must_find[0]; k++) {
    int n = must_find[k].nranks, size = 0;
    NHOOD_Topo *topos = make(must_find[k].spec, n);
    if (!topos) continue;
    snprintf(what, sizeof what, "%s on %d ranks", must_find[k].spec, n);
    CHECK(search(what, n, topos, &size), "%s: no grid found", what);
    CHECK(size == 0 || size == n, "%s: a grid of %d points", what, size);
    free_topos(n, topos);
  }

  /* Whatever is found elsewhere is exact (every combination at a few sizes). */
  static const char *const grids[] = {"moore:d=2,r=1", "moore:d=2,r=2", "moore:d=3,r=1", "vonneumann:d=2,r=2",
                                      "vonneumann:d=3,r=1"};
  static const int sizes[] = {4, 6, 8, 9, 12, 16, 18, 27, 30};
  for (size_t gk = 0; gk < sizeof grids / sizeof grids[0]; gk++)
    for (int periodic = 0; periodic <= 1; periodic++)
      for (size_t sk = 0; sk < sizeof sizes / sizeof sizes[0]; sk++) {
        int size = 0;
        snprintf(what, sizeof what, "%s,periodic=%d,graph=1", grids[gk], periodic);
        NHOOD_Topo *topos = make(what, sizes[sk]);
        if (!topos) continue;
        search(what, sizes[sk], topos, &size);
        free_topos(sizes[sk], topos);
      }

  /* Not a grid's graph: nothing found, on 64 ranks (2-D, periodic and open) and 4096 (3-D). */
  static const found_case edited[] = {{"moore:d=2,r=1,graph=1", 64},
                                      {"moore:d=2,r=1,periodic=0,graph=1", 64},
                                      {"moore:d=3,r=1,periodic=0,graph=1", 4096}};
  for (size_t k = 0; k < sizeof edited / sizeof edited[0]; k++) {
    int size = 0, n = edited[k].nranks;
    const char *spec = edited[k].spec;
    NHOOD_Topo *topos = make(spec, n);
    if (!topos) continue;
    CHECK(search(spec, n, topos, &size), "%s: the unedited grid is not found", spec);
    edit_edge(topos, 27, 28, 0);
    snprintf(what, sizeof what, "%s without the edge 27 -> 28", spec);
    CHECK(!search(what, n, topos, &size), "%s: taken for a grid", what);
    edit_edge(topos, 27, 28, 1);
    CHECK(search(spec, n, topos, &size), "%s: the edge put back, the grid is not found", spec);
    edit_edge(topos, 5, 40, 1);
    snprintf(what, sizeof what, "%s with an edge 5 -> 40", spec);
    CHECK(!search(what, n, topos, &size), "%s: taken for a grid", what);
    edit_edge(topos, 5, 40, 0);
    edit_edge(topos, 9, 9, 1);
    snprintf(what, sizeof what, "%s with a self loop on 9", spec);
    CHECK(!search(what, n, topos, &size), "%s: taken for a grid", what);
    edit_edge(topos, 9, 9, 0);
    swap_ranks(n, topos, 10, 53);
    snprintf(what, sizeof what, "%s with ranks 10 and 53 swapped", spec);
    CHECK(!search(what, n, topos, &size), "%s: taken for a grid", what);
    free_topos(n, topos);
  }
  NHOOD_Topo *er = make("er:density=0.3,seed=7", 64);
  if (er) {
    int size = 0;
    CHECK(!search("er:density=0.3", 64, er, &size), "a random graph taken for a grid");
    free_topos(64, er);
  }
  /* MPI_PROC_NULL in the lists (an open grid's lists as offsets give, read as a graph). */
  NHOOD_Topo *open = make("moore:d=2,r=1,periodic=0,graph=1", 16);
  if (open) {
    int size = 0, src[9], dst[9], in = open[0]->indegree, out = open[0]->outdegree;
    memcpy(src, open[0]->sources, sizeof(int) * (size_t)in);
    memcpy(dst, open[0]->destinations, sizeof(int) * (size_t)out);
    src[in++] = MPI_PROC_NULL;
    dst[out++] = MPI_PROC_NULL;
    replace(open, 0, in, src, out, dst);
    CHECK(!search("open grid with MPI_PROC_NULL", 16, open, &size), "lists with MPI_PROC_NULL taken for a grid");
    free_topos(16, open);
  }
  /* Too sparse to pay: von Neumann radius 1 has 2 neighbors per dimension. */
  NHOOD_Topo *sparse = make("vonneumann:d=2,r=1,graph=1", 64);
  if (sparse) {
    int size = 0;
    CHECK(!search("vonneumann:d=2,r=1", 64, sparse, &size), "von Neumann radius 1 searched although it cannot pay");
    free_topos(64, sparse);
  }
  return unit_summary("test_grid");
}
