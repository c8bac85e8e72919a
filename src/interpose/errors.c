/*
 * Errors as MPI raises them: through the communicator's error handler, nhood's message printed
 * first where that handler stops the program (interpose.h, ip_raise).
 */
#include <stdio.h>

#include "common/hot.h"
#include "interpose/interpose.h"

int ip_raise_message(MPI_Comm comm, int rc, const char *function, const char *message) {
  if (rc == MPI_SUCCESS) return rc;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  PMPI_Comm_get_errhandler(comm, &handler);
  /* MPI's fatal handler prints only the error class: say what nhood saw first. */
  if (handler == MPI_ERRORS_ARE_FATAL) fprintf(stderr, "nhood (%s): %s\n", function, message);
  /* MPI_ERRORS_RETURN does nothing but return: not called (Intel MPI 2021.19's standard-ABI
   * library aborts in MPI_Comm_call_errhandler with it). */
  int returns = handler == MPI_ERRORS_RETURN;
  if (handler != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&handler);
  if (!returns) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

NHOOD_HOT int ip_raise(MPI_Comm comm, int rc, const char *function) {
  if (rc == MPI_SUCCESS) return rc;
  char message[MPI_MAX_ERROR_STRING];
  int len = (int)sizeof message;
  if (NHOOD_Error_message(message, &len) != MPI_SUCCESS) message[0] = '\0';
  return ip_raise_message(comm, rc, function, message);
}
