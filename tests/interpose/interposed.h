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
/* The persistent neighborhood collectives, by what the MPI declares (NHOOD_HAVE_* come from
 * configure, which looks for them: Open MPI 5 has MPI-4's but says MPI_VERSION 3). */
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define PERSISTENT_INIT(coll) MPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT_INIT(coll) MPIX_Neighbor_##coll##_init
#endif
#ifdef PERSISTENT_INIT
#define ALLGATHER_INIT PERSISTENT_INIT(allgather)
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
