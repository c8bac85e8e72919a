/* What the interposition library's tests share: the persistent neighborhood allgather this MPI
 * offers (MPI-4's, or Open MPI 4.1's MPIX_ extension), and whether the library is there. */
#ifndef NHOOD_TESTS_INTERPOSED_H
#define NHOOD_TESTS_INTERPOSED_H

#include <dlfcn.h> /* dladdr: define _GNU_SOURCE before any include */
#include <mpi.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#if MPI_VERSION >= 4
#define ALLGATHER_INIT MPI_Neighbor_allgather_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ALLGATHER_INIT MPIX_Neighbor_allgather_init
#endif

/* MPI_UNWEIGHTED through a volatile pointer (GCC's access checks see the sentinel as an array
 * of size 0 and warn). */
static inline int *interposed_unweighted(void) {
  static int *volatile sentinel;
  sentinel = MPI_UNWEIGHTED;
  return sentinel;
}

/* Whether MPI_Neighbor_allgather resolves to libnhood-mpi.so (else the test would test MPI
 * alone, and must refuse to run). */
static inline int interposed(void) {
  Dl_info where;
  return dladdr((void *)MPI_Neighbor_allgather, &where) && where.dli_fname && strstr(where.dli_fname, "nhood-mpi");
}

#endif
