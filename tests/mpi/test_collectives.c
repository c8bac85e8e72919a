/*
 * Correctness of every nhood neighborhood collective against the MPI library's own result
 * on the same topology and data.
 *
 * For every topology of the corpus (corpus.h), every collective, every datatype case and
 * every algorithm in `algorithms`, each completion mode (blocking, twice, non-blocking with Wait,
 * Test or Waitall of two outstanding calls, persistent with two starts, non-blocking under
 * user ANY_SOURCE traffic) must leave the whole receive buffer (gaps and MPI_PROC_NULL
 * blocks included, pre-filled with a sentinel) byte for byte equal to MPI's. MPI's result
 * comes from MPI_Neighbor_alltoallw with explicitly placed blocks, and wherever the
 * installed MPI library gets it right, also from the matching MPI_Neighbor_* on the
 * topology's own communicator; the two must agree (one more case each).
 *
 * Options, to narrow a failure down: --topology S (names containing S), --collective C,
 * --mode M, --dtype D, --algorithm A (exact names, as printed); each takes a comma-separated
 * list; --verbose prints every case on rank 0.
 * NHOOD_TEST_SABOTAGE=1 flips one byte of nhood's result on the last rank after every call:
 * the run must then fail, proving that the comparison catches wrong data.
 *
 * --interposed: the calls under test are the plain MPI_Neighbor_*, MPI_Ineighbor_* and
 * persistent MPI_Neighbor_*_init (Open MPI 4: MPIX_) on the topology's MPI communicator,
 * completed with MPI_Wait, MPI_Test, MPI_Waitall, MPI_Start and MPI_Request_free, in a program
 * run with the interposition library (libnhood-mpi.so) preloaded; the run fails if it is not.
 * MPI's own results come from PMPI_*, which the library does not intercept. The algorithm is
 * the library's (NHOOD_ALGORITHM). With NHOOD_COLD set (not off) a communicator's calls are MPI's
 * own until nhood takes over, so the cases the installed MPI gets wrong are left out.
 *
 * --expect-nodes N: first, MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) must find N nodes (the
 * emulated nodes of tests/nodes/run.sh), which nhood's node-aware algorithms then use.
 *
 * --large-count: the calls under test are the large-count forms, NHOOD_Neighbor_*_c (with
 * --interposed, MPI_Neighbor_*_c, where the MPI has them), with the same values.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "nhood.h"
#include "testutil.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define MPI_PERSISTENT(coll) MPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPI_PERSISTENT(coll) MPIX_Neighbor_##coll##_init
#endif

/* Every case runs under "auto" and every algorithm of nhood's registry (NHOOD_Algorithm_*).
 * An algorithm asked for explicitly must run its own schedule where it applies and the
 * fallback the library names where it does not (NHOOD_Topo_algorithm_applies): checked on
 * every persistent case, whose request names the schedule that ran. */
#define MAX_ALGORITHMS TEST_MAX_ALGORITHMS
static const char *algorithms[MAX_ALGORITHMS];
static int NALGORITHMS;

typedef enum {
  COLL_ALLGATHER,
  COLL_ALLGATHERV,
  COLL_ALLTOALL,
  COLL_ALLTOALLV,
  COLL_ALLTOALLW,
  NCOLLECTIVES
} collective;
static const char *const collective_names[NCOLLECTIVES] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                                           "alltoallw"};

typedef enum { MODE_BLOCKING, MODE_WAIT, MODE_TEST, MODE_WAITALL, MODE_PERSISTENT, MODE_USER_ANY_SOURCE, NMODES } mode;
static const char *const mode_names[NMODES] = {"blocking",         "nonblocking-wait",
                                               "nonblocking-test", "nonblocking-waitall2",
                                               "persistent",       "nonblocking-user-anysource"};

typedef enum { DT_INT, DT_ZERO, DT_DERIVED, NDTYPES } dtype_case;
static const char *const dtype_names[NDTYPES] = {"int", "zero-counts", "derived"};

/* ------------------------------------------------------------------------------------- */
/* Datatypes                                                                              */
/* ------------------------------------------------------------------------------------- */

/* Pairs of datatypes with the same type signature per element but different memory
 * layouts on the send and the receive side, all with holes that must stay untouched. */
typedef struct type_variant {
  MPI_Datatype send, recv;
} type_variant;
enum { VARIANT_INT, VARIANT_VECTOR, VARIANT_STRUCT, VARIANT_INDEXED, NVARIANTS };

static MPI_Datatype resized(MPI_Datatype type, MPI_Aint extent) {
  MPI_Datatype out;
  TEST_CHECK(MPI_Type_create_resized(type, 0, extent, &out));
  TEST_CHECK(MPI_Type_free(&type));
  TEST_CHECK(MPI_Type_commit(&out));
  return out;
}

static void variants_create(type_variant v[NVARIANTS]) {
  const MPI_Aint isz = (MPI_Aint)sizeof(int);
  MPI_Datatype t;
  v[VARIANT_INT].send = v[VARIANT_INT].recv = MPI_INT;
  /* send: ints 0 and 3 of every 4; receive: 2 adjacent ints, then a 1-int hole */
  TEST_CHECK(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
  v[VARIANT_VECTOR].send = resized(t, 4 * isz);
  TEST_CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
  v[VARIANT_VECTOR].recv = resized(t, 3 * isz);
  /* (int, double): send in natural order; receive with the double first and the int after
   * a hole, so the typemap order differs from the address order */
  int one[2] = {1, 1};
  MPI_Aint send_displs[2] = {0, 8}, recv_displs[2] = {16, 0};
  MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
  TEST_CHECK(MPI_Type_create_struct(2, one, send_displs, members, &t));
  v[VARIANT_STRUCT].send = resized(t, 16);
  TEST_CHECK(MPI_Type_create_struct(2, one, recv_displs, members, &t));
  v[VARIANT_STRUCT].recv = resized(t, 24);
  /* send: 2 ints, a 3-int hole, 1 int, a 2-int hole; receive: 3 adjacent ints */
  int lengths[2] = {2, 1}, displs[2] = {0, 5};
  TEST_CHECK(MPI_Type_indexed(2, lengths, displs, MPI_INT, &t));
  v[VARIANT_INDEXED].send = resized(t, 8 * isz);
  TEST_CHECK(MPI_Type_contiguous(3, MPI_INT, &t));
  v[VARIANT_INDEXED].recv = t;
  TEST_CHECK(MPI_Type_commit(&v[VARIANT_INDEXED].recv));
}

static void variants_free(type_variant v[NVARIANTS]) {
  for (int k = VARIANT_INT + 1; k < NVARIANTS; k++) {
    TEST_CHECK(MPI_Type_free(&v[k].send));
    TEST_CHECK(MPI_Type_free(&v[k].recv));
  }
}

static MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lb, extent;
  TEST_CHECK(MPI_Type_get_extent(type, &lb, &extent));
  return extent;
}

/* The variant of an alltoallw block: depends only on the pair, so sender and receiver
 * agree whatever the pairing of duplicate edges. */
static int pair_variant(int source, int dest) {
  if (source == MPI_PROC_NULL || dest == MPI_PROC_NULL) return VARIANT_STRUCT;
  return (source + 2 * dest) % NVARIANTS;
}

/* allgatherv: what `rank` contributes (every receiver must expect that); 0 for some. */
static int allgatherv_elems(int rank) { return rank == MPI_PROC_NULL ? 2 : (5 * rank + 1) % 4; }

/* ------------------------------------------------------------------------------------- */
/* Buffer layouts: the arguments of one collective call                                   */
/* ------------------------------------------------------------------------------------- */

typedef struct layout {
  collective coll;
  int sendcount, recvcount;            /* allgather, alltoall; allgatherv: sendcount */
  int *sendcounts, *recvcounts;        /* alltoallv/w per block; allgatherv: recvcounts */
  int *sdispls, *rdispls;              /* alltoallv; allgatherv: rdispls (in extents) */
  MPI_Aint *sdispls_w, *rdispls_w;     /* alltoallw (in bytes) */
  MPI_Datatype sendtype, recvtype;     /* all but alltoallw */
  MPI_Datatype *sendtypes, *recvtypes; /* alltoallw */
  size_t sendbytes, recvbytes;
  /* --large-count: the count and displacement arrays as MPI_Count and MPI_Aint */
  MPI_Count *sendcounts_c, *recvcounts_c;
  MPI_Aint *sdispls_c, *rdispls_c;
} layout;

/* Places n blocks of the given sizes with a gap before each one and after the last, in
 * reverse block order when `reverse` (displacements need not grow with the block index).
 * Returns the size of the whole buffer, in the unit of sizes. */
static MPI_Aint place_blocks(int n, const MPI_Aint sizes[], int reverse, MPI_Aint gap, MPI_Aint displs[]) {
  MPI_Aint position = gap;
  for (int k = 0; k < n; k++) {
    int block = reverse ? n - 1 - k : k;
    displs[block] = position;
    position += sizes[block] + gap;
  }
  return position;
}

/* place_blocks in units of one extent, for the int displacements of the v collectives. */
static size_t place_elements(int n, const int counts[], int reverse, int displs[], MPI_Aint extent) {
  MPI_Aint *sizes = test_malloc(sizeof(MPI_Aint) * (size_t)n);
  MPI_Aint *where = test_malloc(sizeof(MPI_Aint) * (size_t)n);
  for (int k = 0; k < n; k++) sizes[k] = counts[k];
  MPI_Aint units = place_blocks(n, sizes, reverse, 1, where);
  for (int k = 0; k < n; k++) displs[k] = (int)where[k];
  free(sizes);
  free(where);
  return (size_t)(units * extent);
}

static int *copy_ints(const int *src, int n) {
  int *out = test_malloc(sizeof(int) * (size_t)n);
  if (n > 0) memcpy(out, src, sizeof(int) * (size_t)n);
  return out;
}

static void layout_alltoallw(layout *L, dtype_case dt, const corpus_entry *e, const type_variant variants[], int rank) {
  int in = e->indegree, out = e->outdegree;
  L->sendcounts = copy_ints(e->send_elems, out);
  L->recvcounts = copy_ints(e->recv_elems, in);
  L->sendtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)out);
  L->recvtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)in);
  L->sdispls_w = test_malloc(sizeof(MPI_Aint) * (size_t)out);
  L->rdispls_w = test_malloc(sizeof(MPI_Aint) * (size_t)in);
  MPI_Aint *sizes = test_malloc(sizeof(MPI_Aint) * (size_t)(in > out ? in : out));
  for (int j = 0; j < out; j++) {
    int variant = e->isomorphic_sizes ? j % NVARIANTS : pair_variant(rank, e->destinations[j]);
    L->sendtypes[j] = dt == DT_INT ? MPI_INT : variants[variant].send;
    sizes[j] = (L->sendcounts[j] * extent_of(L->sendtypes[j]) + 7) / 8 * 8; /* 8-byte aligned blocks */
  }
  L->sendbytes = (size_t)place_blocks(out, sizes, 0, 8, L->sdispls_w);
  for (int i = 0; i < in; i++) {
    int variant = e->isomorphic_sizes ? i % NVARIANTS : pair_variant(e->sources[i], rank);
    L->recvtypes[i] = dt == DT_INT ? MPI_INT : variants[variant].recv;
    sizes[i] = (L->recvcounts[i] * extent_of(L->recvtypes[i]) + 7) / 8 * 8;
  }
  L->recvbytes = (size_t)place_blocks(in, sizes, 1, 8, L->rdispls_w);
  free(sizes);
}

static MPI_Count *wide_counts(const int *src, int n) {
  MPI_Count *out = src ? test_malloc(sizeof(MPI_Count) * (size_t)(n + 1)) : NULL;
  for (int k = 0; src && k < n; k++) out[k] = src[k];
  return out;
}
static MPI_Aint *wide_displs(const int *src, int n) {
  MPI_Aint *out = src ? test_malloc(sizeof(MPI_Aint) * (size_t)(n + 1)) : NULL;
  for (int k = 0; src && k < n; k++) out[k] = src[k];
  return out;
}

/* The arguments of collective `coll` for datatype case dt on this process. The zero-count
 * case keeps the buffers (and displacements) of the derived case with every count 0. */
static void layout_build(layout *L, collective coll, dtype_case dt, const corpus_entry *e,
                         const type_variant variants[], int rank) {
  memset(L, 0, sizeof *L);
  L->coll = coll;
  const type_variant *v = &variants[dt == DT_INT ? VARIANT_INT : VARIANT_VECTOR];
  L->sendtype = v->send;
  L->recvtype = v->recv;
  MPI_Aint sext = extent_of(v->send), rext = extent_of(v->recv);
  int in = e->indegree, out = e->outdegree;
  switch (coll) {
    case COLL_ALLGATHER:
    case COLL_ALLTOALL: {
      int count = dt == DT_INT ? 3 : 2;
      int sendblocks = coll == COLL_ALLGATHER ? 1 : out;
      L->sendcount = L->recvcount = count;
      L->sendbytes = (size_t)(sendblocks * count * sext);
      L->recvbytes = (size_t)(in * count * rext);
      break;
    }
    case COLL_ALLGATHERV: /* asserted isomorphic sizes: every process sends 3 */
      L->sendcount = e->isomorphic_sizes ? 3 : allgatherv_elems(rank);
      L->sendbytes = (size_t)(L->sendcount * sext);
      L->recvcounts = test_malloc(sizeof(int) * (size_t)in);
      L->rdispls = test_malloc(sizeof(int) * (size_t)in);
      for (int i = 0; i < in; i++) L->recvcounts[i] = e->isomorphic_sizes ? 3 : allgatherv_elems(e->sources[i]);
      L->recvbytes = place_elements(in, L->recvcounts, 1, L->rdispls, rext);
      break;
    case COLL_ALLTOALLV:
      L->sendcounts = copy_ints(e->send_elems, out);
      L->recvcounts = copy_ints(e->recv_elems, in);
      L->sdispls = test_malloc(sizeof(int) * (size_t)out);
      L->rdispls = test_malloc(sizeof(int) * (size_t)in);
      L->sendbytes = place_elements(out, L->sendcounts, 0, L->sdispls, sext);
      L->recvbytes = place_elements(in, L->recvcounts, 1, L->rdispls, rext);
      break;
    case COLL_ALLTOALLW:
      layout_alltoallw(L, dt, e, variants, rank);
      break;
    default:
      break;
  }
  if (dt == DT_ZERO) {
    L->sendcount = L->recvcount = 0;
    for (int j = 0; L->sendcounts && j < out; j++) L->sendcounts[j] = 0;
    for (int i = 0; L->recvcounts && i < in; i++) L->recvcounts[i] = 0;
  }
  L->sendcounts_c = wide_counts(L->sendcounts, out);
  L->recvcounts_c = wide_counts(L->recvcounts, in);
  L->sdispls_c = coll == COLL_ALLTOALLW ? NULL : wide_displs(L->sdispls, out);
  L->rdispls_c = coll == COLL_ALLTOALLW ? NULL : wide_displs(L->rdispls, in);
}

static void layout_free(layout *L) {
  free(L->sendcounts_c);
  free(L->recvcounts_c);
  free(L->sdispls_c);
  free(L->rdispls_c);
  free(L->sendcounts);
  free(L->recvcounts);
  free(L->sdispls);
  free(L->rdispls);
  free(L->sdispls_w);
  free(L->rdispls_w);
  free(L->sendtypes);
  free(L->recvtypes);
  memset(L, 0, sizeof *L);
}

/* A copy of L whose datatypes are fresh duplicates, for persistent init: the test frees
 * them right after the init call, which nhood.h allows. */
static void layout_dup_types(const layout *L, int indegree, int outdegree, layout *copy) {
  *copy = *L;
  if (L->coll == COLL_ALLTOALLW) {
    copy->sendtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)outdegree);
    copy->recvtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)indegree);
    for (int j = 0; j < outdegree; j++) TEST_CHECK(MPI_Type_dup(L->sendtypes[j], &copy->sendtypes[j]));
    for (int i = 0; i < indegree; i++) TEST_CHECK(MPI_Type_dup(L->recvtypes[i], &copy->recvtypes[i]));
  } else {
    TEST_CHECK(MPI_Type_dup(L->sendtype, &copy->sendtype));
    TEST_CHECK(MPI_Type_dup(L->recvtype, &copy->recvtype));
  }
}

static void layout_free_dup_types(layout *copy, int indegree, int outdegree) {
  if (copy->coll == COLL_ALLTOALLW) {
    for (int j = 0; j < outdegree; j++) TEST_CHECK(MPI_Type_free(&copy->sendtypes[j]));
    for (int i = 0; i < indegree; i++) TEST_CHECK(MPI_Type_free(&copy->recvtypes[i]));
    free(copy->sendtypes);
    free(copy->recvtypes);
  } else {
    TEST_CHECK(MPI_Type_free(&copy->sendtype));
    TEST_CHECK(MPI_Type_free(&copy->recvtype));
  }
}

/* Where send block j lives: count, datatype and byte displacement in the send buffer. */
static void send_block(const layout *L, int j, int *count, MPI_Datatype *type, MPI_Aint *displ) {
  switch (L->coll) {
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV: /* every destination gets the whole send buffer */
      *count = L->sendcount, *type = L->sendtype, *displ = 0;
      break;
    case COLL_ALLTOALL:
      *count = L->sendcount, *type = L->sendtype, *displ = j * L->sendcount * extent_of(L->sendtype);
      break;
    case COLL_ALLTOALLV:
      *count = L->sendcounts[j], *type = L->sendtype, *displ = L->sdispls[j] * extent_of(L->sendtype);
      break;
    default:
      *count = L->sendcounts[j], *type = L->sendtypes[j], *displ = L->sdispls_w[j];
      break;
  }
}

/* Where receive block i lives: count, datatype and byte displacement in the receive buffer. */
static void recv_block(const layout *L, int i, int *count, MPI_Datatype *type, MPI_Aint *displ) {
  switch (L->coll) {
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
      *count = L->recvcount, *type = L->recvtype, *displ = i * L->recvcount * extent_of(L->recvtype);
      break;
    case COLL_ALLGATHERV:
    case COLL_ALLTOALLV:
      *count = L->recvcounts[i], *type = L->recvtype, *displ = L->rdispls[i] * extent_of(L->recvtype);
      break;
    default:
      *count = L->recvcounts[i], *type = L->recvtypes[i], *displ = L->rdispls_w[i];
      break;
  }
}

/* Which part of the receive buffer byte `offset` belongs to, for mismatch reports. */
static void describe_offset(const layout *L, const corpus_entry *e, size_t offset, char *text, size_t len) {
  for (int i = 0; i < e->indegree; i++) {
    int count;
    MPI_Datatype type;
    MPI_Aint begin;
    recv_block(L, i, &count, &type, &begin);
    MPI_Aint end = begin + count * extent_of(type);
    if ((MPI_Aint)offset < begin || (MPI_Aint)offset >= end) continue;
    char source[32] = "MPI_PROC_NULL";
    if (e->sources[i] != MPI_PROC_NULL) snprintf(source, sizeof source, "rank %d", e->sources[i]);
    snprintf(text, len, "receive block %d (from %s), byte %ld of the block", i, source,
             (long)((MPI_Aint)offset - begin));
    return;
  }
  snprintf(text, len, "outside every receive block (a gap)");
}

/* ------------------------------------------------------------------------------------- */
/* Calling the collectives                                                                */
/* ------------------------------------------------------------------------------------- */

static void mpi_neighbor(const layout *L, const void *sbuf, void *rbuf, MPI_Comm comm) {
  switch (L->coll) {
    case COLL_ALLGATHER:
      TEST_CHECK(PMPI_Neighbor_allgather(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm));
      break;
    case COLL_ALLGATHERV:
      TEST_CHECK(PMPI_Neighbor_allgatherv(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                          comm));
      break;
    case COLL_ALLTOALL:
      TEST_CHECK(PMPI_Neighbor_alltoall(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm));
      break;
    case COLL_ALLTOALLV:
      TEST_CHECK(PMPI_Neighbor_alltoallv(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                         L->recvtype, comm));
      break;
    case COLL_ALLTOALLW:
      TEST_CHECK(PMPI_Neighbor_alltoallw(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                         L->rdispls_w, L->recvtypes, comm));
      break;
    default:
      break;
  }
}

/*
 * Whether the installed MPI library's own MPI_Neighbor_* gets this case right, as found
 * with standalone programs (see the report of this test suite):
 * - Open MPI 4.1 crashes on MPI_PROC_NULL neighbors of a distributed graph (coll/basic
 *   hands them to the PML).
 * - MPICH 4.0's MPI_Neighbor_alltoall pairs duplicate edges in reverse order (the k-th
 *   receive from q gets q's k-th last send to us), its alltoallv and alltoallw ignore the
 *   i^1 pairing of periodic Cartesian dimensions of size 1 or 2, and before 4.1 its
 *   alltoallw mixes up indegree and outdegree (pmodels/mpich#6233).
 */
static int mpi_direct_is_reliable(const corpus_entry *e, collective coll) {
  /* The library that runs, not the header: a build against the MPI-5 standard ABI runs on
   * MPICH 5 and Intel MPI alike. */
  static int kind = -1, major = 0, minor = 0; /* 0 Open MPI, 1 MPICH, 2 Intel MPI, 3 other */
  if (kind < 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    const char *mpich;
    MPI_Get_library_version(version, &length);
    kind = strstr(version, "Open MPI") ? 0 : strstr(version, "Intel(R) MPI") ? 2 : 3;
    if ((mpich = strstr(version, "MPICH Version:")) && sscanf(mpich + 14, " %d.%d", &major, &minor) == 2) kind = 1;
  }
  if (kind == 0) return !(e->kind == MPI_DIST_GRAPH && e->has_proc_null);
  if (kind == 3 || (kind == 1 && major >= 5)) return 1;
  /* MPICH 4 and Intel MPI: alltoallw before MPICH 4.1, duplicate edges in the alltoall family. */
  if (coll == COLL_ALLTOALLW && (kind == 2 || major < 4 || (major == 4 && minor < 1))) return 0;
  if (!e->has_duplicates || coll == COLL_ALLGATHER || coll == COLL_ALLGATHERV) return 1;
  return coll != COLL_ALLTOALL && e->kind != MPI_CART;
}

typedef enum { CALL_BLOCKING, CALL_NONBLOCKING, CALL_PERSISTENT_INIT } call_kind;

static int nhood_neighbor(call_kind kind, const layout *L, const void *sbuf, void *rbuf, MPI_Comm comm, NHOOD_Topo topo,
                          MPI_Info info, NHOOD_Request *req) {
  switch (L->coll) {
    case COLL_ALLGATHER:
      if (kind == CALL_BLOCKING)
        return NHOOD_Neighbor_allgather(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo);
      if (kind == CALL_NONBLOCKING)
        return NHOOD_Ineighbor_allgather(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo,
                                         req);
      return NHOOD_Neighbor_allgather_init(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo,
                                           info, req);
    case COLL_ALLGATHERV:
      if (kind == CALL_BLOCKING)
        return NHOOD_Neighbor_allgatherv(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                         comm, topo);
      if (kind == CALL_NONBLOCKING)
        return NHOOD_Ineighbor_allgatherv(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                          comm, topo, req);
      return NHOOD_Neighbor_allgatherv_init(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                            L->recvtype, comm, topo, info, req);
    case COLL_ALLTOALL:
      if (kind == CALL_BLOCKING)
        return NHOOD_Neighbor_alltoall(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo);
      if (kind == CALL_NONBLOCKING)
        return NHOOD_Ineighbor_alltoall(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo,
                                        req);
      return NHOOD_Neighbor_alltoall_init(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, topo,
                                          info, req);
    case COLL_ALLTOALLV:
      if (kind == CALL_BLOCKING)
        return NHOOD_Neighbor_alltoallv(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                        L->recvtype, comm, topo);
      if (kind == CALL_NONBLOCKING)
        return NHOOD_Ineighbor_alltoallv(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                         L->recvtype, comm, topo, req);
      return NHOOD_Neighbor_alltoallv_init(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts,
                                           L->rdispls, L->recvtype, comm, topo, info, req);
    case COLL_ALLTOALLW:
      if (kind == CALL_BLOCKING)
        return NHOOD_Neighbor_alltoallw(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                        L->rdispls_w, L->recvtypes, comm, topo);
      if (kind == CALL_NONBLOCKING)
        return NHOOD_Ineighbor_alltoallw(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                         L->rdispls_w, L->recvtypes, comm, topo, req);
      return NHOOD_Neighbor_alltoallw_init(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                           L->rdispls_w, L->recvtypes, comm, topo, info, req);
    default:
      return MPI_ERR_INTERN;
  }
}

/* --large-count: the same calls in their large-count forms (NHOOD_*_c; with --interposed,
 * MPI_*_c), with the arguments' wide copies. */
#define LARGE_ARGS_ALLGATHER sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype
#define LARGE_ARGS_ALLGATHERV sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts_c, L->rdispls_c, L->recvtype
#define LARGE_ARGS_ALLTOALLV \
  sbuf, L->sendcounts_c, L->sdispls_c, L->sendtype, rbuf, L->recvcounts_c, L->rdispls_c, L->recvtype
#define LARGE_ARGS_ALLTOALLW \
  sbuf, L->sendcounts_c, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts_c, L->rdispls_w, L->recvtypes
static int nhood_neighbor_c(call_kind kind, const layout *L, const void *sbuf, void *rbuf, MPI_Comm comm,
                            NHOOD_Topo topo, MPI_Info info, NHOOD_Request *req) {
  int b = kind == CALL_BLOCKING, nb = kind == CALL_NONBLOCKING;
  switch (L->coll) {
    case COLL_ALLGATHER:
      return b    ? NHOOD_Neighbor_allgather_c(LARGE_ARGS_ALLGATHER, comm, topo)
             : nb ? NHOOD_Ineighbor_allgather_c(LARGE_ARGS_ALLGATHER, comm, topo, req)
                  : NHOOD_Neighbor_allgather_init_c(LARGE_ARGS_ALLGATHER, comm, topo, info, req);
    case COLL_ALLGATHERV:
      return b    ? NHOOD_Neighbor_allgatherv_c(LARGE_ARGS_ALLGATHERV, comm, topo)
             : nb ? NHOOD_Ineighbor_allgatherv_c(LARGE_ARGS_ALLGATHERV, comm, topo, req)
                  : NHOOD_Neighbor_allgatherv_init_c(LARGE_ARGS_ALLGATHERV, comm, topo, info, req);
    case COLL_ALLTOALL:
      return b    ? NHOOD_Neighbor_alltoall_c(LARGE_ARGS_ALLGATHER, comm, topo)
             : nb ? NHOOD_Ineighbor_alltoall_c(LARGE_ARGS_ALLGATHER, comm, topo, req)
                  : NHOOD_Neighbor_alltoall_init_c(LARGE_ARGS_ALLGATHER, comm, topo, info, req);
    case COLL_ALLTOALLV:
      return b    ? NHOOD_Neighbor_alltoallv_c(LARGE_ARGS_ALLTOALLV, comm, topo)
             : nb ? NHOOD_Ineighbor_alltoallv_c(LARGE_ARGS_ALLTOALLV, comm, topo, req)
                  : NHOOD_Neighbor_alltoallv_init_c(LARGE_ARGS_ALLTOALLV, comm, topo, info, req);
    case COLL_ALLTOALLW:
      return b    ? NHOOD_Neighbor_alltoallw_c(LARGE_ARGS_ALLTOALLW, comm, topo)
             : nb ? NHOOD_Ineighbor_alltoallw_c(LARGE_ARGS_ALLTOALLW, comm, topo, req)
                  : NHOOD_Neighbor_alltoallw_init_c(LARGE_ARGS_ALLTOALLW, comm, topo, info, req);
    default:
      return MPI_ERR_INTERN;
  }
}

/* MPI's large-count forms, for --interposed --large-count (MPI_ERR_UNSUPPORTED_OPERATION where
 * the MPI has none: the test then refuses the option). */
static int mpi_call_c(call_kind kind, const layout *L, const void *sbuf, void *rbuf, MPI_Comm comm, MPI_Request *req) {
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_C) && defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT_C)
  int b = kind == CALL_BLOCKING, nb = kind == CALL_NONBLOCKING;
  MPI_Info info = MPI_INFO_NULL;
  switch (L->coll) {
    case COLL_ALLGATHER:
      return b    ? MPI_Neighbor_allgather_c(LARGE_ARGS_ALLGATHER, comm)
             : nb ? MPI_Ineighbor_allgather_c(LARGE_ARGS_ALLGATHER, comm, req)
                  : MPI_Neighbor_allgather_init_c(LARGE_ARGS_ALLGATHER, comm, info, req);
    case COLL_ALLGATHERV:
      return b    ? MPI_Neighbor_allgatherv_c(LARGE_ARGS_ALLGATHERV, comm)
             : nb ? MPI_Ineighbor_allgatherv_c(LARGE_ARGS_ALLGATHERV, comm, req)
                  : MPI_Neighbor_allgatherv_init_c(LARGE_ARGS_ALLGATHERV, comm, info, req);
    case COLL_ALLTOALL:
      return b    ? MPI_Neighbor_alltoall_c(LARGE_ARGS_ALLGATHER, comm)
             : nb ? MPI_Ineighbor_alltoall_c(LARGE_ARGS_ALLGATHER, comm, req)
                  : MPI_Neighbor_alltoall_init_c(LARGE_ARGS_ALLGATHER, comm, info, req);
    case COLL_ALLTOALLV:
      return b    ? MPI_Neighbor_alltoallv_c(LARGE_ARGS_ALLTOALLV, comm)
             : nb ? MPI_Ineighbor_alltoallv_c(LARGE_ARGS_ALLTOALLV, comm, req)
                  : MPI_Neighbor_alltoallv_init_c(LARGE_ARGS_ALLTOALLV, comm, info, req);
    case COLL_ALLTOALLW:
      return b    ? MPI_Neighbor_alltoallw_c(LARGE_ARGS_ALLTOALLW, comm)
             : nb ? MPI_Ineighbor_alltoallw_c(LARGE_ARGS_ALLTOALLW, comm, req)
                  : MPI_Neighbor_alltoallw_init_c(LARGE_ARGS_ALLTOALLW, comm, info, req);
    default:
      return MPI_ERR_INTERN;
  }
#else
  (void)kind, (void)L, (void)sbuf, (void)rbuf, (void)comm, (void)req;
  return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

/* The same calls by MPI's names, for --interposed. */
static int mpi_call(call_kind kind, const layout *L, const void *sbuf, void *rbuf, MPI_Comm comm, MPI_Request *req) {
#ifdef MPI_PERSISTENT
#define PERSISTENT_OR(call) MPI_PERSISTENT call
#else
#define PERSISTENT_OR(call) MPI_ERR_UNSUPPORTED_OPERATION
#endif
  switch (L->coll) {
    case COLL_ALLGATHER:
      if (kind == CALL_BLOCKING)
        return MPI_Neighbor_allgather(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm);
      if (kind == CALL_NONBLOCKING)
        return MPI_Ineighbor_allgather(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, req);
      return PERSISTENT_OR(
          (allgather)(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, MPI_INFO_NULL, req));
    case COLL_ALLGATHERV:
      if (kind == CALL_BLOCKING)
        return MPI_Neighbor_allgatherv(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                       comm);
      if (kind == CALL_NONBLOCKING)
        return MPI_Ineighbor_allgatherv(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                        comm, req);
      return PERSISTENT_OR((allgatherv)(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcounts, L->rdispls, L->recvtype,
                                        comm, MPI_INFO_NULL, req));
    case COLL_ALLTOALL:
      if (kind == CALL_BLOCKING)
        return MPI_Neighbor_alltoall(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm);
      if (kind == CALL_NONBLOCKING)
        return MPI_Ineighbor_alltoall(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, req);
      return PERSISTENT_OR(
          (alltoall)(sbuf, L->sendcount, L->sendtype, rbuf, L->recvcount, L->recvtype, comm, MPI_INFO_NULL, req));
    case COLL_ALLTOALLV:
      if (kind == CALL_BLOCKING)
        return MPI_Neighbor_alltoallv(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                      L->recvtype, comm);
      if (kind == CALL_NONBLOCKING)
        return MPI_Ineighbor_alltoallv(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                       L->recvtype, comm, req);
      return PERSISTENT_OR((alltoallv)(sbuf, L->sendcounts, L->sdispls, L->sendtype, rbuf, L->recvcounts, L->rdispls,
                                       L->recvtype, comm, MPI_INFO_NULL, req));
    case COLL_ALLTOALLW:
      if (kind == CALL_BLOCKING)
        return MPI_Neighbor_alltoallw(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                      L->rdispls_w, L->recvtypes, comm);
      if (kind == CALL_NONBLOCKING)
        return MPI_Ineighbor_alltoallw(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                       L->rdispls_w, L->recvtypes, comm, req);
      return PERSISTENT_OR((alltoallw)(sbuf, L->sendcounts, L->sdispls_w, L->sendtypes, rbuf, L->recvcounts,
                                       L->rdispls_w, L->recvtypes, comm, MPI_INFO_NULL, req));
    default:
      return MPI_ERR_INTERN;
  }
#undef PERSISTENT_OR
}

/* ------------------------------------------------------------------------------------- */
/* Running and checking one case                                                          */
/* ------------------------------------------------------------------------------------- */

/* Send data of round 0 and 1 (a persistent request is started twice with different data),
 * MPI's results and nhood's. */
typedef struct buffers {
  unsigned char *send[2], *expected[2], *got[2];
  unsigned char *persistent_send; /* the persistent request's send buffer, rewritten between starts */
} buffers;

static unsigned char data_byte(int rank, int round, size_t k) {
  uint32_t x = (uint32_t)k * 2654435761u ^ (uint32_t)(rank + 1) * 0x9E3779B9u ^ (uint32_t)(round + 1) * 0x85EBCA6Bu;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  return (unsigned char)(x >> 24);
}

static unsigned char sentinel_byte(size_t k) { return (unsigned char)(0xA5 ^ (k * 29)); }

static void fill_sentinel(unsigned char *buf, size_t n) {
  for (size_t k = 0; k < n; k++) buf[k] = sentinel_byte(k);
}

typedef struct test_context {
  int rank, size;
  int sabotage; /* NHOOD_TEST_SABOTAGE=1 */
  int verbose;
  int printed_mismatches;
  MPI_Info algorithm_info[MAX_ALGORITHMS];
  type_variant variants[NVARIANTS];
  const char *filter_topology, *filter_collective, *filter_mode, *filter_dtype, *filter_algorithm;
  /* One flag per case in execution order (identical on every process): 1 = failed here. */
  int *case_failed;
  int ncases, case_capacity;
  int own_schedules[MAX_ALGORITHMS][NCOLLECTIVES]; /* persistent schedules named after an algorithm */
  int interposed;   /* --interposed: the calls under test are MPI's, through libnhood-mpi.so */
  int cold;         /* --interposed with NHOOD_COLD set (not off): calls may be MPI's own */
  int large_count;  /* --large-count: the calls under test are the _c forms */
  int expect_nodes; /* --expect-nodes N: MPI must report N nodes (tests/nodes) */
} test_context;

/* One case in progress: what to print when it fails. */
typedef struct case_info {
  const corpus_entry *entry;
  const layout *layout;
  char description[256];
  const char *algorithm; /* asked for with NHOOD_INFO_ALGORITHM */
} case_info;

#define MAX_PRINTED_MISMATCHES 10

static void record_case(test_context *t, int failed) {
  if (t->ncases == t->case_capacity) {
    t->case_capacity = t->case_capacity ? 2 * t->case_capacity : 1024;
    int *grown = realloc(t->case_failed, sizeof(int) * (size_t)t->case_capacity);
    if (grown == NULL) test_fatal(__FILE__, __LINE__, "realloc", MPI_ERR_NO_MEM);
    t->case_failed = grown;
  }
  t->case_failed[t->ncases++] = failed;
}

static void report_failure(test_context *t, const case_info *ci, const char *what) {
  if (t->printed_mismatches++ < MAX_PRINTED_MISMATCHES)
    fprintf(stderr, "rank %d: FAILED %s: %s\n", t->rank, ci->description, what);
  else if (t->printed_mismatches == MAX_PRINTED_MISMATCHES + 1)
    fprintf(stderr, "rank %d: further failures are counted but not printed\n", t->rank);
}

/* An nhood call that should succeed failed: the processes may now disagree on what comes
 * next, so stop the run instead of risking a hang. */
static void require_success(test_context *t, const case_info *ci, int rc, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char mpimsg[MPI_MAX_ERROR_STRING] = "", nhoodmsg[NHOOD_MAX_ERROR_STRING] = "";
  int len;
  MPI_Error_string(rc, mpimsg, &len);
  NHOOD_Error_message(nhoodmsg, NULL);
  fprintf(stderr, "rank %d: FAILED %s: %s returned %d (%s): \"%s\"; aborting\n", t->rank, ci->description, call, rc,
          mpimsg, nhoodmsg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Compares nhood's whole receive buffer with MPI's; returns 1 on a mismatch. */
static int compare(test_context *t, const case_info *ci, int round, unsigned char *got, const unsigned char *expected,
                   size_t nbytes) {
  if (t->sabotage && t->rank == t->size - 1 && nbytes > 0) got[nbytes - 1] ^= 0x5A; /* after the call */
  if (memcmp(got, expected, nbytes) == 0) return 0;
  size_t k = 0;
  while (got[k] == expected[k]) k++;
  char where[128], what[512];
  describe_offset(ci->layout, ci->entry, k, where, sizeof where);
  snprintf(what, sizeof what, "start %d: first difference at byte %zu of %zu, %s: nhood 0x%02x, MPI 0x%02x%s",
           round + 1, k, nbytes, where, got[k], expected[k],
           got[k] == sentinel_byte(k) ? " (nhood did not write it)" : "");
  report_failure(t, ci, what);
  return 1;
}

/* A request under test: nhood's, or (--interposed) MPI's through the interposition library.
 * The functions below call the one or the other, so that each mode reads the same for both. */
typedef struct test_request {
  NHOOD_Request nhood;
  MPI_Request mpi;
} test_request;
#define TEST_REQUEST_NULL \
  { NHOOD_REQUEST_NULL, MPI_REQUEST_NULL }

static int call_under_test(const test_context *t, const case_info *ci, call_kind kind, const layout *L,
                           const void *sbuf, void *rbuf, NHOOD_Topo topo, MPI_Info info, test_request *req) {
  if (t->interposed)
    return (t->large_count ? mpi_call_c : mpi_call)(kind, L, sbuf, rbuf, ci->entry->ref_comm, req ? &req->mpi : NULL);
  return (t->large_count ? nhood_neighbor_c : nhood_neighbor)(kind, L, sbuf, rbuf, ci->entry->nhood_comm, topo, info,
                                                              req ? &req->nhood : NULL);
}
static int wait_under_test(const test_context *t, test_request *req) {
  return t->interposed ? MPI_Wait(&req->mpi, MPI_STATUS_IGNORE) : NHOOD_Wait(&req->nhood);
}
static int test_under_test(const test_context *t, test_request *req, int *flag) {
  return t->interposed ? MPI_Test(&req->mpi, flag, MPI_STATUS_IGNORE) : NHOOD_Test(&req->nhood, flag);
}
static int waitall_under_test(const test_context *t, test_request pair[2]) {
  if (!t->interposed) {
    NHOOD_Request both[2] = {pair[0].nhood, pair[1].nhood};
    int rc = NHOOD_Waitall(2, both);
    pair[0].nhood = both[0], pair[1].nhood = both[1];
    return rc;
  }
  MPI_Request both[2] = {pair[0].mpi, pair[1].mpi};
  MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: MPICH's declaration makes GCC warn */
  int rc = MPI_Waitall(2, both, statuses);
  pair[0].mpi = both[0], pair[1].mpi = both[1];
  return rc;
}
static int start_under_test(const test_context *t, test_request *req) {
  return t->interposed ? MPI_Start(&req->mpi) : NHOOD_Start(&req->nhood);
}
static int free_under_test(const test_context *t, test_request *req) {
  return t->interposed ? MPI_Request_free(&req->mpi) : NHOOD_Request_free(&req->nhood);
}
static int is_null(const test_context *t, const test_request *req) {
  return t->interposed ? req->mpi == MPI_REQUEST_NULL : req->nhood == NHOOD_REQUEST_NULL;
}

static int check_request_null(test_context *t, const case_info *ci, const test_request *req, const char *call) {
  if (is_null(t, req)) return 0;
  char what[128];
  snprintf(what, sizeof what, "%s did not set the completed request to the null request", call);
  report_failure(t, ci, what);
  return 1;
}

enum { USER_TAG = 4242, USER_MAGIC = 0x5eed };

/* The persistent mode's check that what ran is the algorithm asked for where it applies, and
 * the fallback the library names where it does not (nhood's own requests only). */
static int check_what_ran(test_context *t, const case_info *ci, NHOOD_Request req, int applies, const char *must_run) {
  const char *algorithm = NULL;
  if (req == NHOOD_REQUEST_NULL ||
      NHOOD_Request_schedule_info(req, &algorithm, NULL, NULL, NULL, NULL) != MPI_SUCCESS || algorithm == NULL)
    return 0;
  for (int a = 0; a < NALGORITHMS; a++)
    if (strcmp(algorithm, algorithms[a]) == 0) t->own_schedules[a][ci->layout->coll]++;
  if (strcmp(ci->algorithm, "auto") == 0 || !must_run || strcmp(algorithm, must_run) == 0) return 0;
  char why[160];
  snprintf(why, sizeof why, "ran \"%s\", but \"%s\" %s", algorithm, must_run,
           applies ? "applies" : "is the fallback the library names");
  report_failure(t, ci, why);
  return 1;
}

/* Runs one mode of one case; returns 1 if it failed on this process. */
static int run_mode(test_context *t, const case_info *ci, mode m, NHOOD_Topo topo, MPI_Info info, buffers *B) {
  const layout *L = ci->layout;
  const corpus_entry *e = ci->entry;
  MPI_Comm comm = t->interposed ? e->ref_comm : e->nhood_comm;
  test_request req = TEST_REQUEST_NULL, pair[2] = {TEST_REQUEST_NULL, TEST_REQUEST_NULL};
  int failed = 0, flag = 0;
  fill_sentinel(B->got[0], L->recvbytes);
  fill_sentinel(B->got[1], L->recvbytes);
  switch (m) {
    case MODE_BLOCKING:
      /* Twice, the same call: a repeat may run from what the calling thread kept of the first
       * (api/call_cache.h; a one-round schedule as a flat round, engine/flat_round.h). */
      for (int call = 0; call < 2; call++) {
        if (call > 0) fill_sentinel(B->got[0], L->recvbytes);
        require_success(t, ci, call_under_test(t, ci, CALL_BLOCKING, L, B->send[0], B->got[0], topo, info, NULL),
                        call ? "repeated blocking call" : "blocking call");
        failed |= compare(t, ci, 0, B->got[0], B->expected[0], L->recvbytes);
      }
      break;
    case MODE_WAIT:
      require_success(t, ci, call_under_test(t, ci, CALL_NONBLOCKING, L, B->send[0], B->got[0], topo, info, &req),
                      "non-blocking call");
      require_success(t, ci, wait_under_test(t, &req), "wait");
      failed |= check_request_null(t, ci, &req, "wait");
      failed |= compare(t, ci, 0, B->got[0], B->expected[0], L->recvbytes);
      break;
    case MODE_TEST:
      require_success(t, ci, call_under_test(t, ci, CALL_NONBLOCKING, L, B->send[0], B->got[0], topo, info, &req),
                      "non-blocking call");
      while (!flag) require_success(t, ci, test_under_test(t, &req, &flag), "test");
      failed |= check_request_null(t, ci, &req, "test");
      failed |= compare(t, ci, 0, B->got[0], B->expected[0], L->recvbytes);
      break;
    case MODE_WAITALL: /* two collectives outstanding at once on the same communicator */
      require_success(t, ci, call_under_test(t, ci, CALL_NONBLOCKING, L, B->send[0], B->got[0], topo, info, &pair[0]),
                      "first non-blocking call");
      require_success(t, ci, call_under_test(t, ci, CALL_NONBLOCKING, L, B->send[1], B->got[1], topo, info, &pair[1]),
                      "second non-blocking call");
      require_success(t, ci, waitall_under_test(t, pair), "waitall");
      failed |= check_request_null(t, ci, &pair[0], "waitall");
      failed |= check_request_null(t, ci, &pair[1], "waitall");
      failed |= compare(t, ci, 0, B->got[0], B->expected[0], L->recvbytes);
      failed |= compare(t, ci, 1, B->got[1], B->expected[1], L->recvbytes);
      break;
    case MODE_PERSISTENT: {
#ifndef MPI_PERSISTENT
      if (t->interposed) break; /* this MPI has no persistent neighborhood collectives */
#endif
      layout owned_types;
      /* What must run: the algorithm where it applies, else its fallback (collective). */
      int applies = 1;
      const char *must_run = ci->algorithm;
      if (!t->interposed && strcmp(ci->algorithm, "auto") != 0)
        require_success(t, ci,
                        NHOOD_Topo_algorithm_applies(topo, comm, ci->algorithm, collective_names[L->coll], info,
                                                     &applies, &must_run),
                        "NHOOD_Topo_algorithm_applies");
      memcpy(B->persistent_send, B->send[0], L->sendbytes);
      layout_dup_types(L, e->indegree, e->outdegree, &owned_types);
      require_success(
          t, ci,
          call_under_test(t, ci, CALL_PERSISTENT_INIT, &owned_types, B->persistent_send, B->got[0], topo, info, &req),
          "persistent init");
      layout_free_dup_types(&owned_types, e->indegree, e->outdegree);
      for (int round = 0; round < 2; round++) {
        if (round == 1) memcpy(B->persistent_send, B->send[1], L->sendbytes);
        require_success(t, ci, start_under_test(t, &req), "start");
        require_success(t, ci, wait_under_test(t, &req), "wait");
        if (is_null(t, &req)) {
          report_failure(t, ci, "waiting for a persistent request set it to the null request");
          return 1;
        }
        failed |= compare(t, ci, round, B->got[0], B->expected[round], L->recvbytes);
      }
      /* After a start, as combine's v and w collectives build their data schedule then. */
      if (!t->interposed) failed |= check_what_ran(t, ci, req.nhood, applies, must_run);
      require_success(t, ci, free_under_test(t, &req), "request free");
      failed |= check_request_null(t, ci, &req, "request free");
      break;
    }
    case MODE_USER_ANY_SOURCE: {
      /* A wildcard receive posted before the collective must not match nhood's messages:
       * nhood talks on a private duplicate of comm. It is matched by a user message sent
       * after the collective completed. */
      int left = (t->rank + t->size - 1) % t->size, right = (t->rank + 1) % t->size;
      int user_in[8] = {0}, user_out[3] = {USER_MAGIC, t->rank, t->ncases}, count = -1;
      MPI_Request user_recv, user_send;
      MPI_Status status;
      TEST_CHECK(MPI_Irecv(user_in, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &user_recv));
      require_success(t, ci, call_under_test(t, ci, CALL_NONBLOCKING, L, B->send[0], B->got[0], topo, info, &req),
                      "non-blocking call");
      require_success(t, ci, wait_under_test(t, &req), "wait");
      TEST_CHECK(MPI_Isend(user_out, 3, MPI_INT, right, USER_TAG, comm, &user_send));
      TEST_CHECK(MPI_Wait(&user_recv, &status));
      TEST_CHECK(MPI_Wait(&user_send, MPI_STATUS_IGNORE));
      TEST_CHECK(MPI_Get_count(&status, MPI_INT, &count));
      if (status.MPI_SOURCE != left || status.MPI_TAG != USER_TAG || count != 3 || user_in[0] != USER_MAGIC ||
          user_in[1] != left || user_in[2] != t->ncases) {
        char what[256];
        snprintf(what, sizeof what,
                 "the user's MPI_ANY_SOURCE receive matched source %d tag %d count %d, not the user message "
                 "(source %d tag %d count 3)",
                 status.MPI_SOURCE, status.MPI_TAG, count, left, USER_TAG);
        report_failure(t, ci, what);
        failed = 1;
      }
      failed |= compare(t, ci, 0, B->got[0], B->expected[0], L->recvbytes);
      break;
    }
    default:
      break;
  }
  return failed;
}

/* nhood's view of the neighborhood must be MPI's: degrees and lists, MPI_PROC_NULL
 * included, and the degrees without MPI_PROC_NULL. */
static int check_neighbors(test_context *t, const corpus_entry *e, int a) {
  case_info ci = {e, NULL, "", NULL};
  snprintf(ci.description, sizeof ci.description, "np=%d topo=%s check=neighbor-lists algo=%s", t->size, e->name,
           algorithms[a]);
  int in = -1, out = -1, real_in = -1, real_out = -1, weighted;
  require_success(t, &ci, NHOOD_Topo_degrees(e->topo[a], 1, &in, &out, &weighted), "NHOOD_Topo_degrees");
  require_success(t, &ci, NHOOD_Topo_degrees(e->topo[a], 0, &real_in, &real_out, NULL), "NHOOD_Topo_degrees");
  int want_real_in = 0, want_real_out = 0;
  for (int i = 0; i < e->indegree; i++) want_real_in += e->sources[i] != MPI_PROC_NULL;
  for (int j = 0; j < e->outdegree; j++) want_real_out += e->destinations[j] != MPI_PROC_NULL;
  char what[256];
  if (in != e->indegree || out != e->outdegree || real_in != want_real_in || real_out != want_real_out) {
    snprintf(what, sizeof what, "degrees %d/%d (without MPI_PROC_NULL %d/%d), MPI says %d/%d (%d/%d)", in, out, real_in,
             real_out, e->indegree, e->outdegree, want_real_in, want_real_out);
    report_failure(t, &ci, what);
    return 1;
  }
  int *sources = test_malloc(sizeof(int) * (size_t)in), *destinations = test_malloc(sizeof(int) * (size_t)out);
  require_success(t, &ci, NHOOD_Topo_neighbors(e->topo[a], 1, in, sources, NULL, out, destinations, NULL),
                  "NHOOD_Topo_neighbors");
  int failed = 0;
  for (int i = 0; i < in && !failed; i++) {
    if (sources[i] == e->sources[i]) continue;
    snprintf(what, sizeof what, "sources[%d] = %d, MPI says %d", i, sources[i], e->sources[i]);
    failed = 1;
  }
  for (int j = 0; j < out && !failed; j++) {
    if (destinations[j] == e->destinations[j]) continue;
    snprintf(what, sizeof what, "destinations[%d] = %d, MPI says %d", j, destinations[j], e->destinations[j]);
    failed = 1;
  }
  if (failed) report_failure(t, &ci, what);
  free(sources);
  free(destinations);
  return failed;
}

/* The cases of one collective and datatype case on one topology share the arguments, the
 * buffers and MPI's results. */
typedef struct case_group {
  collective coll;
  dtype_case dt;
  layout L;
  buffers B;
} case_group;

static void case_group_create(case_group *g, collective coll, dtype_case dt, const corpus_entry *e,
                              const test_context *t) {
  g->coll = coll;
  g->dt = dt;
  layout_build(&g->L, coll, dt, e, t->variants, t->rank);
  for (int r = 0; r < 2; r++) {
    g->B.send[r] = test_malloc(g->L.sendbytes);
    g->B.expected[r] = test_malloc(g->L.recvbytes);
    g->B.got[r] = test_malloc(g->L.recvbytes);
    for (size_t k = 0; k < g->L.sendbytes; k++) g->B.send[r][k] = data_byte(t->rank, r, k);
    fill_sentinel(g->B.expected[r], g->L.recvbytes);
  }
  g->B.persistent_send = test_malloc(g->L.sendbytes);
}

static void case_group_free(case_group *g) {
  for (int r = 0; r < 2; r++) {
    free(g->B.send[r]);
    free(g->B.expected[r]);
    free(g->B.got[r]);
  }
  free(g->B.persistent_send);
  layout_free(&g->L);
}

static MPI_Aint address_of(const void *p) {
  MPI_Aint address;
  TEST_CHECK(MPI_Get_address(p, &address));
  return address;
}

/*
 * MPI's results for both rounds of every group of one topology, all from one
 * MPI_Neighbor_alltoallw with explicitly placed blocks (corpus.h): one call instead of two
 * per group, since MPICH's neighborhood collectives take milliseconds each when the
 * processes outnumber the cores. Every (group, round) is a replica of the edges: position
 * j of e's alltoallw lists becomes positions j * R .. j * R + R - 1, so MPI's pairing of the
 * k-th duplicate receive with the k-th duplicate send keeps replicas apart. Blocks are
 * addressed absolutely (MPI_BOTTOM), as they live in separate buffers.
 */
static void compute_references(const corpus_entry *e, int ngroups, case_group groups[]) {
  int replicas = 2 * ngroups, in = e->alltoallw_indegree * replicas, out = e->alltoallw_outdegree * replicas;
  int *sources = test_malloc(sizeof(int) * (size_t)in), *destinations = test_malloc(sizeof(int) * (size_t)out);
  int *sendcounts = test_malloc(sizeof(int) * (size_t)out), *recvcounts = test_malloc(sizeof(int) * (size_t)in);
  MPI_Aint *sdispls = test_malloc(sizeof(MPI_Aint) * (size_t)out);
  MPI_Aint *rdispls = test_malloc(sizeof(MPI_Aint) * (size_t)in);
  MPI_Datatype *sendtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)out);
  MPI_Datatype *recvtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)in);
  for (int k = 0; k < out; k++) {
    int block = e->alltoallw_send_block[k / replicas], replica = k % replicas;
    case_group *g = &groups[replica / 2];
    destinations[k] = block >= 0 ? e->destinations[block] : MPI_PROC_NULL;
    sendcounts[k] = 0, sendtypes[k] = MPI_INT, sdispls[k] = 0; /* a padding entry carries nothing */
    if (block < 0) continue;
    send_block(&g->L, block, &sendcounts[k], &sendtypes[k], &sdispls[k]);
    sdispls[k] = MPI_Aint_add(address_of(g->B.send[replica % 2]), sdispls[k]);
  }
  for (int k = 0; k < in; k++) {
    int block = e->alltoallw_recv_block[k / replicas], replica = k % replicas;
    case_group *g = &groups[replica / 2];
    sources[k] = block >= 0 ? e->sources[block] : MPI_PROC_NULL;
    recvcounts[k] = 0, recvtypes[k] = MPI_INT, rdispls[k] = 0;
    if (block < 0) continue;
    recv_block(&g->L, block, &recvcounts[k], &recvtypes[k], &rdispls[k]);
    rdispls[k] = MPI_Aint_add(address_of(g->B.expected[replica % 2]), rdispls[k]);
  }
  /* From MPI_COMM_WORLD where ref_comm has its ranks: Open MPI 5.0 takes a distributed graph
   * made from a Cartesian communicator for a Cartesian one (MPI_Topo_test), and crashes in it. */
  MPI_Comm comm, parent = e->ref_comm;
  int same = MPI_UNEQUAL;
  TEST_CHECK(MPI_Comm_compare(e->ref_comm, MPI_COMM_WORLD, &same));
  if (same == MPI_CONGRUENT) parent = MPI_COMM_WORLD;
  TEST_CHECK(MPI_Dist_graph_create_adjacent(parent, in, sources, test_unweighted(), out, destinations,
                                            test_unweighted(), MPI_INFO_NULL, 0, &comm));
  TEST_CHECK(PMPI_Neighbor_alltoallw(MPI_BOTTOM, sendcounts, sdispls, sendtypes, MPI_BOTTOM, recvcounts, rdispls,
                                     recvtypes, comm));
  TEST_CHECK(MPI_Comm_free(&comm));
  free(sources);
  free(destinations);
  free(sendcounts);
  free(recvcounts);
  free(sdispls);
  free(rdispls);
  free(sendtypes);
  free(recvtypes);
}

/* Where the MPI library gets the direct MPI_Neighbor_* call on the topology's own
 * communicator right, its result must equal the alltoallw reference: a check of the
 * reference itself, counted as one more case. */
static void check_reference(test_context *t, const corpus_entry *e, case_group *g) {
  if (!mpi_direct_is_reliable(e, g->coll)) return;
  case_info ci = {e, &g->L, "", NULL};
  snprintf(ci.description, sizeof ci.description, "np=%d topo=%s coll=%s dtype=%s reference", t->size, e->name,
           collective_names[g->coll], dtype_names[g->dt]);
  unsigned char *direct = test_malloc(g->L.recvbytes);
  fill_sentinel(direct, g->L.recvbytes);
  mpi_neighbor(&g->L, g->B.send[0], direct, e->ref_comm);
  int differ = memcmp(direct, g->B.expected[0], g->L.recvbytes) != 0;
  if (differ) report_failure(t, &ci, "MPI's direct MPI_Neighbor_* result differs from its alltoallw reference");
  record_case(t, differ);
  free(direct);
}

/* Every algorithm and mode of one group. */
static void run_cases(test_context *t, const corpus_entry *e, case_group *g) {
  case_info ci = {e, &g->L, "", NULL};
  /* A cold communicator's calls are MPI's own, right or not (as without the library). */
  if (t->cold && !mpi_direct_is_reliable(e, g->coll)) return;
  for (int a = 0; a < NALGORITHMS; a++) {
    if (!test_selected(algorithms[a], t->filter_algorithm)) continue;
    ci.algorithm = algorithms[a];
    for (int m = 0; m < NMODES; m++) {
      if (!test_selected(mode_names[m], t->filter_mode)) continue;
      snprintf(ci.description, sizeof ci.description, "np=%d topo=%s coll=%s mode=%s dtype=%s algo=%s", t->size,
               e->name, collective_names[g->coll], mode_names[m], dtype_names[g->dt], algorithms[a]);
      if (t->verbose && t->rank == 0) printf("case %d: %s\n", t->ncases, ci.description);
      watchdog_arm(ci.description);
      record_case(t, run_mode(t, &ci, (mode)m, e->topo[a], t->algorithm_info[a], &g->B));
    }
  }
  watchdog_disarm();
}

/* All cases on one topology. */
static void run_entry(test_context *t, const corpus_entry *e) {
  for (int a = 0; a < NALGORITHMS && !t->interposed; a++)
    if (test_selected(algorithms[a], t->filter_algorithm)) record_case(t, check_neighbors(t, e, a));
  case_group groups[NCOLLECTIVES * NDTYPES];
  int ngroups = 0;
  for (int coll = 0; coll < NCOLLECTIVES; coll++)
    for (int dt = 0; dt < NDTYPES; dt++)
      if (test_selected(collective_names[coll], t->filter_collective) &&
          test_selected(dtype_names[dt], t->filter_dtype))
        case_group_create(&groups[ngroups++], (collective)coll, (dtype_case)dt, e, t);
  if (ngroups > 0) compute_references(e, ngroups, groups);
  for (int k = 0; k < ngroups; k++) {
    check_reference(t, e, &groups[k]);
    run_cases(t, e, &groups[k]);
    case_group_free(&groups[k]);
  }
}

static void parse_options(test_context *t, int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    const char **target = NULL;
    if (strcmp(argv[k], "--verbose") == 0)
      t->verbose = 1;
    else if (strcmp(argv[k], "--interposed") == 0)
      t->interposed = 1;
    else if (strcmp(argv[k], "--large-count") == 0)
      t->large_count = 1;
    else if (strcmp(argv[k], "--expect-nodes") == 0 && k + 1 < argc)
      t->expect_nodes = atoi(argv[++k]);
    else if (strcmp(argv[k], "--topology") == 0)
      target = &t->filter_topology;
    else if (strcmp(argv[k], "--collective") == 0)
      target = &t->filter_collective;
    else if (strcmp(argv[k], "--mode") == 0)
      target = &t->filter_mode;
    else if (strcmp(argv[k], "--dtype") == 0)
      target = &t->filter_dtype;
    else if (strcmp(argv[k], "--algorithm") == 0)
      target = &t->filter_algorithm;
    else
      test_fatal(__FILE__, __LINE__, "unknown option (see the comment at the top of test_collectives.c)", MPI_ERR_ARG);
    if (target) {
      if (++k == argc) test_fatal(__FILE__, __LINE__, "option without its value", MPI_ERR_ARG);
      *target = argv[k];
    }
  }
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  test_context t;
  memset(&t, 0, sizeof t);
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  parse_options(&t, argc, argv);
  const char *sabotage = getenv("NHOOD_TEST_SABOTAGE");
  t.sabotage = sabotage != NULL && strcmp(sabotage, "1") == 0;
  double start = MPI_Wtime();
  if (t.expect_nodes > 0) { /* the nodes MPI reports: one leader (node rank 0) each */
    MPI_Comm node;
    int node_rank = 0, leaders = 0;
    TEST_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &node_rank);
    int leader = node_rank == 0;
    TEST_CHECK(MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_Comm_free(&node);
    if (t.rank == 0) printf("test_collectives: MPI reports %d nodes (%d expected)\n", leaders, t.expect_nodes);
    if (leaders != t.expect_nodes) test_fatal(__FILE__, __LINE__, "not the nodes expected", MPI_ERR_OTHER);
  }
  NALGORITHMS = test_algorithms(1, algorithms);
  if (t.interposed) { /* one pass: the library chooses (NHOOD_ALGORITHM) */
    Dl_info where;
    if (!dladdr((void *)MPI_Neighbor_allgather, &where) || !where.dli_fname || !strstr(where.dli_fname, "nhood-mpi"))
      test_fatal(__FILE__, __LINE__, "--interposed, but MPI_Neighbor_allgather is not libnhood-mpi's", MPI_ERR_OTHER);
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_C) && defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT_C)
    if (t.large_count && (!dladdr((void *)MPI_Neighbor_alltoallv_c, &where) || !where.dli_fname ||
                          !strstr(where.dli_fname, "nhood-mpi")))
      test_fatal(__FILE__, __LINE__, "--large-count, but MPI_Neighbor_alltoallv_c is not libnhood-mpi's",
                 MPI_ERR_OTHER);
#else
    if (t.large_count) test_fatal(__FILE__, __LINE__, "--large-count: this MPI has no MPI_Neighbor_*_c", MPI_ERR_OTHER);
#endif
    algorithms[0] = getenv("NHOOD_ALGORITHM") ? getenv("NHOOD_ALGORITHM") : "auto";
    NALGORITHMS = 1;
    const char *cold = getenv("NHOOD_COLD");
    t.cold = cold && strcmp(cold, "off") != 0 && strcmp(cold, "0") != 0;
  }

  for (int a = 0; a < NALGORITHMS; a++) {
    TEST_CHECK(MPI_Info_create(&t.algorithm_info[a]));
    TEST_CHECK(MPI_Info_set(t.algorithm_info[a], NHOOD_INFO_ALGORITHM, algorithms[a]));
  }
  variants_create(t.variants);
  corpus c;
  corpus_build(t.algorithm_info, NALGORITHMS, t.filter_topology, &c);

  for (int k = 0; k < c.nentries; k++) run_entry(&t, &c.entries[k]);

  /* A case failed if it failed on any process. */
  int corpus_failures = 0, failed = 0;
  TEST_CHECK(MPI_Allreduce(MPI_IN_PLACE, t.case_failed, t.ncases, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  TEST_CHECK(MPI_Allreduce(&c.nfailures, &corpus_failures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  for (int k = 0; k < t.ncases; k++) failed += t.case_failed[k];
  int own[MAX_ALGORITHMS][NCOLLECTIVES], combined = 0;
  TEST_CHECK(MPI_Allreduce(t.own_schedules, own, MAX_ALGORITHMS * NCOLLECTIVES, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int a = 0; a < NALGORITHMS; a++)
    if (strcmp(algorithms[a], "combine") == 0)
      for (int k = 0; k < NCOLLECTIVES; k++) combined += own[a][k];
  /* NHOOD_TEST_MUST_RUN=NAME: a run meant to exercise NAME fails where NAME never made its
   * own schedule (every case fell back), so that a test of it cannot pass vacuously. */
  const char *must = getenv("NHOOD_TEST_MUST_RUN");
  int must_runs = -1;
  for (int a = 0; must && a < NALGORITHMS; a++)
    if (strcmp(algorithms[a], must) == 0)
      for (int k = 0, *n = &must_runs; k < NCOLLECTIVES; k++) *n = (*n < 0 ? 0 : *n) + own[a][k];
  if (must && t.rank == 0) printf("test_collectives: %s made %d schedules of its own\n", must, must_runs);
  if (must && must_runs <= 0) failed++;
  double seconds = MPI_Wtime() - start;
  if (t.rank == 0)
    printf(
        "test_collectives np=%d%s: %d passed, %d failed, %d corpus check(s) failed (%d topologies, %d "
        "algorithms, %d combined schedules) in %.1f s\n",
        t.size, t.sabotage ? " [SABOTAGE: must fail]" : "", t.ncases - failed, failed, corpus_failures, c.nentries,
        NALGORITHMS, combined, seconds);

  corpus_free(&c);
  variants_free(t.variants);
  for (int a = 0; a < NALGORITHMS; a++) MPI_Info_free(&t.algorithm_info[a]);
  free(t.case_failed);
  MPI_Finalize();
  return failed > 0 || corpus_failures > 0 || t.ncases == 0 ? 1 : 0;
}
