#include "engine/transport_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/hot.h"
#include "common/mpi_util.h"

int nhood_mpi_transport_ctx_init(nhood_mpi_transport_ctx *ctx, MPI_Comm comm, int nslots) {
  ctx->comm = comm;
  ctx->nslots = nslots;
  ctx->requests = NULL;
  ctx->statuses = NULL;
  ctx->nlayouts = 0;
  if (nslots == 0) return MPI_SUCCESS;
  ctx->requests = malloc(sizeof(MPI_Request) * (size_t)nslots);
  ctx->statuses = malloc(sizeof(MPI_Status) * (size_t)nslots);
  if (!ctx->requests || !ctx->statuses) {
    nhood_mpi_transport_ctx_free(ctx);
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for %d requests", nslots);
  }
  for (int k = 0; k < nslots; k++) ctx->requests[k] = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

void nhood_mpi_transport_ctx_free(nhood_mpi_transport_ctx *ctx) {
  free(ctx->requests);
  free(ctx->statuses);
  ctx->requests = NULL;
  ctx->statuses = NULL;
}

/* A failed post leaves its slot empty, so that completing the round skips it. */
NHOOD_HOT static int post_send(void *c, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag) {
  nhood_mpi_transport_ctx *ctx = c;
  int code = MPI_Isend(buf, count, type, peer, tag, ctx->comm, &ctx->requests[slot]);
  if (code == MPI_SUCCESS) return MPI_SUCCESS;
  ctx->requests[slot] = MPI_REQUEST_NULL;
  return nhood_mpi_error(code, "MPI_Isend");
}

NHOOD_HOT static int post_recv(void *c, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag) {
  nhood_mpi_transport_ctx *ctx = c;
  int code = MPI_Irecv(buf, count, type, peer, tag, ctx->comm, &ctx->requests[slot]);
  if (code == MPI_SUCCESS) return MPI_SUCCESS;
  ctx->requests[slot] = MPI_REQUEST_NULL;
  return nhood_mpi_error(code, "MPI_Irecv");
}

NHOOD_HOT static int post_round(void *c, const nhood_op *ops, int n, char *const base[], int tag_base, int *failed) {
  nhood_mpi_transport_ctx *ctx = c;
  int rc = MPI_SUCCESS;
  *failed = -1;
  for (int k = 0; k < n; k++) {
    const nhood_op *op = &ops[k];
    char *buf = base[op->buf] + op->offset;
    int code = op->kind == NHOOD_OP_RECV
                   ? MPI_Irecv(buf, op->count, op->type, op->peer, tag_base + op->tag, ctx->comm, &ctx->requests[k])
                   : MPI_Isend(buf, op->count, op->type, op->peer, tag_base + op->tag, ctx->comm, &ctx->requests[k]);
    if (code == MPI_SUCCESS) continue;
    ctx->requests[k] = MPI_REQUEST_NULL;
    if (*failed < 0) { /* its message is the one kept: the later ones would replace it */
      *failed = k;
      rc = nhood_mpi_error(code, op->kind == NHOOD_OP_RECV ? "MPI_Irecv" : "MPI_Isend");
    }
  }
  return rc;
}

NHOOD_HOT static int all_complete(const nhood_mpi_transport_ctx *ctx, int nslots) {
  for (int k = 0; k < nslots; k++)
    if (ctx->requests[k] != MPI_REQUEST_NULL) return 0;
  return 1;
}

/* The error of one operation, as MPI put it in its status. */
static int slot_error(int code) {
  int errclass = MPI_ERR_INTERN;
  MPI_Error_class(code, &errclass);
  if (errclass == MPI_ERR_TRUNCATE)
    return nhood_error(MPI_ERR_TRUNCATE,
                       "more data arrived than the receive side expects (message truncated); the sender's count and "
                       "datatype must match this process's");
  return nhood_mpi_error(code, "the operation");
}

/* The slot whose status holds the failure a completion call over the slots reported (code,
 * of class MPI_ERR_IN_STATUS): MPI_SUCCESS and *k, or an error naming the call where no one
 * slot's status holds it. */
static int failed_slot(const nhood_mpi_transport_ctx *ctx, int nslots, int code, const char *call, int *k) {
  int errclass = MPI_ERR_INTERN;
  MPI_Error_class(code, &errclass);
  if (errclass != MPI_ERR_IN_STATUS) return nhood_mpi_error(code, call); /* not one slot's */
  for (*k = 0; *k < nslots; ++*k)
    if (ctx->statuses[*k].MPI_ERROR != MPI_SUCCESS && ctx->statuses[*k].MPI_ERROR != MPI_ERR_PENDING)
      return MPI_SUCCESS;
  return nhood_mpi_error(code, call);
}

/* MPI_Waitall over the slots, with statuses so that a failure names its slot. */
static int waitall(nhood_mpi_transport_ctx *ctx, int nslots) {
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_begin();
  int code = MPI_Waitall(nslots, ctx->requests, ctx->statuses);
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_end();
  return code;
}

/* MPI completes (and empties) a failed request and leaves the others that did not complete
 * yet marked MPI_ERR_PENDING, so this waits again for those. */
int nhood_mpi_waitall_failed(nhood_mpi_transport_ctx *ctx, int nslots, int code, int *failed) {
  int rc = MPI_SUCCESS, k = 0;
  *failed = -1;
  for (int attempt = 0; code != MPI_SUCCESS && attempt < nslots; attempt++) { /* each failure empties a slot */
    int err = failed_slot(ctx, nslots, code, "MPI_Waitall", &k);
    if (err != MPI_SUCCESS) return err;
    if (*failed < 0) {
      *failed = k;
      rc = slot_error(ctx->statuses[k].MPI_ERROR);
    }
    code = waitall(ctx, nslots);
  }
  return rc;
}

/* MPI_Waitall (blocking) or MPI_Testall over the slots. */
NHOOD_HOT static int complete_slots(nhood_mpi_transport_ctx *ctx, int nslots, int blocking, int *done, int *failed) {
  int rc = MPI_SUCCESS, flag = 1, k = 0;
  *failed = -1;
  if (blocking) {
    int code = waitall(ctx, nslots);
    *done = 1;
    return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_waitall_failed(ctx, nslots, code, failed);
  }
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_begin();
  int code = MPI_Testall(nslots, ctx->requests, &flag, ctx->statuses);
  if (NHOOD_P2P_ERRORS_GO_TO_WORLD) nhood_errors_return_end();
  if (code != MPI_SUCCESS) {
    NHOOD_TRY(failed_slot(ctx, nslots, code, "MPI_Testall", &k));
    *failed = k;
    rc = slot_error(ctx->statuses[k].MPI_ERROR);
  }
  *done = flag && all_complete(ctx, nslots);
cleanup:
  return rc;
}

NHOOD_HOT static int wait_slots(void *c, int nslots, int *failed) {
  int done = 0;
  return complete_slots(c, nslots, 1, &done, failed);
}

NHOOD_HOT static int test_slots(void *c, int nslots, int *done, int *failed) {
  return complete_slots(c, nslots, 0, done, failed);
}

/* Size, true lower bound and contiguity of type: asked of MPI once per type and run. */
NHOOD_HOT static int layout_of(nhood_mpi_transport_ctx *ctx, MPI_Datatype type, nhood_type_layout *l) {
  int code;
  MPI_Count size = 0; /* a large-count call's block may be one element of over 2^31 bytes */
  MPI_Aint lb, extent, true_lb, true_extent;
  if (type == MPI_BYTE) {
    *l = (nhood_type_layout){1, 0, 1};
    return MPI_SUCCESS;
  }
  for (int k = 0; k < ctx->nlayouts; k++)
    if (ctx->layout_types[k] == type) {
      *l = ctx->layouts[k];
      return MPI_SUCCESS;
    }
  if ((code = MPI_Type_size_x(type, &size)) != MPI_SUCCESS) return nhood_mpi_error(code, "MPI_Type_size_x");
  if ((code = MPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS)
    return nhood_mpi_error(code, "MPI_Type_get_extent");
  if ((code = MPI_Type_get_true_extent(type, &true_lb, &true_extent)) != MPI_SUCCESS)
    return nhood_mpi_error(code, "MPI_Type_get_true_extent");
  l->size = size;
  l->true_lb = true_lb;
  l->contiguous = (MPI_Aint)size == extent && extent == true_extent && lb == true_lb;
  int slot = ctx->nlayouts < NHOOD_LAYOUT_CACHE ? ctx->nlayouts++ : NHOOD_LAYOUT_CACHE - 1;
  ctx->layout_types[slot] = type;
  ctx->layouts[slot] = *l;
  return MPI_SUCCESS;
}

NHOOD_HOT static int copy(void *c, const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
                          MPI_Datatype dtype) {
  nhood_mpi_transport_ctx *ctx = c;
  int rc = MPI_SUCCESS, position = 0, packsize = 0;
  nhood_type_layout sl = {0, 0, 0}, dl = {0, 0, 0};
  char *packed = NULL;
  NHOOD_TRY(layout_of(ctx, stype, &sl));
  NHOOD_TRY(layout_of(ctx, dtype, &dl));
  MPI_Count sbytes = sl.size * scount, dbytes = dl.size * dcount;
  if (sbytes > dbytes)
    return nhood_error(MPI_ERR_TRUNCATE,
                       "message truncated: %lld bytes sent into a %lld-byte block; the send side's count and datatype "
                       "must match the receive side's",
                       (long long)sbytes, (long long)dbytes);
  if (sbytes == 0) return MPI_SUCCESS;
  if (sl.contiguous && dl.contiguous) {
    memcpy((char *)dst + dl.true_lb, (const char *)src + sl.true_lb, (size_t)sbytes);
    return MPI_SUCCESS;
  }
  NHOOD_MPI_CALL(MPI_Pack_size(scount, stype, ctx->comm, &packsize));
  if (packsize < 0 || packsize < sbytes) /* MPI_Pack counts bytes in an int */
    return nhood_error(MPI_ERR_COUNT, "a local copy of %lld bytes of a non-contiguous datatype is beyond MPI_Pack",
                       (long long)sbytes);
  packed = malloc((size_t)packsize);
  if (!packed) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a %d-byte local copy", packsize);
  NHOOD_MPI_CALL(MPI_Pack(src, scount, stype, packed, packsize, &position, ctx->comm));
  int delements = (int)(sbytes / dl.size); /* fewer than dcount when less data arrives */
  int unpacked = 0;
  NHOOD_MPI_CALL(MPI_Unpack(packed, position, &unpacked, dst, delements, dtype, ctx->comm));
cleanup:
  free(packed);
  return rc;
}

static int reduce(void *c, const void *src, void *dst, int count, MPI_Datatype type, MPI_Op op) {
  (void)c;
  int code = MPI_Reduce_local(src, dst, count, type, op);
  return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, "MPI_Reduce_local");
}

const nhood_transport nhood_mpi_transport = {
    .post_send = post_send,
    .post_recv = post_recv,
    .wait = wait_slots,
    .test = test_slots,
    .copy = copy,
    .reduce = reduce,
    .post_round = post_round,
};
