#include "common/commctx.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int keyval = MPI_KEYVAL_INVALID; /* created once, on first use */
static atomic_int live;                        /* contexts created and not yet freed */

int nhood_commctx_live(void) { return atomic_load(&live); }

int nhood_commctx_placement(nhood_commctx *ctx, const nhood_placement **out) {
  int rc = MPI_SUCCESS;
  MPI_Comm node = MPI_COMM_NULL;
  nhood_placement *p = &ctx->placement;
  if (!p->known) {
    NHOOD_MPI_CALL(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    NHOOD_MPI_CALL(MPI_Comm_size(node, &p->node_procs));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    p->cpus = cpus > 0 ? (int)cpus : 1;
    p->one_node = p->node_procs == ctx->size; /* the same answer on every process */
    p->known = 1;
  }
  *out = p;
cleanup:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return rc;
}

/* NHOOD_RANKS_PER_NODE: 0 where unset, -1 where not a positive integer. */
static int ranks_per_node_env(void) {
  const char *v = getenv("NHOOD_RANKS_PER_NODE");
  if (v == NULL || v[0] == '\0') return 0;
  char *end;
  long k = strtol(v, &end, 10);
  return *end == '\0' && k >= 1 && k <= 1 << 30 ? (int)k : -1;
}

int nhood_commctx_nodes(nhood_commctx *ctx, const nhood_nodes **out) {
  int rc = MPI_SUCCESS, leader = 0, *labels = NULL;
  MPI_Comm node = MPI_COMM_NULL;
  if (!ctx->nodes_known) {
    int k = ranks_per_node_env();
    if (k < 0)
      return nhood_error(MPI_ERR_ARG, "NHOOD_RANKS_PER_NODE=\"%s\" is not a positive integer",
                         getenv("NHOOD_RANKS_PER_NODE"));
    if (k > 0) {
      nhood_nodes_blocks(&ctx->nodes, ctx->size, k);
    } else {
      /* A node's label is the rank (in the private communicator) of its lowest process. */
      if (!(labels = malloc(sizeof(int) * (size_t)ctx->size)))
        return nhood_error(MPI_ERR_NO_MEM, "out of memory for the node map of %d processes", ctx->size);
      NHOOD_MPI_CALL(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      leader = ctx->rank;
      NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node));
      NHOOD_MPI_CALL(MPI_Allgather(&leader, 1, MPI_INT, labels, 1, MPI_INT, ctx->comm));
      NHOOD_TRY(nhood_nodes_from_labels(&ctx->nodes, ctx->size, labels));
    }
    ctx->nodes_known = 1;
  }
  *out = &ctx->nodes;
cleanup:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  free(labels);
  return rc;
}

void nhood_commctx_retain(nhood_commctx *ctx) { atomic_fetch_add(&ctx->refs, 1); }

void nhood_commctx_release(nhood_commctx *ctx) {
  if (atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  /* MPI may already be finalized when the last request is freed late; then the duplicate
   * went with it. */
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&ctx->comm);
  nhood_nodes_free(&ctx->nodes);
  free(ctx);
  atomic_fetch_sub(&live, 1);
}

/* The contexts attached to a user communicator now, for MPI_Finalize to detach. */
static pthread_mutex_t attached_lock = PTHREAD_MUTEX_INITIALIZER;
static nhood_commctx *attached_head;

static void link_attached(nhood_commctx *ctx) {
  pthread_mutex_lock(&attached_lock);
  ctx->prev_attached = NULL;
  ctx->next_attached = attached_head;
  if (attached_head) attached_head->prev_attached = ctx;
  attached_head = ctx;
  pthread_mutex_unlock(&attached_lock);
}

/* Unlinks ctx if it is still in the list (a second call does nothing). */
static void unlink_attached(nhood_commctx *ctx) {
  pthread_mutex_lock(&attached_lock);
  if (ctx->prev_attached)
    ctx->prev_attached->next_attached = ctx->next_attached;
  else if (attached_head == ctx)
    attached_head = ctx->next_attached;
  if (ctx->next_attached) ctx->next_attached->prev_attached = ctx->prev_attached;
  ctx->prev_attached = ctx->next_attached = NULL;
  pthread_mutex_unlock(&attached_lock);
}

static int delete_context(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)extra;
  nhood_commctx *ctx = value;
  unlink_attached(ctx);
  atomic_store(&ctx->attached, 0);
  nhood_handles_advance(); /* comm's handle may come back for another communicator */
  nhood_commctx_release(ctx);
  return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works; the one set
 * there at the first use detaches every context still attached (MPI_COMM_WORLD's is never
 * deleted otherwise, and MPI would keep its duplicate to the end of the process), then frees
 * both keyvals (a keyval still attached to a communicator is only marked, as MPI defines).
 * Found by LeakSanitizer (tests/sanitizers). */
static int at_finalize(MPI_Comm comm, int self_keyval, void *value, void *extra) {
  (void)comm, (void)value, (void)extra;
  int context_keyval = atomic_load(&keyval);
  for (;;) {
    pthread_mutex_lock(&attached_lock);
    nhood_commctx *ctx = attached_head;
    MPI_Comm user = ctx ? ctx->user : MPI_COMM_NULL;
    pthread_mutex_unlock(&attached_lock);
    if (ctx == NULL) break;
    /* MPI_COMM_SELF's own context goes with the attributes MPI is deleting now; one that
     * cannot be detached is left as it is. */
    if (user == MPI_COMM_SELF || MPI_Comm_delete_attr(user, context_keyval) != MPI_SUCCESS) unlink_attached(ctx);
  }
  context_keyval = atomic_exchange(&keyval, MPI_KEYVAL_INVALID);
  if (context_keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&context_keyval);
  MPI_Comm_free_keyval(&self_keyval);
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
    int self_keyval = MPI_KEYVAL_INVALID;
    if (code == MPI_SUCCESS) code = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self_keyval, NULL);
    if (code == MPI_SUCCESS) code = MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    if (code != MPI_SUCCESS) {
      if (self_keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&self_keyval);
      if (created != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&created);
      rc = nhood_mpi_error(code, "MPI_Comm_create_keyval");
    } else {
      atomic_store(&keyval, created);
    }
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
  ctx->user = comm;
  link_attached(ctx);
  if ((rc = MPI_Comm_set_attr(comm, atomic_load(&keyval), ctx)) != MPI_SUCCESS) {
    unlink_attached(ctx);
    rc = nhood_mpi_error(rc, "MPI_Comm_set_attr");
    goto cleanup;
  }
  atomic_fetch_add(&live, 1);
  *out = ctx;
  return MPI_SUCCESS;
cleanup:
  if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
  nhood_nodes_free(&ctx->nodes);
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
