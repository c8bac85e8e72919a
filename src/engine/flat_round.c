#include "engine/flat_round.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "engine/engine.h"

nhood_flat_round *nhood_flat_round_create(const nhood_sched *s, nhood_commctx *ctx, const void *sendbuf, void *recvbuf,
                                          const char *call) {
  if (s->nrounds != 1 || s->scratch_bytes > 0 || s->round_end[0] < 1) return NULL;
  int nlocal = s->comm_begin[0] / 2, n = s->round_end[0] - s->comm_begin[0];
  /* one allocation: the structure and its flat operations, the local ones, the entries and
   * the request slots' operations (in that order, each aligned for the next) */
  nhood_flat_round *f = malloc(sizeof *f + (sizeof(nhood_flat_op) + sizeof(nhood_op) + sizeof(int)) * (size_t)n +
                               sizeof(nhood_flat_local) * (size_t)nlocal);
  if (!f) return NULL;
  if (nhood_mpi_transport_ctx_init(&f->slots, ctx->comm, n) != MPI_SUCCESS) {
    free(f);
    return NULL;
  }
  char *base[NHOOD_NBUFS] = {(char *)sendbuf, recvbuf, NULL}; /* the send buffer is only read through */
  nhood_flat_local *local = (nhood_flat_local *)&f->flat[n];
  for (int c = 0; c < nlocal; c++) {
    const nhood_op *src = &s->ops[2 * c], *dst = &s->ops[2 * c + 1];
    local[c] = (nhood_flat_local){.src = base[src->buf] + src->offset,
                                  .dst = base[dst->buf] + dst->offset,
                                  .stype = src->type,
                                  .dtype = dst->type,
                                  .scount = src->count,
                                  .dcount = dst->count,
                                  .op = src->kind == NHOOD_OP_COPY ? MPI_OP_NULL : s->reduce_ops[src->tag],
                                  .entries = {*src, *dst}};
  }
  f->local = local;
  f->nlocal = nlocal;
  f->ctx = ctx;
  f->n = n;
  f->nrecv = 0;
  f->ntags = s->ntags;
  snprintf(f->call, sizeof f->call, "%s", call);
  nhood_op *ops = (nhood_op *)&local[nlocal];
  int *slot_op = (int *)&ops[n];
  int k = 0, nslots = 0;
  for (int pass = 0; pass < 2; pass++) /* the receives, then the sends */
    for (int i = 0; i < n; i++) {
      const nhood_op *op = &s->ops[s->comm_begin[0] + i];
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

char *nhood_flat_round_local(nhood_flat_round *f, int *code) {
  nhood_mpi_transport_ctx_new_run(&f->slots); /* a datatype's handle may name another type now */
  *code = MPI_SUCCESS;
  char *saved = NULL;
  for (int c = 0; c < f->nlocal; c++) {
    const nhood_flat_local *l = &f->local[c];
    int rc = l->op == MPI_OP_NULL
                 ? nhood_mpi_transport.copy(&f->slots, l->src, l->scount, l->stype, l->dst, l->dcount, l->dtype)
                 : nhood_mpi_transport.reduce(&f->slots, l->src, l->dst, l->scount, l->stype, l->op);
    if (rc != MPI_SUCCESS && *code == MPI_SUCCESS) { /* the first failure, described as the engine does */
      nhood_op_describe(&l->entries[0], &l->entries[1]);
      *code = rc;
      saved = nhood_error_save();
    }
  }
  return saved;
}

int nhood_flat_round_failed(nhood_flat_round *f, int posted, int post_code, int wait_code, int local_code,
                            char *local_error) {
  int rc = MPI_SUCCESS, failed = -1;
  if (wait_code != MPI_SUCCESS) {
    rc = nhood_mpi_waitall_failed(&f->slots, f->nslots, wait_code, &failed);
    if (failed < 0) { /* not one operation's: the transport's own failure, reported as it is (as the engine) */
      free(local_error);
      nhood_error_context("%s", f->call);
      return rc;
    }
    failed = f->slot_op[failed];
  }
  if (local_code != MPI_SUCCESS) { /* a local operation ran first and failed first */
    rc = nhood_error_restore(local_code, local_error);
    free(local_error);
  } else {
    if (posted >= 0) { /* the first failure of the run: its message replaces the completion's */
      rc = nhood_mpi_error(post_code, posted < f->nrecv       ? "MPI_Irecv"
                                      : f->flat[posted].eager ? "MPI_Send"
                                                              : "MPI_Isend");
      failed = posted;
    }
    nhood_op_describe(&f->ops[failed], NULL);
  }
  nhood_error_context("%s", f->call);
  return rc;
}

void nhood_flat_round_free(nhood_flat_round *f) {
  if (!f) return;
  nhood_mpi_transport_ctx_free(&f->slots);
  free(f);
}
