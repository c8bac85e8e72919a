/* Small wrappers around MPI calls that need care on some MPI implementations. */
#ifndef NHOOD_COMMON_MPI_UTIL_H
#define NHOOD_COMMON_MPI_UTIL_H

#include <mpi.h>

/* MPI_Waitall / MPI_Testall with MPI_STATUSES_IGNORE: MPICH defines it as (MPI_Status *)1
 * and declares the parameter as an array, which gcc >= 11 reports as an access to a
 * zero-size region (a false positive); the suppression lives here, once. */
int nhood_waitall(int count, MPI_Request requests[]);
int nhood_testall(int count, MPI_Request requests[], int *flag);

#endif
