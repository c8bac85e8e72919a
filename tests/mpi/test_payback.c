/*
 * nhood_topo_payback, _lost, _measured and _life (the cold path's
 * verdict, selection/cold.h): on a graph where every process sends each neighbor two blocks
 * (duplicate edges), a call can gain, so the verdict is to take over; once a loss is recorded
 * on one communicator of that shape, a new communicator of the same shape gets no take-over,
 * on every process alike, while another shape (block size class) still does, and the question
 * is asked again later; a measured set-up and gain set the take-over call (the largest set-up
 * over the smallest gain among the processes), and a set-up measured alone delays it; the last
 * life of the shape brings the take-over forward where its calls left pay (the longest among
 * the processes); on a directed ring no call can gain, and it is never asked again; bad
 * arguments are MPI_ERR_ARG.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/payback.h" /* internal: the interposition library's questions */
#include "nhood.h"
#include "testutil.h"

static int failures, rank;

static void expect(int ok, const char *what) {
  if (ok) return;
  failures++;
  fprintf(stderr, "rank %d: FAILED %s\n", rank, what);
}

/* A distributed graph where each process sends to and receives from every other twice. */
static MPI_Comm doubled(int size) {
  int n = 0, peers[128];
  for (int r = 0; r < size && n + 2 <= 128; r++)
    if (r != rank) peers[n++] = r, peers[n++] = r;
  MPI_Comm g;
  int *volatile unweighted = MPI_UNWEIGHTED;
  TEST_CHECK(
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, peers, unweighted, n, peers, unweighted, MPI_INFO_NULL, 0, &g));
  return g;
}

/* The verdict after 16 calls of allgather with blocks of `bytes`, agreed on every process; the
 * call count it names in *at (may be NULL). */
static int verdict(MPI_Comm g, NHOOD_Topo t, double bytes, char *why, int len, long *at) {
  long next = 0;
  int take_over = -1;
  TEST_CHECK(nhood_topo_payback(t, g, "allgather", bytes, 16, &next, &take_over, why, len));
  if (at) *at = next;
  int all = 0, any = 0;
  MPI_Allreduce(&take_over, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&take_over, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  expect(all == any, "the verdict is the same on every process");
  return take_over;
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char why[256];
  if (size >= 2) {
    MPI_Comm g = doubled(size);
    NHOOD_Topo t;
    TEST_CHECK(NHOOD_Topo_create_from_comm(g, MPI_INFO_NULL, &t));
    expect(verdict(g, t, 8, why, sizeof why, NULL) == 1, "duplicate edges: nhood takes over");
    /* Rank 0 alone measured a loss: the next communicator of this shape stays cold everywhere. */
    if (rank == 0) TEST_CHECK(nhood_topo_payback_lost(t, g, "allgather", 8));
    NHOOD_Topo_free(&t);
    MPI_Comm_free(&g);
    g = doubled(size);
    TEST_CHECK(NHOOD_Topo_create_from_comm(g, MPI_INFO_NULL, &t));
    long next = 0;
    expect(verdict(g, t, 8, why, sizeof why, &next) == 0, "after a recorded loss: no take-over");
    expect(next == 64, "other calls can still gain: asked again at 4 times the calls");
    expect(strstr(why, "nhood lost on this shape before") != NULL, "the sentence says why");
    expect(verdict(g, t, 65536, why, sizeof why, NULL) == 1 || strstr(why, "lost") == NULL,
           "another block size class is not that shape");
    /* Measured outcomes at 1 KiB: rank 0 saw a set-up of 30 ms and a gain of 10 us a call, the
     * last rank 20 ms and 20 us. The next communicator of this shape takes the larger set-up
     * and the smaller gain on every process: nhood takes over at call 3000. */
    if (rank == 0) TEST_CHECK(nhood_topo_payback_measured(t, g, "allgather", 1024, 30000, 10));
    if (rank == size - 1) TEST_CHECK(nhood_topo_payback_measured(t, g, "allgather", 1024, 20000, 20));
    NHOOD_Topo_free(&t);
    MPI_Comm_free(&g);
    g = doubled(size);
    TEST_CHECK(NHOOD_Topo_create_from_comm(g, MPI_INFO_NULL, &t));
    expect(verdict(g, t, 1024, why, sizeof why, &next) == 1, "measured gain: nhood takes over");
    expect(next == 3000, "measured: the larger set-up over the smaller gain");
    expect(strstr(why, "as measured on this shape before") != NULL, "the sentence says it was measured");
    /* A set-up measured alone (gain NaN) at 64 KiB: the estimated gain over the larger set-up. */
    long estimated = 0;
    expect(verdict(g, t, 65536, why, sizeof why, &estimated) == 1, "64 KiB: nhood takes over on the estimate");
    TEST_CHECK(nhood_topo_payback_measured(t, g, "allgather", 65536, 1e9, NAN));
    expect(verdict(g, t, 65536, why, sizeof why, &next) == 1 && next > 100 * estimated,
           "a set-up measured alone: the estimated gain pays it back much later");
    expect(strstr(why, "(measured)") != NULL && strstr(why, "as measured") == NULL,
           "the sentence says the set-up was measured, not the gain");
    /* Lives at 4 KiB, with a set-up of 30 ms and a gain of 10 us measured: after a life of 1000
     * calls the 984 left cannot pay (the ski-rental point, call 3000, stays); after one of
     * 100000 they can, and nhood takes over now. */
    TEST_CHECK(nhood_topo_payback_measured(t, g, "allgather", 4096, 30000, 10));
    TEST_CHECK(nhood_topo_payback_life(t, g, "allgather", 4096, 1000));
    expect(verdict(g, t, 4096, why, sizeof why, &next) == 1 && next == 3000, "a short life: the ski-rental point");
    expect(strstr(why, "the last of this shape lived 1000 calls") != NULL, "the sentence gives the life");
    if (rank == size - 1) TEST_CHECK(nhood_topo_payback_life(t, g, "allgather", 4096, 100000));
    expect(verdict(g, t, 4096, why, sizeof why, &next) == 1 && next == 16,
           "a long life on one process: nhood takes over now, everywhere");
    expect(nhood_topo_payback_life(t, g, "allgather", 8, -1) == MPI_ERR_ARG, "a negative life is MPI_ERR_ARG");
    /* Measured again: the latest record of a shape replaces the earlier one. */
    TEST_CHECK(nhood_topo_payback_measured(t, g, "allgather", 1024, 0, -1));
    expect(verdict(g, t, 1024, why, sizeof why, NULL) == 0, "measured again, as a loss: no take-over");
    expect(nhood_topo_payback_measured(t, g, "allgather", 8, -1, 1) == MPI_ERR_ARG, "a negative set-up is MPI_ERR_ARG");
    expect(nhood_topo_payback_measured(t, g, "allgather", 8, 1, INFINITY) == MPI_ERR_ARG,
           "an infinite gain is MPI_ERR_ARG");
    expect(nhood_topo_payback_lost(t, g, "gather", 8) == MPI_ERR_ARG, "an unknown collective is MPI_ERR_ARG");
    expect(nhood_topo_payback_lost(NHOOD_TOPO_NULL, g, "allgather", 8) != MPI_SUCCESS, "a null topology is an error");
    NHOOD_Topo_free(&t);
    MPI_Comm_free(&g);
    /* A directed ring: one message each way is the floor of every call, so nothing is to be
     * asked again. */
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int *volatile unweighted = MPI_UNWEIGHTED;
    TEST_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, unweighted, 1, &right, unweighted,
                                              MPI_INFO_NULL, 0, &g));
    TEST_CHECK(NHOOD_Topo_create_from_comm(g, MPI_INFO_NULL, &t));
    expect(verdict(g, t, 8, why, sizeof why, &next) == 0 && next == LONG_MAX, "a ring: no call gains, never again");
    expect(strstr(why, "no call of any collective or size gains") != NULL, "the sentence says so");
    NHOOD_Topo_free(&t);
    MPI_Comm_free(&g);
  }
  return test_finish("test_payback", failures);
}
