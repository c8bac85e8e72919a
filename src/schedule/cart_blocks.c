/*
 * The block table of the combining cart algorithms (cart-dim, cart-dim-batch, cart-bruck,
 * cart-2hop; declared in cart_internal.h): each offset's block size, where each block lies
 * while a schedule is built, the messages that pack blocks into scratch, and the final
 * delivery into the receive blocks. The algorithms differ only in routes, which they pass in.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "nhood.h"
#include "schedule/cart_internal.h"

/* Bytes of a block; type_size is the call's send or receive type size (alltoallw asks MPI
 * except for MPI_BYTE, the others need no MPI call, which lets nhood-sim build schedules
 * without MPI_Init). */
static int region_bytes(const nhood_coll_args *a, nhood_region r, int type_size, MPI_Aint *bytes) {
  int rc = MPI_SUCCESS, size = type_size;
  if (a->kind == NHOOD_ALLTOALLW) NHOOD_MPI_CALL(nhood_type_size(r.type, &size));
  *bytes = (MPI_Aint)r.count * size;
cleanup:
  return rc;
}

/* sizes[i] = the bytes of the block of offset i, the same on every process: send block i and
 * receive block i must agree (with isomorphic sizes, receive block i is send block i of
 * another process). */
static int block_sizes(const nhood_coll_args *a, int n, const char *name, int *sizes) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n; i++) {
    MPI_Aint send = 0, recv = 0;
    NHOOD_TRY(region_bytes(a, nhood_send_block(a, i), a->send_type_size, &send));
    NHOOD_TRY(region_bytes(a, nhood_recv_block(a, i), a->recv_type_size, &recv));
    if (send != recv || send > 1 << 30)
      return nhood_error(MPI_ERR_TRUNCATE,
                         "%s: block %d is %lld bytes to send but %lld to receive (they must be equal, below 1 GiB%s)",
                         name, i, (long long)send, (long long)recv,
                         a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLTOALL
                             ? ""
                             : ", as " NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES " asserts");
    sizes[i] = (int)send;
  }
cleanup:
  return rc;
}

void nhood_cart_table_free(block_table *b) {
  free(b->sizes);
  free(b->key_now);
  free(b->key_next);
  free(b->stamp);
  free(b->now);
  free(b->next);
  memset(b, 0, sizeof *b); /* freeing twice (a failed nhood_cart_table_init, then its caller) is harmless */
}

int nhood_cart_table_init(block_table *b, const nhood_coll_args *a, int n, const char *name) {
  size_t m = (size_t)(n + 1);
  memset(b, 0, sizeof *b);
  b->n = n;
  b->alltoall = a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLGATHERV;
  b->sizes = malloc(sizeof(int) * m);
  b->key_now = malloc(sizeof(int) * m);
  b->key_next = malloc(sizeof(int) * m);
  b->stamp = calloc(m, sizeof(int));
  b->now = calloc(m, sizeof *b->now);
  b->next = calloc(m, sizeof *b->next);
  if (!b->sizes || !b->key_now || !b->key_next || !b->stamp || !b->now || !b->next) {
    nhood_cart_table_free(b);
    return nhood_error(MPI_ERR_NO_MEM, "%s: out of memory building a schedule", name);
  }
  int rc = block_sizes(a, n, name, b->sizes);
  if (rc != MPI_SUCCESS) nhood_cart_table_free(b);
  return rc;
}

void nhood_cart_table_advance(block_table *b, int (*stays)(const void *ctx, int i), const void *ctx) {
  for (int i = 0; i < b->n; i++)
    if (stays(ctx, i)) b->next[b->key_next[i]] = b->now[b->key_now[i]];
  int *keys = b->key_now;
  b->key_now = b->key_next;
  b->key_next = keys;
  nhood_region *where = b->now;
  b->now = b->next;
  b->next = where;
}

static nhood_region scratch_bytes(MPI_Aint offset, int count) {
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH, 0};
}

int nhood_cart_table_message(block_table *b, nhood_sched *s, int (*in_message)(const void *ctx, int i, int incoming),
                             const void *ctx, int to, int from, int tag, const char *name) {
  int rc = MPI_SUCCESS, nout = 0, nin = 0;
  MPI_Aint at = b->scratch, out_bytes = 0, in_bytes = 0;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_now[i];
    if (b->stamp[key] == b->stamp_value || !in_message(ctx, i, 0)) continue;
    b->stamp[key] = b->stamp_value;
    NHOOD_TRY(nhood_sched_copy(s, b->now[key], scratch_bytes(at + out_bytes, b->sizes[key])));
    out_bytes += b->sizes[key];
    nout++;
  }
  if (nout) {
    if (to == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "%s: a block would leave the grid", name);
    NHOOD_TRY(nhood_sched_send(s, to, tag, scratch_bytes(at, (int)out_bytes)));
  }
  at += out_bytes;
  b->stamp_value++;
  for (int i = 0; i < b->n; i++) {
    int key = b->key_next[i];
    if (b->stamp[key] == b->stamp_value || !in_message(ctx, i, 1)) continue;
    b->stamp[key] = b->stamp_value;
    b->next[key] = scratch_bytes(at + in_bytes, b->sizes[key]);
    in_bytes += b->sizes[key];
    nin++;
  }
  if (nin) {
    if (from == MPI_PROC_NULL) return nhood_error(MPI_ERR_INTERN, "%s: a block would come from outside the grid", name);
    NHOOD_TRY(nhood_sched_recv(s, from, tag, scratch_bytes(at, (int)in_bytes)));
  }
  b->scratch = at + in_bytes;
cleanup:
  return rc;
}

int nhood_cart_table_deliver(block_table *b, const nhood_coll_args *a, nhood_sched *s,
                             int (*arrived)(const void *ctx, int i), const void *ctx) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < b->n; i++)
    if (arrived(ctx, i)) NHOOD_TRY(nhood_sched_copy(s, b->now[b->key_now[i]], nhood_recv_block(a, i)));
  s->scratch_bytes = b->scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  return rc;
}
