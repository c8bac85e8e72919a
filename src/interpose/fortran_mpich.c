/*
 * MPICH's mpi_f08 bindings and persistent neighborhood collectives.
 *
 * MPICH's Fortran bindings call the C MPI_Neighbor_* functions, so nhood runs a Fortran
 * program's collectives there. But the mpi_f08 request functions (MPI_Start, MPI_Wait, ...)
 * call PMPI_* directly and never reach requests.c. A non-blocking run still completes (MPICH
 * polls its generalized request, requests.c), while a persistent request started through
 * PMPI_Start would start nhood's stand-in handle, not nhood's run: the program would wait
 * forever or read stale data. So a persistent neighborhood collective made through mpi_f08 is
 * MPI's own: the specific procedures of MPI_Neighbor_*_init are wrapped here, marking the
 * thread while MPICH's own procedure runs, and collectives.c passes the C call it makes to
 * PMPI (ip_in_mpich_f08_init). mpif.h and `use mpi` start and wait through the C MPI_* names
 * and keep nhood. Every Fortran argument is passed by address, so a wrapper forwards its
 * arguments as that many pointers.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>

#include "interpose/interpose.h"

#if defined(MPICH_NUMVERSION)

static _Thread_local int in_f08_init;

int ip_in_mpich_f08_init(void) { return in_f08_init; }

/* MPICH's own procedure, the next definition of this name after this library. */
static void *next_definition(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    fprintf(stderr, "nhood: %s is not defined after libnhood-mpi (MPICH's Fortran library)\n", name);
    PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
  }
  return f;
}

#define P void *
#define ARGS10 P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10
#define ARGS11 ARGS10, P a11
#define ARGS12 ARGS11, P a12
#define PASS10 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
#define PASS11 PASS10, a11
#define PASS12 PASS11, a12

#define F08_INIT(name, n)                          \
  void name(ARGS##n);                              \
  void name(ARGS##n) {                             \
    void (*own)(ARGS##n) = next_definition(#name); \
    in_f08_init++;                                 \
    own(PASS##n);                                  \
    in_f08_init--;                                 \
  }

/* (sendbuf, sendcount(s), [sdispls,] sendtype(s), recvbuf, recvcount(s), [displs,] recvtype(s),
 * comm, info, request, ierror) */
F08_INIT(mpi_neighbor_allgather_init_f08ts_, 10)
F08_INIT(mpi_neighbor_allgatherv_init_f08ts_, 11)
F08_INIT(mpi_neighbor_alltoall_init_f08ts_, 10)
F08_INIT(mpi_neighbor_alltoallv_init_f08ts_, 12)
F08_INIT(mpi_neighbor_alltoallw_init_f08ts_, 12)

#endif
