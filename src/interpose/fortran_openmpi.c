/*
 * Open MPI's Fortran bindings, interposed.
 *
 * Open MPI 4.1's Fortran procedures call PMPI_* directly, so a Fortran program never reached
 * this library's C functions: its collectives ran as MPI's own, and a request function called
 * from Fortran would never advance one of nhood's requests. Here the Fortran entry points of
 * the neighborhood collectives, the request functions, MPI_Comm_free and MPI_Finalize convert
 * their arguments and call this library's C functions, exactly as a C program would.
 *
 * Every Fortran procedure of libmpi_mpifh has one body, ompi_<name>_f, and the names that
 * mpif.h and `use mpi` programs call (mpi_<name>, mpi_<name>_, mpi_<name>__, MPI_<NAME>) are
 * aliases of it; Open MPI's mpi_f08 procedures call ompi_<name>_f itself (through the PLT),
 * passing the handles' integer values. So defining ompi_<name>_f and the four names reaches
 * all three bindings. Arguments come by address; handles are Fortran integers (MPI_Fint),
 * converted with the MPI_*_f2c and _c2f functions; MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE
 * and MPI_STATUSES_IGNORE are the addresses of Open MPI's Fortran sentinels, as Open MPI's own
 * bindings test them. A LOGICAL is 1 for .true. (gfortran, and Open MPI's default).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "interpose/interpose.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init */

/* Open MPI's Fortran sentinels (common blocks; the program's copy where it has one). */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_status_ignore_, mpi_fortran_statuses_ignore_;

#define STATUS_INTS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint))) /* MPI_STATUS_SIZE */
#define F_TRUE 1

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

static int status_ignored(const MPI_Fint *s) { return s == &mpi_fortran_status_ignore_; }
static int statuses_ignored(const MPI_Fint *s) { return s == &mpi_fortran_statuses_ignore_; }

/* One procedure under every name gfortran and Open MPI's bindings use: the body
 * <body>_<name>_f follows the macro, and <lower>_<name>, <lower>_<name>_, <lower>_<name>__ and
 * UPPER are its aliases (ompi_x_f with mpi_x..., ompix_x_f with mpix_x... for the MPIX_ names). */
#define FORTRAN(body, lower, name, UPPER, params)                              \
  void body##_##name##_f params;                                               \
  void lower##_##name params __attribute__((alias(#body "_" #name "_f")));     \
  void lower##_##name##_ params __attribute__((alias(#body "_" #name "_f")));  \
  void lower##_##name##__ params __attribute__((alias(#body "_" #name "_f"))); \
  void UPPER params __attribute__((alias(#body "_" #name "_f")));              \
  void body##_##name##_f params

/* ---- the collectives --------------------------------------------------------------------- */

#define F_ALLGATHER_PARAMS \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
#define C_ALLGATHER_ARGS buf(sb), *sc, type_f2c(*st), buf(rb), *rc, type_f2c(*rt), PMPI_Comm_f2c(*comm)

FORTRAN(ompi, mpi, neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, F_ALLGATHER_PARAMS) {
  *ierr = MPI_Neighbor_allgather(C_ALLGATHER_ARGS);
}
FORTRAN(ompi, mpi, neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, F_ALLGATHER_PARAMS) {
  *ierr = MPI_Neighbor_alltoall(C_ALLGATHER_ARGS);
}

/* A request made in C, handed to Fortran (by address: the call that makes it is an argument
 * evaluated in no set order with the others). */
static void request_out(int rc, const MPI_Request *c, MPI_Fint *request, MPI_Fint *ierr) {
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c);
  *ierr = rc;
}

#define F_REQUEST_PARAMS(...) (__VA_ARGS__, MPI_Fint * request, MPI_Fint * ierr)
#define F_ALLGATHER_PARAMS_REQ \
  F_REQUEST_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)

FORTRAN(ompi, mpi, ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER, F_ALLGATHER_PARAMS_REQ) {
  MPI_Request c;
  request_out(MPI_Ineighbor_allgather(C_ALLGATHER_ARGS, &c), &c, request, ierr);
}
FORTRAN(ompi, mpi, ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, F_ALLGATHER_PARAMS_REQ) {
  MPI_Request c;
  request_out(MPI_Ineighbor_alltoall(C_ALLGATHER_ARGS, &c), &c, request, ierr);
}

#define F_ALLGATHERV_ARGS \
  void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *comm
#define C_ALLGATHERV_ARGS buf(sb), *sc, type_f2c(*st), buf(rb), rcounts, displs, type_f2c(*rt), PMPI_Comm_f2c(*comm)

FORTRAN(ompi, mpi, neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, (F_ALLGATHERV_ARGS, MPI_Fint *ierr)) {
  *ierr = MPI_Neighbor_allgatherv(C_ALLGATHERV_ARGS);
}
FORTRAN(ompi, mpi, ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV, F_REQUEST_PARAMS(F_ALLGATHERV_ARGS)) {
  MPI_Request c;
  request_out(MPI_Ineighbor_allgatherv(C_ALLGATHERV_ARGS, &c), &c, request, ierr);
}

#define F_ALLTOALLV_ARGS                                                                                        \
  void *sb, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *rdispls, \
      MPI_Fint *rt, MPI_Fint *comm
#define C_ALLTOALLV_ARGS \
  buf(sb), scounts, sdispls, type_f2c(*st), buf(rb), rcounts, rdispls, type_f2c(*rt), PMPI_Comm_f2c(*comm)

FORTRAN(ompi, mpi, neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, (F_ALLTOALLV_ARGS, MPI_Fint *ierr)) {
  *ierr = MPI_Neighbor_alltoallv(C_ALLTOALLV_ARGS);
}
FORTRAN(ompi, mpi, ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV, F_REQUEST_PARAMS(F_ALLTOALLV_ARGS)) {
  MPI_Request c;
  request_out(MPI_Ineighbor_alltoallv(C_ALLTOALLV_ARGS, &c), &c, request, ierr);
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

FORTRAN(ompi, mpi, neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, (F_ALLTOALLW_ARGS, MPI_Fint *ierr)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  *ierr = w.send ? MPI_Neighbor_alltoallw(C_ALLTOALLW_ARGS) : w_types_missing(&w, "MPI_NEIGHBOR_ALLTOALLW");
  free(w.send), free(w.recv);
}
/* The arrays of converted datatypes may go once the call returned, as in Open MPI's own
 * binding: a request keeps what it needs (nhood's schedules hold the datatypes; a persistent
 * request copies the arrays; MPI's own reads them when called). */
FORTRAN(ompi, mpi, ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, F_REQUEST_PARAMS(F_ALLTOALLW_ARGS)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  MPI_Request c = MPI_REQUEST_NULL;
  request_out(w.send ? MPI_Ineighbor_alltoallw(C_ALLTOALLW_ARGS, &c) : w_types_missing(&w, "MPI_INEIGHBOR_ALLTOALLW"),
              &c, request, ierr);
  free(w.send), free(w.recv);
}

/* Open MPI 4.1's persistent collectives (MPIX_, from `use mpi_f08` and Open MPI's extension
 * headers). */
#define F_INIT_PARAMS(...) F_REQUEST_PARAMS(__VA_ARGS__, MPI_Fint *info)

FORTRAN(ompix, mpix, neighbor_allgather_init, MPIX_NEIGHBOR_ALLGATHER_INIT,
        F_INIT_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)) {
  MPI_Request c;
  request_out(MPIX_Neighbor_allgather_init(C_ALLGATHER_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
FORTRAN(ompix, mpix, neighbor_alltoall_init, MPIX_NEIGHBOR_ALLTOALL_INIT,
        F_INIT_PARAMS(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm)) {
  MPI_Request c;
  request_out(MPIX_Neighbor_alltoall_init(C_ALLGATHER_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
FORTRAN(ompix, mpix, neighbor_allgatherv_init, MPIX_NEIGHBOR_ALLGATHERV_INIT, F_INIT_PARAMS(F_ALLGATHERV_ARGS)) {
  MPI_Request c;
  request_out(MPIX_Neighbor_allgatherv_init(C_ALLGATHERV_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
FORTRAN(ompix, mpix, neighbor_alltoallv_init, MPIX_NEIGHBOR_ALLTOALLV_INIT, F_INIT_PARAMS(F_ALLTOALLV_ARGS)) {
  MPI_Request c;
  request_out(MPIX_Neighbor_alltoallv_init(C_ALLTOALLV_ARGS, PMPI_Info_f2c(*info), &c), &c, request, ierr);
}
FORTRAN(ompix, mpix, neighbor_alltoallw_init, MPIX_NEIGHBOR_ALLTOALLW_INIT, F_INIT_PARAMS(F_ALLTOALLW_ARGS)) {
  w_types w = w_types_of(*comm, stypes, rtypes);
  MPI_Request c = MPI_REQUEST_NULL;
  request_out(w.send ? MPIX_Neighbor_alltoallw_init(C_ALLTOALLW_ARGS, PMPI_Info_f2c(*info), &c)
                     : w_types_missing(&w, "MPIX_NEIGHBOR_ALLTOALLW_INIT"),
              &c, request, ierr);
  free(w.send), free(w.recv);
}

/* ---- the request functions --------------------------------------------------------------- */

/* A Fortran array of n requests as C handles, and their statuses, on the stack up to a few. */
#define FEW 16
typedef struct {
  int n;
  MPI_Request *c, few[FEW];
  MPI_Status *s, few_s[FEW]; /* MPI_STATUSES_IGNORE where Fortran ignores them */
} c_requests;

static int c_requests_of(c_requests *r, int n, const MPI_Fint *f, const MPI_Fint *f_statuses) {
  int ignored = f_statuses == NULL || statuses_ignored(f_statuses);
  r->n = n < 0 ? 0 : n;
  r->c = r->n <= FEW ? r->few : malloc(sizeof(MPI_Request) * (size_t)r->n);
  /* MPI_STATUSES_IGNORE may be NULL (Open MPI's is). */
  r->s = ignored ? MPI_STATUSES_IGNORE : r->n <= FEW ? r->few_s : malloc(sizeof(MPI_Status) * (size_t)r->n);
  if (r->c == NULL || (!ignored && r->s == NULL)) return MPI_ERR_NO_MEM;
  for (int k = 0; k < r->n; k++) r->c[k] = PMPI_Request_f2c(f[k]);
  return MPI_SUCCESS;
}

/* Back to Fortran: every handle (completed ones are now MPI_REQUEST_NULL), and the statuses
 * listed in `which` (all when NULL, the first `count` of which otherwise). */
static void c_requests_done(c_requests *r, int rc, MPI_Fint *f, MPI_Fint *f_statuses, const int *which, int count) {
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
    for (int k = 0; k < r->n; k++) f[k] = PMPI_Request_c2f(r->c[k]);
    if (r->s != MPI_STATUSES_IGNORE) {
      int m = which ? count : r->n;
      for (int k = 0; k < m; k++) PMPI_Status_c2f(&r->s[k], f_statuses + (size_t)k * STATUS_INTS);
    }
  }
  if (r->c != r->few) free(r->c);
  if (r->s != r->few_s && r->s != MPI_STATUSES_IGNORE) free(r->s); /* free(NULL) is harmless */
}

static void status_out(int rc, const MPI_Status *c, MPI_Fint *f) {
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && !status_ignored(f)) PMPI_Status_c2f(c, f);
}

/* A C index to Fortran's, which count from 1. */
static MPI_Fint index_out(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : index + 1; }

FORTRAN(ompi, mpi, wait, MPI_WAIT, (MPI_Fint * request, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  MPI_Status s;
  *ierr = MPI_Wait(&c, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c);
  status_out(*ierr, &s, status);
}

FORTRAN(ompi, mpi, test, MPI_TEST, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  MPI_Status s;
  int done = 0;
  *ierr = MPI_Test(&c, &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  if (*ierr != MPI_SUCCESS) return;
  *request = PMPI_Request_c2f(c);
  *flag = done ? F_TRUE : 0;
  if (done) status_out(*ierr, &s, status);
}

FORTRAN(ompi, mpi, request_get_status, MPI_REQUEST_GET_STATUS,
        (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Status s;
  int done = 0;
  *ierr = MPI_Request_get_status(PMPI_Request_f2c(*request), &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  if (*ierr != MPI_SUCCESS) return;
  *flag = done ? F_TRUE : 0;
  if (done) status_out(*ierr, &s, status);
}

FORTRAN(ompi, mpi, waitall, MPI_WAITALL, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)) {
  c_requests r;
  if ((*ierr = c_requests_of(&r, *count, requests, statuses)) == MPI_SUCCESS) *ierr = MPI_Waitall(r.n, r.c, r.s);
  c_requests_done(&r, *ierr, requests, statuses, NULL, 0);
}

FORTRAN(ompi, mpi, testall, MPI_TESTALL,
        (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)) {
  c_requests r;
  int done = 0;
  if ((*ierr = c_requests_of(&r, *count, requests, statuses)) == MPI_SUCCESS) *ierr = MPI_Testall(r.n, r.c, &done, r.s);
  if (*ierr == MPI_SUCCESS) *flag = done ? F_TRUE : 0;
  c_requests_done(&r, *ierr, requests, done ? statuses : NULL, NULL, 0);
}

FORTRAN(ompi, mpi, waitany, MPI_WAITANY,
        (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)) {
  c_requests r;
  MPI_Status s;
  int i = MPI_UNDEFINED;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS)
    *ierr = MPI_Waitany(r.n, r.c, &i, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  c_requests_done(&r, *ierr, requests, NULL, NULL, 0);
  if (*ierr != MPI_SUCCESS) return;
  *index = index_out(i);
  status_out(*ierr, &s, status);
}

FORTRAN(ompi, mpi, testany, MPI_TESTANY,
        (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  c_requests r;
  MPI_Status s;
  int i = MPI_UNDEFINED, done = 0;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS)
    *ierr = MPI_Testany(r.n, r.c, &i, &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  c_requests_done(&r, *ierr, requests, NULL, NULL, 0);
  if (*ierr != MPI_SUCCESS) return;
  *index = index_out(i);
  *flag = done ? F_TRUE : 0;
  if (done) status_out(*ierr, &s, status);
}

/* Waitsome and Testsome: the statuses of the completed requests, in the order of indices. */
static void some_out(c_requests *r, int rc, MPI_Fint *requests, MPI_Fint *statuses, int outcount, int *indices,
                     MPI_Fint *f_outcount, MPI_Fint *f_indices) {
  int n = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS ? outcount : 0;
  c_requests_done(r, rc, requests, statuses, indices, n == MPI_UNDEFINED ? 0 : n);
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return;
  *f_outcount = outcount;
  for (int k = 0; outcount != MPI_UNDEFINED && k < outcount; k++) f_indices[k] = indices[k] + 1;
}

FORTRAN(ompi, mpi, waitsome, MPI_WAITSOME,
        (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
         MPI_Fint *ierr)) {
  c_requests r;
  int out = MPI_UNDEFINED;
  *ierr = c_requests_of(&r, *incount, requests, statuses);
  int *c_indices = malloc(sizeof(int) * (size_t)(r.n + 1));
  if (*ierr == MPI_SUCCESS && c_indices == NULL) *ierr = MPI_ERR_NO_MEM;
  if (*ierr == MPI_SUCCESS) *ierr = MPI_Waitsome(r.n, r.c, &out, c_indices, r.s);
  some_out(&r, *ierr, requests, statuses, out, c_indices, outcount, indices);
  free(c_indices);
}

FORTRAN(ompi, mpi, testsome, MPI_TESTSOME,
        (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
         MPI_Fint *ierr)) {
  c_requests r;
  int out = MPI_UNDEFINED;
  *ierr = c_requests_of(&r, *incount, requests, statuses);
  int *c_indices = malloc(sizeof(int) * (size_t)(r.n + 1));
  if (*ierr == MPI_SUCCESS && c_indices == NULL) *ierr = MPI_ERR_NO_MEM;
  if (*ierr == MPI_SUCCESS) *ierr = MPI_Testsome(r.n, r.c, &out, c_indices, r.s);
  some_out(&r, *ierr, requests, statuses, out, c_indices, outcount, indices);
  free(c_indices);
}

FORTRAN(ompi, mpi, start, MPI_START, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Start(&c);
}

FORTRAN(ompi, mpi, startall, MPI_STARTALL, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierr)) {
  c_requests r;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS) *ierr = MPI_Startall(r.n, r.c);
  c_requests_done(&r, MPI_ERR_OTHER, requests, NULL, NULL, 0); /* handles unchanged: only frees */
}

FORTRAN(ompi, mpi, request_free, MPI_REQUEST_FREE, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Request_free(&c);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c);
}

FORTRAN(ompi, mpi, cancel, MPI_CANCEL, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Cancel(&c);
}

/* Open MPI's mpi_f08 procedures for these five call the Fortran PMPI names (pmpi_test_ ...),
 * not ompi_x_f: the specific procedures themselves are interposed, whose ierror is optional
 * (absent: NULL). */
#define F08(name, params, ...)         \
  void mpi_##name##_f08_ params;       \
  void mpi_##name##_f08_ params {      \
    MPI_Fint rc;                       \
    ompi_##name##_f(__VA_ARGS__, &rc); \
    if (ierror) *ierror = rc;          \
  }

F08(test, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), request, flag, status)
F08(testall, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierror), count,
    requests, flag, statuses)
F08(testany,
    (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), count,
    requests, index, flag, status)
F08(testsome,
    (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
     MPI_Fint *ierror),
    incount, requests, outcount, indices, statuses)
F08(request_get_status, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), request, flag, status)

/* ---- communicators and the end ------------------------------------------------------------ */

FORTRAN(ompi, mpi, comm_free, MPI_COMM_FREE, (MPI_Fint * comm, MPI_Fint *ierr)) {
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  *ierr = MPI_Comm_free(&c);
  if (*ierr == MPI_SUCCESS) *comm = PMPI_Comm_c2f(c);
}

FORTRAN(ompi, mpi, finalize, MPI_FINALIZE, (MPI_Fint * ierr)) { *ierr = MPI_Finalize(); }

#endif
