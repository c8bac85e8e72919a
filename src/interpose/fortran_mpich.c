/*
 * MPICH's mpi_f08 neighborhood collectives, interposed.
 *
 * MPICH's mpi_f08 procedures (mpi_<name>_f08ts_) receive each buffer as gfortran's descriptor of
 * an assumed-rank array, turn it into a C descriptor and call the C function through an inner
 * one that checks it: several times the work of the call from C before the C call
 * (scripts/fortran_overhead.sh counts it). MPICH 4.0's alltoallw procedures also ask for the
 * neighbor counts of a distributed graph whatever the communicator, so they fail on graph and
 * Cartesian communicators. The 15 procedures of the five collectives, blocking, non-blocking and
 * persistent, are defined here instead: where both buffers are contiguous (a scalar, a whole
 * array, a contiguous section) their addresses go to the library's C function, with MPICH's
 * handles as they are (its Fortran and C handles are the same integers). A blocking call's
 * strided section is packed into a copy (blocking_buffer); a non-blocking or persistent call's,
 * or a descriptor not laid out as expected, goes to MPICH's own procedure, which describes the
 * section with a datatype and calls the same C function.
 *
 * MPICH's mpif.h and `use mpi` procedures call the C functions themselves and need nothing here;
 * the _large_ procedures (MPI_Count arguments) stay MPICH's.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/fortran.h"
#include "interpose/functions.h"

#if defined(MPICH_NUMVERSION)

/* gfortran's array descriptor (GCC 8 on; version 0), which the mpi_f08 module's procedures
 * receive for a TYPE(*), DIMENSION(..) argument. */
typedef struct {
  ptrdiff_t stride, lower_bound, upper_bound;
} gfc_dim;
typedef struct {
  void *base_addr;
  size_t offset;
  size_t elem_len;
  int version;
  signed char rank, type;
  signed short attribute;
  ptrdiff_t span; /* bytes per unit of stride */
  gfc_dim dim[15];
} gfc_array;

/* MPICH's mpi_f08 MPI_BOTTOM and MPI_IN_PLACE (weak: an MPICH built without Fortran may lack
 * them; their address is then NULL, which is MPICH's MPI_BOTTOM anyway). */
extern int MPIR_F08_MPI_BOTTOM __attribute__((weak)), MPIR_F08_MPI_IN_PLACE __attribute__((weak));

/* Whether a descriptor is contiguous: each dimension's step in bytes is the size of what the
 * dimensions before it span; an empty array is (nothing of it is read). */
static int contiguous_ranks(const gfc_array *a) {
  if (a->version != 0 || a->rank < 0 || a->rank > 15) return 0;
  ptrdiff_t step = (ptrdiff_t)a->elem_len;
  for (int k = 0; k < a->rank; k++) {
    ptrdiff_t extent = a->dim[k].upper_bound - a->dim[k].lower_bound + 1;
    if (extent <= 0) break;
    if (a->dim[k].stride * a->span != step) return 0;
    step *= extent;
  }
  return 1;
}

/* A buffer's address: MPI_BOTTOM and MPI_IN_PLACE for MPICH's sentinels. */
static inline void *address(const gfc_array *a) {
  void *b = a->base_addr;
  return b == &MPIR_F08_MPI_BOTTOM ? MPI_BOTTOM : b == &MPIR_F08_MPI_IN_PLACE ? MPI_IN_PLACE : b;
}

/* A scalar or a vector with unit steps (most calls), its address in *out: no loop and no call,
 * so that the path of such calls saves no registers. */
static inline int simple(const gfc_array *a, void **out) {
  if (a->version != 0 || !(a->rank == 0 || (a->rank == 1 && a->dim[0].stride * a->span == (ptrdiff_t)a->elem_len)))
    return 0;
  *out = address(a);
  return 1;
}

/* Any contiguous buffer, its address in *out; 0 for anything else. */
static int contiguous(const gfc_array *a, void **out) {
  if (!simple(a, out) && !contiguous_ranks(a)) return 0;
  *out = address(a);
  return 1;
}

/* The bytes of a section's elements (0 for an empty section). */
static size_t section_bytes(const gfc_array *a) {
  size_t n = a->elem_len;
  for (int k = 0; k < a->rank; k++) {
    ptrdiff_t extent = a->dim[k].upper_bound - a->dim[k].lower_bound + 1;
    n *= extent > 0 ? (size_t)extent : 0;
  }
  return n;
}

/* A section's elements, in array element order, copied to (pack) or from (unpack) a
 * contiguous buffer `flat`. */
static void section_copy(const gfc_array *a, char *flat, int pack) {
  ptrdiff_t index[15] = {0}, extent[15];
  for (int k = 0; k < a->rank; k++) extent[k] = a->dim[k].upper_bound - a->dim[k].lower_bound + 1;
  for (size_t done = 0, total = section_bytes(a); done < total; done += a->elem_len) {
    char *element = a->base_addr;
    for (int k = 0; k < a->rank; k++) element += index[k] * a->dim[k].stride * a->span;
    if (pack)
      memcpy(flat + done, element, a->elem_len);
    else
      memcpy(element, flat + done, a->elem_len);
    for (int k = 0; k < a->rank && ++index[k] == extent[k]; k++) index[k] = 0; /* the next element */
  }
}

/* A blocking call's buffer: its address where contiguous, else a packed copy of the section in
 * *copy (to unpack after the call where it is received into, and free): the contiguous buffer
 * the MPI standard says a section stands for. MPICH 4.0's own procedure describes the section
 * with a datatype and passes it as a count of 1, which puts every neighbor's block at the
 * section's start. 0 where the descriptor is not understood or memory ran out. */
static int blocking_buffer(const gfc_array *a, void **out, char **copy) {
  *copy = NULL;
  if (contiguous(a, out)) return 1;
  if (a->version != 0 || a->rank < 1 || a->rank > 15) return 0;
  size_t bytes = section_bytes(a);
  *copy = malloc(bytes > 0 ? bytes : 1);
  if (*copy == NULL) return 0;
  section_copy(a, *copy, 1);
  *out = *copy;
  return 1;
}

/* MPICH's own procedure `name`, found once. */
static void *mpich_own(const char *name, _Atomic(void *) *kept) {
  void *f = atomic_load_explicit(kept, memory_order_acquire);
  if (f == NULL) {
    f = dlsym(RTLD_NEXT, name);
    atomic_store_explicit(kept, f, memory_order_release);
  }
  return f;
}

/* MPICH's own procedure `name` with the same arguments `args` (an error where it is missing). */
#define MPICH_OWN(name, args)                                                                          \
  do {                                                                                                 \
    static _Atomic(void *) kept;                                                                       \
    name##_fn *own = (name##_fn *)mpich_own("mpi_" #name "_f08ts_", &kept);                            \
    if (own) {                                                                                         \
      own args;                                                                                        \
    } else {                                                                                           \
      int code = ip_raise_message((MPI_Comm)*comm, MPI_ERR_INTERN, "MPI_" #name,                       \
                                  "MPICH's mpi_f08 procedure for a non-contiguous buffer is missing"); \
      if (ierr) *ierr = code;                                                                          \
    }                                                                                                  \
  } while (0)

/* A blocking procedure: `call` (the C function on s and r, the buffers' addresses or packed
 * copies of them, its return code to ierror); MPICH's own where a descriptor is not understood
 * or memory ran out. Anything but contiguous buffers takes the procedure's slow_ part, out of
 * line (inlined, its calls would make every call save registers). */
#define F08TS_BLOCKING(name, params, args, call)                                \
  typedef void name##_fn params;                                                \
  static NHOOD_NOINLINE void slow_##name params {                               \
    void *s, *r;                                                                \
    char *s_copy = NULL, *r_copy = NULL;                                        \
    if (blocking_buffer(sb, &s, &s_copy) && blocking_buffer(rb, &r, &r_copy)) { \
      int code = call;                                                          \
      if (code == MPI_SUCCESS && r_copy) section_copy(rb, r_copy, 0);           \
      if (ierr) *ierr = code;                                                   \
    } else {                                                                    \
      MPICH_OWN(name, args);                                                    \
    }                                                                           \
    free(s_copy), free(r_copy);                                                 \
  }                                                                             \
  void mpi_##name##_f08ts_ params;                                              \
  void mpi_##name##_f08ts_ params {                                             \
    void *s, *r;                                                                \
    if (simple(sb, &s) && simple(rb, &r)) {                                     \
      int code = call;                                                          \
      if (ierr) *ierr = code;                                                   \
    } else {                                                                    \
      slow_##name args;                                                         \
    }                                                                           \
  }

/* A non-blocking or persistent procedure: `call` where both buffers are contiguous, else
 * MPICH's own (a section must stay as it is until the request completes, so no copy will do). */
#define F08TS(name, params, args, call)             \
  typedef void name##_fn params;                    \
  void mpi_##name##_f08ts_ params;                  \
  void mpi_##name##_f08ts_ params {                 \
    void *s, *r;                                    \
    if (contiguous(sb, &s) && contiguous(rb, &r)) { \
      int code = call;                              \
      if (ierr) *ierr = code;                       \
      return;                                       \
    }                                               \
    MPICH_OWN(name, args);                          \
  }

#define REQUEST(r) ((MPI_Request *)(r)) /* MPICH's request handles: the same int in C */

/* ---- what each shape of arguments (functions.h) is here ----------------------------------------
 *
 * M_PARAMS_<SHAPE>(...): the parameters, the buffers as descriptors, then those given (request,
 * info, ierror); M_NAMES_<SHAPE>: the shape's as arguments; M_C_<SHAPE>: the C call's
 * arguments (s and r: the buffers' addresses; MPICH's handles are its C ones). */
#define M_PARAMS_ONE(...)                                                                                       \
  (gfc_array * sb, MPI_Fint * sc, MPI_Fint * st, gfc_array * rb, MPI_Fint * rc, MPI_Fint * rt, MPI_Fint * comm, \
   __VA_ARGS__)
#define M_NAMES_ONE sb, sc, st, rb, rc, rt, comm
#define M_C_ONE s, *sc, (MPI_Datatype)*st, r, *rc, (MPI_Datatype)*rt, (MPI_Comm)*comm

#define M_PARAMS_GATHERV(...)                                                                                          \
  (gfc_array * sb, MPI_Fint * sc, MPI_Fint * st, gfc_array * rb, MPI_Fint * rcounts, MPI_Fint * displs, MPI_Fint * rt, \
   MPI_Fint * comm, __VA_ARGS__)
#define M_NAMES_GATHERV sb, sc, st, rb, rcounts, displs, rt, comm
#define M_C_GATHERV s, *sc, (MPI_Datatype)*st, r, rcounts, displs, (MPI_Datatype)*rt, (MPI_Comm)*comm

#define M_PARAMS_V(...)                                                                                       \
  (gfc_array * sb, MPI_Fint * scounts, MPI_Fint * sdispls, MPI_Fint * st, gfc_array * rb, MPI_Fint * rcounts, \
   MPI_Fint * rdispls, MPI_Fint * rt, MPI_Fint * comm, __VA_ARGS__)
#define M_NAMES_V sb, scounts, sdispls, st, rb, rcounts, rdispls, rt, comm
#define M_C_V s, scounts, sdispls, (MPI_Datatype)*st, r, rcounts, rdispls, (MPI_Datatype)*rt, (MPI_Comm)*comm

/* W: arrays of datatypes, which are MPICH's C handles as they are. */
#define M_PARAMS_W(...)                                                                                           \
  (gfc_array * sb, MPI_Fint * scounts, MPI_Aint * sdispls, MPI_Fint * stypes, gfc_array * rb, MPI_Fint * rcounts, \
   MPI_Aint * rdispls, MPI_Fint * rtypes, MPI_Fint * comm, __VA_ARGS__)
#define M_NAMES_W sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm
#define M_C_W s, scounts, sdispls, (MPI_Datatype *)stypes, r, rcounts, rdispls, (MPI_Datatype *)rtypes, (MPI_Comm)*comm

/* ---- the procedures, from functions.h's list -------------------------------------------------- */

#define M_BLOCKING(name, NAME, SHAPE)                                                        \
  F08TS_BLOCKING(neighbor_##name, M_PARAMS_##SHAPE(MPI_Fint *ierr), (M_NAMES_##SHAPE, ierr), \
                 MPI_Neighbor_##name(M_C_##SHAPE))
IP_NEIGHBOR_COLLECTIVES(M_BLOCKING)

#define M_NONBLOCKING(name, NAME, SHAPE)                                                                         \
  F08TS(ineighbor_##name, M_PARAMS_##SHAPE(MPI_Fint *request, MPI_Fint *ierr), (M_NAMES_##SHAPE, request, ierr), \
        MPI_Ineighbor_##name(M_C_##SHAPE, REQUEST(request)))
IP_NEIGHBOR_COLLECTIVES(M_NONBLOCKING)

#define M_PERSISTENT(name, NAME, SHAPE)                                                              \
  F08TS(neighbor_##name##_init, M_PARAMS_##SHAPE(MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr), \
        (M_NAMES_##SHAPE, info, request, ierr),                                                      \
        MPI_Neighbor_##name##_init(M_C_##SHAPE, (MPI_Info)*info, REQUEST(request)))
IP_NEIGHBOR_COLLECTIVES(M_PERSISTENT)

#endif
