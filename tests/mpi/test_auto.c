/*
 * "auto" over MPI: the cost model's choice, the overrides and their errors.
 *
 *   test_auto                       choice per block size, NHOOD_TUNE, the nhood_tune info key
 *                                   (topology and persistent init), malformed rules
 *   test_auto --expect direct       NHOOD_PARAMS given by the test: the small-block choice must
 *   test_auto --expect combining    be direct / one of the combining cart-* algorithms
 *   test_auto --expect error        NHOOD_PARAMS is unreadable: every call fails alike
 *   test_auto --expect persistent   NHOOD_PARAMS the ib-edr preset, NHOOD_TRIAL=off, 8 ranks: on
 *                                   the complete graph a blocking alltoallv runs direct, a
 *                                   persistent one combine (its size pass runs once, at init;
 *                                   nhood-info --mode persistent shows both tables)
 *
 * Topology: the Moore radius-1 offsets on a periodic Cartesian grid of all processes. Every
 * result is checked against the data MPI-4.1 defines (allgather of one int per process and
 * a large block), and every process must resolve "auto" to the same algorithm.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

static int rank, size, failures;

static void fail(const char *what) {
  failures++;
  fprintf(stderr, "rank %d: %s\n", rank, what);
}

typedef struct {
  MPI_Comm cart;
  NHOOD_Topo topo;
  int degree, *sources, *destinations;
} grid;

static void grid_create(grid *g, MPI_Info info) {
  int dims[2] = {0, 0}, periods[2] = {1, 1}, offsets[16], k = 0;
  MPI_Dims_create(size, 2, dims);
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g->cart));
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[k++] = dy, offsets[k++] = dx;
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(g->cart, 8, offsets, info, &g->topo));
  g->degree = 8;
  g->sources = test_malloc(sizeof(int) * 8);
  g->destinations = test_malloc(sizeof(int) * 8);
  TEST_CHECK(NHOOD_Topo_neighbors(g->topo, 1, 8, g->sources, NULL, 8, g->destinations, NULL));
}

/* A persistent allgather of count ints per process, started twice; checks the data and
 * returns the algorithm that ran (or "" with *rc set when init failed). */
static const char *allgather(grid *g, int count, MPI_Info info, int *rc) {
  static char name[64];
  int *send = test_malloc(sizeof(int) * (size_t)count), *recv = test_malloc(sizeof(int) * (size_t)count * 8);
  NHOOD_Request req;
  name[0] = '\0';
  *rc = NHOOD_Neighbor_allgather_init(send, count, MPI_INT, recv, count, MPI_INT, g->cart, g->topo, info, &req);
  if (*rc == MPI_SUCCESS) {
    const char *algorithm;
    TEST_CHECK(NHOOD_Request_schedule_info(req, &algorithm, NULL, NULL, NULL, NULL));
    snprintf(name, sizeof name, "%s", algorithm);
    for (int start = 0; start < 2; start++) {
      for (int k = 0; k < count; k++) send[k] = rank * 1000 + start * 7 + k % 5;
      memset(recv, 0xff, sizeof(int) * (size_t)count * 8);
      TEST_CHECK(NHOOD_Start(&req));
      TEST_CHECK(NHOOD_Wait(&req));
      int ok = 1;
      for (int i = 0; i < 8; i++)
        for (int k = 0; k < count; k++) ok &= recv[(size_t)i * count + k] == g->sources[i] * 1000 + start * 7 + k % 5;
      if (!ok) fail("wrong data");
    }
    TEST_CHECK(NHOOD_Request_free(&req));
  }
  free(send);
  free(recv);
  return name;
}

static void grid_free(grid *g) {
  TEST_CHECK(NHOOD_Topo_free(&g->topo));
  MPI_Comm_free(&g->cart);
  free(g->sources);
  free(g->destinations);
}

static void expect_name(const char *got, const char *want, const char *what) {
  char message[200];
  if (strcmp(got, want) != 0) {
    snprintf(message, sizeof message, "%s: ran %s, expected %s", what, got, want);
    fail(message);
  }
}

static void expect_error(int rc, int cls, const char *text, const char *what) {
  char message[NHOOD_MAX_ERROR_STRING + 200], detail[NHOOD_MAX_ERROR_STRING] = "";
  int got = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &got), NHOOD_Error_message(detail, NULL);
  if (got != cls || strstr(detail, text) == NULL) {
    snprintf(message, sizeof message, "%s: error class %d (\"%s\"), expected %d naming \"%s\"", what, got, detail, cls,
             text);
    fail(message);
  }
}

static void test_overrides(void) {
  grid g;
  int rc;
  grid_create(&g, MPI_INFO_NULL);
  /* The model's choice, at both ends of the size range: correct data, the same everywhere. */
  const char *small = allgather(&g, 1, MPI_INFO_NULL, &rc);
  if (rc != MPI_SUCCESS || !test_same_everywhere(small)) fail("auto, 4 B: failed or differs between processes");
  const char *large = allgather(&g, 1 << 16, MPI_INFO_NULL, &rc);
  if (rc != MPI_SUCCESS || !test_same_everywhere(large)) fail("auto, 256 KiB: failed or differs between processes");
  if (rank == 0) printf("auto chose %s at 4 B and %s at 256 KiB\n", small, large);

  /* NHOOD_TUNE, by size: the rule's algorithm runs. */
  setenv("NHOOD_TUNE", "allgather:-1K=cart-direct; allgather:1K-=mpi; *=direct", 1);
  expect_name(allgather(&g, 1, MPI_INFO_NULL, &rc), "cart-direct", "NHOOD_TUNE, 4 B");
  expect_name(allgather(&g, 1024, MPI_INFO_NULL, &rc), "mpi", "NHOOD_TUNE, 4 KiB");
  /* The info key at persistent init comes first. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_TUNE, "allgather=cart-dim");
  expect_name(allgather(&g, 1, info, &rc), "cart-dim", "nhood_tune at init over NHOOD_TUNE");
  /* A rule that says auto hands back to the model. */
  MPI_Info_set(info, NHOOD_INFO_TUNE, "*=auto");
  expect_name(allgather(&g, 1, info, &rc), small, "nhood_tune *=auto");
  /* An explicit algorithm is not auto: no rule applies. */
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "cart-bruck");
  MPI_Info_set(info, NHOOD_INFO_TUNE, "allgather=direct");
  expect_name(allgather(&g, 1, info, &rc), "cart-bruck", "explicit algorithm over nhood_tune");
  MPI_Info_free(&info);

  /* Malformed rules: MPI_ERR_INFO from every process, no hang. */
  setenv("NHOOD_TUNE", "allgather:1K-=quick", 1);
  allgather(&g, 1, MPI_INFO_NULL, &rc);
  expect_error(rc, MPI_ERR_INFO, "NHOOD_TUNE", "unknown algorithm in NHOOD_TUNE");
  unsetenv("NHOOD_TUNE");
  grid_free(&g);

  /* The topology's info key, and its check at creation. */
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_TUNE, "allgather=cart-dim-batch");
  grid_create(&g, info);
  expect_name(allgather(&g, 1, MPI_INFO_NULL, &rc), "cart-dim-batch", "nhood_tune on the topology");
  grid_free(&g);
  MPI_Info_set(info, NHOOD_INFO_TUNE, "allgather:=direct");
  NHOOD_Topo t;
  rc = NHOOD_Topo_create_adjacent(0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, info, &t);
  expect_error(rc, MPI_ERR_INFO, NHOOD_INFO_TUNE, "malformed nhood_tune at topology creation");
  MPI_Info_free(&info);
}

/* Under the NHOOD_PARAMS the test was given: what the model picks for 4-byte blocks. */
static void test_params(const char *expect) {
  grid g;
  int rc;
  grid_create(&g, MPI_INFO_NULL);
  const char *name = allgather(&g, 1, MPI_INFO_NULL, &rc);
  if (strcmp(expect, "error") == 0) {
    expect_error(rc, MPI_ERR_OTHER, "NHOOD_PARAMS", "unreadable NHOOD_PARAMS");
  } else if (rc != MPI_SUCCESS || !test_same_everywhere(name)) {
    fail("auto failed or differs between processes");
  } else if (strcmp(expect, "direct") == 0) {
    expect_name(name, "direct", "rounds made costly");
  } else if (strcmp(name, "direct") == 0 || strcmp(name, "mpi") == 0 || strcmp(name, "cart-direct") == 0) {
    fail("messages made costly, yet auto chose one message per neighbor");
  }
  if (rank == 0) printf("NHOOD_PARAMS=%s: auto chose %s\n", getenv("NHOOD_PARAMS"), name);
  grid_free(&g);
}

/* A persistent request is priced without the size pass it runs once at init. */
static void test_persistent(void) {
  NHOOD_Topo topo;
  int *ranks = malloc(sizeof(int) * (size_t)size * 5), *counts = ranks + size, *displs = counts + size;
  int *send = displs + size, *recv = send + size;
  for (int i = 0; i < size; i++) ranks[i] = i, counts[i] = 1, displs[i] = i, send[i] = 1000 * rank + i;
  TEST_CHECK(
      NHOOD_Topo_create_adjacent(size, ranks, MPI_UNWEIGHTED, size, ranks, MPI_UNWEIGHTED, MPI_INFO_NULL, &topo));
  const char *name = NULL;
  char text[256] = "";
  for (int round = 0; round < 2; round++) { /* blocking, then persistent */
    for (int i = 0; i < size; i++) recv[i] = -1;
    if (round == 0) {
      TEST_CHECK(
          NHOOD_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD, topo));
      TEST_CHECK(NHOOD_Last_algorithm(&name));
      expect_name(name, "direct", "blocking alltoallv, the size pass at every call");
    } else {
      NHOOD_Request req;
      TEST_CHECK(NHOOD_Neighbor_alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                               MPI_COMM_WORLD, topo, MPI_INFO_NULL, &req));
      TEST_CHECK(NHOOD_Start(&req));
      TEST_CHECK(NHOOD_Wait(&req));
      TEST_CHECK(NHOOD_Selection_info(req, text, sizeof text));
      TEST_CHECK(NHOOD_Request_free(&req));
      if (strcmp(text, "cost model: combine") != 0) {
        char message[320];
        snprintf(message, sizeof message, "persistent alltoallv: \"%s\", expected \"cost model: combine\"", text);
        fail(message);
      }
    }
    for (int i = 0; i < size; i++)
      if (recv[i] != 1000 * i + rank) {
        fail(round == 0 ? "blocking alltoallv: wrong data" : "persistent alltoallv: wrong data");
        break;
      }
  }
  if (rank == 0) printf("complete graph of %d: blocking ran %s, persistent \"%s\"\n", size, name, text);
  NHOOD_Topo_free(&topo);
  free(ranks);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  watchdog_arm("test_auto");
  if (argc == 3 && strcmp(argv[1], "--expect") == 0 && strcmp(argv[2], "persistent") == 0)
    test_persistent();
  else if (argc == 3 && strcmp(argv[1], "--expect") == 0)
    test_params(argv[2]);
  else
    test_overrides();
  return test_finish("test_auto", failures);
}
