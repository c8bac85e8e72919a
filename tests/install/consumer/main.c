/* Allgather over a ring with an installed nhood; prints "consumer OK" when it worked. */
#include <nhood.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int sources[2] = {left, right}, destinations[2] = {left, right};
  NHOOD_Topo topo;
  int got[2] = {-1, -1}, ok = 0;
  if (NHOOD_Topo_create_adjacent(2, sources, MPI_UNWEIGHTED, 2, destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, &topo) ==
          MPI_SUCCESS &&
      NHOOD_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, topo) == MPI_SUCCESS)
    ok = got[0] == left && got[1] == right;
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("consumer %s\n", all ? "OK" : "FAILED");
  NHOOD_Topo_free(&topo);
  MPI_Finalize();
  return !all;
}
