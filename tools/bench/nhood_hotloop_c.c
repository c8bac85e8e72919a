/*
 * nhood-hotloop-f's C half: the same calls as the Fortran loop's, made from C and timed as a
 * block, so that `nhood-hotloop-f N time alternate` compares the two side by side in one run
 * (the C communicator converted once, as a C program holds its handle).
 */
#include <mpi.h>

double nhood_hotloop_c_calls(const int *x, int *y, MPI_Fint comm, int count, int *rc);

/* `count` blocking allgathers of one integer per neighbor: the time per call; the last return
 * code other than MPI_SUCCESS, if any, in *rc. */
double nhood_hotloop_c_calls(const int *x, int *y, MPI_Fint comm, int count, int *rc) {
  static MPI_Fint converted = -1;
  static MPI_Comm c = MPI_COMM_NULL;
  if (comm != converted) {
    c = MPI_Comm_f2c(comm);
    converted = comm;
  }
  *rc = MPI_SUCCESS;
  double t0 = MPI_Wtime();
  for (int k = 0; k < count; k++) {
    int code = MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, c);
    if (code != MPI_SUCCESS) *rc = code;
  }
  return count > 0 ? (MPI_Wtime() - t0) / count : 0;
}
