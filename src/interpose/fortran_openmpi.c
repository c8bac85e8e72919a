/*
 * Open MPI's Fortran neighborhood collectives, interposed.
 *
 * Open MPI 4.1's Fortran procedures call PMPI_* directly, so a Fortran program's collectives
 * never reached this library: they ran as MPI's own. (MPICH's call the C names.) Here the
 * Fortran entry points of the five collectives, blocking, non-blocking and Open MPI's MPIX_
 * persistent ones, convert their arguments and call this library's C functions, exactly as a C
 * program would; fortran.c does the same for the request functions.
 *
 * Every Fortran procedure of libmpi_mpifh has one body, ompi_<name>_f, and the names that
 * mpif.h and `use mpi` programs call (mpi_<name>, mpi_<name>_, mpi_<name>__, MPI_<NAME>) are
 * aliases of it; Open MPI's mpi_f08 procedures call ompi_<name>_f itself (through the PLT),
 * passing the handles' integer values. So defining ompi_<name>_f and the four names
 * (IP_FORTRAN) reaches all three bindings. Handles are Fortran integers (MPI_Fint), converted
 * with the MPI_*_f2c functions; MPI_BOTTOM and MPI_IN_PLACE are the addresses of Open MPI's
 * Fortran sentinels, as its own bindings test them.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "interpose/fortran.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init */

/* Open MPI's Fortran sentinels (common blocks; the program's copy where it has one). */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_;

/* A buffer argument as C sees it. */
static void *buf(void *b) {
  if (b == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
  if (b == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
  return b;
}

/* A datatype's C handle. Predefined datatypes never go away, so the C handles of those among the
 * first Fortran handles (where Open MPI puts its predefined ones) are kept: MPI_Type_f2c takes a
 * lock in Open MPI, and a Fortran program's repeated call converted two datatypes every time
 * (64 instructions of about 1,900 per call, scripts/fortran_overhead.sh). */
#define KEPT_TYPES 128
static _Atomic(MPI_Datatype) kept_types[KEPT_TYPES];

static MPI_Datatype type_f2c(MPI_Fint f) {
  int kept = f >= 0 && f < KEPT_TYPES;
  MPI_Datatype t = kept ? atomic_load_explicit(&kept_types[f], memory_order_relaxed) : NULL; /* a pointer here */
  if (t != NULL) return t;
  t = PMPI_Type_f2c(f);
  int nints, naddrs, ntypes, combiner = MPI_UNDEFINED;
  if (kept && t != MPI_DATATYPE_NULL && PMPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &combiner) == MPI_SUCCESS &&
      combiner == MPI_COMBINER_NAMED)
    atomic_store_explicit(&kept_types[f], t, memory_order_relaxed);
  return t;
}

/* ---- the collectives --------------------------------------------------------------------- */

#define F_ALLGATHER_PARAMS \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
#define C_ALLGATHER_ARGS buf(sb), *sc, type_f2c(*st), buf(rb), *rc, type_f2c(*rt), PMPI_Comm_f2c(*comm)

IP_FORTRAN(ompi, mpi, neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, F_ALLGATHER_PARAMS) {
  *ierr = MPI_Neighbor_allgather(C_ALLGATHER_ARGS);
}
IP_FORTRAN(ompi, mpi, neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, F_ALLGATHER_PARAMS) {
  *ierr = MPI_Neighbor_alltoall(C_ALLGATHER_ARGS);
}

#define F_REQUEST_PARAMS(...) (__VA_ARGS__, MPI_Fint * request, MPI_Fint * ierr)
#define F_ALLGATHER_PARAMS_REQ \
  F_REQUEST_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)

IP_FORTRAN(ompi, mpi, ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER, F_ALLGATHER_PARAMS_REQ) {
  MPI_Request c;
  ip_f_request_out(MPI_Ineighbor_allgather(C_ALLGATHER_ARGS, &c), &c, request, ierr);
}
IP_FORTRAN(ompi, mpi, ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, F_ALLGATHER_PARAMS_REQ) {
  MPI_Request c;
  ip_f_request_out(MPI_Ineighbor_alltoall(C_ALLGATHER_ARGS, &c), &c, request, ierr);
}

#define F_ALLGATHERV_ARGS \
  void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *comm
#define C_ALLGATHERV_ARGS buf(sb), *sc, type_f2c(*st), buf(rb), rcounts, displs, type_f2c(*rt), PMPI_Comm_f2c(*comm)

IP_FORTRAN(ompi, mpi, neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, (F_ALLGATHERV_ARGS, MPI_Fint *ierr)) {
  *ierr = MPI_Neighbor_allgatherv(C_ALLGATHERV_ARGS);
}
IP_FORTRAN(ompi, mpi, ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV, F_REQUEST_PARAMS(F_ALLGATHERV_ARGS)) {
  MPI_Request c;
  ip_f_request_out(MPI_Ineighbor_allgatherv(C_ALLGATHERV_ARGS, &c), &c, request, ierr);
}

#define F_ALLTOALLV_ARGS                                                                                        \
  void *sb, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *rdispls, \
      MPI_Fint *rt, MPI_Fint *comm
#define C_ALLTOALLV_ARGS \
  buf(sb), scounts, sdispls, type_f2c(*st), buf(rb), rcounts, rdispls, type_f2c(*rt), PMPI_Comm_f2c(*comm)

IP_FORTRAN(ompi, mpi, neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, (F_ALLTOALLV_ARGS, MPI_Fint *ierr)) {
  *ierr = MPI_Neighbor_alltoallv(C_ALLTOALLV_ARGS);
}
IP_FORTRAN(ompi, mpi, ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV, F_REQUEST_PARAMS(F_ALLTOALLV_ARGS)) {
  MPI_Request c;
  ip_f_request_out(MPI_Ineighbor_alltoallv(C_ALLTOALLV_ARGS, &c), &c, request, ierr);
}

/* alltoallw: a datatype per block, so as many conversions as the communicator has sources and
 * destinations (its topology says how many; MPI's own reports a communicator without one). */
#define F_ALLTOALLW_ARGS                                                                                            \
  void *sb, MPI_Fint *scounts, MPI_Aint *sdispls, MPI_Fint *stypes, void *rb, MPI_Fint *rcounts, MPI_Aint *rdispls, \
      MPI_Fint *rtypes, MPI_Fint *comm

typedef struct {
  MPI_Comm comm;
  MPI_Datatype *send, *recv; /* NULL on failure (out of memory) */
} w_types;

static w_types w_types_of(MPI_Fint comm, const MPI_Fint *stypes, const MPI_Fint *rtypes) {
  w_types w = {PMPI_Comm_f2c(comm), NULL, NULL};
  int kind = MPI_UNDEFINED, in = 0, out = 0, weighted, rank;
  if (PMPI_Topo_test(w.comm, &kind) == MPI_SUCCESS) {
    if (kind == MPI_DIST_GRAPH) {
      PMPI_Dist_graph_neighbors_count(w.comm, &in, &out, &weighted);
    } else if (kind == MPI_GRAPH) {
      PMPI_Comm_rank(w.comm, &rank);
      PMPI_Graph_neighbors_count(w.comm, rank, &in);
      out = in;
    } else if (kind == MPI_CART) {
      PMPI_Cartdim_get(w.comm, &in);
      out = in *= 2;
    }
  }
  w.send = malloc(sizeof(MPI_Datatype) * (size_t)(out + 1));
  w.recv = malloc(sizeof(MPI_Datatype) * (size_t)(in + 1));
  if (w.send == NULL || w.recv == NULL) {
    free(w.send), free(w.recv);
    w.send = w.recv = NULL;
    return w;
  }
  for (int k = 0; k < out; k++) w.send[k] = type_f2c(stypes[k]);
  for (int k = 0; k < in; k++) w.recv[k] = type_f2c(rtypes[k]);
  return w;
}

static int w_types_missing(const w_types *w, const char *function) {
  return ip_raise_message(w->comm, MPI_ERR_NO_MEM, function, "out of memory for the datatype arrays");
}

#define C_ALLTOALLW_ARGS buf(sb), scounts, sdispls, w.send, buf(rb), rcounts, rdispls, w.recv, w.comm

IP_FORTRAN(ompi, mpi, neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, (F_ALLTOALLW_ARGS, MPI_Fint *ierr)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  *ierr = w.send ? MPI_Neighbor_alltoallw(C_ALLTOALLW_ARGS) : w_types_missing(&w, "MPI_NEIGHBOR_ALLTOALLW");
  free(w.send), free(w.recv);
}
/* The arrays of converted datatypes may go once the call returned, as in Open MPI's own
 * binding: a request keeps what it needs (nhood's schedules hold the datatypes; a persistent
 * request copies the arrays; MPI's own reads them when called). */
IP_FORTRAN(ompi, mpi, ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, F_REQUEST_PARAMS(F_ALLTOALLW_ARGS)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  MPI_Request c = MPI_REQUEST_NULL;
  ip_f_request_out(
      w.send ? MPI_Ineighbor_alltoallw(C_ALLTOALLW_ARGS, &c) : w_types_missing(&w, "MPI_INEIGHBOR_ALLTOALLW"), &c,
      request, ierr);
  free(w.send), free(w.recv);
}

/* Open MPI 4.1's persistent collectives (MPIX_, from `use mpi_f08` and Open MPI's extension
 * headers). */
#define F_INIT_PARAMS(...) F_REQUEST_PARAMS(__VA_ARGS__, MPI_Fint *info)

IP_FORTRAN(ompix, mpix, neighbor_allgather_init, MPIX_NEIGHBOR_ALLGATHER_INIT,
           F_INIT_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)) {
  MPI_Request c;
  ip_f_request_out(MPIX_Neighbor_allgather_init(C_ALLGATHER_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
IP_FORTRAN(ompix, mpix, neighbor_alltoall_init, MPIX_NEIGHBOR_ALLTOALL_INIT,
           F_INIT_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)) {
  MPI_Request c;
  ip_f_request_out(MPIX_Neighbor_alltoall_init(C_ALLGATHER_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
IP_FORTRAN(ompix, mpix, neighbor_allgatherv_init, MPIX_NEIGHBOR_ALLGATHERV_INIT, F_INIT_PARAMS(F_ALLGATHERV_ARGS)) {
  MPI_Request c;
  ip_f_request_out(MPIX_Neighbor_allgatherv_init(C_ALLGATHERV_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
IP_FORTRAN(ompix, mpix, neighbor_alltoallv_init, MPIX_NEIGHBOR_ALLTOALLV_INIT, F_INIT_PARAMS(F_ALLTOALLV_ARGS)) {
  MPI_Request c;
  ip_f_request_out(MPIX_Neighbor_alltoallv_init(C_ALLTOALLV_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
IP_FORTRAN(ompix, mpix, neighbor_alltoallw_init, MPIX_NEIGHBOR_ALLTOALLW_INIT, F_INIT_PARAMS(F_ALLTOALLW_ARGS)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  MPI_Request c = MPI_REQUEST_NULL;
  ip_f_request_out(w.send ? MPIX_Neighbor_alltoallw_init(C_ALLTOALLW_ARGS, PMPI_Info_f2c(*info), &c)
                          : w_types_missing(&w, "MPIX_NEIGHBOR_ALLTOALLW_INIT"),
                   &c, request, ierr);
  free(w.send), free(w.recv);
}

#endif
