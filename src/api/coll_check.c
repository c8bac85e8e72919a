/* A collective call's argument checks (api/coll_check.h): every argument named in the error
 * message, MPI's error class returned. */
#include "api/coll_check.h"

#include <stddef.h>

#include "common/errors.h"
#include "topology/topology.h"

typedef struct {
  const char *buf, *count, *counts, *displs, *type, *types; /* argument names for messages */
} side_names;

static const side_names send_names = {"sendbuf", "sendcount", "sendcounts", "sdispls", "sendtype", "sendtypes"};
static const side_names recv_names = {"recvbuf", "recvcount", "recvcounts", "rdispls", "recvtype", "recvtypes"};
/* Reduce and scatter-reduce: one count and one datatype for both sides. */
static const side_names reduce_send_names = {"sendbuf", "count", "", "", "datatype", ""};
static const side_names reduce_recv_names = {"recvbuf", "count", "", "", "datatype", ""};

static int check_type(MPI_Datatype type, const char *name, int index) {
  if (type != MPI_DATATYPE_NULL) return MPI_SUCCESS;
  if (index < 0) return nhood_error(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", name);
  return nhood_error(MPI_ERR_TYPE, "%s[%d] is MPI_DATATYPE_NULL", name, index);
}

/* A NULL buffer is an error when data would be read or written there, unless the datatype
 * addresses absolute memory (MPI_BOTTOM with a non-zero true lower bound). */
static int check_region(const void *buf, nhood_region r, const char *bufname) {
  if (buf != NULL || r.count == 0) return MPI_SUCCESS;
  int rc = MPI_SUCCESS, size = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  NHOOD_MPI_CALL(MPI_Type_size(r.type, &size));
  if (size == 0) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Type_get_true_extent(r.type, &true_lb, &true_extent));
  if (true_lb == 0 && r.offset == 0)
    rc = nhood_error(MPI_ERR_BUFFER, "%s is NULL but %d element(s) of %d bytes are to be %s there", bufname, r.count,
                     size, bufname[0] == 's' ? "sent from" : "received");
cleanup:
  return rc;
}

/* Checks one side (send or receive) of a call. degree: blocks on that side; peers: the
 * neighbor list (MPI_PROC_NULL blocks are never touched). */
static int check_side(const nhood_coll_args *a, int is_send, int degree, const int peers[]) {
  const side_names *n = nhood_coll_reduces(a->kind) ? (is_send ? &reduce_send_names : &reduce_recv_names)
                                                    : (is_send ? &send_names : &recv_names);
  const void *buf = is_send ? a->sendbuf : a->recvbuf;
  int single_count = is_send ? a->sendcount : a->recvcount;
  const int *counts = is_send ? a->sendcounts : a->recvcounts;
  const int *displs = is_send ? a->sdispls : a->rdispls;
  const MPI_Aint *bdispls = is_send ? a->sdispls_bytes : a->rdispls_bytes;
  MPI_Datatype type = is_send ? a->sendtype : a->recvtype;
  const MPI_Datatype *types = is_send ? a->sendtypes : a->recvtypes;
  int per_block = a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW || (!is_send && a->kind == NHOOD_ALLGATHERV);
  int rc = MPI_SUCCESS;

  if (buf == MPI_IN_PLACE)
    return nhood_error(MPI_ERR_BUFFER, "%s is MPI_IN_PLACE, which neighborhood collectives do not allow", n->buf);
  if (!per_block) {
    if (single_count < 0) return nhood_error(MPI_ERR_COUNT, "%s is negative (%d)", n->count, single_count);
  } else if (degree > 0) {
    if (counts == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL", n->counts);
    if (a->kind == NHOOD_ALLTOALLW ? bdispls == NULL : displs == NULL)
      return nhood_error(MPI_ERR_ARG, "%s is NULL", n->displs);
    if (a->kind == NHOOD_ALLTOALLW && types == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL", n->types);
  }
  if (a->kind != NHOOD_ALLTOALLW) NHOOD_TRY(check_type(type, n->type, -1));
  for (int k = 0; k < degree; k++) {
    if (per_block && counts[k] < 0)
      return nhood_error(MPI_ERR_COUNT, "%s[%d] is negative (%d)", n->counts, k, counts[k]);
    if (a->kind == NHOOD_ALLTOALLW) NHOOD_TRY(check_type(types[k], n->types, k));
    if (peers[k] == MPI_PROC_NULL) continue;
    NHOOD_TRY(check_region(buf, is_send ? nhood_send_block(a, k) : nhood_recv_block(a, k), n->buf));
    if (!per_block && buf != NULL) break; /* every block has the same count and type */
  }
cleanup:
  return rc;
}

/* Reduce and scatter-reduce: a commutative operation (blocks are reduced in whatever order
 * they arrive in, and forwarded blocks in another). */
static int check_op(MPI_Op op) {
  int rc = MPI_SUCCESS, commutative = 0;
  if (op == MPI_OP_NULL) return nhood_error(MPI_ERR_OP, "op is MPI_OP_NULL");
  NHOOD_MPI_CALL(MPI_Op_commutative(op, &commutative));
  if (!commutative)
    rc = nhood_error(MPI_ERR_OP, "op is not commutative; neighborhood reductions need a commutative operation");
cleanup:
  return rc;
}

int nhood_coll_check_args(nhood_coll_args *a, NHOOD_Topo t) {
  int rc = MPI_SUCCESS;
  MPI_Aint lb;
  if (nhood_coll_reduces(a->kind)) NHOOD_TRY(check_op(a->op));
  NHOOD_TRY(check_side(a, 1, t->outdegree, t->destinations));
  NHOOD_TRY(check_side(a, 0, t->indegree, t->sources));
  if (a->kind != NHOOD_ALLTOALLW) {
    NHOOD_MPI_CALL(MPI_Type_get_extent(a->sendtype, &lb, &a->send_extent));
    NHOOD_MPI_CALL(MPI_Type_get_extent(a->recvtype, &lb, &a->recv_extent));
    NHOOD_MPI_CALL(MPI_Type_size(a->sendtype, &a->send_type_size));
    NHOOD_MPI_CALL(MPI_Type_size(a->recvtype, &a->recv_type_size));
  }
cleanup:
  return rc;
}

int nhood_coll_check(nhood_coll_args *a, NHOOD_Topo topo) {
  int rc = nhood_topo_validate(topo, "topo");
  return rc == MPI_SUCCESS ? nhood_coll_check_args(a, topo) : rc;
}
