/* nhood-hotloop: one repeated 4 B neighborhood allgather between two processes (each the
 * other's only neighbor), N times back to back, for counting what nhood's own code executes
 * per call (scripts/hot_instructions.sh runs it under callgrind at two N and takes the
 * difference). Timing is nhood-bench's job; this prints nothing but errors.
 *
 *   nhood-hotloop api N     NHOOD_Neighbor_allgather with the algorithm "direct"
 *   nhood-hotloop mpi N     MPI_Neighbor_allgather on a distributed-graph communicator (nhood's
 *                           with the interposition library preloaded, MPI's own without)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rc = MPI_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc == 3 ? atol(argv[2]) : -1;
  int api = argc == 3 && strcmp(argv[1], "api") == 0;
  if (n < 0 || size > 2 || (!api && strcmp(argv[1], "mpi") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 nhood-hotloop api|mpi N\n");
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
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++)
      rc = NHOOD_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD, topo);
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_free(&topo);
    MPI_Info_free(&info);
  } else {
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, other, unweighted, 1, other, unweighted, MPI_INFO_NULL, 0,
                                   &graph);
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++)
      rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, graph);
    MPI_Comm_free(&graph);
  }
  if (rc != MPI_SUCCESS || (n > 0 && y != other[0])) {
    fprintf(stderr, "nhood-hotloop: rank %d: %s (received %d)\n", rank,
            rc != MPI_SUCCESS ? "a call failed" : "wrong data", y);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
