/*
 * NHOOD_Type_create_triangular: the elements a type selects, in order, must be exactly the
 * ones its parameters describe (checked by packing an array of element indices), and bad
 * parameters must give the documented errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

static int failures;

/* Packs indices 0..n-1 (ints) through the type and compares with the expected indices. */
static void check_layout(const char *what, int count, int first, int inc, int stride, int stride_inc, int copies) {
  int expected[4096], n = 0;
  for (int c = 0; c < copies; c++) {
    long position = 0, base = 0;
    MPI_Aint lb, extent;
    MPI_Datatype probe;
    TEST_CHECK(NHOOD_Type_create_triangular(count, first, inc, stride, stride_inc, MPI_INT, &probe));
    TEST_CHECK(MPI_Type_get_extent(probe, &lb, &extent));
    TEST_CHECK(MPI_Type_free(&probe));
    base = (long)(c * extent / (MPI_Aint)sizeof(int));
    for (int i = 0; i < count; i++) {
      for (int k = 0; k < first + i * inc; k++) expected[n++] = (int)(base + position + k);
      position += stride + (long)i * stride_inc;
    }
  }
  int data[8192];
  for (int k = 0; k < 8192; k++) data[k] = k;
  MPI_Datatype type;
  TEST_CHECK(NHOOD_Type_create_triangular(count, first, inc, stride, stride_inc, MPI_INT, &type));
  TEST_CHECK(MPI_Type_commit(&type));
  int size = 0, at = 0;
  TEST_CHECK(MPI_Pack_size(copies, type, MPI_COMM_SELF, &size));
  int *packed = test_malloc((size_t)size + 1);
  TEST_CHECK(MPI_Pack(data, copies, type, packed, size, &at, MPI_COMM_SELF));
  int got = at / (int)sizeof(int);
  int bad = got != n || memcmp(packed, expected, sizeof(int) * (size_t)n) != 0;
  if (bad) {
    failures++;
    fprintf(stderr, "FAILED %s: %d elements packed, %d expected\n", what, got, n);
  }
  free(packed);
  TEST_CHECK(MPI_Type_free(&type));
}

static void expect_class(const char *what, int rc, int want) {
  int cls = MPI_SUCCESS;
  char msg[NHOOD_MAX_ERROR_STRING] = "";
  NHOOD_Error_message(msg, NULL);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (cls != want) {
    failures++;
    fprintf(stderr, "FAILED %s: class %d, expected %d (%s)\n", what, cls, want, msg);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  /* The corner of depth 4 of a 10-wide row-major array, rows growing to the left. */
  check_layout("corner growing left", 4, 1, 1, 9, 0, 1);
  /* Rows growing to the right, two copies back to back. */
  check_layout("corner growing right, 2 copies", 4, 1, 1, 10, 0, 2);
  /* Shrinking rows with a growing stride (a trapezoid). */
  check_layout("shrinking trapezoid", 3, 5, -2, 7, 3, 1);
  check_layout("empty", 0, 1, 1, 1, 0, 1);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  expect_class("count -1", NHOOD_Type_create_triangular(-1, 1, 1, 1, 0, MPI_INT, &t), MPI_ERR_COUNT);
  expect_class("a block length below 0", NHOOD_Type_create_triangular(3, 1, -1, 1, 0, MPI_INT, &t), MPI_ERR_ARG);
  expect_class("oldtype NULL", NHOOD_Type_create_triangular(1, 1, 0, 1, 0, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  expect_class("newtype NULL", NHOOD_Type_create_triangular(1, 1, 0, 1, 0, MPI_INT, NULL), MPI_ERR_ARG);
  printf("test_datatypes: %d failure(s)\n", failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
