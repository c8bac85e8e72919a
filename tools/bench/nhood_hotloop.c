/* nhood-hotloop: one repeated 4 B neighborhood allgather between two processes (each the
 * other's only neighbor), N times back to back, for counting what nhood's own code executes
 * per call (scripts/hot_instructions.sh runs it under callgrind at two N and takes the
 * difference). Timing is nhood-bench's job; this prints nothing but errors.
 *
 *   nhood-hotloop api N     NHOOD_Neighbor_allgather with the algorithm "direct"
 *   nhood-hotloop mpi N     MPI_Neighbor_allgather on a distributed-graph communicator (nhood's
 *                           with the interposition library preloaded, MPI's own without)
 *   nhood-hotloop hand N    the same exchange written by hand, as nhood-bench's `isend`: one
 *                           MPI_Irecv, one MPI_Isend, MPI_Waitall (the yardstick of `direct`)
 *   ... time                also times each call and prints the median and the mean over the
 *                           calls of the slowest process's time (as nhood-hotloop-f does, the
 *                           same loop in Fortran: scripts/fortran_overhead.sh)
 *   ... moore R             (mpi only) any number of processes on a periodic 2-D grid, each
 *                           gathering from its Moore neighborhood of radius R: what `auto` picks
 *                           there, shown by NHOOD_STATS, must be the same from C and Fortran
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

/* The neighbors of `rank` on a Moore stencil of radius r on a periodic 2-D grid of all the
 * processes (MPI_Dims_create's), row-major, offsets in order; the same list is the sources and
 * the destinations. Returns how many. */
static int moore(int rank, int size, int r, int *nbr) {
  int dims[2] = {0, 0}, k = 0;
  MPI_Dims_create(size, 2, dims);
  int x = rank / dims[1], y = rank % dims[1];
  for (int dx = -r; dx <= r; dx++)
    for (int dy = -r; dy <= r; dy++)
      if (dx || dy)
        nbr[k++] = ((x + dx) % dims[0] + dims[0]) % dims[0] * dims[1] + ((y + dy) % dims[1] + dims[1]) % dims[1];
  return k;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rc = MPI_SUCCESS, radius = 0, a = 3, timed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc >= 3 ? atol(argv[2]) : -1;
  int api = argc >= 3 && strcmp(argv[1], "api") == 0, hand = argc >= 3 && strcmp(argv[1], "hand") == 0;
  if (a < argc && strcmp(argv[a], "time") == 0) timed = 1, a++;
  if (a + 1 < argc && strcmp(argv[a], "moore") == 0) radius = atoi(argv[a + 1]), a += 2;
  double *seconds = timed && n > 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  int degree = radius > 0 ? (2 * radius + 1) * (2 * radius + 1) - 1 : 1;
  int *nbr = malloc(sizeof(int) * (size_t)degree), *y = malloc(sizeof(int) * (size_t)degree), x = rank;
  if (n < 0 || a != argc || radius < 0 || (radius == 0 && size > 2) || (radius > 0 && (api || hand)) ||
      (timed && n > 0 && !seconds) || !nbr || !y || (!api && !hand && strcmp(argv[1], "mpi") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 nhood-hotloop api|mpi|hand N [time] [moore R]\n");
    MPI_Finalize();
    return 2;
  }
  if (radius > 0)
    moore(rank, size, radius, nbr);
  else
    nbr[0] = size - 1 - rank;
  for (int k = 0; k < degree; k++) y[k] = -1;
  /* Through a volatile object: Open MPI's MPI_UNWEIGHTED is an address that GCC 12 takes for an
   * empty array (-Wstringop-overread). */
  int *volatile unweighted = MPI_UNWEIGHTED;
  if (api) {
    MPI_Info info;
    NHOOD_Topo topo;
    MPI_Info_create(&info);
    MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "direct");
    rc = NHOOD_Topo_create_adjacent(1, nbr, unweighted, 1, nbr, unweighted, info, &topo);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
      double t0 = seconds ? MPI_Wtime() : 0;
      rc = NHOOD_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, topo);
      if (seconds) seconds[i] = MPI_Wtime() - t0;
    }
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_free(&topo);
    MPI_Info_free(&info);
  } else if (hand) {
    MPI_Comm dup;
    MPI_Request requests[2];
    MPI_Status *volatile ignore = MPI_STATUSES_IGNORE; /* as unweighted, for MPICH's constant */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
      double t0 = seconds ? MPI_Wtime() : 0;
      rc = MPI_Irecv(y, 1, MPI_INT, nbr[0], 0, dup, &requests[0]);
      if (rc == MPI_SUCCESS) rc = MPI_Isend(&x, 1, MPI_INT, nbr[0], 0, dup, &requests[1]);
      if (rc == MPI_SUCCESS) rc = MPI_Waitall(2, requests, ignore);
      if (seconds) seconds[i] = MPI_Wtime() - t0;
    }
    MPI_Comm_free(&dup);
  } else {
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, nbr, unweighted, degree, nbr, unweighted, MPI_INFO_NULL, 0,
                                   &graph);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
      double t0 = seconds ? MPI_Wtime() : 0;
      rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, graph);
      if (seconds) seconds[i] = MPI_Wtime() - t0;
    }
    MPI_Comm_free(&graph);
  }
  int wrong = -1;
  for (int k = 0; n > 0 && k < degree && wrong < 0; k++)
    if (y[k] != nbr[k]) wrong = k;
  if (rc != MPI_SUCCESS || wrong >= 0) {
    fprintf(stderr, "nhood-hotloop: rank %d: %s (block %d: %d)\n", rank,
            rc != MPI_SUCCESS ? "a call failed" : "wrong data", wrong, wrong >= 0 ? y[wrong] : 0);
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
  free(nbr);
  free(y);
  MPI_Finalize();
  return 0;
}
