/* nhood-hotloop: one repeated 4 B neighborhood allgather between two processes (each the
 * other's only neighbor), N times back to back, for counting what nhood's own code executes
 * per call (scripts/hot_instructions.sh runs it under callgrind at two N and takes the
 * difference). Timing is nhood-bench's job; this prints nothing but errors.
 *
 *   nhood-hotloop api N     NHOOD_Neighbor_allgather with the algorithm "direct"
 *   nhood-hotloop mpi N     MPI_Neighbor_allgather on a distributed-graph communicator (nhood's
 *                           with the interposition library preloaded, MPI's own without)
 *   ... time                also times each call and prints the median and the mean over the
 *                           calls of the slowest process's time (as nhood-hotloop-f does, the
 *                           same loop in Fortran: scripts/fortran_overhead.sh)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rc = MPI_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc >= 3 ? atol(argv[2]) : -1;
  int api = argc >= 3 && strcmp(argv[1], "api") == 0, timed = argc == 4 && strcmp(argv[3], "time") == 0;
  double *seconds = timed && n > 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  if (n < 0 || size > 2 || argc > 4 || (argc == 4 && !timed) || (timed && n > 0 && !seconds) ||
      (!api && strcmp(argv[1], "mpi") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 nhood-hotloop api|mpi N [time]\n");
    MPI_Finalize();
    return 2;
  }
  int other[1] = {size - 1 - rank}, x = rank, y = -1;
  /* Through a volatile object: Open MPI's MPI_UNWEIGHTED is an address that GCC 12 takes for an
   * empty array (-Wstringop-overread). */
  int *volatile unweighted = MPI_UNWEIGHTED;
  if (api) {
    MPI_Info info;
    NHOOD_Topo topo;
    MPI_Info_create(&info);
    MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "direct");
    rc = NHOOD_Topo_create_adjacent(1, other, unweighted, 1, other, unweighted, info, &topo);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
      double t0 = seconds ? MPI_Wtime() : 0;
      rc = NHOOD_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD, topo);
      if (seconds) seconds[i] = MPI_Wtime() - t0;
    }
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_free(&topo);
    MPI_Info_free(&info);
  } else {
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, other, unweighted, 1, other, unweighted, MPI_INFO_NULL, 0,
                                   &graph);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
      double t0 = seconds ? MPI_Wtime() : 0;
      rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, graph);
      if (seconds) seconds[i] = MPI_Wtime() - t0;
    }
    MPI_Comm_free(&graph);
  }
  if (rc != MPI_SUCCESS || (n > 0 && y != other[0])) {
    fprintf(stderr, "nhood-hotloop: rank %d: %s (received %d)\n", rank,
            rc != MPI_SUCCESS ? "a call failed" : "wrong data", y);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (seconds) { /* each call's slowest process, then the median over the calls */
    MPI_Allreduce(MPI_IN_PLACE, seconds, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double sum = 0;
    for (long i = 0; i < n; i++) sum += seconds[i];
    qsort(seconds, (size_t)n, sizeof *seconds, compare);
    if (rank == 0) printf("median_us %.4f mean_us %.4f\n", 1e6 * seconds[n / 2], 1e6 * sum / (double)n);
    free(seconds);
  }
  MPI_Finalize();
  return 0;
}
