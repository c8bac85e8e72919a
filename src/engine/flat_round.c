#include "engine/flat_round.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "engine/engine.h"

nhood_flat_round *nhood_flat_round_create(const nhood_sched *s, nhood_commctx *ctx, const void *sendbuf, void *recvbuf,
                                          const char *call) {
  if (s->nrounds != 1 || s->comm_begin[0] != 0 || s->scratch_bytes > 0 || s->round_end[0] < 1) return NULL;
  int n = s->round_end[0];
  nhood_flat_round *f = malloc(sizeof *f + (sizeof(nhood_flat_op) + sizeof(nhood_op) + sizeof(int)) * (size_t)n);
  if (!f) return NULL;
  if (nhood_mpi_transport_ctx_init(&f->slots, ctx->comm, n) != MPI_SUCCESS) {
    free(f);
    return NULL;
  }
  f->ctx = ctx;
  f->n = n;
  f->nrecv = 0;
  f->ntags = s->ntags;
  snprintf(f->call, sizeof f->call, "%s", call);
  nhood_op *ops = (nhood_op *)&f->flat[n];
  int *slot_op = (int *)&ops[n];
  char *base[NHOOD_NBUFS] = {(char *)sendbuf, recvbuf, NULL}; /* the send buffer is only read through */
  int k = 0, nslots = 0;
  for (int pass = 0; pass < 2; pass++) /* the receives, then the sends */
    for (int i = 0; i < n; i++) {
      const nhood_op *op = &s->ops[i];
      if ((op->kind == NHOOD_OP_RECV) != (pass == 0)) continue;
      MPI_Count size = 0;
      int eager = pass == 1 && MPI_Type_size_x(op->type, &size) == MPI_SUCCESS && size >= 0 &&
                  (long long)size * op->count <= NHOOD_FLAT_EAGER_BYTES;
      if (!eager) slot_op[nslots++] = k;
      ops[k] = *op;
      f->flat[k++] = (nhood_flat_op){.buf = base[op->buf] + op->offset,
                                     .type = op->type,
                                     .count = op->count,
                                     .peer = op->peer,
                                     .tag = op->tag,
                                     .eager = eager};
      if (pass == 0) f->nrecv = k;
    }
  f->ops = ops;
  f->slot_op = slot_op;
  f->nslots = nslots;
  return f;
}

int nhood_flat_round_failed(nhood_flat_round *f, int posted, int post_code, int wait_code) {
  int rc = MPI_SUCCESS, failed = -1;
  if (wait_code != MPI_SUCCESS) {
    rc = nhood_mpi_waitall_failed(&f->slots, f->nslots, wait_code, &failed);
    if (failed < 0) { /* not one operation's: the transport's own failure, reported as it is */
      nhood_error_context("%s", f->call);
      return rc;
    }
    failed = f->slot_op[failed];
  }
  if (posted >= 0) { /* the first failure of the run: its message replaces the completion's */
    rc = nhood_mpi_error(post_code, posted < f->nrecv ? "MPI_Irecv" : f->flat[posted].eager ? "MPI_Send" : "MPI_Isend");
    failed = posted;
  }
  nhood_op_describe(&f->ops[failed], NULL);
  nhood_error_context("%s", f->call);
  return rc;
}

void nhood_flat_round_free(nhood_flat_round *f) {
  if (!f) return;
  nhood_mpi_transport_ctx_free(&f->slots);
  free(f);
}
