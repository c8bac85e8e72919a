/* Finding the grid under a graph topology (grid.h tells the method). All local. */
#include "topology/grid.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

#define MAX_CANDIDATES 4096 /* factorizations kept (P = 2^20 has 1140) */
#define MAX_BOX 4096        /* cells of the box of offsets, per periodicity */
#define MAX_OFFSETS 4096    /* offsets of a grid found */
#define CAND_INTS (1 + NHOOD_GRID_MAX_DIMS)
#define SCREEN_INTS (2 * NHOOD_GRID_MAX_DIMS + 1) /* per candidate, in step 1's vector */

/* ---- candidates -------------------------------------------------------------------------- */

static void add_candidate(nhood_grid_search *s, int ndims, const int dims[]) {
  if (s->ncandidates == MAX_CANDIDATES) return;
  int *c = s->candidates + (size_t)s->ncandidates++ * CAND_INTS;
  c[0] = ndims;
  for (int d = 0; d < NHOOD_GRID_MAX_DIMS; d++) c[1 + d] = d < ndims ? dims[d] : 1;
}

/* Every ordered factorization of rest into factors >= 2, depth `at` of at most 4. */
static void factor(nhood_grid_search *s, int rest, int at, int dims[]) {
  if (at >= 2 && rest == 1) add_candidate(s, at, dims);
  if (at == NHOOD_GRID_MAX_DIMS || rest == 1) return;
  for (int f = 2; f <= rest; f++)
    if (rest % f == 0) {
      dims[at] = f;
      factor(s, rest / f, at + 1, dims);
    }
}

int nhood_grid_search_init(int nranks, int cart_ndims, const int cart_dims[], nhood_grid_search *s) {
  memset(s, 0, sizeof *s);
  s->nranks = nranks;
  if (!(s->candidates = malloc(sizeof(int) * CAND_INTS * MAX_CANDIDATES)))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for the grids a graph may lie on");
  int dims[NHOOD_GRID_MAX_DIMS];
  if (cart_ndims > 0) {
    long long size = 1;
    for (int d = 0; d < cart_ndims && d < NHOOD_GRID_MAX_DIMS; d++) size *= cart_dims[d];
    if (cart_ndims <= NHOOD_GRID_MAX_DIMS && size == nranks) add_candidate(s, cart_ndims, cart_dims);
  } else if (nranks >= 4) {
    factor(s, nranks, 0, dims);
  }
  return MPI_SUCCESS;
}

void nhood_grid_search_free(nhood_grid_search *s) {
  free(s->candidates);
  s->candidates = NULL;
}

/* ---- coordinates ------------------------------------------------------------------------- */

static void coords_of(int rank, int ndims, const int dims[], int c[]) {
  for (int d = ndims - 1; d >= 0; d--) {
    c[d] = rank % dims[d];
    rank /= dims[d];
  }
}

/* delta modulo n, in (-n/2, n/2] (ties to the positive side, as NHOOD_Cart_relative_coords). */
static int wrapped(int delta, int n) {
  int w = ((delta % n) + n) % n;
  return w > n / 2 ? w - n : w;
}

/* ---- step 1 ------------------------------------------------------------------------------ */

/* v[0]: 1 where the lists cannot be a grid's (MPI_PROC_NULL, a rank outside); v[1]: the
 * largest degree; then per candidate: per dimension the largest |difference| straight and
 * around the torus, and the sum over neighbors of their distance around the torus (L1). */
size_t nhood_grid_screen_len(const nhood_grid_search *s) { return 2 + (size_t)s->ncandidates * SCREEN_INTS; }

static void screen_list(const int *list, int n, int rank, const int cand[], int *v) {
  int nd = cand[0], me[NHOOD_GRID_MAX_DIMS], other[NHOOD_GRID_MAX_DIMS];
  const int *dims = cand + 1;
  coords_of(rank, nd, dims, me);
  for (int k = 0; k < n; k++) {
    coords_of(list[k], nd, dims, other);
    for (int d = 0; d < nd; d++) {
      int delta = other[d] - me[d], straight = abs(delta), around = abs(wrapped(delta, dims[d]));
      if (straight > v[2 * d]) v[2 * d] = straight;
      if (around > v[2 * d + 1]) v[2 * d + 1] = around;
      if (v[2 * NHOOD_GRID_MAX_DIMS] < INT_MAX - around) v[2 * NHOOD_GRID_MAX_DIMS] += around;
    }
  }
}

void nhood_grid_screen(const struct nhood_topo *t, int rank, const nhood_grid_search *s, int *v) {
  memset(v, 0, sizeof(int) * nhood_grid_screen_len(s));
  int unusable = t->kind != NHOOD_TOPO_ADJACENT || rank < 0 || rank >= s->nranks;
  for (int i = 0; i < t->indegree; i++) unusable |= t->sources[i] < 0 || t->sources[i] >= s->nranks;
  for (int j = 0; j < t->outdegree; j++) unusable |= t->destinations[j] < 0 || t->destinations[j] >= s->nranks;
  v[0] = unusable;
  v[1] = t->indegree > t->outdegree ? t->indegree : t->outdegree;
  if (unusable) return;
  for (int c = 0; c < s->ncandidates; c++) {
    int *mine = v + 2 + (size_t)c * SCREEN_INTS;
    screen_list(t->sources, t->indegree, rank, s->candidates + (size_t)c * CAND_INTS, mine);
    screen_list(t->destinations, t->outdegree, rank, s->candidates + (size_t)c * CAND_INTS, mine);
  }
}

/* ---- the plan ---------------------------------------------------------------------------- */

#define MAX_TRIED 8     /* candidate grids whose guesses steps 2 and 3 check */
#define MAX_CELLS 16384 /* ints of step 2's vector */

typedef struct {
  int index, ndims, nonincreasing, distance;
  long long box;
} ranked_candidate;

/* On the right grid a stencil's neighbors are near: the shortest total distance first (on a
 * wrong grid some neighbors lie far along a dimension); then smaller boxes; then fewer
 * dimensions; then MPI_Dims_create's non-increasing order; then enumeration order. */
static int by_likelihood(const void *x, const void *y) {
  const ranked_candidate *a = x, *b = y;
  if (a->distance != b->distance) return (a->distance > b->distance) - (a->distance < b->distance);
  if (a->box != b->box) return (a->box > b->box) - (a->box < b->box);
  if (a->ndims != b->ndims) return (a->ndims > b->ndims) - (a->ndims < b->ndims);
  if (a->nonincreasing != b->nonincreasing) return b->nonincreasing - a->nonincreasing;
  return (a->index > b->index) - (a->index < b->index);
}

/* The guesses of one candidate: per dimension open where the differences never wrap shorter,
 * periodic where they do, both where they read the same. 0 when they do not fit. */
static int add_guesses(nhood_grid_search *s, const int *cand, const int *e, size_t *cells) {
  int choices[NHOOD_GRID_MAX_DIMS][2], nchoices[NHOOD_GRID_MAX_DIMS], n = 1, box = 1;
  nhood_grid_guess g = {.ndims = cand[0]};
  for (int d = 0; d < g.ndims; d++) {
    int straight = e[2 * d], around = e[2 * d + 1]; /* around <= straight */
    g.dims[d] = cand[1 + d];
    g.ext[d] = around;
    box *= 2 * around + 1;
    nchoices[d] = 0;
    if (straight == around) choices[d][nchoices[d]++] = 0;
    if (around < straight || (around > 0 && g.dims[d] > 1)) choices[d][nchoices[d]++] = 1;
    n *= nchoices[d];
  }
  g.box = box;
  if (s->nguesses + n > NHOOD_GRID_MAX_GUESSES || *cells + (size_t)n * (size_t)box > MAX_CELLS) return 0;
  for (int k = 0; k < n; k++) { /* the first dimension varies slowest; open before periodic */
    int rest = k;
    for (int d = g.ndims - 1; d >= 0; d--) {
      g.periods[d] = choices[d][rest % nchoices[d]];
      rest /= nchoices[d];
    }
    g.at = *cells;
    *cells += (size_t)box;
    s->guesses[s->nguesses++] = g;
  }
  return 1;
}

size_t nhood_grid_plan(nhood_grid_search *s, const int *v) {
  s->nguesses = 0;
  if (v[0] != 0) return 0;
  ranked_candidate best[MAX_TRIED]; /* the likeliest so far, in order */
  int n = 0;
  for (int c = 0; c < s->ncandidates; c++) {
    const int *cand = s->candidates + (size_t)c * CAND_INTS, *e = v + 2 + (size_t)c * SCREEN_INTS;
    long long box = 1;
    int moving = 0, nonincreasing = 1;
    for (int d = 0; d < cand[0]; d++) {
      box *= 2LL * e[2 * d + 1] + 1;
      moving += e[2 * d + 1] > 0;
      if (d > 0 && cand[1 + d] > cand[d]) nonincreasing = 0;
    }
    /* It pays where a process has more neighbors than the two per moving dimension that even
     * the cart algorithms need messages for. */
    if (box > MAX_BOX || v[1] <= 2 * moving) continue;
    ranked_candidate r = {c, cand[0], nonincreasing, e[2 * NHOOD_GRID_MAX_DIMS], box};
    int at = n < MAX_TRIED ? n++ : MAX_TRIED; /* insertion into the sorted few */
    while (at > 0 && by_likelihood(&r, &best[at - 1]) < 0) {
      if (at < MAX_TRIED) best[at] = best[at - 1];
      at--;
    }
    if (at < MAX_TRIED) best[at] = r;
  }
  size_t cells = 0;
  for (int k = 0; k < n; k++)
    add_guesses(s, s->candidates + (size_t)best[k].index * CAND_INTS, v + 2 + (size_t)best[k].index * SCREEN_INTS,
                &cells);
  return cells;
}

/* ---- step 2 ------------------------------------------------------------------------------ */

/* The box cell of offset C = X - q under guess g; -1 outside the box. */
static int cell_of(const nhood_grid_guess *g, const int me[], int q) {
  int other[NHOOD_GRID_MAX_DIMS], cell = 0;
  coords_of(q, g->ndims, g->dims, other);
  for (int d = 0; d < g->ndims; d++) {
    int c = me[d] - other[d];
    if (g->periods[d]) c = wrapped(c, g->dims[d]);
    if (c < -g->ext[d] || c > g->ext[d]) return -1;
    cell = cell * (2 * g->ext[d] + 1) + c + g->ext[d];
  }
  return cell;
}

void nhood_grid_histogram(const struct nhood_topo *t, int rank, const nhood_grid_search *s, int *h) {
  int me[NHOOD_GRID_MAX_DIMS];
  for (int k = 0; k < s->nguesses; k++) {
    const nhood_grid_guess *g = &s->guesses[k];
    coords_of(rank, g->ndims, g->dims, me);
    for (int i = 0; i < t->indegree; i++) {
      int cell = cell_of(g, me, t->sources[i]);
      if (cell >= 0) h[g->at + (size_t)cell]++; /* one outside the box fails step 3 */
    }
  }
}

/* ---- step 3 ------------------------------------------------------------------------------ */

/* The offsets of guess g, in box order, each as often as the histogram says: n * ndims ints
 * in *out (allocated). -1 when there are too many or memory is short. */
static int offsets_of(const nhood_grid_guess *g, const int *h, int **out) {
  const int *hist = h + g->at;
  long long n = 0;
  for (int cell = 0; cell < g->box; cell++) n += hist[cell];
  if (n > MAX_OFFSETS) return -1;
  int *o = malloc(sizeof(int) * (size_t)(n ? n : 1) * (size_t)g->ndims), at = 0;
  if (!o) return -1;
  for (int cell = 0; cell < g->box; cell++)
    for (int m = 0; m < hist[cell]; m++, at++) {
      int rest = cell;
      for (int d = g->ndims - 1; d >= 0; d--) {
        int side = 2 * g->ext[d] + 1;
        o[(size_t)at * g->ndims + d] = rest % side - g->ext[d];
        rest /= side;
      }
    }
  *out = o;
  return (int)n;
}

static int by_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/* The ranks at X + sign * C over the offsets, without the missing ones; their number. */
static int shifted_ranks(const nhood_grid_guess *g, const int me[], const int *o, int n, int sign, int *ranks) {
  int m = 0, c[NHOOD_GRID_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    for (int d = 0; d < g->ndims; d++) c[d] = me[d] + sign * o[(size_t)i * g->ndims + d];
    int r = nhood_cart_rank_of(g->ndims, g->dims, g->periods, c);
    if (r != MPI_PROC_NULL) ranks[m++] = r;
  }
  return m;
}

/* Whether list[0..n) and expected[0..m) are the same multiset (buf: room for n). */
static int same_multiset(const int *list, int n, int *expected, int m, int *buf) {
  if (n != m) return 0;
  memcpy(buf, list, sizeof(int) * (size_t)n);
  qsort(buf, (size_t)n, sizeof(int), by_int);
  qsort(expected, (size_t)m, sizeof(int), by_int);
  return memcmp(buf, expected, sizeof(int) * (size_t)n) == 0;
}

uint64_t nhood_grid_verify(const struct nhood_topo *t, int rank, const nhood_grid_search *s, const int *h) {
  uint64_t ok = 0;
  int me[NHOOD_GRID_MAX_DIMS], big = t->indegree > t->outdegree ? t->indegree : t->outdegree;
  for (int k = 0; k < s->nguesses; k++) {
    const nhood_grid_guess *g = &s->guesses[k];
    int *o = NULL, n = offsets_of(g, h, &o);
    if (n < 0) continue;
    int *ranks = malloc(sizeof(int) * ((size_t)n + (size_t)big + 1));
    if (ranks) {
      coords_of(rank, g->ndims, g->dims, me);
      int m = shifted_ranks(g, me, o, n, -1, ranks);
      int holds = same_multiset(t->sources, t->indegree, ranks, m, ranks + n);
      if (holds) {
        m = shifted_ranks(g, me, o, n, +1, ranks);
        holds = same_multiset(t->destinations, t->outdegree, ranks, m, ranks + n);
      }
      if (holds) ok |= (uint64_t)1 << k;
    }
    free(ranks);
    free(o);
  }
  return ok;
}

/* ---- the view ---------------------------------------------------------------------------- */

/* slot[i] for the view's list (n entries, MPI_PROC_NULL where missing): the graph's index of
 * the same neighbor, the k-th duplicate of either side with the k-th of the other. */
static int match_slots(const int *view, int n, const int *graph, int degree, int *slot) {
  nhood_located *v = malloc(sizeof *v * ((size_t)n + 1)), *g = malloc(sizeof *g * ((size_t)degree + 1));
  int m = 0, rc = MPI_SUCCESS;
  if (!v || !g) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the view of a graph on its grid");
    goto cleanup;
  }
  for (int i = 0; i < n; i++) {
    slot[i] = -1;
    if (view[i] != MPI_PROC_NULL) v[m++] = (nhood_located){view[i], i};
  }
  for (int i = 0; i < degree; i++) g[i] = (nhood_located){graph[i], i};
  if (m != degree) {
    rc = nhood_error(MPI_ERR_INTERN, "a graph's grid view has %d neighbors where the graph has %d", m, degree);
    goto cleanup;
  }
  qsort(v, (size_t)m, sizeof *v, nhood_located_cmp);
  qsort(g, (size_t)degree, sizeof *g, nhood_located_cmp);
  for (int i = 0; i < m; i++) slot[v[i].index] = g[i].index;
cleanup:
  free(v);
  free(g);
  return rc;
}

void nhood_grid_view_free(nhood_grid_view *v) {
  if (!v) return;
  if (v->topo) nhood_topo_destroy(v->topo);
  free(v->send_slot);
  free(v->recv_slot);
  free(v);
}

int nhood_grid_view_create(const struct nhood_topo *t, int rank, const nhood_grid_search *s, const int *h, uint64_t ok,
                           nhood_grid_view **out) {
  int rc = MPI_SUCCESS, k = 0, *o = NULL, me[NHOOD_GRID_MAX_DIMS];
  nhood_grid_view *v = calloc(1, sizeof *v);
  *out = NULL;
  if (!v) return nhood_error(MPI_ERR_NO_MEM, "out of memory for the view of a graph on its grid");
  while (k < s->nguesses && !(ok & ((uint64_t)1 << k))) k++;
  if (k == s->nguesses) {
    rc = nhood_error(MPI_ERR_INTERN, "no guess holds for the grid of a graph");
    goto cleanup;
  }
  const nhood_grid_guess *g = &s->guesses[k];
  int n = offsets_of(g, h, &o);
  if (n < 0) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the offsets of a graph's grid");
    goto cleanup;
  }
  coords_of(rank, g->ndims, g->dims, me);
  NHOOD_TRY(nhood_topo_from_cart_offsets(g->ndims, g->dims, g->periods, me, n, o, &v->topo));
  for (int i = 0; i < n; i++)
    for (int d = 0; d < g->ndims; d++) v->topo->grid_partial |= !g->periods[d] && o[(size_t)i * g->ndims + d] != 0;
  v->send_slot = malloc(sizeof(int) * ((size_t)n + 1));
  v->recv_slot = malloc(sizeof(int) * ((size_t)n + 1));
  if (!v->send_slot || !v->recv_slot) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the view of a graph on its grid");
    goto cleanup;
  }
  NHOOD_TRY(match_slots(v->topo->sources, n, t->sources, t->indegree, v->recv_slot));
  NHOOD_TRY(match_slots(v->topo->destinations, n, t->destinations, t->outdegree, v->send_slot));
  *out = v;
  v = NULL;
cleanup:
  free(o);
  nhood_grid_view_free(v);
  return rc;
}
