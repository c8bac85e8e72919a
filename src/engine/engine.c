#include "engine/engine.h"

#include "common/errors.h"

void nhood_exec_init(nhood_exec *e, const nhood_sched *s, const nhood_transport *t, void *tctx, const void *sendbuf,
                     void *recvbuf, void *scratch) {
  e->sched = s;
  e->transport = t;
  e->transport_ctx = tctx;
  e->base[NHOOD_BUF_SEND] = (char *)sendbuf; /* only ever read through */
  e->base[NHOOD_BUF_RECV] = recvbuf;
  e->base[NHOOD_BUF_SCRATCH] = scratch;
  e->tag_base = 0;
  e->round = s->nrounds;
  e->nposted = 0;
}

static inline char *address(const nhood_exec *e, const nhood_op *op) { return e->base[op->buf] + op->offset; }

/* Runs the local operations of the current round, then posts its communication. */
static int begin_round(nhood_exec *e) {
  const nhood_sched *s = e->sched;
  const nhood_transport *t = e->transport;
  int rc = MPI_SUCCESS, begin = e->round ? s->round_end[e->round - 1] : 0;
  int comm = s->comm_begin[e->round], end = s->round_end[e->round];
  for (int k = begin; k < comm; k += 2) { /* a local operation: source, then target entry */
    const nhood_op *src = &s->ops[k], *dst = &s->ops[k + 1];
    if (src->kind == NHOOD_OP_COPY)
      NHOOD_TRY(
          t->copy(e->transport_ctx, address(e, src), src->count, src->type, address(e, dst), dst->count, dst->type));
    else
      NHOOD_TRY(t->reduce(e->transport_ctx, address(e, src), address(e, dst), src->count, src->type,
                          s->reduce_ops[src->tag]));
  }
  e->nposted = 0;
  for (int k = comm; k < end; k++) {
    const nhood_op *op = &s->ops[k];
    if (op->kind == NHOOD_OP_RECV)
      NHOOD_TRY(t->post_recv(e->transport_ctx, e->nposted++, address(e, op), op->count, op->type, op->peer,
                             e->tag_base + op->tag));
    else
      NHOOD_TRY(t->post_send(e->transport_ctx, e->nposted++, address(e, op), op->count, op->type, op->peer,
                             e->tag_base + op->tag));
  }
cleanup:
  return rc;
}

/* Moves through rounds until one has communication in flight or the schedule is done. */
static int advance(nhood_exec *e) {
  int rc = MPI_SUCCESS;
  while (e->round < e->sched->nrounds) {
    NHOOD_TRY(begin_round(e));
    if (e->nposted > 0) break;
    e->round++;
  }
cleanup:
  return rc;
}

int nhood_exec_start(nhood_exec *e, int tag_base) {
  e->tag_base = tag_base;
  e->round = 0;
  e->nposted = 0;
  return advance(e);
}

int nhood_exec_test(nhood_exec *e, int *done) {
  int rc = MPI_SUCCESS, round_done = 0;
  while (!nhood_exec_done(e)) {
    NHOOD_TRY(e->transport->test(e->transport_ctx, e->nposted, &round_done));
    if (!round_done) break;
    e->round++;
    NHOOD_TRY(advance(e));
  }
cleanup:
  *done = nhood_exec_done(e);
  return rc;
}

int nhood_exec_wait(nhood_exec *e) {
  int rc = MPI_SUCCESS;
  while (!nhood_exec_done(e)) {
    NHOOD_TRY(e->transport->wait(e->transport_ctx, e->nposted));
    e->round++;
    NHOOD_TRY(advance(e));
  }
cleanup:
  return rc;
}
