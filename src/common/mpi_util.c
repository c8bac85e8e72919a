#include "common/mpi_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

nhood_library nhood_library_running(void) {
  static nhood_library known;
  static atomic_int read = 0;
  if (!atomic_load_explicit(&read, memory_order_acquire)) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    nhood_library l = {NHOOD_LIBRARY_OTHER, 0, 0};
    const char *mpich = NULL;
    if (MPI_Get_library_version(version, &length) != MPI_SUCCESS) version[0] = '\0';
    if (strstr(version, "Open MPI"))
      l.kind = NHOOD_LIBRARY_OPEN_MPI;
    else if (strstr(version, "Intel(R) MPI"))
      l.kind = NHOOD_LIBRARY_INTEL;
    else if ((mpich = strstr(version, "MPICH Version:")) &&
             sscanf(mpich + strlen("MPICH Version:"), " %d.%d", &l.major, &l.minor) == 2)
      l.kind = NHOOD_LIBRARY_MPICH;
    known = l; /* threads racing here store the same */
    atomic_store_explicit(&read, 1, memory_order_release);
  }
  return known;
}

int nhood_library_mpich4_family(nhood_library l) {
  return l.kind == NHOOD_LIBRARY_INTEL || (l.kind == NHOOD_LIBRARY_MPICH && l.major < 5);
}

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
