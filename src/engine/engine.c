#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/hot.h"

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
  e->error = MPI_SUCCESS;
  e->error_message = NULL;
}

NHOOD_HOT void nhood_exec_free(nhood_exec *e) {
  if (e->error_message) free(e->error_message);
  e->error_message = NULL;
  e->error = MPI_SUCCESS;
}

static inline char *address(const nhood_exec *e, const nhood_op *op) { return e->base[op->buf] + op->offset; }

void nhood_op_describe(const nhood_op *op, const nhood_op *target) {
  const nhood_op *block_op = target ? target : op;
  char block[48] = "";
  if (block_op->block == NHOOD_BLOCK_UNKNOWN)
    snprintf(block, sizeof block, " block");
  else if (block_op->block > 0)
    snprintf(block, sizeof block, " block %d", block_op->block - 1);
  switch (op->kind) {
    case NHOOD_OP_RECV:
      if (block[0])
        nhood_error_context("receive%s from rank %d", block, op->peer);
      else
        nhood_error_context("a message from rank %d (blocks combined or forwarded)", op->peer);
      break;
    case NHOOD_OP_SEND:
      if (block[0])
        nhood_error_context("send%s to rank %d", block, op->peer);
      else
        nhood_error_context("a message to rank %d (blocks combined or forwarded)", op->peer);
      break;
    case NHOOD_OP_COPY:
      if (block_op->buf == NHOOD_BUF_RECV && block[0])
        nhood_error_context("receive%s from this process", block);
      else
        nhood_error_context("a local copy");
      break;
    default:
      nhood_error_context("a local reduction");
  }
}

/* Keeps the first failure of this run, described, to report when the run ends. */
static void note_failure(nhood_exec *e, int rc, const nhood_op *op, const nhood_op *target) {
  if (e->error != MPI_SUCCESS) return;
  nhood_op_describe(op, target);
  e->error = rc;
  e->error_message = nhood_error_save();
}

/* The run ended: its first failure, if any, becomes this call's error. */
NHOOD_HOT static inline int report(nhood_exec *e) {
  if (e->error == MPI_SUCCESS && e->error_message == NULL) return MPI_SUCCESS; /* every call of a hot loop */
  int rc = nhood_error_restore(e->error, e->error_message);
  nhood_exec_free(e);
  return rc;
}

/* Runs the local operations of the current round, then posts its communication. A failed
 * operation is noted and the round goes on. */
NHOOD_HOT static void begin_round(nhood_exec *e) {
  const nhood_sched *s = e->sched;
  const nhood_transport *t = e->transport;
  int rc, begin = e->round ? s->round_end[e->round - 1] : 0;
  int comm = s->comm_begin[e->round], end = s->round_end[e->round];
  for (int k = begin; k < comm; k += 2) { /* a local operation: source, then target entry */
    const nhood_op *src = &s->ops[k], *dst = &s->ops[k + 1];
    if (src->kind == NHOOD_OP_COPY)
      rc = t->copy(e->transport_ctx, address(e, src), src->count, src->type, address(e, dst), dst->count, dst->type);
    else
      rc =
          t->reduce(e->transport_ctx, address(e, src), address(e, dst), src->count, src->type, s->reduce_ops[src->tag]);
    if (rc != MPI_SUCCESS) note_failure(e, rc, src, dst);
  }
  e->nposted = 0;
  for (int k = comm; k < end; k++) {
    const nhood_op *op = &s->ops[k];
    if (op->kind == NHOOD_OP_RECV)
      rc = t->post_recv(e->transport_ctx, e->nposted++, address(e, op), op->count, op->type, op->peer,
                        e->tag_base + op->tag);
    else
      rc = t->post_send(e->transport_ctx, e->nposted++, address(e, op), op->count, op->type, op->peer,
                        e->tag_base + op->tag);
    if (rc != MPI_SUCCESS) note_failure(e, rc, op, NULL);
  }
}

/* Moves through rounds until one has communication in flight or the schedule is done. */
NHOOD_HOT static void advance(nhood_exec *e) {
  while (e->round < e->sched->nrounds) {
    begin_round(e);
    if (e->nposted > 0) break;
    e->round++;
  }
}

/* The transport's answer for the current round: an operation's failure is noted (the round
 * goes on); a failure of the transport itself ends the run. */
static int round_failed(nhood_exec *e, int rc, int failed) {
  if (failed < 0) {
    nhood_exec_free(e);
    e->round = e->sched->nrounds;
    return rc;
  }
  note_failure(e, rc, &e->sched->ops[e->sched->comm_begin[e->round] + failed], NULL);
  return MPI_SUCCESS;
}

NHOOD_HOT int nhood_exec_start(nhood_exec *e, int tag_base) {
  if (e->error != MPI_SUCCESS || e->error_message) nhood_exec_free(e);
  e->tag_base = tag_base;
  e->round = 0;
  e->nposted = 0;
  advance(e);
  return nhood_exec_done(e) ? report(e) : MPI_SUCCESS; /* a run of local operations only */
}

NHOOD_HOT int nhood_exec_run(nhood_exec *e, int tag_base) {
  const nhood_sched *s = e->sched;
  const nhood_transport *t = e->transport;
  if (s->nrounds != 1 || s->comm_begin[0] != 0 || t->post_round == NULL) {
    int rc = nhood_exec_start(e, tag_base);
    return rc == MPI_SUCCESS ? nhood_exec_wait(e) : rc;
  }
  if (e->error != MPI_SUCCESS || e->error_message) nhood_exec_free(e);
  int n = s->round_end[0], failed = -1;
  e->tag_base = tag_base;
  e->round = 0;
  int rc = t->post_round(e->transport_ctx, s->ops, n, e->base, tag_base, &failed);
  if (rc != MPI_SUCCESS) note_failure(e, rc, &s->ops[failed], NULL);
  e->nposted = n;
  rc = t->wait(e->transport_ctx, n, &failed);
  if (rc != MPI_SUCCESS && (rc = round_failed(e, rc, failed)) != MPI_SUCCESS) return rc;
  e->round = 1;
  return report(e);
}

NHOOD_HOT int nhood_exec_test(nhood_exec *e, int *done) {
  int rc = MPI_SUCCESS;
  while (!nhood_exec_done(e)) {
    int round_done = 0, failed = -1;
    rc = e->transport->test(e->transport_ctx, e->nposted, &round_done, &failed);
    if (rc != MPI_SUCCESS && (rc = round_failed(e, rc, failed)) != MPI_SUCCESS) {
      *done = 1;
      return rc;
    }
    if (!round_done) break;
    e->round++;
    advance(e);
  }
  *done = nhood_exec_done(e);
  return *done ? report(e) : MPI_SUCCESS;
}

NHOOD_HOT int nhood_exec_wait(nhood_exec *e) {
  while (!nhood_exec_done(e)) {
    int failed = -1, rc = e->transport->wait(e->transport_ctx, e->nposted, &failed);
    if (rc != MPI_SUCCESS && (rc = round_failed(e, rc, failed)) != MPI_SUCCESS) return rc;
    e->round++;
    advance(e);
  }
  return report(e);
}
