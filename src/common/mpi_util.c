#include "common/mpi_util.h"

#include <pthread.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

int nhood_waitall(int count, MPI_Request requests[]) { return MPI_Waitall(count, requests, MPI_STATUSES_IGNORE); }

int nhood_testall(int count, MPI_Request requests[], int *flag) {
  return MPI_Testall(count, requests, flag, MPI_STATUSES_IGNORE);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int nhood_type_size(MPI_Datatype type, int *size) {
  if (type == MPI_BYTE) {
    *size = 1;
    return MPI_SUCCESS;
  }
  return MPI_Type_size(type, size);
}

static pthread_mutex_t swap_lock = PTHREAD_MUTEX_INITIALIZER;
static int swap_depth;
static MPI_Errhandler saved_handler = MPI_ERRHANDLER_NULL;

void nhood_errors_return_begin(void) {
  pthread_mutex_lock(&swap_lock);
  if (swap_depth++ == 0 && MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_handler) == MPI_SUCCESS)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  pthread_mutex_unlock(&swap_lock);
}

void nhood_errors_return_end(void) {
  pthread_mutex_lock(&swap_lock);
  if (--swap_depth == 0 && saved_handler != MPI_ERRHANDLER_NULL) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_handler);
    MPI_Errhandler_free(&saved_handler); /* the reference MPI_Comm_get_errhandler gave */
    saved_handler = MPI_ERRHANDLER_NULL;
  }
  pthread_mutex_unlock(&swap_lock);
}
