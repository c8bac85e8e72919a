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
 * (IP_FORTRAN) reaches all three bindings; the mpi_f08 procedures themselves (mpi_<name>_f08_,
 * which only call the body, their ierror optional) are defined too, which saves their call
 * (IP_FORTRAN_08). Handles are Fortran integers (MPI_Fint), converted with the MPI_*_f2c
 * functions; MPI_BOTTOM and MPI_IN_PLACE are the addresses of Open MPI's Fortran sentinels, as
 * its own bindings test them.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "interpose/fortran.h"
#include "interpose/functions.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init */

/* Open MPI's Fortran sentinels (common blocks; the program's copy where it has one). */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_;

static inline int sentinel(const void *b) {
  return b == (void *)&mpi_fortran_bottom_ || b == (void *)&mpi_fortran_in_place_;
}

/* A buffer argument as C sees it. */
static void *buf(void *b) {
  if (!sentinel(b)) return b;
  return b == (void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : MPI_IN_PLACE;
}

/* A datatype's C handle. Predefined datatypes never go away, so the C handles of those among the
 * first Fortran handles (where Open MPI puts its predefined ones) are kept: MPI_Type_f2c takes a
 * lock in Open MPI, and a Fortran program's repeated call converted two datatypes every time
 * (scripts/fortran_overhead.sh counts the cost). */
#define KEPT_TYPES 128
static _Atomic(MPI_Datatype) kept_types[KEPT_TYPES];

/* f's kept C handle, else NULL (a pointer in Open MPI). */
static inline MPI_Datatype kept_type(MPI_Fint f) {
  return (uint32_t)f < KEPT_TYPES ? atomic_load_explicit(&kept_types[f], memory_order_relaxed) : NULL;
}

static MPI_Datatype type_f2c(MPI_Fint f) {
  MPI_Datatype t = kept_type(f);
  if (t != NULL) return t;
  t = PMPI_Type_f2c(f);
  int nints, naddrs, ntypes, combiner = MPI_UNDEFINED;
  if ((uint32_t)f < KEPT_TYPES && t != MPI_DATATYPE_NULL &&
      PMPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED)
    atomic_store_explicit(&kept_types[f], t, memory_order_relaxed);
  return t;
}

/* A communicator's C handle: from this thread's memo where the handle names the communicator
 * of its last call (interpose.h), else MPI_Comm_f2c, which takes a lock in Open MPI (32
 * instructions of about 1,700 per repeated call, scripts/fortran_overhead.sh). */
#define IP_F_KEY(f) ((uint64_t)1 << 32 | (uint32_t)(f))

static inline int memo_current(void) {
  return ip_memo.generation == atomic_load_explicit(&ip_generation, memory_order_acquire);
}

static inline MPI_Comm comm_f2c(MPI_Fint f) {
  if (ip_memo.fortran == IP_F_KEY(f) && memo_current()) return ip_memo.comm;
  return PMPI_Comm_f2c(f);
}

/* After a call on c, Fortran's f: the memo names f where it holds c, i.e. where the call found
 * or made c's state, whose removal voids the memo. */
static inline int comm_seen(MPI_Fint f, MPI_Comm c, int rc) {
  if (ip_memo.comm == c && memo_current()) ip_memo.fortran = IP_F_KEY(f);
  return rc;
}

/* ierror, absent (NULL) from an mpi_f08 call. */
static inline void ierr_out(MPI_Fint *ierr, int rc) {
  if (ierr) *ierr = rc;
}

/* The repeated blocking call's path: the memo holds the communicator, both datatypes are kept
 * predefined ones and neither buffer is a sentinel, so nothing is converted or called but the C
 * function (a separate body, out of line, takes every other call: its calls would make this
 * path save registers); scripts/fortran_overhead.sh counts its instructions against C's. */
typedef struct {
  MPI_Comm c;
  MPI_Datatype s, r;
} quick_handles;

static inline int quick(MPI_Fint comm, MPI_Fint st, MPI_Fint rt, const void *sb, const void *rb, quick_handles *q) {
  if (ip_memo.fortran != IP_F_KEY(comm)) return 0;
  q->s = kept_type(st);
  q->r = kept_type(rt);
  if (q->s == NULL || q->r == NULL || !memo_current() || sentinel(sb) || sentinel(rb)) return 0;
  q->c = ip_memo.comm;
  return 1;
}

/* ---- the collectives --------------------------------------------------------------------- */

/* Each body converts the communicator into `c`, calls the C function and lets the memo learn
 * the Fortran handle (FCALL: a call's return code, after comm_seen). */
#define FCOMM MPI_Comm c = comm_f2c(*comm)
#define FCALL(call) comm_seen(*comm, c, call)

/* A blocking collective: its quick path (quick_call: the C call with the quick handles; on a
 * cold communicator, MPI's own where the C function's first test would send it there: the
 * state `m` quick, MPI's own right for COLL, the arguments `plain`) and its body (body_call)
 * in `slow`. */
#define F_BLOCKING(name, UPPER, COLL, params, args, plain, quick_call, body_call) \
  static NHOOD_NOINLINE void slow_##name params {                                 \
    FCOMM;                                                                        \
    ierr_out(ierr, FCALL(body_call));                                             \
  }                                                                               \
  IP_FORTRAN_08(ompi, mpi, name, UPPER, params) {                                 \
    quick_handles q;                                                              \
    if (quick(*comm, *st, *rt, sb, rb, &q)) {                                     \
      ip_comm *m = ip_memo.state;                                                 \
      ierr_out(ierr, IP_COLD_TAKE(m, COLL, plain) ? P##quick_call : quick_call);  \
    } else {                                                                      \
      slow_##name args;                                                           \
    }                                                                             \
  }

/* ---- what each shape of arguments (functions.h) is in Fortran -------------------------------
 *
 * F_PARAMS_<SHAPE>: the parameters before the request, info and ierror; F_NAMES_<SHAPE>: them
 * as arguments; F_C_<SHAPE>: the C call's arguments, converted (c: the communicator); and, for
 * the blocking quick path, F_QUICK_<SHAPE> (the handles in q) and F_PLAIN_<SHAPE>, its
 * plain-arguments test (interpose.h), on handles known and buffers no sentinel. */
#define F_PLAIN_BUFFERS (ip_plain_buffers(sb, rb) && q.s != MPI_DATATYPE_NULL && q.r != MPI_DATATYPE_NULL)

#define F_PARAMS_ONE void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm
#define F_NAMES_ONE sb, sc, st, rb, rc, rt, comm
#define F_C_ONE buf(sb), *sc, type_f2c(*st), buf(rb), *rc, type_f2c(*rt), c
#define F_QUICK_ONE sb, *sc, q.s, rb, *rc, q.r, q.c
#define F_PLAIN_ONE (F_PLAIN_BUFFERS && *sc >= 0 && *rc >= 0)

#define F_PARAMS_GATHERV \
  void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *comm
#define F_NAMES_GATHERV sb, sc, st, rb, rcounts, displs, rt, comm
#define F_C_GATHERV buf(sb), *sc, type_f2c(*st), buf(rb), rcounts, displs, type_f2c(*rt), c
#define F_QUICK_GATHERV sb, *sc, q.s, rb, rcounts, displs, q.r, q.c
#define F_PLAIN_GATHERV (F_PLAIN_BUFFERS && *sc >= 0 && ip_plain_counts(rcounts, m->indegree) && displs != NULL)

#define F_PARAMS_V                                                                                              \
  void *sb, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *st, void *rb, MPI_Fint *rcounts, MPI_Fint *rdispls, \
      MPI_Fint *rt, MPI_Fint *comm
#define F_NAMES_V sb, scounts, sdispls, st, rb, rcounts, rdispls, rt, comm
#define F_C_V buf(sb), scounts, sdispls, type_f2c(*st), buf(rb), rcounts, rdispls, type_f2c(*rt), c
#define F_QUICK_V sb, scounts, sdispls, q.s, rb, rcounts, rdispls, q.r, q.c
#define F_PLAIN_V                                                                  \
  (F_PLAIN_BUFFERS && ip_plain_counts(scounts, m->outdegree) && sdispls != NULL && \
   ip_plain_counts(rcounts, m->indegree) && rdispls != NULL)

/* W: a datatype per block, so as many conversions as the communicator has sources and
 * destinations (its topology says how many; MPI's own reports a communicator without one). No
 * quick path. */
#define F_PARAMS_W                                                                                                  \
  void *sb, MPI_Fint *scounts, MPI_Aint *sdispls, MPI_Fint *stypes, void *rb, MPI_Fint *rcounts, MPI_Aint *rdispls, \
      MPI_Fint *rtypes, MPI_Fint *comm
#define F_C_W buf(sb), scounts, sdispls, w.send, buf(rb), rcounts, rdispls, w.recv, c

#define F_ALLTOALLW_ARGS                                                                                            \
  void *sb, MPI_Fint *scounts, MPI_Aint *sdispls, MPI_Fint *stypes, void *rb, MPI_Fint *rcounts, MPI_Aint *rdispls, \
      MPI_Fint *rtypes, MPI_Fint *comm

typedef struct {
  MPI_Datatype *send, *recv; /* NULL on failure (out of memory) */
} w_types;

static w_types w_types_of(MPI_Comm comm, const MPI_Fint *stypes, const MPI_Fint *rtypes) {
  w_types w = {NULL, NULL};
  int kind = MPI_UNDEFINED, in = 0, out = 0, weighted, rank;
  if (PMPI_Topo_test(comm, &kind) == MPI_SUCCESS) {
    if (kind == MPI_DIST_GRAPH) {
      PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    } else if (kind == MPI_GRAPH) {
      PMPI_Comm_rank(comm, &rank);
      PMPI_Graph_neighbors_count(comm, rank, &in);
      out = in;
    } else if (kind == MPI_CART) {
      PMPI_Cartdim_get(comm, &in);
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

/* An alltoallw body: the call where the datatype arrays were made, else the error. */
#define W_CALL(call, function) \
  w.send ? FCALL(call) : ip_raise_message(c, MPI_ERR_NO_MEM, function, "out of memory for the datatype arrays")
#define W_TYPES \
  FCOMM;        \
  w_types w = w_types_of(c, stypes, rtypes)

/* ---- the procedures, from functions.h's list ------------------------------------------------ */

#define F_STR(x) F_STR_(x)
#define F_STR_(x) #x
#define F_REQUEST_PARAMS(...) (__VA_ARGS__, MPI_Fint * request, MPI_Fint * ierr)

/* A request-making body: `r` the C request, handed back. */
#define FREQUEST(call) \
  FCOMM;               \
  MPI_Request r;       \
  ip_f_request_out(FCALL(call), &r, request, ierr)
/* The same with W's datatype arrays, which may go once the call returned, as in Open MPI's own
 * binding: a request keeps what it needs (nhood's schedules hold the datatypes; a persistent
 * request copies the arrays; MPI's own reads them when called). */
#define FREQUEST_W(call, UPPER)                                    \
  W_TYPES;                                                         \
  MPI_Request r = MPI_REQUEST_NULL;                                \
  ip_f_request_out(W_CALL(call, F_STR(UPPER)), &r, request, ierr); \
  free(w.send), free(w.recv)
#define FREQUEST_ONE(call, UPPER) FREQUEST(call)
#define FREQUEST_GATHERV(call, UPPER) FREQUEST(call)
#define FREQUEST_V(call, UPPER) FREQUEST(call)

/* Blocking: with the quick path, or (W) without. */
#define F_BLOCKING_OF(name, NAME, SHAPE) F_BLOCKING_##SHAPE(name, NAME, SHAPE)
#define F_BLOCKING_QUICK(name, NAME, SHAPE)                                                        \
  F_BLOCKING(neighbor_##name, MPI_NEIGHBOR_##NAME, IP_##NAME, (F_PARAMS_##SHAPE, MPI_Fint * ierr), \
             (F_NAMES_##SHAPE, ierr), F_PLAIN_##SHAPE, MPI_Neighbor_##name(F_QUICK_##SHAPE),       \
             MPI_Neighbor_##name(F_C_##SHAPE))
#define F_BLOCKING_ONE F_BLOCKING_QUICK
#define F_BLOCKING_GATHERV F_BLOCKING_QUICK
#define F_BLOCKING_V F_BLOCKING_QUICK
#define F_BLOCKING_W(name, NAME, SHAPE)                                                           \
  IP_FORTRAN_08(ompi, mpi, neighbor_##name, MPI_NEIGHBOR_##NAME, (F_PARAMS_W, MPI_Fint * ierr)) { \
    W_TYPES;                                                                                      \
    ierr_out(ierr, W_CALL(MPI_Neighbor_##name(F_C_W), F_STR(MPI_NEIGHBOR_##NAME)));               \
    free(w.send), free(w.recv);                                                                   \
  }
IP_NEIGHBOR_COLLECTIVES(F_BLOCKING_OF)

#define F_NONBLOCKING(name, NAME, SHAPE)                                                                 \
  IP_FORTRAN_08(ompi, mpi, ineighbor_##name, MPI_INEIGHBOR_##NAME, F_REQUEST_PARAMS(F_PARAMS_##SHAPE)) { \
    FREQUEST_##SHAPE(MPI_Ineighbor_##name(F_C_##SHAPE, &r), MPI_INEIGHBOR_##NAME);                       \
  }
IP_NEIGHBOR_COLLECTIVES(F_NONBLOCKING)

/* The persistent collectives: Open MPI 4.1's MPIX_ ones (from `use mpi_f08` and Open MPI's
 * extension headers), Open MPI 5's MPI-4 ones (its Fortran bindings call PMPI_Neighbor_*_init
 * too). The pip wheel of Open MPI 5 has no Fortran bindings, so the latter are built, not run,
 * here. */
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define INIT_BODY ompi
#define INIT_LOWER mpi
#define INIT_UPPER(NAME) MPI_##NAME
#define INIT_C(coll) MPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define INIT_BODY ompix
#define INIT_LOWER mpix
#define INIT_UPPER(NAME) MPIX_##NAME
#define INIT_C(coll) MPIX_Neighbor_##coll##_init
#endif
#ifdef INIT_C
#define F_INIT_PARAMS(...) F_REQUEST_PARAMS(__VA_ARGS__, MPI_Fint *info)
#define F_PERSISTENT(name, NAME, SHAPE)                                                                        \
  IP_FORTRAN_08(INIT_BODY, INIT_LOWER, neighbor_##name##_init, INIT_UPPER(NEIGHBOR_##NAME##_INIT),             \
                F_INIT_PARAMS(F_PARAMS_##SHAPE)) {                                                             \
    FREQUEST_##SHAPE(INIT_C(name)(F_C_##SHAPE, PMPI_Info_f2c(*info), &r), INIT_UPPER(NEIGHBOR_##NAME##_INIT)); \
  }
IP_NEIGHBOR_COLLECTIVES(F_PERSISTENT)
#endif /* persistent */

#endif
