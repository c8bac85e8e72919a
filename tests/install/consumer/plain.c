/* An unmodified MPI program: MPI_Neighbor_allgather on a ring, no nhood.h. Prints "plain OK"
 * when the data is right; run under nhood-run or linked with libnhood-mpi, nhood runs it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size, neighbors[2] = {left, right};
  MPI_Comm ring;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbors, MPI_UNWEIGHTED, 2, neighbors, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &ring);
  int got[2] = {-1, -1}, all = 0;
  MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring);
  int ok = got[0] == left && got[1] == right;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("plain %s\n", all ? "OK" : "FAILED");
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return !all;
}
