/*
 * Self-test of the rmat topology SPEC, without MPI_Init: the generated pattern (edge count,
 * symmetry, skew, determinism) and its fast halo path against mtx's general one.
 */
#include "topospec_check.h"

/* ------------------------------------------------------------------------------------- */
/* R-MAT                                                                                  */
/* ------------------------------------------------------------------------------------- */

/* Errors name the offending key. */
static void test_rmat_errors(void) {
  static const struct {
    const char *spec, *expected;
  } cases[] = {
      {"rmat:ef=4", "scale"},          {"rmat:scale=27", "scale"},        {"rmat:scale=0", "scale"},
      {"rmat:scale=10,ef=65", "ef"},   {"rmat:scale=10,ef=x", "ef"},      {"rmat:scale=4,scramble=2", "scramble"},
      {"rmat:scale=4,seed=x", "seed"}, {"rmat:scale=4,bogus=1", "bogus"}, {"rmat:scale=4,ef=2,ef=3", "ef"},
      {"rmat:scale", "scale"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    topospec spec;
    char err[512] = "";
    int rc = topospec_parse(cases[k].spec, &spec, err, sizeof err);
    if (rc == 0) topospec_free(&spec);
    CHECK(rc != 0 && strstr(err, cases[k].expected) != NULL, "'%s': expected an error naming '%s', got '%s'",
          cases[k].spec, cases[k].expected, err);
  }
}

/* The generated pattern: rows ascending and distinct, no diagonal, symmetric, and no more
 * entries than the edges that were not self loops give (duplicates removed). */
static void check_rmat_pattern(const topospec *spec) {
  int n = spec->mtx_rows;
  CHECK(spec->kind == TOPOSPEC_RMAT && n == 1 << spec->rmat_scale && spec->mtx_cols == n, "%s: %d x %d, expected 2^%d",
        spec->text, n, spec->mtx_cols, spec->rmat_scale);
  CHECK(spec->rmat_edges == (long long)spec->rmat_ef << spec->rmat_scale, "%s: %lld edges generated, expected %lld",
        spec->text, spec->rmat_edges, (long long)spec->rmat_ef << spec->rmat_scale);
  CHECK(spec->rmat_loops >= 0 && spec->rmat_loops < spec->rmat_edges, "%s: %lld self loops", spec->text,
        spec->rmat_loops);
  CHECK(spec->mtx_nnz > 0 && spec->mtx_nnz <= 2 * (spec->rmat_edges - spec->rmat_loops),
        "%s: %lld entries, at most %lld expected", spec->text, spec->mtx_nnz,
        2 * (spec->rmat_edges - spec->rmat_loops));
  CHECK(spec->mtx_rowptr[0] == 0 && spec->mtx_rowptr[n] == spec->mtx_nnz, "%s: row pointers do not span the entries",
        spec->text);
  long long bad_order = 0, diagonal = 0, unmatched = 0;
  for (int i = 0; i < n; i++) {
    for (long long k = spec->mtx_rowptr[i]; k < spec->mtx_rowptr[i + 1]; k++) {
      int j = spec->mtx_colind[k];
      bad_order += j < 0 || j >= n || (k > spec->mtx_rowptr[i] && j <= spec->mtx_colind[k - 1]);
      diagonal += j == i;
      if (j < 0 || j >= n) continue;
      /* The mirror (j, i), by bisection of row j. */
      long long lo = spec->mtx_rowptr[j], hi = spec->mtx_rowptr[j + 1];
      while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (spec->mtx_colind[mid] < i)
          lo = mid + 1;
        else
          hi = mid;
      }
      unmatched += lo == spec->mtx_rowptr[j + 1] || spec->mtx_colind[lo] != i;
    }
  }
  CHECK(bad_order == 0, "%s: %lld column indices out of range or out of order", spec->text, bad_order);
  CHECK(diagonal == 0, "%s: %lld self loops kept", spec->text, diagonal);
  CHECK(unmatched == 0, "%s: %lld entries without their mirror", spec->text, unmatched);
}

static int same_lists(const topospec_rank *a, const topospec_rank *b) {
  size_t in = (size_t)a->indegree * sizeof(int), out = (size_t)a->outdegree * sizeof(int);
  return a->indegree == b->indegree && a->outdegree == b->outdegree && memcmp(a->sources, b->sources, in) == 0 &&
         memcmp(a->destinations, b->destinations, out) == 0 && memcmp(a->recv_elems, b->recv_elems, in) == 0 &&
         memcmp(a->send_elems, b->send_elems, out) == 0;
}

/* How many ranks of two builds differ in their lists or element counts. */
static int ranks_differing(const all_ranks *a, const all_ranks *b) {
  int differ = 0;
  for (int p = 0; p < a->nranks; p++) differ += !same_lists(&a->rank[p], &b->rank[p]);
  return differ;
}

static long long total_recv(const topospec_rank *r) {
  long long total = 0;
  for (int i = 0; i < r->indegree; i++) total += r->recv_elems[i];
  return total;
}

static int compare_long_long(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Sorted row lengths: scrambling relabels vertices, so these must not change. */
static long long *sorted_degrees(const topospec *spec) {
  long long *degree = malloc((size_t)spec->mtx_rows * sizeof *degree);
  if (degree == NULL) return NULL;
  for (int i = 0; i < spec->mtx_rows; i++) degree[i] = spec->mtx_rowptr[i + 1] - spec->mtx_rowptr[i];
  qsort(degree, (size_t)spec->mtx_rows, sizeof *degree, compare_long_long);
  return degree;
}

static void test_rmat(void) {
  topospec spec, again, other, scrambled;
  if (parse_or_fail("rmat:scale=10", &spec) != 0) return;
  CHECK(spec.rmat_ef == 16 && spec.seed == 1 && spec.rmat_scramble == 0, "rmat defaults: ef=%d seed=%llu scramble=%d",
        spec.rmat_ef, spec.seed, spec.rmat_scramble);
  check_rmat_pattern(&spec);

  /* R-MAT's skew: the row bit is 0 with probability a + b = 0.76 (and the column bit with
   * a + c), so about 3/4 of the entries lie in the first half of the rows (0.72 here: the
   * dense corner loses more duplicates). */
  double low_half = (double)spec.mtx_rowptr[spec.mtx_rows / 2] / (double)spec.mtx_nnz;
  CHECK(low_half > 0.65 && low_half < 0.85, "%s: %.3f of the entries in the first half of the rows, expected ~0.72",
        spec.text, low_half);

  /* Consistent lists at several rank counts; the brute-force halo; the fast symmetric path
   * against mtx's general one on the same pattern. */
  static const int sizes[] = {1, 3, 8, 64};
  topospec as_mtx = spec; /* shares the arrays: not freed */
  as_mtx.kind = TOPOSPEC_MTX;
  all_ranks eight = {0, NULL};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    all_ranks all, general;
    if (build_all(&spec, sizes[k], &all) == 0 && build_all(&as_mtx, sizes[k], &general) == 0) {
      check_symmetric_lists(&spec, &all);
      check_sorted_lists(&spec, &all);
      check_halo_brute_force(&spec, &all);
      CHECK(ranks_differing(&all, &general) == 0, "%s P=%d: the symmetric path differs from mtx's on %d ranks",
            spec.text, sizes[k], ranks_differing(&all, &general));
      free_all(&general);
    }
    if (sizes[k] == 8)
      eight = all;
    else
      free_all(&all);
  }
  if (eight.rank == NULL) {
    topospec_free(&spec);
    return;
  }

  /* scramble=0 is skewed: rank 0, holding the hubs, receives more than the last rank. */
  long long first = total_recv(&eight.rank[0]), last = total_recv(&eight.rank[7]);
  CHECK(first > last, "%s P=8: rank 0 receives %lld elements, rank 7 %lld: not skewed", spec.text, first, last);

  /* Deterministic: the same SPEC gives the same pattern and lists; another seed does not. */
  if (parse_or_fail("rmat:scale=10,seed=1,ef=16,scramble=0", &again) == 0) {
    CHECK(again.mtx_nnz == spec.mtx_nnz &&
              memcmp(again.mtx_rowptr, spec.mtx_rowptr, ((size_t)spec.mtx_rows + 1) * sizeof(long long)) == 0 &&
              memcmp(again.mtx_colind, spec.mtx_colind, (size_t)spec.mtx_nnz * sizeof(int)) == 0,
          "%s: parsing twice gives another pattern", spec.text);
    all_ranks all;
    if (build_all(&again, 8, &all) == 0)
      CHECK(ranks_differing(&all, &eight) == 0, "%s P=8: parsing twice gives other lists", spec.text);
    free_all(&all);
    topospec_free(&again);
  }
  if (parse_or_fail("rmat:scale=10,seed=2", &other) == 0) {
    check_rmat_pattern(&other);
    CHECK(other.mtx_nnz != spec.mtx_nnz ||
              memcmp(other.mtx_colind, spec.mtx_colind, (size_t)spec.mtx_nnz * sizeof(int)) != 0,
          "seeds 1 and 2 give the same rmat pattern");
    all_ranks all;
    if (build_all(&other, 8, &all) == 0)
      CHECK(ranks_differing(&all, &eight) > 0, "seeds 1 and 2 give the same lists on 8 ranks");
    free_all(&all);
    topospec_free(&other);
  }

  /* scramble=1 relabels the same edges by a bijection: same entries, same degrees, but the
   * hubs leave rank 0, so the halos even out (the first half of the rows is no longer
   * favoured). */
  if (parse_or_fail("rmat:scale=10,scramble=1", &scrambled) == 0) {
    check_rmat_pattern(&scrambled);
    long long *d0 = sorted_degrees(&spec), *d1 = sorted_degrees(&scrambled);
    CHECK(d0 != NULL && d1 != NULL && scrambled.mtx_nnz == spec.mtx_nnz && scrambled.rmat_loops == spec.rmat_loops &&
              memcmp(d0, d1, (size_t)spec.mtx_rows * sizeof *d0) == 0,
          "%s: scrambling changed the degrees (%lld entries, %lld before)", scrambled.text, scrambled.mtx_nnz,
          spec.mtx_nnz);
    free(d0);
    free(d1);
    double half = (double)scrambled.mtx_rowptr[scrambled.mtx_rows / 2] / (double)scrambled.mtx_nnz;
    CHECK(half > 0.35 && half < 0.65, "%s: %.3f of the entries in the first half of the rows, expected ~0.5",
          scrambled.text, half);
    all_ranks all;
    if (build_all(&scrambled, 8, &all) == 0) {
      check_symmetric_lists(&scrambled, &all);
      check_halo_brute_force(&scrambled, &all);
      long long most = 0, least = -1;
      for (int p = 0; p < 8; p++) {
        long long t = total_recv(&all.rank[p]);
        most = t > most ? t : most;
        least = least < 0 || t < least ? t : least;
      }
      CHECK(most < 2 * least, "%s P=8: received elements range over [%lld, %lld]: still skewed", scrambled.text, least,
            most);
    }
    free_all(&all);
    topospec_free(&scrambled);
  }
  free_all(&eight);
  topospec_free(&spec);

  /* Other edge factors and scales, down to 2 vertices on more ranks than vertices. */
  static const char *const small[] = {"rmat:scale=6,ef=3,seed=9", "rmat:scale=9,ef=7,seed=5", "rmat:scale=1,ef=1",
                                      "rmat:scale=2,ef=64,seed=0", "rmat:scale=12,ef=1,scramble=1,seed=123456789"};
  static const int small_sizes[] = {1, 2, 5, 8};
  for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
    topospec t;
    if (parse_or_fail(small[s], &t) != 0) continue;
    /* scale=1, ef=1: two edges among two vertices; a self loop leaves an empty pattern. */
    if (t.rmat_scale > 1) check_rmat_pattern(&t);
    for (size_t k = 0; k < sizeof small_sizes / sizeof small_sizes[0]; k++) {
      all_ranks all;
      if (build_all(&t, small_sizes[k], &all) == 0) {
        check_symmetric_lists(&t, &all);
        check_sorted_lists(&t, &all);
        check_halo_brute_force(&t, &all);
      }
      free_all(&all);
    }
    topospec_free(&t);
  }
}

int main(void) {
  test_rmat_errors();
  test_rmat();
  return unit_summary("topospec_selftest_rmat");
}
