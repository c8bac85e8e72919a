/* rmat: SPECs: Graph500's R-MAT generator (topospec.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topospec_internal.h"

/* ------------------------------------------------------------------------------------- */
/* R-MAT generator                                                                        */
/* ------------------------------------------------------------------------------------- */

/* Graph500's quadrant probabilities (d = 1 - a - b - c = 0.05). */
#define RMAT_A 0.57
#define RMAT_B 0.19
#define RMAT_C 0.19

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ULL

/*
 * Everything an edge depends on. Edge k is a pure function of (seed, k): it draws its bits
 * from a fixed window of one splitmix64 sequence (splitmix64's output i is a hash of
 * base + i * gamma, so any window is reachable without running the ones before it). The
 * generator can therefore run twice, counting degrees first and filling rows second,
 * without keeping the edge list (half a GiB at scale 22).
 */
typedef struct rmat_generator {
  int scale;
  int words;                             /* 64-bit draws per edge: two levels each */
  uint64_t base;                         /* splitmix64 counter before edge 0 */
  uint32_t below_a, below_ab, below_abc; /* quadrant thresholds on a 32-bit uniform */
  int scramble, shift;                   /* label scrambling: see rmat_scramble */
  uint64_t mask, multiply[2], add[2];
} rmat_generator;

static void rmat_generator_init(const topospec *spec, rmat_generator *g) {
  memset(g, 0, sizeof *g);
  g->scale = spec->rmat_scale;
  g->words = (spec->rmat_scale + 1) / 2;
  g->base = topospec_splitmix64(spec->seed);
  /* 32-bit thresholds: probabilities off by at most 2^-32, far below any sampling noise. */
  g->below_a = (uint32_t)(RMAT_A * 4294967296.0);
  g->below_ab = (uint32_t)((RMAT_A + RMAT_B) * 4294967296.0);
  g->below_abc = (uint32_t)((RMAT_A + RMAT_B + RMAT_C) * 4294967296.0);
  g->scramble = spec->rmat_scramble;
  g->mask = (UINT64_C(1) << spec->rmat_scale) - 1;
  g->shift = (spec->rmat_scale + 1) / 2;
  /* Scrambling keys from a stream of its own (the seed's hash xor a constant), so they
   * do not reuse the edges' random bits. */
  uint64_t key = topospec_splitmix64(spec->seed ^ 0x5CA4B1E5CA4B1E5CULL);
  for (int round = 0; round < 2; round++) {
    key = topospec_splitmix64(key);
    g->multiply[round] = key | 1; /* odd: invertible modulo 2^scale */
    key = topospec_splitmix64(key);
    g->add[round] = key;
  }
}

/*
 * A bijection of [0, 2^scale): two rounds of multiplication by an odd number (a bijection
 * modulo 2^scale that carries low bits up), a right xorshift (a bijection that carries high
 * bits down) and an addition. Graph500 relabels vertices likewise, so that the hubs, all
 * near vertex 0 in R-MAT's labels, land anywhere.
 */
static uint32_t rmat_scramble(const rmat_generator *g, uint32_t v) {
  uint64_t x = v;
  for (int round = 0; round < 2; round++) {
    x = (x * g->multiply[round]) & g->mask;
    x ^= x >> g->shift;
    x = (x + g->add[round]) & g->mask;
  }
  return (uint32_t)x;
}

/* Edge k: at each of `scale` levels, a quadrant of the adjacency matrix with probabilities
 * a, b, c, d picks one more bit of the row u (c, d: 1) and of the column v (b, d: 1), most
 * significant first. Low labels win at every level, hence the skew toward vertex 0. */
static void rmat_edge(const rmat_generator *g, long long k, uint32_t *u_out, uint32_t *v_out) {
  uint64_t counter = g->base + (uint64_t)k * (uint64_t)g->words * SPLITMIX_GAMMA;
  uint64_t bits = 0;
  uint32_t u = 0, v = 0;
  for (int level = 0; level < g->scale; level++) {
    uint32_t r;
    if (level % 2 == 0) {
      bits = topospec_splitmix64(counter);
      counter += SPLITMIX_GAMMA;
      r = (uint32_t)bits;
    } else {
      r = (uint32_t)(bits >> 32);
    }
    /* Quadrant a: r < below_a; b: up to below_ab; c: up to below_abc; d: above. The column
     * bit (b or d) is the parity of the thresholds passed, which needs no branch: a branch
     * per level mispredicts a third of the time and halved the generator's speed. */
    uint32_t above_a = r >= g->below_a, above_ab = r >= g->below_ab, above_abc = r >= g->below_abc;
    uint32_t row_bit = above_ab;
    uint32_t col_bit = above_a ^ above_ab ^ above_abc;
    u = u << 1 | row_bit;
    v = v << 1 | col_bit;
  }
  if (g->scramble) {
    u = rmat_scramble(g, u);
    v = rmat_scramble(g, v);
  }
  *u_out = u;
  *v_out = v;
}

/* Edges first .. first + RMAT_BATCH - 1 (fewer at the end) into u, v; returns how many.
 * Generating a batch before touching the rows lets the rows' random (cache-missing) accesses
 * overlap in the processor instead of waiting each behind the generator's arithmetic. */
enum { RMAT_BATCH = 1024 };
static int rmat_batch(const rmat_generator *g, long long first, long long nedges, uint32_t u[], uint32_t v[]) {
  int count = nedges - first < RMAT_BATCH ? (int)(nedges - first) : RMAT_BATCH;
  for (int e = 0; e < count; e++) rmat_edge(g, first + e, &u[e], &v[e]);
  return count;
}

/*
 * The symmetric pattern of the R-MAT graph into spec's mtx fields, in O(edges) and without
 * sorting: (1) count each vertex's entries, (2) regenerate the edges and scatter both
 * directions into rows (in edge order, unsorted), (3) transpose: walking rows in order and
 * appending i to row j puts every row in ascending order, and as the pattern is symmetric
 * the transpose is the same pattern, (4) drop the duplicates, now adjacent.
 * Peak memory: two column arrays of 2 * edges ints and two row arrays of 2^scale + 1.
 */
int topospec_rmat_generate(topospec *spec, char *err, size_t errlen) {
  int rc = 1;
  rmat_generator g;
  rmat_generator_init(spec, &g);
  int n = 1 << spec->rmat_scale;
  long long nedges = (long long)spec->rmat_ef << spec->rmat_scale;
  long long *rowptr = calloc((size_t)n + 1, sizeof(long long));
  long long *fill = malloc(((size_t)n + 1) * sizeof(long long));
  int *scattered = NULL, *colind = NULL;
  if (rowptr == NULL || fill == NULL) {
    topospec_fail(err, errlen, "out of memory for the %d vertices of '%s'", n, spec->text);
    goto cleanup;
  }

  long long generated = 0, loops = 0; /* generated: what the batches gave, for the tests */
  uint32_t u[RMAT_BATCH], v[RMAT_BATCH];
  for (long long first = 0; first < nedges; first += RMAT_BATCH) {
    int count = rmat_batch(&g, first, nedges, u, v);
    generated += count;
    for (int e = 0; e < count; e++) {
      if (u[e] == v[e]) {
        loops++;
        continue;
      }
      rowptr[u[e] + 1]++;
      rowptr[v[e] + 1]++;
    }
  }
  for (int i = 0; i < n; i++) rowptr[i + 1] += rowptr[i];
  long long nentries = rowptr[n];

  scattered = topospec_alloc_ints((size_t)nentries);
  colind = topospec_alloc_ints((size_t)nentries);
  if (scattered == NULL || colind == NULL) {
    topospec_fail(err, errlen, "out of memory for the %lld matrix entries of '%s'", nentries, spec->text);
    goto cleanup;
  }
  memcpy(fill, rowptr, ((size_t)n + 1) * sizeof(long long));
  for (long long first = 0; first < nedges; first += RMAT_BATCH) {
    int count = rmat_batch(&g, first, nedges, u, v);
    for (int e = 0; e < count; e++) {
      if (u[e] == v[e]) continue;
      scattered[fill[u[e]]++] = (int)v[e];
      scattered[fill[v[e]]++] = (int)u[e];
    }
  }

  /* Row j of the transpose has as many entries as row j (the multiset is symmetric). */
  memcpy(fill, rowptr, ((size_t)n + 1) * sizeof(long long));
  for (int i = 0; i < n; i++)
    for (long long k = rowptr[i]; k < rowptr[i + 1]; k++) colind[fill[scattered[k]]++] = i;
  free(scattered);
  scattered = NULL;

  /* Compact each row without its duplicates (duplicate edges are harmless to the halo
   * code, which counts distinct x entries, but they would inflate mtx_nnz). */
  long long write = 0;
  for (int i = 0; i < n; i++) {
    long long begin = rowptr[i], end = rowptr[i + 1];
    rowptr[i] = write;
    for (long long k = begin; k < end; k++)
      if (k == begin || colind[k] != colind[k - 1]) colind[write++] = colind[k];
  }
  rowptr[n] = write;
  int *shrunk = realloc(colind, (size_t)(write > 0 ? write : 1) * sizeof(int));
  if (shrunk != NULL) colind = shrunk;

  spec->rmat_edges = generated;
  spec->rmat_loops = loops;
  spec->mtx_rows = spec->mtx_cols = n;
  spec->mtx_rowptr = rowptr;
  spec->mtx_colind = colind;
  spec->mtx_nnz = write;
  rowptr = NULL;
  colind = NULL;
  rc = 0;
cleanup:
  free(rowptr);
  free(fill);
  free(scattered);
  free(colind);
  return rc;
}
