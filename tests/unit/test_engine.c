/*
 * The schedule engine on virtual ranks, without MPI: several ranks in one process run over
 * nhood-sim's in-process transport (tests/virtual/sim_net.h), which buffers messages eagerly and
 * matches them by (source, tag) in FIFO order, as MPI's non-overtaking rule does. Data is
 * MPI_BYTE only (count = bytes), so no MPI call is ever made.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "engine/engine.h"
#include "schedule/algorithms.h"
#include "sim_net.h"
#include "unit.h"

#define MAX_SLOTS 64

/* A rank's port on the simulator's transport, wrapped for what this test needs beyond it: a
 * reduction (nhood-sim refuses them) and a check that the engine only ever tests the slots it
 * posted in the current round. */
typedef struct test_port {
  sim_port port;
  char posted[MAX_SLOTS]; /* slots of the current round */
  int nposted;
  int slot_errors; /* posts into a slot in use; tests of other slots than those posted */
} test_port;

static void post(test_port *p, int slot) {
  if (slot < 0 || slot >= MAX_SLOTS || p->posted[slot]) {
    p->slot_errors++;
    return;
  }
  p->posted[slot] = 1;
  p->nposted++;
}

/* A test or wait of slots [0, nslots) must name exactly the posted ones. */
static void check_tested(test_port *p, int nslots) {
  int exact = nslots == p->nposted;
  for (int s = 0; exact && s < nslots; s++) exact = s < MAX_SLOTS && p->posted[s];
  p->slot_errors += !exact;
}

static void round_completed(test_port *p) {
  memset(p->posted, 0, sizeof p->posted);
  p->nposted = 0;
}

static int checked_send(void *c, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag) {
  test_port *p = c;
  post(p, slot);
  return sim_net_transport.post_send(&p->port, slot, buf, count, type, peer, tag);
}

static int checked_recv(void *c, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag) {
  test_port *p = c;
  post(p, slot);
  return sim_net_transport.post_recv(&p->port, slot, buf, count, type, peer, tag);
}

static int checked_test(void *c, int nslots, int *done, int *failed) {
  test_port *p = c;
  check_tested(p, nslots);
  int rc = sim_net_transport.test(&p->port, nslots, done, failed);
  if (*done) round_completed(p);
  return rc;
}

static int checked_wait(void *c, int nslots, int *failed) {
  test_port *p = c;
  check_tested(p, nslots);
  int rc = sim_net_transport.wait(&p->port, nslots, failed);
  if (rc == MPI_SUCCESS) round_completed(p);
  return rc;
}

static int checked_copy(void *c, const void *src, int scount, MPI_Datatype st, void *dst, int dcount, MPI_Datatype dt) {
  return sim_net_transport.copy(&((test_port *)c)->port, src, scount, st, dst, dcount, dt);
}

/* Byte-wise addition stands in for any MPI_Op. */
static int byte_sum(void *c, const void *src, void *dst, int count, MPI_Datatype t, MPI_Op op) {
  (void)c, (void)t, (void)op;
  for (int k = 0; k < count; k++) ((char *)dst)[k] = (char)(((const char *)src)[k] + ((char *)dst)[k]);
  return MPI_SUCCESS;
}

static const nhood_transport transport = {
    .post_send = checked_send,
    .post_recv = checked_recv,
    .wait = checked_wait,
    .test = checked_test,
    .copy = checked_copy,
    .reduce = byte_sum,
};

/* A round posted in one call (nhood_exec_run), through the checked posts; the entry refuse_op
 * is posted but reported refused, as a transport reports a failed post. */
static int round_calls, refuse_op = -1;
static int checked_round(void *c, const nhood_op *ops, int n, char *const base[], int tag_base, int *failed) {
  int rc = MPI_SUCCESS;
  round_calls++;
  *failed = -1;
  for (int k = 0; k < n; k++) {
    char *buf = base[ops[k].buf] + ops[k].offset;
    int code = ops[k].kind == NHOOD_OP_RECV
                   ? checked_recv(c, k, buf, ops[k].count, ops[k].type, ops[k].peer, tag_base + ops[k].tag)
                   : checked_send(c, k, buf, ops[k].count, ops[k].type, ops[k].peer, tag_base + ops[k].tag);
    if (code == MPI_SUCCESS && k == refuse_op) code = nhood_error(MPI_ERR_RANK, "entry %d refused", k);
    if (code != MPI_SUCCESS && *failed < 0) *failed = k, rc = code;
  }
  return rc;
}

static const nhood_transport round_transport = {
    .post_send = checked_send,
    .post_recv = checked_recv,
    .wait = checked_wait,
    .test = checked_test,
    .copy = checked_copy,
    .reduce = byte_sum,
    .post_round = checked_round,
};

/* n virtual ranks on one net, port[r] being rank r's; net reports into problem. */
static void net_init(sim_net *net, int n, test_port port[], char *problem, size_t problemlen) {
  CHECK(sim_net_init(net, n, NULL, problem, problemlen) == 0, "a net of %d ranks", n);
  for (int r = 0; r < n; r++) port[r] = (test_port){.port = {net, r}};
}

/* Runs one execution per virtual rank to completion by round-robin testing. Returns 0 when
 * all completed, no message is left over and the engine tested only posted slots; else -1
 * (a stall among them) with net->problem saying why. */
static int run_all(sim_net *net, nhood_exec exec[], const test_port port[], int tag_base) {
  if (sim_net_run(net, exec, tag_base) != 0 || sim_net_report_leftover(net) != 0) return -1;
  for (int r = 0; r < net->nranks; r++)
    if (port[r].slot_errors != 0) {
      sim_net_report(net, "rank %d: the engine posted into a busy slot or tested unposted ones", r);
      return -1;
    }
  return 0;
}

/* A topology object built by hand (unit tests may use internals). */
static NHOOD_Topo make_topo(nhood_topo_kind kind, int indeg, const int *src, int outdeg, const int *dst,
                            const int *recv_channel, const int *send_channel, int nchannels) {
  NHOOD_Topo t = NULL;
  nhood_topo_alloc(kind, indeg, outdeg, 0, recv_channel != NULL, 0, 0, &t);
  if (indeg > 0) memcpy(t->sources, src, sizeof(int) * (size_t)indeg); /* src may be NULL then */
  if (outdeg > 0) memcpy(t->destinations, dst, sizeof(int) * (size_t)outdeg);
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
  sim_net net;
  char problem[256];
  test_port port[3];
  nhood_exec exec[3];
  net_init(&net, 3, port, problem, sizeof problem);
  for (int r = 0; r < 3; r++) {
    nhood_coll_args a = alltoall_bytes(send[r], recv[r], 1);
    CHECK(nhood_build_direct(t[r], &a, r, &sched[r]) == MPI_SUCCESS, "build rank %d", r);
    nhood_exec_init(&exec[r], &sched[r], &transport, &port[r], send[r], recv[r], NULL);
  }
  CHECK(sched[0].nsends == 3 && sched[0].nrecvs == 1 && sched[0].comm_rounds == 1, "rank 0 shape");
  CHECK(sched[2].nsends == 1 && sched[2].nrecvs == 2, "self loop is a copy, not a message");
  for (int rep = 0; rep < 2; rep++) { /* the second run reuses the schedules (persistent) */
    memset(recv, '.', sizeof recv);
    CHECK(run_all(&net, exec, port, 100 * rep) == 0, "direct multigraph completes (run %d): %s", rep, problem);
    CHECK(recv[0][0] == 'f', "rank 0 block 0 from rank 2 = '%c'", recv[0][0]);
    CHECK(recv[1][0] == 'a' && recv[1][1] == 'b', "duplicate edges pair in order: '%c%c'", recv[1][0], recv[1][1]);
    CHECK(recv[2][0] == 'e' && recv[2][1] == 'd' && recv[2][2] == 'c', "rank 2 got '%c%c%c'", recv[2][0], recv[2][1],
          recv[2][2]);
  }
  sim_net_free(&net);
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
  sim_net net;
  char problem[256];
  test_port port[2];
  nhood_exec exec[2];
  net_init(&net, 2, port, problem, sizeof problem);
  for (int r = 0; r < 2; r++) {
    nhood_coll_args a = alltoall_bytes(send[r], recv[r], 1);
    CHECK(nhood_build_direct(t[r], &a, r, &sched[r]) == MPI_SUCCESS, "build");
    nhood_exec_init(&exec[r], &sched[r], &transport, &port[r], send[r], recv[r], NULL);
  }
  CHECK(sched[0].ntags == 2, "two channels need two tags");
  CHECK(run_all(&net, exec, port, 0) == 0, "cart size-2 completes: %s", problem);
  CHECK(recv[0][0] == 'd' && recv[0][1] == 'c', "rank 0 got '%c%c', expected 'dc'", recv[0][0], recv[0][1]);
  CHECK(recv[1][0] == 'b' && recv[1][1] == 'a', "rank 1 got '%c%c', expected 'ba'", recv[1][0], recv[1][1]);
  sim_net_free(&net);
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
  sim_net net;
  char problem[256];
  test_port port[2];
  nhood_exec e[2];
  net_init(&net, 2, port, problem, sizeof problem);
  nhood_exec_init(&e[0], &s0, &transport, &port[0], in0, out0, NULL);
  nhood_exec_init(&e[1], &s1, &transport, &port[1], in1, out1, scratch);
  CHECK(run_all(&net, e, port, 7) == 0, "three-round schedule completes: %s", problem);
  CHECK(out0[0] == 'x' + 1 && out0[1] == 'y' + 2, "rank 0 got the sum back: %d %d", out0[0], out0[1]);
  CHECK(scratch[0] == 'x' + 1 && scratch[4] == 'x', "scratch offsets resolved");
  sim_net_free(&net);
  nhood_sched_free(&s0);
  nhood_sched_free(&s1);
}

/* nhood_sched_finish orders a round as it runs: local operations, receives, sends, each group
 * in the order it was added (so that messages match as written); a round already in that
 * order stays as it is. */
static void test_round_order(void) {
  nhood_sched s;
  nhood_region b = {0, MPI_BYTE, 1, NHOOD_BUF_SEND, 0}, r = {0, MPI_BYTE, 1, NHOOD_BUF_RECV, 0};
  nhood_sched_init(&s, "test", 8, 4);
  nhood_sched_send(&s, 0, 0, b); /* to itself, before its receive */
  nhood_sched_recv(&s, 0, 0, r);
  nhood_sched_send(&s, 1, 1, b);
  nhood_sched_copy(&s, b, r);
  nhood_sched_recv(&s, 1, 2, r);
  nhood_sched_fence(&s);
  nhood_sched_recv(&s, 1, 3, r);
  nhood_sched_send(&s, 1, 3, b);
  nhood_sched_finish(&s);
  static const int kinds[8] = {NHOOD_OP_COPY, NHOOD_OP_TARGET, NHOOD_OP_RECV, NHOOD_OP_RECV,
                               NHOOD_OP_SEND, NHOOD_OP_SEND,   NHOOD_OP_RECV, NHOOD_OP_SEND};
  static const int tags[8] = {-1, -1, 0, 2, 0, 1, 3, 3};
  int ok = s.nops == 8 && s.comm_begin[0] == 2 && s.round_end[0] == 6 && s.comm_begin[1] == 6;
  for (int k = 0; ok && k < 8; k++) ok = s.ops[k].kind == kinds[k] && (tags[k] < 0 || s.ops[k].tag == tags[k]);
  CHECK(ok, "a round's entries: local operations, receives, sends, each in the order added");
  nhood_sched_free(&s);
}

/* nhood_sched_local_messages: a round's messages to the process itself become copies, the
 * i-th receive of a tag from the i-th send of it, ahead of the round's other messages; a round
 * where one of them has no partner stays as it is. Rank 1 of 2: round 0 sends two blocks to
 * itself with one tag and one to rank 0; round 1 sends to itself a tag it does not receive. */
static void test_local_messages(void) {
  nhood_sched s;
  nhood_region r0 = {0, MPI_BYTE, 1, NHOOD_BUF_RECV, 1}, r1 = {1, MPI_BYTE, 1, NHOOD_BUF_RECV, 2};
  nhood_region s0 = {4, MPI_BYTE, 1, NHOOD_BUF_SEND, 1}, s1 = {5, MPI_BYTE, 1, NHOOD_BUF_SEND, 2};
  nhood_sched_init(&s, "test", 12, 4);
  nhood_sched_send(&s, 1, 0, s0);
  nhood_sched_send(&s, 0, 0, s0);
  nhood_sched_send(&s, 1, 0, s1);
  nhood_sched_recv(&s, 1, 0, r0);
  nhood_sched_recv(&s, 0, 0, r1);
  nhood_sched_recv(&s, 1, 0, r1);
  nhood_sched_fence(&s);
  nhood_sched_recv(&s, 1, 1, r0);
  nhood_sched_send(&s, 1, 2, s0);
  nhood_sched_finish(&s);
  CHECK(nhood_sched_local_messages(&s, 1) == MPI_SUCCESS, "local messages");
  const nhood_op *o = s.ops;
  int ok = s.comm_begin[0] == 4 && s.round_end[0] == 6 && o[0].kind == NHOOD_OP_COPY && o[0].offset == 4 &&
           o[1].kind == NHOOD_OP_TARGET && o[1].offset == 0 && o[2].kind == NHOOD_OP_COPY && o[2].offset == 5 &&
           o[3].kind == NHOOD_OP_TARGET && o[3].offset == 1 && o[4].kind == NHOOD_OP_RECV && o[4].peer == 0 &&
           o[5].kind == NHOOD_OP_SEND && o[5].peer == 0;
  CHECK(ok, "round 0: two copies in MPI's order (send block 0 to receive block 0, 1 to 1), then rank 0's messages");
  CHECK(s.comm_begin[1] == 6 && o[6].kind == NHOOD_OP_RECV && o[7].kind == NHOOD_OP_SEND,
        "round 1, whose message to itself has no receive of its tag, stays as it was");
  CHECK(s.nsends == 2 && s.nrecvs == 2 && s.comm_rounds == 2 && s.max_comm_per_round == 2, "summary %d %d %d %d",
        s.nsends, s.nrecvs, s.comm_rounds, s.max_comm_per_round);
  nhood_sched_free(&s);
}

/* Empty schedule (no neighbors): starts complete. */
static void test_empty(void) {
  NHOOD_Topo t = make_topo(NHOOD_TOPO_ADJACENT, 0, NULL, 0, NULL, NULL, NULL, 1);
  nhood_coll_args a = alltoall_bytes(NULL, NULL, 4);
  nhood_sched s;
  CHECK(nhood_build_direct(t, &a, 0, &s) == MPI_SUCCESS && s.nrounds == 0, "empty schedule");
  sim_net net;
  char problem[256];
  test_port port;
  nhood_exec e;
  net_init(&net, 1, &port, problem, sizeof problem);
  nhood_exec_init(&e, &s, &transport, &port, NULL, NULL, NULL);
  CHECK(nhood_exec_start(&e, 0) == MPI_SUCCESS && nhood_exec_done(&e), "empty schedule completes at start");
  sim_net_free(&net);
  nhood_sched_free(&s);
  free(t);
}

/* A receive whose message never comes (its tag is not the send's) stalls the run, which is
 * reported, naming the waiting receive, rather than a hang; the message stays unreceived. */
static void test_stall(void) {
  nhood_sched s[2];
  nhood_sched_init(&s[0], "test", 1, 2);
  nhood_sched_send(&s[0], 1, 0, (nhood_region){0, MPI_BYTE, 1, NHOOD_BUF_SEND, 0});
  nhood_sched_finish(&s[0]);
  nhood_sched_init(&s[1], "test", 1, 2);
  nhood_sched_recv(&s[1], 0, 1, (nhood_region){0, MPI_BYTE, 1, NHOOD_BUF_RECV, 0});
  nhood_sched_finish(&s[1]);
  char in = 'z', out = '.';
  sim_net net;
  char problem[256];
  test_port port[2];
  nhood_exec e[2];
  net_init(&net, 2, port, problem, sizeof problem);
  nhood_exec_init(&e[0], &s[0], &transport, &port[0], &in, NULL, NULL);
  nhood_exec_init(&e[1], &s[1], &transport, &port[1], NULL, &out, NULL);
  CHECK(run_all(&net, e, port, 0) != 0 &&
            strstr(problem, "rank 1 waits in round 0 of 1 for a message from rank 0 (tag 1)"),
        "stall reported: '%s'", problem);
  CHECK(net.mailbox.waiting_messages == 1 && out == '.', "the tag-0 message is not received");
  for (int r = 0; r < 2; r++) {
    nhood_exec_free(&e[r]);
    nhood_sched_free(&s[r]);
  }
  sim_net_free(&net);
}

/* A blocking run of one round of communication goes through the transport's post_round: one
 * rank sending to itself gets its byte, and a refused post is reported once the run completed,
 * naming the operation, with the rest of the round done. */
static void test_run_round(void) {
  nhood_sched s;
  nhood_sched_init(&s, "test", 1, 1);
  nhood_sched_recv(&s, 0, 0, (nhood_region){0, MPI_BYTE, 1, NHOOD_BUF_RECV, 1});
  nhood_sched_send(&s, 0, 0, (nhood_region){0, MPI_BYTE, 1, NHOOD_BUF_SEND, 1});
  nhood_sched_finish(&s);
  int send_op = s.ops[0].kind == NHOOD_OP_SEND ? 0 : 1;
  for (int refuse = 0; refuse < 2; refuse++) {
    char in = 'z', out = '.', problem[256];
    sim_net net;
    test_port port;
    nhood_exec e;
    net_init(&net, 1, &port, problem, sizeof problem);
    nhood_exec_init(&e, &s, &round_transport, &port, &in, &out, NULL);
    round_calls = 0;
    refuse_op = refuse ? send_op : -1;
    int rc = nhood_exec_run(&e, 0);
    char *message = nhood_error_save();
    CHECK(round_calls == 1 && out == 'z' && nhood_exec_done(&e) && port.slot_errors == 0,
          "one post_round, the byte arrives (refusing %d: %d call(s), '%c')", refuse, round_calls, out);
    if (refuse)
      CHECK(rc == MPI_ERR_RANK && message && strstr(message, "send block 0 to rank 0") && strstr(message, "refused"),
            "a refused post is reported naming it (rc %d, '%s')", rc, message ? message : "");
    else
      CHECK(rc == MPI_SUCCESS, "the run succeeds (rc %d)", rc);
    free(message);
    nhood_exec_free(&e);
    sim_net_free(&net);
  }
  nhood_sched_free(&s);
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
  test_round_order();
  test_local_messages();
  test_empty();
  test_stall();
  test_run_round();
  test_inconsistent_self_loop();
  return unit_summary("test_engine");
}
