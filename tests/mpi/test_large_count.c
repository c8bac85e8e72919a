/*
 * The large-count forms beyond INT_MAX, on 2 processes that exchange with each other (and,
 * where said, with themselves):
 *   - displacement: NHOOD_Neighbor_alltoallv_c with a receive displacement beyond INT_MAX
 *     elements (and a self loop), every mode, under auto, direct and combine. The buffer is
 *     over 2 GiB but only its touched pages are memory;
 *   - huge: a block of INT_MAX + 9 elements (alltoallv_c blocking, allgather_c non-blocking,
 *     alltoall_c persistent), about 2 x 2 GiB per process. Run where the machine has room
 *     (MemAvailable at least NEED_GIB; NHOOD_TEST_HUGE=0 skips it, as under the sanitizers),
 *     else skipped with a line saying so.
 * Each received byte is checked against what its sender wrote. Exits 0 when all pass.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

#define NEED_GIB 12
#define SMALL 24 /* elements of the blocks of the displacement case */

static int rank, failures;

static unsigned char pattern(int sender, MPI_Count k) { return (unsigned char)(sender * 101 + k * 7 + (k >> 20)); }

static void fill(unsigned char *p, MPI_Count n, int sender) {
  for (MPI_Count k = 0; k < n; k++) p[k] = pattern(sender, k);
}

/* Whether n bytes at p are what `sender` filled in; reports the first difference. */
static void check(const char *what, const unsigned char *p, MPI_Count n, int sender) {
  for (MPI_Count k = 0; k < n; k++)
    if (p[k] != pattern(sender, k)) {
      printf("rank %d: FAILED %s: byte %lld is 0x%02x, not 0x%02x\n", rank, what, (long long)k, p[k],
             pattern(sender, k));
      failures++;
      return;
    }
}

static void expect(int rc, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char message[NHOOD_MAX_ERROR_STRING];
  NHOOD_Error_message(message, NULL);
  printf("rank %d: FAILED %s returned %d: %s\n", rank, call, rc, message);
  failures++;
}

/* Completes a call made in mode m (0 blocking, 1 non-blocking, 2 persistent: started once). */
static void complete(int m, NHOOD_Request *req, const char *call) {
  if (m == 2) expect(NHOOD_Start(req), "NHOOD_Start");
  if (m > 0) expect(NHOOD_Wait(req), call);
  if (m == 2) expect(NHOOD_Request_free(req), "NHOOD_Request_free");
}

static double mem_available_gib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib / 1048576.0;
}

/* Sources: the other process, then this one; destinations: this one, then the other. The
 * block from the other process lands beyond INT_MAX elements into the receive buffer. */
static void displacement_case(MPI_Comm comm, const char *algorithm) {
  int other = 1 - rank, sources[2] = {other, rank}, destinations[2] = {rank, other};
  MPI_Info info;
  NHOOD_Topo topo;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm);
  expect(NHOOD_Topo_create_adjacent(2, sources, test_unweighted(), 2, destinations, test_unweighted(), info, &topo),
         "NHOOD_Topo_create_adjacent");
  MPI_Info_free(&info);
  MPI_Aint far = (MPI_Aint)INT_MAX + 1000;
  unsigned char *send = malloc(2 * SMALL), *recv = malloc((size_t)far + SMALL);
  if (!send || !recv) {
    printf("rank %d: FAILED: no memory for the displacement case\n", rank);
    failures++;
    return;
  }
  fill(send, 2 * SMALL, rank);
  MPI_Count counts[2] = {SMALL, SMALL};
  MPI_Aint sdispls[2] = {0, 0}, rdispls[2] = {far, 0}; /* one send block for both */
  for (int m = 0; m < 3; m++) {
    memset(recv, 0, SMALL);
    memset(recv + far, 0, SMALL);
    NHOOD_Request req = NHOOD_REQUEST_NULL;
    if (m == 0)
      expect(NHOOD_Neighbor_alltoallv_c(send, counts, sdispls, MPI_BYTE, recv, counts, rdispls, MPI_BYTE, comm, topo),
             "NHOOD_Neighbor_alltoallv_c");
    else if (m == 1)
      expect(NHOOD_Ineighbor_alltoallv_c(send, counts, sdispls, MPI_BYTE, recv, counts, rdispls, MPI_BYTE, comm, topo,
                                         &req),
             "NHOOD_Ineighbor_alltoallv_c");
    else
      expect(NHOOD_Neighbor_alltoallv_init_c(send, counts, sdispls, MPI_BYTE, recv, counts, rdispls, MPI_BYTE, comm,
                                             topo, MPI_INFO_NULL, &req),
             "NHOOD_Neighbor_alltoallv_init_c");
    complete(m, &req, "NHOOD_Wait");
    char what[96];
    snprintf(what, sizeof what, "displacement beyond INT_MAX, %s, mode %d (from the other)", algorithm, m);
    check(what, recv + far, SMALL, other);
    snprintf(what, sizeof what, "displacement beyond INT_MAX, %s, mode %d (self loop)", algorithm, m);
    check(what, recv, SMALL, rank);
  }
  free(send);
  free(recv);
  NHOOD_Topo_free(&topo);
}

/* One block of INT_MAX + 9 bytes each way, in three collectives and modes. */
static void huge_case(MPI_Comm comm) {
  int other = 1 - rank;
  NHOOD_Topo topo;
  expect(NHOOD_Topo_create_adjacent(1, &other, test_unweighted(), 1, &other, test_unweighted(), MPI_INFO_NULL, &topo),
         "NHOOD_Topo_create_adjacent");
  MPI_Count n = (MPI_Count)INT_MAX + 9;
  unsigned char *send = malloc((size_t)n), *recv = malloc((size_t)n);
  if (!send || !recv) {
    printf("rank %d: FAILED: no memory for the huge case\n", rank);
    failures++;
    return;
  }
  fill(send, n, rank);
  MPI_Aint zero = 0;
  for (int m = 0; m < 3; m++) {
    NHOOD_Request req = NHOOD_REQUEST_NULL;
    memset(recv, 0, (size_t)n);
    if (m == 0)
      expect(NHOOD_Neighbor_alltoallv_c(send, &n, &zero, MPI_BYTE, recv, &n, &zero, MPI_BYTE, comm, topo),
             "NHOOD_Neighbor_alltoallv_c");
    else if (m == 1)
      expect(NHOOD_Ineighbor_allgather_c(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm, topo, &req),
             "NHOOD_Ineighbor_allgather_c");
    else
      expect(NHOOD_Neighbor_alltoall_init_c(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm, topo, MPI_INFO_NULL, &req),
             "NHOOD_Neighbor_alltoall_init_c");
    complete(m, &req, "NHOOD_Wait");
    const char *names[3] = {"alltoallv_c blocking", "allgather_c non-blocking", "alltoall_c persistent"};
    char what[96];
    snprintf(what, sizeof what, "block of INT_MAX + 9 elements, %s", names[m]);
    check(what, recv, n, other);
  }
  free(send);
  free(recv);
  NHOOD_Topo_free(&topo);
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) printf("test_large_count: needs 2 processes\n");
    MPI_Finalize();
    return 1;
  }
  const char *algorithms[3] = {"auto", "direct", "combine"};
  for (int a = 0; a < 3; a++) displacement_case(MPI_COMM_WORLD, algorithms[a]);
  double gib = mem_available_gib(), least;
  MPI_Allreduce(&gib, &least, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  const char *huge = getenv("NHOOD_TEST_HUGE");
  int room = least >= NEED_GIB && !(huge && strcmp(huge, "0") == 0);
  if (room)
    huge_case(MPI_COMM_WORLD);
  else if (rank == 0)
    printf("test_large_count: blocks beyond INT_MAX elements skipped: %.1f GiB available (%d needed)%s\n", least,
           NEED_GIB, huge ? ", NHOOD_TEST_HUGE=0" : "");
  return test_finish("test_large_count", failures);
}
