#include "common/commctx.h"

#include <pthread.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/hot.h"

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int keyval = MPI_KEYVAL_INVALID; /* created once, on first use */

void nhood_commctx_retain(nhood_commctx *ctx) { atomic_fetch_add(&ctx->refs, 1); }

void nhood_commctx_release(nhood_commctx *ctx) {
  if (atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  /* MPI may already be finalized when the last request is freed late; then the duplicate
   * went with it. */
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&ctx->comm);
  free(ctx);
}

static int delete_context(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)extra;
  nhood_commctx *ctx = value;
  atomic_store(&ctx->attached, 0);
  nhood_commctx_release(ctx);
  return MPI_SUCCESS;
}

static int ensure_keyval(void) {
  int rc = MPI_SUCCESS;
  if (atomic_load(&keyval) != MPI_KEYVAL_INVALID) return MPI_SUCCESS; /* the common case: no lock */
  pthread_mutex_lock(&keyval_lock);
  if (atomic_load(&keyval) == MPI_KEYVAL_INVALID) {
    /* MPI_COMM_NULL_COPY_FN: a duplicate of the user's communicator gets a context of its own
     * on first use rather than sharing (and racing on) this one's tags. */
    int created = MPI_KEYVAL_INVALID;
    int code = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &created, NULL);
    if (code != MPI_SUCCESS)
      rc = nhood_mpi_error(code, "MPI_Comm_create_keyval");
    else
      atomic_store(&keyval, created);
  }
  pthread_mutex_unlock(&keyval_lock);
  return rc;
}

static int create_context(MPI_Comm comm, nhood_commctx **out) {
  int rc = MPI_SUCCESS, inter = 0, flag = 0, *tag_ub = NULL;
  nhood_commctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a communicator context");
  ctx->comm = MPI_COMM_NULL;
  NHOOD_MPI_CALL(MPI_Comm_test_inter(comm, &inter));
  if (inter) {
    rc = nhood_error(MPI_ERR_COMM, "comm is an intercommunicator; neighborhood collectives need an intracommunicator");
    goto cleanup;
  }
  NHOOD_MPI_CALL(MPI_Comm_dup(comm, &ctx->comm));
  NHOOD_MPI_CALL(MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN));
  NHOOD_MPI_CALL(MPI_Comm_rank(ctx->comm, &ctx->rank));
  NHOOD_MPI_CALL(MPI_Comm_size(ctx->comm, &ctx->size));
  NHOOD_MPI_CALL(MPI_Comm_get_attr(ctx->comm, MPI_TAG_UB, &tag_ub, &flag));
  ctx->tag_ub = flag ? *tag_ub : 32767; /* 32767 is the least MPI guarantees */
  ctx->next_tag = 0;
  atomic_init(&ctx->refs, 1); /* the attribute's reference */
  atomic_init(&ctx->attached, 1);
  NHOOD_MPI_CALL(MPI_Comm_set_attr(comm, atomic_load(&keyval), ctx));
  *out = ctx;
  return MPI_SUCCESS;
cleanup:
  if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
  free(ctx);
  return rc;
}

int nhood_commctx_get(MPI_Comm comm, nhood_commctx **ctx) {
  int rc = MPI_SUCCESS, flag = 0;
  if (comm == MPI_COMM_NULL) return nhood_error(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  NHOOD_TRY(ensure_keyval());
  NHOOD_MPI_CALL(MPI_Comm_get_attr(comm, atomic_load(&keyval), ctx, &flag));
  if (!flag) NHOOD_TRY(create_context(comm, ctx));
cleanup:
  return rc;
}

NHOOD_HOT int nhood_commctx_reserve_tags(nhood_commctx *ctx, int ntags) {
  if (ntags < 1) ntags = 1;
  if (ctx->next_tag > ctx->tag_ub - ntags + 1) ctx->next_tag = 0; /* wrap around */
  int first = ctx->next_tag;
  ctx->next_tag += ntags;
  return first;
}
