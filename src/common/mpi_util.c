#include "common/mpi_util.h"

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
