/*
 * The grid under a graph, through the API (selection/learned.c's search over MPI): a 9-point
 * stencil written as a distributed graph on MPI_Dims_create's grid gets the isomorphic
 * algorithms, and what they deliver is MPI's own result; one missing edge, NHOOD_GRID=off, or
 * a Cartesian communicator whose grid is not the stencil's, and they do not apply. The
 * corpus (test_collectives, entries stencil-graph-*) checks the data of every case; this
 * test checks that the search happens at all. Run on 4 or more processes.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

static int rank, size, failures;

static void fail(const char *what) {
  fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
  failures++;
}

/* The 9-point stencil's lists on a periodic grid (dims[0] x dims[1], row-major). */
static int stencil(const int dims[2], int me, int sources[9], int destinations[9]) {
  int n = 0, x = me / dims[1], y = me % dims[1];
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++) {
      if (dx == 0 && dy == 0) continue;
      int fx = (x - dx + dims[0]) % dims[0], fy = (y - dy + dims[1]) % dims[1];
      int tx = (x + dx + dims[0]) % dims[0], ty = (y + dy + dims[1]) % dims[1];
      sources[n] = fx * dims[1] + fy;
      destinations[n++] = tx * dims[1] + ty;
    }
  return n;
}

/* Whether cart-dim-batch applies to allgather on topo over comm (collective). */
static int grid_applies(NHOOD_Topo topo, MPI_Comm comm) {
  int applies = -1;
  const char *runs = NULL;
  TEST_CHECK(NHOOD_Topo_algorithm_applies(topo, comm, "cart-dim-batch", "allgather", MPI_INFO_NULL, &applies, &runs));
  return applies;
}

/* Allgather of each rank's number through topo (auto), checked against the lists. */
static void check_allgather(NHOOD_Topo topo, MPI_Comm comm, int in, const int *sources, const char *what) {
  int mine = 1000 + rank, got[16];
  for (int i = 0; i < 16; i++) got[i] = -1;
  TEST_CHECK(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, topo));
  for (int i = 0; i < in; i++)
    if (got[i] != 1000 + sources[i]) fail(what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  watchdog_arm("test_grid_api");
  int dims[2] = {0, 0}, sources[9], destinations[9];
  MPI_Dims_create(size, 2, dims);
  int n = stencil(dims, rank, sources, destinations);

  /* A distributed graph communicator, as codes make it; the topology read from it. */
  MPI_Comm graph;
  NHOOD_Topo topo;
  TEST_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, sources, test_unweighted(), n, destinations,
                                            test_unweighted(), MPI_INFO_NULL, 0, &graph));
  TEST_CHECK(NHOOD_Topo_create_from_comm(graph, MPI_INFO_NULL, &topo));
  if (grid_applies(topo, graph) != 1) fail("the 9-point stencil as a graph: no grid found");
  check_allgather(topo, graph, n, sources, "the 9-point stencil as a graph: wrong data");
  const char *ran = NULL;
  TEST_CHECK(NHOOD_Last_algorithm(&ran));
  if (ran == NULL || strncmp(ran, "cart-", 5) != 0) fail("auto did not choose an isomorphic algorithm");
  if (rank == 0) printf("9-point stencil as a graph on %d x %d: auto ran %s\n", dims[0], dims[1], ran ? ran : "?");
  TEST_CHECK(NHOOD_Topo_free(&topo));

  /* One edge missing (rank 0 no longer hears from its first source, which stops sending). */
  int in = n, out = n, lost_src[9], lost_dst[9], first_src[9], first_dst[9];
  stencil(dims, 0, first_src, first_dst);
  int first = first_src[0];
  memcpy(lost_src, sources, sizeof lost_src);
  memcpy(lost_dst, destinations, sizeof lost_dst);
  if (rank == 0) lost_src[0] = lost_src[--in];
  if (rank == first)
    for (int j = 0; j < out; j++)
      if (lost_dst[j] == 0) {
        lost_dst[j] = lost_dst[--out];
        break;
      }
  TEST_CHECK(
      NHOOD_Topo_create_adjacent(in, lost_src, MPI_UNWEIGHTED, out, lost_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, &topo));
  /* On 2 x 2 every rank neighbors every other several times over, and one edge fewer is
   * another grid's neighborhood (open dimensions): found rightly, and the data check holds. */
  if (size > 4 && grid_applies(topo, MPI_COMM_WORLD) != 0) fail("one edge missing, yet a grid found");
  check_allgather(topo, MPI_COMM_WORLD, in, lost_src, "one edge missing: wrong data");
  TEST_CHECK(NHOOD_Topo_free(&topo));

  /* A Cartesian communicator is the only candidate: its grid, transposed, is not the stencil's. */
  MPI_Comm cart;
  int periods[2] = {1, 1}, flipped[2] = {dims[1], dims[0]};
  TEST_CHECK(
      NHOOD_Topo_create_adjacent(n, sources, MPI_UNWEIGHTED, n, destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, &topo));
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  if (grid_applies(topo, cart) != 1) fail("the stencil on its own Cartesian communicator: no grid found");
  TEST_CHECK(MPI_Comm_free(&cart));
  if (dims[0] != dims[1]) {
    NHOOD_Topo again;
    TEST_CHECK(
        NHOOD_Topo_create_adjacent(n, sources, MPI_UNWEIGHTED, n, destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, &again));
    TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, flipped, periods, 0, &cart));
    if (grid_applies(again, cart) != 0) fail("a grid found on a Cartesian communicator that is not the stencil's");
    TEST_CHECK(MPI_Comm_free(&cart));
    TEST_CHECK(NHOOD_Topo_free(&again));
  }
  TEST_CHECK(NHOOD_Topo_free(&topo));

  /* NHOOD_GRID=off: no search. */
  setenv("NHOOD_GRID", "off", 1);
  TEST_CHECK(NHOOD_Topo_create_from_comm(graph, MPI_INFO_NULL, &topo));
  if (grid_applies(topo, graph) != 0) fail("NHOOD_GRID=off, yet a grid found");
  TEST_CHECK(NHOOD_Topo_free(&topo));
  unsetenv("NHOOD_GRID");
  TEST_CHECK(MPI_Comm_free(&graph));

  return test_finish("test_grid_api", failures);
}
