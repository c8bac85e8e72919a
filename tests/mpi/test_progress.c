/*
 * Asynchronous progress (NHOOD_PROGRESS=thread, api/progress.h): a schedule of several rounds
 * completes while the program computes and calls nothing of nhood's.
 *
 * Each case posts a non-blocking call (or starts a persistent request) of a multi-round
 * schedule (cart-dim on a periodic ring, offsets -2..2: a round per hop), spins for 300 ms
 * without calling nhood, then tests it once. With the progress thread the run has completed
 * on every process by then, so the one NHOOD_Test completes it, and the data are checked.
 * Without the thread the first process to test cannot finish: its later rounds wait for
 * messages that the others only send from inside their own nhood calls (run without
 * NHOOD_PROGRESS, the test fails: mpi.progress.off is registered WILL_FAIL).
 *
 * Blocks of 8 B and 64 KiB (past the eager limits, so MPI's rendezvous must progress too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

enum { NOFFSETS = 4 };

static void spin(double seconds) {
  double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {}
}

/* One case; returns the number of failures on this process. */
static int run_case(MPI_Comm cart, NHOOD_Topo topo, int persistent, int count, int rank, int size) {
  int failures = 0, flag = 0;
  int *sendbuf = test_malloc(sizeof(int) * (size_t)count);
  int *recvbuf = test_malloc(sizeof(int) * (size_t)count * NOFFSETS);
  static const int offsets[NOFFSETS] = {-2, -1, 1, 2};
  for (int k = 0; k < count; k++) sendbuf[k] = rank * 1000003 + k;
  memset(recvbuf, 0xff, sizeof(int) * (size_t)count * NOFFSETS);
  NHOOD_Request req = NHOOD_REQUEST_NULL;
  char what[128];
  snprintf(what, sizeof what, "%s allgather of %d ints", persistent ? "persistent" : "non-blocking", count);
  watchdog_arm(what);
  MPI_Barrier(MPI_COMM_WORLD);
  if (persistent) {
    TEST_CHECK(NHOOD_Neighbor_allgather_init(sendbuf, count, MPI_INT, recvbuf, count, MPI_INT, cart, topo,
                                             MPI_INFO_NULL, &req));
    MPI_Barrier(MPI_COMM_WORLD);
    TEST_CHECK(NHOOD_Start(&req));
  } else {
    TEST_CHECK(NHOOD_Ineighbor_allgather(sendbuf, count, MPI_INT, recvbuf, count, MPI_INT, cart, topo, &req));
  }
  spin(0.3);
  TEST_CHECK(NHOOD_Test(&req, &flag));
  if (!flag) {
    fprintf(stderr, "rank %d: %s: not complete after 300 ms without nhood calls\n", rank, what);
    failures++;
    TEST_CHECK(NHOOD_Wait(&req));
  }
  const char *algorithm = NULL;
  if (persistent) {
    TEST_CHECK(NHOOD_Request_schedule_info(req, &algorithm, NULL, NULL, NULL, NULL));
    if (strcmp(algorithm, "cart-dim") != 0) {
      fprintf(stderr, "rank %d: %s ran %s, not cart-dim (a schedule of several rounds)\n", rank, what, algorithm);
      failures++;
    }
    TEST_CHECK(NHOOD_Request_free(&req));
  }
  for (int i = 0; i < NOFFSETS; i++) {
    int source = ((rank - offsets[i]) % size + size) % size;
    for (int k = 0; k < count; k++)
      if (recvbuf[i * count + k] != source * 1000003 + k) {
        fprintf(stderr, "rank %d: %s: block %d element %d is %d, expected %d\n", rank, what, i, k,
                recvbuf[i * count + k], source * 1000003 + k);
        failures++;
        break;
      }
  }
  watchdog_disarm();
  free(sendbuf);
  free(recvbuf);
  return failures;
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  int rank = 0, size = 1, failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = NULL;
  TEST_CHECK(NHOOD_Progress_mode(&mode));
  if (rank == 0) printf("test_progress: nhood progress %s\n", mode);

  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm cart;
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "cart-dim");
  static const int offsets[NOFFSETS] = {-2, -1, 1, 2};
  NHOOD_Topo topo = NHOOD_TOPO_NULL;
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(cart, NOFFSETS, offsets, info, &topo));
  MPI_Info_free(&info);

  static const int counts[] = {2, 16384};
  for (int persistent = 0; persistent < 2; persistent++)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
      failures += run_case(cart, topo, persistent, counts[c], rank, size);

  TEST_CHECK(NHOOD_Topo_free(&topo));
  MPI_Comm_free(&cart);
  return test_finish("test_progress", failures);
}
