/* Large-count calls lowered to the int form (api/large_count.h), and the API's entry points
 * for them, NHOOD_Neighbor_*_c. */
#include "api/large_count.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/coll_check.h"
#include "common/errors.h"
#include "topology/topology.h"

/* Elements of one piece of a block beyond INT_MAX elements. */
#define PIECE (1 << 30)

/* A datatype holding n elements of type exactly as (n, type) does: q pieces of PIECE elements,
 * then the rest, made with int arguments (MPI_Type_contiguous_c is MPI-4; this works on any). */
static int huge_type(MPI_Count n, MPI_Datatype type, MPI_Datatype *out) {
  int rc = MPI_SUCCESS;
  MPI_Count q = n / PIECE, r = n % PIECE;
  MPI_Datatype piece = MPI_DATATYPE_NULL, pieces = MPI_DATATYPE_NULL, rest = MPI_DATATYPE_NULL;
  MPI_Aint lb, extent;
  if (q > INT_MAX) return nhood_error(MPI_ERR_COUNT, "a block of %lld elements is too large", (long long)n);
  NHOOD_MPI_CALL(MPI_Type_get_extent(type, &lb, &extent));
  NHOOD_MPI_CALL(MPI_Type_contiguous(PIECE, type, &piece));
  NHOOD_MPI_CALL(MPI_Type_contiguous((int)q, piece, &pieces));
  if (r == 0) {
    *out = pieces;
    pieces = MPI_DATATYPE_NULL;
  } else {
    NHOOD_MPI_CALL(MPI_Type_contiguous((int)r, type, &rest));
    int lengths[2] = {1, 1};
    MPI_Aint displs[2] = {0, (MPI_Aint)(q * PIECE) * extent};
    MPI_Datatype types[2] = {pieces, rest};
    NHOOD_MPI_CALL(MPI_Type_create_struct(2, lengths, displs, types, out));
  }
  NHOOD_MPI_CALL(MPI_Type_commit(out));
cleanup:
  if (piece != MPI_DATATYPE_NULL) MPI_Type_free(&piece);
  if (pieces != MPI_DATATYPE_NULL) MPI_Type_free(&pieces);
  if (rest != MPI_DATATYPE_NULL) MPI_Type_free(&rest);
  return rc;
}

typedef struct {
  const char *count, *counts, *type;
} count_names;
static const count_names send_names = {"sendcount", "sendcounts", "sendtype"},
                         recv_names = {"recvcount", "recvcounts", "recvtype"};

/* One side of a call: its blocks' counts (per_block: counts[k], else count), displacements
 * (v: in extents; w: in bytes; else derived from the count) and types. */
typedef struct {
  int degree, per_block, w, stride; /* stride: block k at k * count extents (alltoall, allgather's receive) */
  MPI_Count count;
  const MPI_Count *counts;
  const MPI_Aint *displs;
  MPI_Datatype type;
  const MPI_Datatype *types;
  const count_names *names;
} side;

static side side_of(const nhood_coll_args_c *c, int send, int degree) {
  int v = c->kind == NHOOD_ALLTOALLV || (!send && c->kind == NHOOD_ALLGATHERV);
  int w = c->kind == NHOOD_ALLTOALLW;
  return (side){.degree = degree,
                .per_block = v || w,
                .w = w,
                .stride = !v && !w && (!send || c->kind == NHOOD_ALLTOALL),
                .count = send ? c->sendcount : c->recvcount,
                .counts = send ? c->sendcounts : c->recvcounts,
                .displs = send ? c->sdispls : c->rdispls,
                .type = send ? c->sendtype : c->recvtype,
                .types = send ? c->sendtypes : c->recvtypes,
                .names = send ? &send_names : &recv_names};
}

/* Negative counts, reported with their value; whether every count and displacement fits in an
 * int (*fits) and whether a count is beyond INT_MAX (*huge). */
static int survey(const side *s, int *fits, int *huge) {
  if (!s->per_block) {
    if (s->count < 0) return nhood_error(MPI_ERR_COUNT, "%s is negative (%lld)", s->names->count, (long long)s->count);
    if (s->count > INT_MAX) *fits = 0, *huge = 1;
    return MPI_SUCCESS;
  }
  for (int k = 0; s->counts && k < s->degree; k++) {
    if (s->counts[k] < 0)
      return nhood_error(MPI_ERR_COUNT, "%s[%d] is negative (%lld)", s->names->counts, k, (long long)s->counts[k]);
    if (s->counts[k] > INT_MAX) *fits = 0, *huge = 1;
  }
  for (int k = 0; !s->w && s->displs && k < s->degree; k++)
    if (s->displs[k] > INT_MAX || s->displs[k] < INT_MIN) *fits = 0;
  return MPI_SUCCESS;
}

/* Block k of a side as an alltoallw block: byte displacement, int count, datatype (made where
 * the count is beyond INT_MAX). */
static int w_block(const side *s, int k, nhood_lowered *l, MPI_Aint *displ, int *count, MPI_Datatype *type) {
  int rc = MPI_SUCCESS;
  MPI_Count n = s->per_block ? s->counts[k] : s->count;
  *type = s->w ? s->types[k] : s->type;
  MPI_Aint lb, extent = 0;
  if (!s->w) NHOOD_MPI_CALL(MPI_Type_get_extent(*type, &lb, &extent));
  *displ = s->w ? s->displs[k] : s->per_block ? s->displs[k] * extent : s->stride ? (MPI_Aint)k * n * extent : 0;
  *count = (int)n;
  if (n > INT_MAX) {
    NHOOD_TRY(huge_type(n, *type, &l->made[l->nmade]));
    *type = l->made[l->nmade++];
    *count = 1;
  }
cleanup:
  return rc;
}

/* Lowers a side to alltoallw's arrays, or to int arrays where everything fits. */
static int lower_side(const side *s, int fits, nhood_lowered *l, char **room, int **counts, int **displs,
                      MPI_Aint **bdispls, MPI_Datatype **types) {
  int rc = MPI_SUCCESS;
  if (fits) {
    if (!s->per_block || !s->counts) return MPI_SUCCESS;
    *counts = (int *)*room, *room += sizeof(int) * (size_t)s->degree;
    for (int k = 0; k < s->degree; k++) (*counts)[k] = (int)s->counts[k];
    if (!s->w && s->displs) {
      *displs = (int *)*room, *room += sizeof(int) * (size_t)s->degree;
      for (int k = 0; k < s->degree; k++) (*displs)[k] = (int)s->displs[k];
    }
    return MPI_SUCCESS;
  }
  if (s->degree > 0 && s->per_block && (!s->counts || !s->displs || (s->w && !s->types)))
    return MPI_SUCCESS; /* left NULL for nhood's checks */
  if (!s->w && s->type == MPI_DATATYPE_NULL)
    return nhood_error(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", s->names->type);
  *bdispls = (MPI_Aint *)*room, *room += sizeof(MPI_Aint) * (size_t)s->degree;
  *types = (MPI_Datatype *)*room, *room += sizeof(MPI_Datatype) * (size_t)s->degree;
  *counts = (int *)*room, *room += sizeof(int) * (size_t)s->degree;
  *room += (sizeof(MPI_Aint) - ((uintptr_t)*room % sizeof(MPI_Aint))) % sizeof(MPI_Aint); /* the next side's MPI_Aint */
  for (int k = 0; k < s->degree; k++) NHOOD_TRY(w_block(s, k, l, &(*bdispls)[k], &(*counts)[k], &(*types)[k]));
cleanup:
  return rc;
}

int nhood_coll_lower(const nhood_coll_args_c *c, int indegree, int outdegree, nhood_lowered *l) {
  int rc = MPI_SUCCESS, fits = 1, huge = 0;
  side send = side_of(c, 1, outdegree), recv = side_of(c, 0, indegree);
  NHOOD_TRY(survey(&send, &fits, &huge));
  NHOOD_TRY(survey(&recv, &fits, &huge));
  nhood_coll_args *a = &l->args;
  /* An allgather or alltoall that fits lowers to scalars: nothing of its own to keep. */
  int arrays = !fits || send.per_block || recv.per_block;
  *a = (nhood_coll_args){.kind = c->kind, .sendbuf = c->sendbuf, .recvbuf = c->recvbuf, .transient = arrays};
  if (!arrays) {
    a->sendcount = (int)c->sendcount, a->recvcount = (int)c->recvcount;
    a->sendtype = c->sendtype, a->recvtype = c->recvtype;
    return MPI_SUCCESS;
  }
  size_t blocks = (size_t)indegree + (size_t)outdegree;
  l->arrays = malloc(blocks * (2 * sizeof(MPI_Aint) + 2 * sizeof(int) + sizeof(MPI_Datatype)) + sizeof(MPI_Aint));
  l->made = huge ? malloc(sizeof *l->made * (blocks + 2)) : NULL;
  if (!l->arrays || (huge && !l->made)) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a large-count call");
  /* Each side's MPI_Aint array first, aligned (malloc's alignment, then rounded up). */
  char *room = l->arrays;
  int *scounts = NULL, *sdispls = NULL, *rcounts = NULL, *rdispls = NULL;
  MPI_Aint *sbytes = NULL, *rbytes = NULL;
  MPI_Datatype *stypes = NULL, *rtypes = NULL;
  NHOOD_TRY(lower_side(&send, fits, l, &room, &scounts, &sdispls, &sbytes, &stypes));
  NHOOD_TRY(lower_side(&recv, fits, l, &room, &rcounts, &rdispls, &rbytes, &rtypes));
  if (fits) {
    a->sendcount = (int)c->sendcount, a->recvcount = (int)c->recvcount;
    a->sendtype = c->sendtype, a->recvtype = c->recvtype;
    a->sendtypes = c->sendtypes, a->recvtypes = c->recvtypes;
    a->sendcounts = send.per_block && c->sendcounts ? scounts : NULL;
    a->recvcounts = recv.per_block && c->recvcounts ? rcounts : NULL;
    if (c->kind == NHOOD_ALLTOALLW) {
      a->sdispls_bytes = c->sdispls, a->rdispls_bytes = c->rdispls;
    } else {
      a->sdispls = c->sdispls ? sdispls : NULL;
      a->rdispls = c->rdispls ? rdispls : NULL;
    }
    return MPI_SUCCESS;
  }
  /* The equivalent alltoallw; a side left NULL above keeps its NULL arrays for the checks. */
  a->kind = NHOOD_ALLTOALLW;
  a->sendtype = a->recvtype = MPI_DATATYPE_NULL;
  a->sendcounts = scounts, a->sdispls_bytes = sbytes, a->sendtypes = stypes;
  a->recvcounts = rcounts, a->rdispls_bytes = rbytes, a->recvtypes = rtypes;
  a->huge = huge;
cleanup:
  return rc;
}

void nhood_lowered_free(nhood_lowered *l) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (int k = 0; k < l->nmade && !finalized; k++) MPI_Type_free(&l->made[k]);
  free(l->made);
  free(l->arrays);
  memset(l, 0, sizeof *l);
}

/* ---- entry points ---------------------------------------------------------------------- */

/* Lowers call c on topo and runs it. */
static int run_c(const nhood_coll_args_c *c, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, nhood_mode mode,
                 NHOOD_Request *request) {
  int rc = nhood_topo_validate(topo, "topo");
  if (rc != MPI_SUCCESS) return rc;
  nhood_lowered l;
  memset(&l, 0, sizeof l);
  rc = nhood_coll_lower(c, topo->indegree, topo->outdegree, &l);
  if (rc == MPI_SUCCESS) rc = nhood_coll_run(&l.args, comm, topo, info, mode, request);
  nhood_lowered_free(&l);
  return rc;
}

#define GATHER_C(K)                                                                                      \
  (nhood_coll_args_c) {                                                                                  \
    .kind = (K), .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = sendcount, .recvcount = recvcount, \
    .sendtype = sendtype, .recvtype = recvtype                                                           \
  }
#define GATHERV_C                                                                             \
  (nhood_coll_args_c) {                                                                       \
    .kind = NHOOD_ALLGATHERV, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = sendcount, \
    .recvcounts = recvcounts, .rdispls = displs, .sendtype = sendtype, .recvtype = recvtype   \
  }
#define ALLTOALLV_C                                                                                                \
  (nhood_coll_args_c) {                                                                                            \
    .kind = NHOOD_ALLTOALLV, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts, .sdispls = sdispls, \
    .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype                       \
  }
#define ALLTOALLW_C                                                                                                \
  (nhood_coll_args_c) {                                                                                            \
    .kind = NHOOD_ALLTOALLW, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts, .sdispls = sdispls, \
    .sendtypes = sendtypes, .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes,                  \
    .sendtype = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL                                                   \
  }
/* The three modes of one collective: the call as nhood_coll_args_c, then its parameters
 * before comm. */
#define ENTRY_POINTS(name, args, ...)                                                                   \
  int NHOOD_Neighbor_##name##_c(__VA_ARGS__, MPI_Comm comm, NHOOD_Topo topo) {                          \
    nhood_coll_args_c c = args;                                                                         \
    return run_c(&c, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);                                  \
  }                                                                                                     \
  int NHOOD_Ineighbor_##name##_c(__VA_ARGS__, MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) { \
    nhood_coll_args_c c = args;                                                                         \
    return run_c(&c, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);                            \
  }                                                                                                     \
  int NHOOD_Neighbor_##name##_init_c(__VA_ARGS__, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,        \
                                     NHOOD_Request *request) {                                          \
    nhood_coll_args_c c = args;                                                                         \
    return run_c(&c, comm, topo, info, NHOOD_PERSISTENT, request);                                      \
  }

ENTRY_POINTS(allgather, GATHER_C(NHOOD_ALLGATHER), const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype)
ENTRY_POINTS(allgatherv, GATHERV_C, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype)
ENTRY_POINTS(alltoall, GATHER_C(NHOOD_ALLTOALL), const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype)
ENTRY_POINTS(alltoallv, ALLTOALLV_C, const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
             MPI_Datatype recvtype)
ENTRY_POINTS(alltoallw, ALLTOALLW_C, const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
             const MPI_Datatype recvtypes[])
