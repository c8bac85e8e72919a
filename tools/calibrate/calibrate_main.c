/* nhood-calibrate's main: MPI around nhood_calibrate_run (nhood_calibrate.c says what it does). */
#include "nhood_calibrate.h"

#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = nhood_calibrate_run(argc, argv);
  MPI_Finalize();
  return rc;
}
