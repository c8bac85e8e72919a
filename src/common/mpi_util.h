/* Small wrappers around MPI calls that need care on some MPI implementations. */
#ifndef NHOOD_COMMON_MPI_UTIL_H
#define NHOOD_COMMON_MPI_UTIL_H

#include <mpi.h>

/* MPI_Waitall / MPI_Testall with MPI_STATUSES_IGNORE: MPICH defines it as (MPI_Status *)1
 * and declares the parameter as an array, which gcc >= 11 reports as an access to a
 * zero-size region (a false positive); the suppression lives here, once. */
int nhood_waitall(int count, MPI_Request requests[]);
int nhood_testall(int count, MPI_Request requests[], int *flag);

/* MPI_Type_size, answered without MPI for MPI_BYTE, so that schedules of byte blocks (as
 * nhood-sim and nhood-info build them, without MPI_Init) need no MPI call. */
int nhood_type_size(MPI_Datatype type, int *size);

/*
 * Completion calls (MPI_Wait, MPI_Test and their -all forms) whose errors must come back as
 * return codes. Some requests report an error, such as a truncated receive, to
 * MPI_COMM_WORLD's error handler instead of the handler of the request's communicator, and
 * the default one aborts the job: every request in MPICH (seen in 4.0), and Open MPI's
 * non-blocking collectives (4.1). Between begin and end, MPI_COMM_WORLD's handler is
 * MPI_ERRORS_RETURN. Nested and concurrent sections from several threads share one swap:
 * the first saves the user's handler, the last puts it back. While a section is open, an
 * error of another thread's call on MPI_COMM_WORLD also returns instead of reaching the
 * user's handler.
 */
void nhood_errors_return_begin(void);
void nhood_errors_return_end(void);

/* 1 when point-to-point requests need that (MPICH); Open MPI's use their communicator's. */
/* Empty arrays for the NULL ones nhood accepts on a side without neighbors, where MPI's own
 * collective may refuse NULL (Open MPI 4.1's allgatherv: MPI_ERR_BUFFER). */
static const int nhood_no_ints[1];
static const MPI_Aint nhood_no_aints[1];
static const MPI_Count nhood_no_counts[1];
static const MPI_Datatype nhood_no_types[1];
#define NHOOD_OR_EMPTY(array, empty) ((array) ? (array) : (empty))

/* The MPI library that runs (MPI_Get_library_version, read once): what its own collectives get
 * wrong depends on it, and a build against the MPI-5 standard ABI (MPI_ABI_VERSION) runs on
 * several. */
typedef enum {
  NHOOD_LIBRARY_OTHER,
  NHOOD_LIBRARY_OPEN_MPI,
  NHOOD_LIBRARY_MPICH,
  NHOOD_LIBRARY_INTEL
} nhood_library_kind;
typedef struct {
  nhood_library_kind kind;
  int major, minor; /* MPICH's version; 0 for the others */
} nhood_library;
nhood_library nhood_library_running(void);
/* An MPICH before 5, or Intel MPI (MPICH 4's code): pairs the duplicate edges of its alltoall
 * family by arrival (native_mpi.c, interpose/own_right.c). */
int nhood_library_mpich4_family(nhood_library l);

/* Errors of point-to-point calls reach MPI_COMM_WORLD's handler (MPICH and its ABI builds). */
#if defined(MPICH_NUMVERSION) || defined(MPI_ABI_VERSION)
#define NHOOD_P2P_ERRORS_GO_TO_WORLD 1
#else
#define NHOOD_P2P_ERRORS_GO_TO_WORLD 0
#endif

#endif
