/*
 * Self-test of the topology SPECs, without MPI_Init: builds the neighborhoods of all ranks
 * for several rank counts and checks that they agree with each other (every edge p -> q is
 * listed by p as a destination exactly as often as q lists p as a source), plus known
 * counts, known grid layouts, error messages and, for matrices, a brute-force halo (rmat:
 * topospec_selftest_rmat.c).
 *
 * Usage: topospec_selftest MATRIX_DIR   (data/matrices: bcsstk01, west0132, luxembourg_osm .mtx.gz)
 */
#include "topospec.h"

#include <mpi.h> /* MPI_PROC_NULL only */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topospec_check.h"

/* ------------------------------------------------------------------------------------- */

static void test_bad_specs(void) {
  static const char *const bad[] = {
      "",
      "foo:x=1",
      "er",
      "er:",
      "er:density",
      "er:density=",
      "er:density=2",
      "er:density=abc",
      "er:density=0.1,seed=-1",
      "er:density=0.1,seed=x",
      "er:density=0.1,bogus=1",
      "er:density=0.1,density=0.2",
      "er:seed=3",
      "moore:d=2",
      "moore:r=1",
      "moore:d=0,r=1",
      "moore:d=9,r=1",
      "moore:d=2,r=-1",
      "moore:d=2,r=1,periodic=2",
      "moore:d=2.5,r=1",
      "vonneumann:d=2,r=1,x=1",
      "mtx:",
      "mtx:/nonexistent/file.mtx",
      "moore:d=8,r=1000",
      "rmat",
      "rmat:",
      "rmat:ef=4",
      "rmat:scale=0",
      "rmat:scale=27",
      "rmat:scale=x",
      "rmat:scale=10,ef=0",
      "rmat:scale=10,ef=65",
      "rmat:scale=10,scramble=2",
      "rmat:scale=10,seed=-1",
      "rmat:scale=10,bogus=1",
      "rmat:scale=10,scale=11",
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    topospec spec;
    char err[512] = "";
    int rc = topospec_parse(bad[k], &spec, err, sizeof err);
    if (rc == 0) {
      /* Too many offsets is only found when a rank's neighborhood is built. */
      topospec_rank r;
      rc = topospec_for_rank(&spec, 0, 4, &r, err, sizeof err);
      if (rc == 0) topospec_rank_free(&r);
      topospec_free(&spec);
    }
    CHECK(rc != 0 && err[0] != '\0', "'%s' should be rejected with a message", bad[k]);
  }
  topospec spec;
  char err[512] = "";
  CHECK(parse_or_fail("er:density=0.5", &spec) == 0 && spec.seed == 1, "er seed defaults to 1");
  topospec_rank r;
  CHECK(topospec_for_rank(&spec, 4, 4, &r, err, sizeof err) != 0 && err[0] != '\0', "rank 4 of 4 must be rejected");
  topospec_free(&spec);
}

static void test_er(void) {
  static const int sizes[] = {1, 2, 3, 7, 16, 33};
  static const char *const specs[] = {"er:density=0.3,seed=1", "er:density=0.05,seed=42", "er:density=1",
                                      "er:density=0,seed=7"};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    topospec spec;
    if (parse_or_fail(specs[s], &spec) != 0) continue;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      all_ranks all;
      if (build_all(&spec, sizes[k], &all) == 0) {
        check_symmetric_lists(&spec, &all);
        check_sorted_lists(&spec, &all);
        for (int p = 0; p < all.nranks; p++) {
          const topospec_rank *me = &all.rank[p];
          CHECK(me->recv_elems == NULL && me->send_elems == NULL && !me->is_cart,
                "%s: er has no element counts and no grid", specs[s]);
          if (spec.density == 1.0)
            CHECK(me->indegree == sizes[k] - 1 && me->outdegree == sizes[k] - 1, "density 1 must be complete");
          if (spec.density == 0.0) CHECK(me->indegree == 0 && me->outdegree == 0, "density 0 must be empty");
        }
      }
      free_all(&all);
    }
    topospec_free(&spec);
  }

  /* Density close to the requested one; another seed gives another graph. */
  topospec a, b;
  if (parse_or_fail("er:density=0.3,seed=1", &a) != 0 || parse_or_fail("er:density=0.3,seed=2", &b) != 0) return;
  const int P = 200;
  long long edges = 0, differ = 0;
  for (int p = 0; p < P; p++) {
    topospec_rank ra, rb;
    char err[256];
    if (topospec_for_rank(&a, p, P, &ra, err, sizeof err) != 0 ||
        topospec_for_rank(&b, p, P, &rb, err, sizeof err) != 0) {
      CHECK(0, "%s", err);
      break;
    }
    edges += ra.outdegree;
    differ +=
        ra.outdegree != rb.outdegree || memcmp(ra.destinations, rb.destinations, (size_t)ra.outdegree * sizeof(int));
    topospec_rank_free(&ra);
    topospec_rank_free(&rb);
  }
  double density = (double)edges / ((double)P * (P - 1));
  CHECK(density > 0.28 && density < 0.32, "er density 0.3 gave %.4f", density);
  CHECK(differ > P / 2, "seeds 1 and 2 give the same graph on %lld of %d ranks", (long long)P - differ, P);
  topospec_free(&a);
  topospec_free(&b);
}

static long long power(long long base, int exponent) {
  long long result = 1;
  while (exponent-- > 0) result *= base;
  return result;
}

/* Points with sum |c| <= r in d dimensions, the origin included. */
static long long von_neumann_ball(int d, int r) {
  /* sum over k of 2^k C(d,k) C(r,k): choose k non-zero coordinates and their signs. */
  long long total = 0, cd = 1, cr = 1;
  for (int k = 0; k <= d && k <= r; k++) {
    total += power(2, k) * cd * cr;
    cd = cd * (d - k) / (k + 1);
    cr = cr * (r - k) / (k + 1);
  }
  return total;
}

static int lexicographically_less(const int *a, const int *b, int d) {
  for (int i = 0; i < d; i++)
    if (a[i] != b[i]) return a[i] < b[i];
  return 0;
}

static void check_grid(const topospec *spec, const all_ranks *all) {
  int d = spec->ndims, r = spec->radius;
  long long expected = spec->kind == TOPOSPEC_MOORE ? power(2 * r + 1, d) - 1 : von_neumann_ball(d, r) - 1;
  for (int p = 0; p < all->nranks; p++) {
    const topospec_rank *me = &all->rank[p];
    CHECK(me->is_cart && me->ndims == d, "%s: not a %d-dim grid", spec->text, d);
    CHECK(me->noffsets == expected && me->indegree == expected && me->outdegree == expected,
          "%s P=%d: %d offsets, expected %lld", spec->text, all->nranks, me->noffsets, expected);
    long long product = 1;
    for (int i = 0; i < d; i++) {
      product *= me->dims[i];
      CHECK(i == 0 || me->dims[i] <= me->dims[i - 1], "%s: dims not non-increasing", spec->text);
      CHECK(me->periods[i] == spec->periodic, "%s: wrong period", spec->text);
    }
    CHECK(product == all->nranks, "%s: dims product %lld != %d", spec->text, product, all->nranks);
    for (int k = 0; k < me->noffsets; k++) {
      const int *c = me->offsets + (size_t)k * d;
      int chebyshev = 0, manhattan = 0;
      for (int i = 0; i < d; i++) {
        int a = abs(c[i]);
        chebyshev = a > chebyshev ? a : chebyshev;
        manhattan += a;
      }
      CHECK(chebyshev > 0 && chebyshev <= r && (spec->kind == TOPOSPEC_MOORE || manhattan <= r),
            "%s: offset %d outside the neighborhood", spec->text, k);
      CHECK(k == 0 || lexicographically_less(c - d, c, d), "%s: offsets not in lexicographic order at %d", spec->text,
            k);
      /* Isomorphic pairing: my send block k lands in the receive block k of its target. */
      int q = me->destinations[k];
      if (q != MPI_PROC_NULL)
        CHECK(all->rank[q].sources[k] == p, "%s P=%d: rank %d sends block %d to %d, whose source %d is %d", spec->text,
              all->nranks, p, k, q, k, all->rank[q].sources[k]);
    }
  }
}

static void test_grids(void) {
  static const char *const specs[] = {
      "moore:d=1,r=1",      "moore:d=2,r=1",      "moore:d=2,r=2,periodic=0",      "moore:d=3,r=1",
      "vonneumann:d=2,r=1", "vonneumann:d=3,r=2", "vonneumann:d=2,r=3,periodic=0", "moore:d=2,r=0",
  };
  static const int sizes[] = {1, 2, 4, 6, 8, 12, 27, 30};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    topospec spec;
    if (parse_or_fail(specs[s], &spec) != 0) continue;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      all_ranks all;
      if (build_all(&spec, sizes[k], &all) == 0) {
        check_symmetric_lists(&spec, &all);
        check_grid(&spec, &all);
      }
      free_all(&all);
    }
    topospec_free(&spec);
  }

  /* Known layouts: dims as MPICH's MPI_Dims_create, row-major ranks. */
  static const struct {
    const char *spec;
    int nranks, dims[3];
  } layouts[] = {
      {"moore:d=2,r=1", 12, {4, 3, 0}}, {"moore:d=3,r=1", 8, {2, 2, 2}},  {"moore:d=2,r=1", 72, {9, 8, 0}},
      {"moore:d=2,r=1", 7, {7, 1, 0}},  {"moore:d=3,r=1", 20, {5, 2, 2}},
  };
  for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
    topospec spec;
    topospec_rank r;
    char err[256];
    if (parse_or_fail(layouts[k].spec, &spec) != 0) continue;
    if (topospec_for_rank(&spec, 0, layouts[k].nranks, &r, err, sizeof err) == 0) {
      for (int i = 0; i < spec.ndims; i++)
        CHECK(r.dims[i] == layouts[k].dims[i], "%s P=%d: dims[%d] = %d, expected %d", layouts[k].spec,
              layouts[k].nranks, i, r.dims[i], layouts[k].dims[i]);
      topospec_rank_free(&r);
    } else {
      CHECK(0, "%s", err);
    }
    topospec_free(&spec);
  }

  /* 4 x 3 grid, rank 0 at (0,0): offset 0 is (-1,-1). Periodic: to (3,2) = 11, from
   * (1,1) = 4; non-periodic: nowhere, and from 4. */
  topospec periodic, open;
  topospec_rank rp, ro;
  char err[256];
  if (parse_or_fail("moore:d=2,r=1", &periodic) == 0 && parse_or_fail("moore:d=2,r=1,periodic=0", &open) == 0 &&
      topospec_for_rank(&periodic, 0, 12, &rp, err, sizeof err) == 0 &&
      topospec_for_rank(&open, 0, 12, &ro, err, sizeof err) == 0) {
    CHECK(rp.offsets[0] == -1 && rp.offsets[1] == -1, "first Moore offset is (-1,-1)");
    CHECK(rp.destinations[0] == 11 && rp.sources[0] == 4,
          "periodic (-1,-1) of rank 0: "
          "dest %d source %d",
          rp.destinations[0], rp.sources[0]);
    CHECK(ro.destinations[0] == MPI_PROC_NULL && ro.sources[0] == 4,
          "non-periodic (-1,-1) of rank 0: dest %d source %d", ro.destinations[0], ro.sources[0]);
    topospec_rank_free(&rp);
    topospec_rank_free(&ro);
  }
  topospec_free(&periodic);
  topospec_free(&open);
}

/* ------------------------------------------------------------------------------------- */
/* Matrices                                                                               */
/* ------------------------------------------------------------------------------------- */

static void check_matrix(const char *text, long long expected_nnz, int symmetric_pattern, const int *sizes,
                         int nsizes) {
  topospec spec;
  if (parse_or_fail(text, &spec) != 0) return;
  CHECK(expected_nnz < 0 || spec.mtx_nnz == expected_nnz, "%s: %lld entries, expected %lld", text, spec.mtx_nnz,
        expected_nnz);
  for (int k = 0; k < nsizes; k++) {
    all_ranks all;
    if (build_all(&spec, sizes[k], &all) == 0) {
      check_symmetric_lists(&spec, &all);
      check_sorted_lists(&spec, &all);
      check_halo_brute_force(&spec, &all);
      for (int p = 0; p < all.nranks; p++) {
        const topospec_rank *me = &all.rank[p];
        if (sizes[k] == 1) CHECK(me->indegree == 0 && me->outdegree == 0, "%s: one rank has no neighbors", text);
        /* A symmetric pattern with a square split: what I need from q, q needs from me. */
        if (symmetric_pattern)
          CHECK(me->indegree == me->outdegree &&
                    memcmp(me->sources, me->destinations, (size_t)me->indegree * sizeof(int)) == 0,
                "%s P=%d: symmetric pattern but rank %d has sources != destinations", text, sizes[k], p);
      }
    }
    free_all(&all);
  }
  topospec_free(&spec);
}

static int write_file(const char *path, const char *content) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    CHECK(0, "cannot write %s", path);
    return 1;
  }
  fputs(content, f);
  fclose(f);
  return 0;
}

static void test_small_matrices(void) {
  static const char *const path = "topospec_selftest_tmp.mtx";
  static const int sizes[] = {1, 2, 3, 4, 5};
  static const struct {
    const char *content;
    long long nnz; /* -1: must be rejected */
  } cases[] = {
      /* Comments, blank lines, a duplicate, the mirror of a stored entry. */
      {"%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n\n4 4 5\n1 1\n2 1\n"
       "2 1\n4 3\n3 1\n",
       7},
      {"%%MatrixMarket matrix coordinate complex hermitian\n3 3 2\n2 1 1.0 -2.0\n3 3 1 0\n", 3},
      {"%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -1\n", 4},
      {"%%MatrixMarket matrix coordinate real general\n2 5 4\n1 5 1.0\n2 1 2.5\n1 2 1\n"
       "2 4 1e3\n",
       4},
      {"%%matrixmarket MATRIX Coordinate Real General\r\n2 2 1\r\n1 2 1.0\r\n", 1},
      /* Tall, with runs of empty rows inside and across the ranks' blocks (the send side
       * skips them by bisection). */
      {"%%MatrixMarket matrix coordinate pattern general\n12 5 5\n1 5\n2 1\n9 3\n12 2\n12 4\n", 5},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 x 1\n1 1 1\n", -1},
      /* 2^64 + 1 wraps to 1 where an overflow goes unnoticed; "1x" is not a number. */
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n18446744073709551617 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1x 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real weird\n2 2 1\n1 1 1\n", -1},
      {"hello\n", -1},
  };
  char spec_text[64];
  snprintf(spec_text, sizeof spec_text, "mtx:%s", path);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (write_file(path, cases[k].content) != 0) return;
    if (cases[k].nnz >= 0) {
      check_matrix(spec_text, cases[k].nnz, 0, sizes, (int)(sizeof sizes / sizeof sizes[0]));
    } else {
      topospec spec;
      char err[512] = "";
      CHECK(topospec_parse(spec_text, &spec, err, sizeof err) != 0 && err[0] != '\0',
            "matrix case %zu should be rejected", k);
    }
  }
  remove(path);
}

/* A gzip file cut short is an error that names the file, not a shorter matrix. */
static void test_truncated_gzip(const char *dir) {
  static const char *const path = "topospec_selftest_tmp.mtx.gz";
  char source[1024], buffer[1024], text[256], err[512] = "";
  snprintf(source, sizeof source, "%s/bcsstk01.mtx.gz", dir);
  FILE *in = fopen(source, "rb"), *out = fopen(path, "wb");
  size_t n = in ? fread(buffer, 1, sizeof buffer, in) : 0;
  CHECK(n == sizeof buffer, "cannot read the first %zu bytes of %s", sizeof buffer, source);
  if (out) fwrite(buffer, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
  topospec spec;
  snprintf(text, sizeof text, "mtx:%s", path);
  CHECK(topospec_parse(text, &spec, err, sizeof err) != 0 && strstr(err, path) != NULL && strstr(err, "truncated"),
        "a truncated gzip file must be rejected, naming it (got '%s')", err);
  remove(path);
}

static void test_data_matrices(const char *dir) {
  static const int sizes[] = {1, 3, 8};
  char text[256];
  snprintf(text, sizeof text, "mtx:%s/bcsstk01.mtx.gz", dir);
  /* 224 stored entries of one triangle, 48 of them diagonal: 2 * 224 - 48. */
  check_matrix(text, 400, 1, sizes, 3);
  snprintf(text, sizeof text, "mtx:%s/west0132.mtx.gz", dir);
  check_matrix(text, 414, 0, sizes, 3);

  /* A large one: neighborhoods of all 64 ranks must agree (no brute force: too big). */
  snprintf(text, sizeof text, "mtx:%s/luxembourg_osm.mtx.gz", dir);
  topospec spec;
  if (parse_or_fail(text, &spec) != 0) return;
  all_ranks all;
  if (build_all(&spec, 64, &all) == 0) {
    check_symmetric_lists(&spec, &all);
    check_sorted_lists(&spec, &all);
  }
  free_all(&all);
  topospec_free(&spec);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MATRIX_DIR\n", argv[0]);
    return 2;
  }
  test_bad_specs();
  test_er();
  test_grids();
  test_small_matrices();
  test_data_matrices(argv[1]);
  test_truncated_gzip(argv[1]);
  return unit_summary("topospec_selftest");
}
