/*
 * The schedule engine over a fake transport, without MPI: several virtual ranks in one
 * process exchange eagerly buffered messages matched by (source, tag) in FIFO order, as
 * MPI's non-overtaking rule does. Data is MPI_BYTE only (count = bytes), so no MPI call is
 * ever made.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "schedule/algorithms.h"
#include "unit.h"

#define MAX_RANKS 8
#define MAX_SLOTS 64
#define MAX_MSGS 512

typedef struct {
  int src, dst, tag, bytes;
  char data[64];
} message;

static message queue[MAX_MSGS];
static int nqueued;

typedef struct {
  int rank;
  struct {
    int pending;
    char *buf;
    int bytes, peer, tag;
  } slot[MAX_SLOTS];
  int tests; /* how often the engine asked */
} fake_ctx;

static int fake_send(void *c, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag) {
  fake_ctx *ctx = c;
  (void)type;
  message *m = &queue[nqueued++];
  *m = (message){ctx->rank, peer, tag, count, {0}};
  memcpy(m->data, buf, (size_t)count);
  ctx->slot[slot].pending = 0;
  return MPI_SUCCESS;
}

static int fake_recv(void *c, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag) {
  fake_ctx *ctx = c;
  (void)type;
  ctx->slot[slot].pending = 1;
  ctx->slot[slot].buf = buf;
  ctx->slot[slot].bytes = count;
  ctx->slot[slot].peer = peer;
  ctx->slot[slot].tag = tag;
  return MPI_SUCCESS;
}

/* Matches pending receives, in slot order, against the first queued message from that
 * source with that tag. */
static int fake_test(void *c, int nslots, int *done, int *failed) {
  fake_ctx *ctx = c;
  *failed = -1;
  ctx->tests++;
  *done = 1;
  for (int s = 0; s < nslots; s++) {
    if (!ctx->slot[s].pending) continue;
    for (int k = 0; k < nqueued; k++) {
      message *m = &queue[k];
      if (m->dst != ctx->rank || m->src != ctx->slot[s].peer || m->tag != ctx->slot[s].tag) continue;
      memcpy(ctx->slot[s].buf, m->data, (size_t)m->bytes);
      memmove(m, m + 1, sizeof *m * (size_t)(nqueued - k - 1));
      nqueued--;
      ctx->slot[s].pending = 0;
      break;
    }
    *done &= !ctx->slot[s].pending;
  }
  return MPI_SUCCESS;
}

static int fake_wait(void *c, int nslots, int *failed) {
  int done = 0;
  fake_test(c, nslots, &done, failed);
  return done ? MPI_SUCCESS : MPI_ERR_PENDING; /* one process cannot block for others */
}

static int fake_copy(void *c, const void *src, int scount, MPI_Datatype st, void *dst, int dcount, MPI_Datatype dt) {
  (void)c, (void)st, (void)dt;
  if (scount > dcount) return MPI_ERR_TRUNCATE;
  memcpy(dst, src, (size_t)scount);
  return MPI_SUCCESS;
}

/* Byte-wise addition stands in for any MPI_Op. */
static int fake_reduce(void *c, const void *src, void *dst, int count, MPI_Datatype t, MPI_Op op) {
  (void)c, (void)t, (void)op;
  for (int k = 0; k < count; k++) ((char *)dst)[k] = (char)(((const char *)src)[k] + ((char *)dst)[k]);
  return MPI_SUCCESS;
}

static const nhood_transport fake = {fake_send, fake_recv, fake_wait, fake_test, fake_copy, fake_reduce};

/* Runs one execution per virtual rank to completion by round-robin testing.
 * Returns 0 when all completed, -1 on a stall (deadlock). */
static int run_all(int n, nhood_exec exec[], int tag_base) {
  for (int r = 0; r < n; r++)
    if (nhood_exec_start(&exec[r], tag_base) != MPI_SUCCESS) return -1;
  for (int sweep = 0; sweep < 100; sweep++) {
    int all = 1;
    for (int r = 0; r < n; r++) {
      int done = 0;
      if (nhood_exec_test(&exec[r], &done) != MPI_SUCCESS) return -1;
      all &= done;
    }
    if (all) return nqueued == 0 ? 0 : -1; /* no message may be left over */
  }
  return -1;
}

/* A topology object built by hand (unit tests may use internals). */
static NHOOD_Topo make_topo(nhood_topo_kind kind, int indeg, const int *src, int outdeg, const int *dst,
                            const int *recv_channel, const int *send_channel, int nchannels) {
  NHOOD_Topo t = NULL;
  nhood_topo_alloc(kind, indeg, outdeg, 0, recv_channel != NULL, 0, 0, &t);
  memcpy(t->sources, src, sizeof(int) * (size_t)indeg);
  memcpy(t->destinations, dst, sizeof(int) * (size_t)outdeg);
  if (recv_channel) {
    memcpy(t->recv_channel, recv_channel, sizeof(int) * (size_t)indeg);
    memcpy(t->send_channel, send_channel, sizeof(int) * (size_t)outdeg);
  }
  t->nchannels = nchannels;
  return t;
}

static nhood_coll_args alltoall_bytes(const void *sendbuf, void *recvbuf, int bytes) {
  return (nhood_coll_args){.kind = NHOOD_ALLTOALL,
                           .sendbuf = sendbuf,
                           .recvbuf = recvbuf,
                           .sendcount = bytes,
                           .recvcount = bytes,
                           .sendtype = MPI_BYTE,
                           .recvtype = MPI_BYTE,
                           .send_extent = 1,
                           .recv_extent = 1};
}

/* Direct alltoall on a 3-rank multigraph with a duplicate edge 0->1, a self loop on 2 and a
 * rank (1) that sends to nobody but 2. Checks the MPI-4.1 duplicate pairing. */
static void test_direct_multigraph(void) {
  /* edges (send block order): 0: ->1, ->1, ->2 ; 1: ->2 ; 2: ->2 (self), ->0 */
  int d0[] = {1, 1, 2}, d1[] = {2}, d2[] = {2, 0};
  /* receive order: 0: <-2 ; 1: <-0, <-0 ; 2: <-2 (self), <-1, <-0 */
  int s0[] = {2}, s1[] = {0, 0}, s2[] = {2, 1, 0};
  NHOOD_Topo t[3] = {make_topo(NHOOD_TOPO_ADJACENT, 1, s0, 3, d0, NULL, NULL, 1),
                     make_topo(NHOOD_TOPO_ADJACENT, 2, s1, 1, d1, NULL, NULL, 1),
                     make_topo(NHOOD_TOPO_ADJACENT, 3, s2, 2, d2, NULL, NULL, 1)};
  char send[3][3] = {{'a', 'b', 'c'}, {'d'}, {'e', 'f'}}, recv[3][3];
  memset(recv, '.', sizeof recv);
  nhood_sched sched[3];
  fake_ctx ctx[3];
  nhood_exec exec[3];
  for (int r = 0; r < 3; r++) {
    nhood_coll_args a = alltoall_bytes(send[r], recv[r], 1);
    CHECK(nhood_build_direct(t[r], &a, r, &sched[r]) == MPI_SUCCESS, "build rank %d", r);
    ctx[r] = (fake_ctx){.rank = r};
    nhood_exec_init(&exec[r], &sched[r], &fake, &ctx[r], send[r], recv[r], NULL);
  }
  CHECK(sched[0].nsends == 3 && sched[0].nrecvs == 1 && sched[0].comm_rounds == 1, "rank 0 shape");
  CHECK(sched[2].nsends == 1 && sched[2].nrecvs == 2, "self loop is a copy, not a message");
  for (int rep = 0; rep < 2; rep++) { /* the second run reuses the schedules (persistent) */
    memset(recv, '.', sizeof recv);
    CHECK(run_all(3, exec, 100 * rep) == 0, "direct multigraph completes (run %d)", rep);
    CHECK(recv[0][0] == 'f', "rank 0 block 0 from rank 2 = '%c'", recv[0][0]);
    CHECK(recv[1][0] == 'a' && recv[1][1] == 'b', "duplicate edges pair in order: '%c%c'", recv[1][0], recv[1][1]);
    CHECK(recv[2][0] == 'e' && recv[2][1] == 'd' && recv[2][2] == 'c', "rank 2 got '%c%c%c'", recv[2][0], recv[2][1],
          recv[2][2]);
  }
  for (int r = 0; r < 3; r++) {
    nhood_sched_free(&sched[r]);
    free(t[r]);
  }
}

/* A periodic Cartesian dimension of size 2: both neighbors of each rank are the other rank,
 * and receive block i must pair with the peer's send block i^1, which only channels give. */
static void test_direct_cart_channels(void) {
  int nb[2][2] = {{1, 1}, {0, 0}}, rch[2] = {1, 0}, sch[2] = {0, 1};
  NHOOD_Topo t[2] = {make_topo(NHOOD_TOPO_CART, 2, nb[0], 2, nb[0], rch, sch, 2),
                     make_topo(NHOOD_TOPO_CART, 2, nb[1], 2, nb[1], rch, sch, 2)};
  char send[2][2] = {{'a', 'b'}, {'c', 'd'}}, recv[2][2];
  nhood_sched sched[2];
  fake_ctx ctx[2];
  nhood_exec exec[2];
  for (int r = 0; r < 2; r++) {
    nhood_coll_args a = alltoall_bytes(send[r], recv[r], 1);
    CHECK(nhood_build_direct(t[r], &a, r, &sched[r]) == MPI_SUCCESS, "build");
    ctx[r] = (fake_ctx){.rank = r};
    nhood_exec_init(&exec[r], &sched[r], &fake, &ctx[r], send[r], recv[r], NULL);
  }
  CHECK(sched[0].ntags == 2, "two channels need two tags");
  CHECK(run_all(2, exec, 0) == 0, "cart size-2 completes");
  CHECK(recv[0][0] == 'd' && recv[0][1] == 'c', "rank 0 got '%c%c', expected 'dc'", recv[0][0], recv[0][1]);
  CHECK(recv[1][0] == 'b' && recv[1][1] == 'a', "rank 1 got '%c%c', expected 'ba'", recv[1][0], recv[1][1]);
  for (int r = 0; r < 2; r++) {
    nhood_sched_free(&sched[r]);
    free(t[r]);
  }
}

/* A hand-built three-round schedule on two ranks checks the round rules: local operations
 * run before the round's communication, scratch addressing, a local-only final round, and
 * that the engine never tests more than the current round's slots. Rank 0 sends "xy" to
 * rank 1, which receives it into scratch, adds it onto its own receive buffer, and sends
 * the sum back. */
static void test_rounds_and_scratch(void) {
  nhood_sched s0, s1;
  nhood_region send0 = {0, MPI_BYTE, 2, NHOOD_BUF_SEND, 0}, recv0 = {0, MPI_BYTE, 2, NHOOD_BUF_RECV, 0};
  nhood_region scratch1 = {4, MPI_BYTE, 2, NHOOD_BUF_SCRATCH, 0}, recv1 = {0, MPI_BYTE, 2, NHOOD_BUF_RECV, 0};
  nhood_region send1 = {0, MPI_BYTE, 2, NHOOD_BUF_SEND, 0};
  nhood_sched_init(&s0, "test", 4, 2);
  nhood_sched_send(&s0, 1, 0, send0);
  nhood_sched_fence(&s0);
  nhood_sched_recv(&s0, 1, 1, recv0);
  nhood_sched_finish(&s0);
  nhood_sched_init(&s1, "test", 4, 2);
  nhood_sched_recv(&s1, 0, 0, scratch1); /* round 0: added before the copy, ... */
  nhood_sched_copy(&s1, send1, recv1);   /* ... which finish moves ahead of it */
  nhood_sched_fence(&s1);
  nhood_sched_reduce(&s1, scratch1, recv1, MPI_SUM); /* round 1 reads what round 0 received */
  nhood_sched_send(&s1, 0, 1, recv1);
  nhood_sched_fence(&s1);
  nhood_sched_fence(&s1);                                                             /* empty rounds are dropped */
  nhood_sched_copy(&s1, recv1, (nhood_region){0, MPI_BYTE, 2, NHOOD_BUF_SCRATCH, 0}); /* local-only round */
  nhood_sched_finish(&s1);
  s1.scratch_bytes = 8;
  CHECK(s1.nrounds == 3 && s1.comm_rounds == 2 && s1.max_comm_per_round == 1, "rounds %d comm %d", s1.nrounds,
        s1.comm_rounds);
  CHECK(s1.ops[0].kind == NHOOD_OP_COPY && s1.ops[1].kind == NHOOD_OP_TARGET && s1.ops[2].kind == NHOOD_OP_RECV &&
            s1.comm_begin[0] == 2,
        "local operations ordered first in a round");

  char in0[2] = {'x', 'y'}, out0[2] = {0, 0}, in1[2] = {1, 2}, out1[2] = {0, 0}, scratch[8] = {0};
  fake_ctx c0 = {.rank = 0}, c1 = {.rank = 1};
  nhood_exec e[2];
  nhood_exec_init(&e[0], &s0, &fake, &c0, in0, out0, NULL);
  nhood_exec_init(&e[1], &s1, &fake, &c1, in1, out1, scratch);
  CHECK(run_all(2, e, 7) == 0, "three-round schedule completes");
  CHECK(out0[0] == 'x' + 1 && out0[1] == 'y' + 2, "rank 0 got the sum back: %d %d", out0[0], out0[1]);
  CHECK(scratch[0] == 'x' + 1 && scratch[4] == 'x', "scratch offsets resolved");
  nhood_sched_free(&s0);
  nhood_sched_free(&s1);
}

/* Empty schedule (no neighbors): starts complete. */
static void test_empty(void) {
  NHOOD_Topo t = make_topo(NHOOD_TOPO_ADJACENT, 0, NULL, 0, NULL, NULL, NULL, 1);
  nhood_coll_args a = alltoall_bytes(NULL, NULL, 4);
  nhood_sched s;
  CHECK(nhood_build_direct(t, &a, 0, &s) == MPI_SUCCESS && s.nrounds == 0, "empty schedule");
  fake_ctx c = {.rank = 0};
  nhood_exec e;
  nhood_exec_init(&e, &s, &fake, &c, NULL, NULL, NULL);
  CHECK(nhood_exec_start(&e, 0) == MPI_SUCCESS && nhood_exec_done(&e), "empty schedule completes at start");
  nhood_sched_free(&s);
  free(t);
}

/* More receives from oneself than sends to oneself is reported, not a hang. */
static void test_inconsistent_self_loop(void) {
  int self[2] = {0, 0};
  NHOOD_Topo t = make_topo(NHOOD_TOPO_ADJACENT, 2, self, 1, self, NULL, NULL, 1);
  char buf[4];
  nhood_coll_args a = alltoall_bytes(buf, buf, 1);
  nhood_sched s;
  CHECK(nhood_build_direct(t, &a, 0, &s) == MPI_ERR_TOPOLOGY, "unpaired self receive is an error");
  free(t);
}

int main(void) {
  test_direct_multigraph();
  test_direct_cart_channels();
  test_rounds_and_scratch();
  test_empty();
  test_inconsistent_self_loop();
  return unit_summary("test_engine");
}
