/*
 * The LogGP evaluator on hand-built schedules, against times computed by hand from the rules
 * in loggp.h, and the parsing of --model. No MPI_Init: the schedules only name MPI_BYTE.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loggp.h"

#include "unit.h" /* tests/unit: CHECK and the "N passed, N failed" summary */

/* L 2, o 0.5, g 1, G 0.01, Gcopy 0.001: small numbers whose sums are easy to follow. */
static const loggp_params base = {.L = 2, .o = 0.5, .g = 1, .G = 0.01, .Gcopy = 0.001};

static nhood_region bytes(int buf, int count) { return (nhood_region){0, MPI_BYTE, count, buf, 0}; }

/* Schedules for n ranks, each empty and open for operations. */
static void start_all(nhood_sched *s, int n) {
  for (int r = 0; r < n; r++) nhood_sched_init(&s[r], "test", 4, 1);
}

/* Finishes the schedules, predicts, frees them. Returns the prediction, or -1 on error. */
static double predict(nhood_sched *s, int n, const loggp_params *p, int *slowest) {
  loggp_prediction out;
  char err[256];
  for (int r = 0; r < n; r++) nhood_sched_finish(&s[r]);
  int rc = loggp_predict(n, s, p, &out, err, sizeof err);
  for (int r = 0; r < n; r++) nhood_sched_free(&s[r]);
  if (rc != 0) {
    fprintf(stderr, "loggp_predict: %s\n", err);
    return -1;
  }
  if (slowest != NULL) *slowest = out.slowest_rank;
  return out.time_us;
}

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

/* The prediction for one message of count bytes from rank 0 to rank 1 under p. */
static double one_message(const loggp_params *p, int count, int *slowest) {
  nhood_sched s[2];
  start_all(s, 2);
  nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, count));
  nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_RECV, count));
  return predict(s, 2, p, slowest);
}

/* One message of B bytes: o + L + (B - 1) G + o, at the receiver. */
static void test_one_message(void) {
  int slowest;
  double t = one_message(&base, 101, &slowest);
  CHECK(near(t, 0.5 + 2 + 100 * 0.01 + 0.5) && slowest == 1, "one message: %g (rank %d)", t, slowest);
  t = one_message(&base, 0, NULL);
  CHECK(near(t, 3.0), "zero-byte message: o + L + o = 3, got %g", t);
}

/* k small sends from one rank start every max(g, o): the last one decides. */
static void test_gap_limited_sends(void) {
  nhood_sched s[5];
  start_all(s, 5);
  for (int q = 1; q <= 4; q++) {
    nhood_sched_send(&s[0], q, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[q], 0, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  double t = predict(s, 5, &base, NULL);
  CHECK(near(t, 3 * 1.0 + 0.5 + 2 + 0.5), "g > o: starts 0,1,2,3, last done 6, got %g", t);

  loggp_params busy = base;
  busy.o = 1.5;
  start_all(s, 5);
  for (int q = 1; q <= 4; q++) {
    nhood_sched_send(&s[0], q, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[q], 0, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  t = predict(s, 5, &busy, NULL);
  CHECK(near(t, 3 * 1.5 + 1.5 + 2 + 1.5), "o > g: starts every o, last done 9.5, got %g", t);
}

/* Long sends keep the injection busy (m - 1) G beyond the gap. */
static void test_bandwidth_limited_sends(void) {
  nhood_sched s[4];
  start_all(s, 4);
  for (int q = 1; q <= 3; q++) {
    nhood_sched_send(&s[0], q, 0, bytes(NHOOD_BUF_SEND, 101));
    nhood_sched_recv(&s[q], 0, 0, bytes(NHOOD_BUF_RECV, 101));
  }
  double t = predict(s, 4, &base, NULL);
  /* starts 0, 2, 4 (g + 100 G apart); the last arrives at 4 + 0.5 + 1 + 2 */
  CHECK(near(t, 8.0), "bandwidth-limited sends: 8, got %g", t);
}

/* Ranks 1..senders each send one message of count bytes to rank 0, all at time 0; the
 * prediction, and the slowest rank in *slowest. */
static double fan_in(int senders, int count, int *slowest) {
  nhood_sched s[8];
  start_all(s, senders + 1);
  for (int q = 1; q <= senders; q++) {
    nhood_sched_send(&s[q], 0, 0, bytes(NHOOD_BUF_SEND, count));
    nhood_sched_recv(&s[0], q, 0, bytes(NHOOD_BUF_RECV, count));
  }
  return predict(s, senders + 1, &base, slowest);
}

/* Receives cost the receiver's CPU o each, one after the other, and start at least g apart
 * (g 1 > o 0.5 here): 2.5, 3.5, 4.5, 5.5, the last done at 6. */
static void test_receive_overhead(void) {
  int slowest;
  double t = fan_in(4, 1, &slowest);
  CHECK(near(t, 2.5 + 3 * 1 + 0.5) && slowest == 0, "four arrivals at 2.5: 6, got %g (rank %d)", t, slowest);
}

/* A round's receives wait for its sends: rank 0 sends 4 messages (CPU busy until 3.5) while
 * 8 messages arrive at 2.5; it takes them from 3.5 on, g = 1 apart: the last at 10.5. */
static void test_receives_after_sends(void) {
  nhood_sched s[13];
  start_all(s, 13);
  for (int q = 1; q <= 4; q++) {
    nhood_sched_send(&s[0], q, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[q], 0, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  for (int q = 5; q <= 12; q++) {
    nhood_sched_send(&s[q], 0, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[0], q, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  int slowest;
  double t = predict(s, 13, &base, &slowest);
  CHECK(near(t, 3.5 + 7 * 1 + 0.5) && slowest == 0, "11 at rank 0, got %g (rank %d)", t, slowest);
}

/* Rank 0 -> rank 1, which copies the data and forwards it to rank 2 in a second round. */
static void test_two_round_relay(void) {
  nhood_sched s[3];
  start_all(s, 3);
  nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, 11));
  nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_SCRATCH, 11));
  nhood_sched_fence(&s[1]);
  nhood_sched_copy(&s[1], bytes(NHOOD_BUF_SCRATCH, 11), bytes(NHOOD_BUF_RECV, 11));
  nhood_sched_send(&s[1], 2, 0, bytes(NHOOD_BUF_SCRATCH, 11));
  nhood_sched_recv(&s[2], 1, 0, bytes(NHOOD_BUF_RECV, 11));
  int slowest;
  double t = predict(s, 3, &base, &slowest);
  /* round 0 of rank 1 ends at 0.5 + 0.1 + 2 + 0.5 = 3.1; the copy takes 0.011; the forward
   * arrives at 3.111 + 0.5 + 0.1 + 2 and costs rank 2 another o */
  CHECK(near(t, 3.111 + 0.5 + 0.1 + 2 + 0.5) && slowest == 2, "relay: 6.211, got %g (rank %d)", t, slowest);
}

/* Two messages on one (source, tag) pair: the short second one leaves only after the long
 * first one's bytes. */
static void test_long_then_short(void) {
  nhood_sched s[2];
  start_all(s, 2);
  nhood_sched_recv(&s[0], 1, 0, bytes(NHOOD_BUF_RECV, 1001));
  nhood_sched_recv(&s[0], 1, 0, bytes(NHOOD_BUF_RECV, 1));
  nhood_sched_send(&s[1], 0, 0, bytes(NHOOD_BUF_SEND, 1001));
  nhood_sched_send(&s[1], 0, 0, bytes(NHOOD_BUF_SEND, 1));
  double t = predict(s, 2, &base, NULL);
  /* starts 0 and 11 (g + 1000 G); arrivals 12.5 and 13.5; receives done 13 and 14 */
  CHECK(near(t, 14.0), "long then short: 14, got %g", t);
}

static void test_incomplete_schedules(void) {
  nhood_sched s[2];
  loggp_prediction out;
  char err[256] = "";
  start_all(s, 2); /* each waits for the other before sending: a deadlock */
  for (int r = 0; r < 2; r++) {
    nhood_sched_recv(&s[r], 1 - r, 0, bytes(NHOOD_BUF_RECV, 1));
    nhood_sched_fence(&s[r]);
    nhood_sched_send(&s[r], 1 - r, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_finish(&s[r]);
  }
  CHECK(loggp_predict(2, s, &base, &out, err, sizeof err) != 0 && strstr(err, "deadlock") != NULL,
        "deadlock reported: '%s'", err);
  for (int r = 0; r < 2; r++) nhood_sched_free(&s[r]);

  start_all(s, 2); /* a message nobody receives */
  nhood_sched_send(&s[0], 1, 3, bytes(NHOOD_BUF_SEND, 1));
  for (int r = 0; r < 2; r++) nhood_sched_finish(&s[r]);
  err[0] = '\0';
  CHECK(loggp_predict(2, s, &base, &out, err, sizeof err) != 0 && strstr(err, "never received") != NULL,
        "unreceived message reported: '%s'", err);
  for (int r = 0; r < 2; r++) nhood_sched_free(&s[r]);

  start_all(s, 2); /* nothing to do at all */
  for (int r = 0; r < 2; r++) nhood_sched_finish(&s[r]);
  CHECK(loggp_predict(2, s, &base, &out, err, sizeof err) == 0 && out.time_us == 0 && out.slowest_rank == -1,
        "empty schedules take no time");
  for (int r = 0; r < 2; r++) nhood_sched_free(&s[r]);
}

/* ---- two levels ---------------------------------------------------------------------- */

/* Three rounds in which every rank sends to r + 1, r + 2 + round and r + 5 (mod n) and
 * receives from the matching ranks, of sizes by a hash; some ranks copy in round 1. */
static void build_mixed(nhood_sched *s, int n) {
  start_all(s, n);
  for (int round = 0; round < 3; round++) {
    const int dist[3] = {1, 2 + round, 5};
    for (int r = 0; r < n; r++) {
      if (round == 1 && r % 3 == 0) nhood_sched_copy(&s[r], bytes(NHOOD_BUF_SEND, 40), bytes(NHOOD_BUF_RECV, 40));
      for (int d = 0; d < 3; d++) {
        int from = (r - dist[d] % n + n) % n;
        nhood_sched_recv(&s[r], from, 0, bytes(NHOOD_BUF_RECV, (from * 37 + d * 11 + round * 5) % 300));
      }
      for (int d = 0; d < 3; d++)
        nhood_sched_send(&s[r], (r + dist[d]) % n, 0, bytes(NHOOD_BUF_SEND, (r * 37 + d * 11 + round * 5) % 300));
      nhood_sched_fence(&s[r]);
    }
  }
}

/* base with node_* equal to L, o, g, G and free NICs: two levels that must price as one. */
static loggp_params two_levels_as_one(int ranks_per_node) {
  loggp_params p = base;
  p.node_L = p.L;
  p.node_o = p.o;
  p.node_g = p.g;
  p.node_G = p.G;
  p.ranks_per_node = ranks_per_node;
  return p;
}

/* (a) Free NICs and node_* = L, o, g, G: exactly the one-level times, whatever the node size
 * (3 leaves a smaller last node), though every message between nodes goes through the queue. */
static void test_two_levels_reduce_to_one(void) {
  enum { N = 8 };
  nhood_sched s[N];
  int slowest_one = -2, slowest_two = -2;
  build_mixed(s, N);
  double one = predict(s, N, &base, &slowest_one);
  for (int k = 1; k <= 3; k++) {
    loggp_params p = two_levels_as_one(k);
    build_mixed(s, N);
    double two = predict(s, N, &p, &slowest_two);
    CHECK(one > 0 && two == one && slowest_two == slowest_one,
          "%d ranks per node, free NICs: %.17g (rank %d), one level %.17g (rank %d)", k, two, slowest_two, one,
          slowest_one);
  }
}

/* On-node messages: L 0.3, o 0.1, g 0.05, G 0.001. */
static loggp_params with_node(int ranks_per_node) {
  loggp_params p = base;
  p.node_L = 0.3;
  p.node_o = 0.1;
  p.node_g = 0.05;
  p.node_G = 0.001;
  p.ranks_per_node = ranks_per_node;
  return p;
}

/* (b) Two ranks of one node exchange 101 bytes: 0.1 + 100 * 0.001 + 0.3 = 0.5 arrival, + 0.1;
 * on two nodes (or one level) the same exchange takes 0.5 + 1 + 2 + 0.5 = 4. */
static void test_on_node_prices(void) {
  const int per_node[3] = {2, 1, 0};
  const double expected[3] = {0.6, 4.0, 4.0};
  for (int k = 0; k < 3; k++) {
    nhood_sched s[2];
    loggp_params p = with_node(per_node[k]);
    start_all(s, 2);
    for (int r = 0; r < 2; r++) {
      nhood_sched_recv(&s[r], 1 - r, 0, bytes(NHOOD_BUF_RECV, 101));
      nhood_sched_send(&s[r], 1 - r, 0, bytes(NHOOD_BUF_SEND, 101));
    }
    double t = predict(s, 2, &p, NULL);
    CHECK(near(t, expected[k]), "exchange at %d ranks per node: %g, expected %g", per_node[k], t, expected[k]);
  }

  /* A receiver pays each message's own o: rank 0 (node 0) gets one byte from rank 1 (node 0)
   * at 0.1 + 0.3 = 0.4, done at 0.5, and one byte from rank 2 (node 1) at 0.5 + 2 = 2.5, done
   * at 3.0. (Swapping the two o's would give 2.6.) */
  nhood_sched s[3];
  loggp_params p = with_node(2);
  start_all(s, 3);
  nhood_sched_recv(&s[0], 1, 0, bytes(NHOOD_BUF_RECV, 1));
  nhood_sched_recv(&s[0], 2, 0, bytes(NHOOD_BUF_RECV, 1));
  nhood_sched_send(&s[1], 0, 0, bytes(NHOOD_BUF_SEND, 1));
  nhood_sched_send(&s[2], 0, 0, bytes(NHOOD_BUF_SEND, 1));
  int slowest = -2;
  double t = predict(s, 3, &p, &slowest);
  CHECK(near(t, 3.0) && slowest == 0, "on- and off-node receives: 3.0, got %g (rank %d)", t, slowest);
}

/* A NIC slower than a process: nic_o 0.25, nic_G 0.1, so a 100-byte message keeps a NIC busy
 * c = 10.25, against (m - 1) G = 0.99 at the process. 4 ranks per node. */
static loggp_params with_nic(double nic_o, double nic_G) {
  loggp_params p = with_node(4);
  p.nic_o = nic_o;
  p.nic_G = nic_G;
  return p;
}

/* One 100-byte message from each sender[i] to receiver[i]. */
static double predict_pairs(int n, const int *sender, const int *receiver, int npairs, const loggp_params *p,
                            int *slowest) {
  nhood_sched s[20];
  start_all(s, n);
  for (int i = 0; i < npairs; i++) {
    nhood_sched_send(&s[sender[i]], receiver[i], 0, bytes(NHOOD_BUF_SEND, 100));
    nhood_sched_recv(&s[receiver[i]], sender[i], 0, bytes(NHOOD_BUF_RECV, 100));
  }
  return predict(s, n, p, slowest);
}

/* (c) Injection: the 4 ranks of node 0 each send 100 bytes to a rank of node 1 at once. All
 * are handed to node 0's NIC at h = o = 0.5 and served in rank order: the i-th starts at
 * 0.5 + 10.25 i, its first byte reaches node 1's NIC at 2.5 + 10.25 i (which has just become
 * free) and it arrives at 2.5 + 10.25 (i + 1). The last receiver is done at
 * o + L + 4c + o = 0.5 + 2 + 41 + 0.5 = 44. One level: o + 99 G + L + o = 3.99. A message
 * alone arrives c after h + L (cut-through: the NIC is the slower stage): 13.25; with a NIC
 * faster than the process (c = 0.11 < 0.99) as in one level: 3.99. */
static void test_injection_contention(void) {
  const int four[4] = {0, 1, 2, 3}, node1[4] = {4, 5, 6, 7}, one_per_node[4] = {4, 8, 12, 16};
  loggp_params slow = with_nic(0.25, 0.1), fast = with_nic(0.01, 0.001), none = with_nic(0, 0);
  none.ranks_per_node = 0;
  int slowest = -2;
  double t = predict_pairs(8, four, node1, 4, &slow, &slowest);
  CHECK(near(t, 44.0) && slowest == 7, "4 senders of one node: 44, got %g (rank %d)", t, slowest);
  t = predict_pairs(8, four, node1, 4, &none, NULL);
  CHECK(near(t, 3.99), "the same in one level: 3.99, got %g", t);
  /* Receivers on four nodes: only the injection side is shared, and it alone gives 44. */
  t = predict_pairs(20, four, one_per_node, 4, &slow, &slowest);
  CHECK(near(t, 44.0) && slowest == 16, "4 senders of one node to 4 nodes: 44, got %g (rank %d)", t, slowest);
  t = predict_pairs(8, four, node1, 1, &slow, NULL);
  CHECK(near(t, 13.25), "one message, slow NIC: 0.5 + 10.25 + 2 + 0.5 = 13.25, got %g", t);
  t = predict_pairs(8, four, node1, 1, &fast, NULL);
  CHECK(near(t, 3.99), "one message, fast NIC: as one level, 3.99, got %g", t);
  /* The message rate alone (nic_G 0, nic_o 1): c = 1 per message, 0.5 + 2 + 4 + 0.5. */
  loggp_params rate = with_nic(1, 0);
  t = predict_pairs(8, four, node1, 4, &rate, NULL);
  CHECK(near(t, 7.0), "4 senders, message-rate bound: 7, got %g", t);
}

/* (d) Ejection: one rank on each of nodes 1-4 sends 100 bytes to a rank of node 0. Each leaves
 * its own NIC at 0.5 + 10.25; all four reach node 0's NIC at h' = 0.5 + 2 and are served in
 * order of their sender: the i-th arrives at 2.5 + 10.25 (i + 1). Again 44, now at rank 3. */
static void test_ejection_contention(void) {
  const int senders[4] = {4, 8, 12, 16}, node0[4] = {0, 1, 2, 3};
  loggp_params slow = with_nic(0.25, 0.1);
  int slowest = -2;
  double t = predict_pairs(20, senders, node0, 4, &slow, &slowest);
  CHECK(near(t, 44.0) && slowest == 3, "4 nodes to the ranks of one node: 44, got %g (rank %d)", t, slowest);
}

/* (e) An exchange of all with all, 12 ranks on 3 nodes with slow NICs, evaluated twice: the
 * same time to the bit, and slower than with free NICs. */
static void test_two_levels_deterministic(void) {
  enum { N = 12 };
  nhood_sched s[N];
  loggp_params slow = with_nic(0.25, 0.1), free_nics = with_nic(0, 0);
  double t[3];
  int slowest[3] = {-2, -2, -2};
  for (int k = 0; k < 3; k++) {
    start_all(s, N);
    for (int r = 0; r < N; r++)
      for (int q = 0; q < N; q++)
        if (q != r) {
          nhood_sched_recv(&s[r], q, 0, bytes(NHOOD_BUF_RECV, 10 + q));
          nhood_sched_send(&s[q], r, 0, bytes(NHOOD_BUF_SEND, 10 + q));
        }
    t[k] = predict(s, N, k < 2 ? &slow : &free_nics, &slowest[k]);
  }
  CHECK(t[0] > 0 && t[0] == t[1] && slowest[0] == slowest[1], "two evaluations: %.17g (rank %d), %.17g (rank %d)", t[0],
        slowest[0], t[1], slowest[1]);
  CHECK(t[0] > t[2], "slow NICs %g > free NICs %g", t[0], t[2]);

  loggp_prediction out;
  char err[256] = "";
  loggp_params bad = base;
  bad.ranks_per_node = -1;
  start_all(s, 1);
  nhood_sched_finish(&s[0]);
  CHECK(loggp_predict(1, s, &bad, &out, err, sizeof err) != 0 && strstr(err, "ranks_per_node") != NULL,
        "negative ranks_per_node refused: '%s'", err);
  nhood_sched_free(&s[0]);
}

/* Two messages of 101 bytes reach rank 0 at once (first bytes at 2.5): it takes the first
 * until 2.5 + 0.5 + 1 = 4, and the second from 2.5 + g + 100 G = 4.5 until 6. Charged at
 * the sender only, both would arrive at 3.5 and be done at 4.5. */
static void test_receiver_bandwidth(void) {
  int slowest;
  double t = fan_in(2, 101, &slowest);
  CHECK(near(t, 6.0) && slowest == 0, "two 101-byte arrivals: 6, got %g (rank %d)", t, slowest);
}

/* One message each way in each of two rounds, with round = 0.7: every round pays it once,
 * whatever its messages: 2 * (0.7 + 0.5 + 2 + 0.5) = 7.4. */
static void test_round_cost(void) {
  nhood_sched s[2];
  loggp_params p = base;
  p.round = 0.7;
  start_all(s, 2);
  for (int round = 0; round < 2; round++) {
    if (round > 0)
      for (int r = 0; r < 2; r++) nhood_sched_fence(&s[r]);
    for (int r = 0; r < 2; r++) {
      nhood_sched_recv(&s[r], 1 - r, 0, bytes(NHOOD_BUF_RECV, 1));
      nhood_sched_send(&s[r], 1 - r, 0, bytes(NHOOD_BUF_SEND, 1));
    }
  }
  double t = predict(s, 2, &p, NULL);
  CHECK(near(t, 7.4), "two rounds at 0.7 each: 7.4, got %g", t);
}

/* Rank 0 sends one byte to rank 1: 3 + d, d rank 0's delay (rank 1's, at most 1, ends
 * before the message arrives). Quantiles 0, 0.1, ..., 0.9, 0.95, 0.99, 0.999, 0.9999, 1: d is uniform on
 * [0, 1). Over 4000 seeds the delays lie in [0, 1), about a tenth below 0.1 and their mean
 * near 0.5; seed 0 draws none, and a seed gives the same time twice. */
static double one_message_with_noise(unsigned seed) {
  nhood_sched s[2];
  loggp_params p = base;
  for (int k = 0; k < LOGGP_NOISE_POINTS; k++) p.noise[k] = loggp_noise_p[k];
  p.seed = seed;
  start_all(s, 2);
  nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, 1));
  nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_RECV, 1));
  return predict(s, 2, &p, NULL);
}

static void test_noise(void) {
  CHECK(near(one_message_with_noise(0), 3.0), "seed 0: no delay, got %g", one_message_with_noise(0));
  CHECK(one_message_with_noise(7) == one_message_with_noise(7), "a seed is one run");
  int n = 4000, below = 0, outside = 0;
  double sum = 0;
  for (int seed = 1; seed <= n; seed++) {
    double d = one_message_with_noise((unsigned)seed) - 3.0;
    outside += d < 0 || d >= 1;
    below += d < 0.1;
    sum += d;
  }
  CHECK(outside == 0, "delays outside [0, 1): %d", outside);
  CHECK(below > 0.08 * n && below < 0.12 * n, "delays below the 10th percentile: %d of %d", below, n);
  CHECK(fabs(sum / n - 0.5) < 0.03, "mean delay %g, 0.5 expected", sum / n);
}

/* A constant delay of 0.4 on a chain of two messages from rank 0 to rank 1, one per round
 * (g = 0, so that only o spaces the sends).
 * As skew (round 0 only): both start at 0.4, rank 1 is done at 3.4, rank 0 sends again at
 * 0.9 and rank 1 takes it at 3.4, done 3.9. As noise (every round): rank 0 sends again at
 * 1.3, arriving 3.8, when rank 1 starts its second round: 4.3. */
static double two_rounds_delayed(int as_skew, double quantile, double noise0) {
  nhood_sched s[2];
  loggp_params p = base;
  for (int k = 0; k < LOGGP_NOISE_POINTS; k++) (as_skew ? p.skew : p.noise)[k] = quantile;
  p.noise0 = noise0;
  p.seed = 1;
  p.g = 0;
  start_all(s, 2);
  for (int round = 0; round < 2; round++) {
    if (round > 0) nhood_sched_fence(&s[0]), nhood_sched_fence(&s[1]);
    nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  return predict(s, 2, &p, NULL);
}

/* noise0: the delays drawn are the quantiles less noise0; 0.7 less 0.3 is the 0.4 above, and
 * quantiles below noise0 draw no delay (3.5: o and L alone). */
static void test_skew(void) {
  double t = two_rounds_delayed(1, 0.4, 0);
  CHECK(near(t, 3.9), "skew in the first round only: 3.9, got %g", t);
  t = two_rounds_delayed(0, 0.4, 0);
  CHECK(near(t, 4.3), "noise in every round: 4.3, got %g", t);
  t = two_rounds_delayed(0, 0.7, 0.3);
  CHECK(near(t, 4.3), "noise less noise0: 4.3, got %g", t);
  t = two_rounds_delayed(0, 0.4, 0.6);
  CHECK(near(t, 3.5), "noise below noise0: 3.5, got %g", t);
}

/* O: the sender's CPU spends (m - 1) O on a message's bytes before its first byte leaves,
 * and its next send waits for the CPU. One 101-byte message at O = 0.02: the CPU is busy
 * 0.5 + 2, the first byte arrives at 4.5, the receiver is done at 4.5 + 0.5 + 1 = 6; two
 * such messages to two ranks: the second starts at 2.5 (the CPU, not the gap g + 100 G = 2),
 * arrives at 7 and is done at 8.5. O = 0 gives 4 and 7 (test_bandwidth_limited_sends). */
static void test_sender_copies(void) {
  loggp_params p = base;
  p.O = 0.02;
  nhood_sched s[3];
  int slowest;
  double t = one_message(&p, 101, &slowest);
  CHECK(near(t, 6.0) && slowest == 1, "one message, sender copies: 6, got %g (rank %d)", t, slowest);
  start_all(s, 3);
  for (int q = 1; q <= 2; q++) {
    nhood_sched_send(&s[0], q, 0, bytes(NHOOD_BUF_SEND, 101));
    nhood_sched_recv(&s[q], 0, 0, bytes(NHOOD_BUF_RECV, 101));
  }
  t = predict(s, 3, &p, &slowest);
  CHECK(near(t, 8.5) && slowest == 2, "two messages, sender copies: 8.5, got %g (rank %d)", t, slowest);
}

/* One 101-byte message from the only rank to itself, received in the same round. */
static double self_message(const loggp_params *p) {
  nhood_sched s[1];
  start_all(s, 1);
  nhood_sched_recv(&s[0], 0, 0, bytes(NHOOD_BUF_RECV, 101));
  nhood_sched_send(&s[0], 0, 0, bytes(NHOOD_BUF_SEND, 101));
  return predict(s, 1, p, NULL);
}

/* A message to oneself: no latency, no bandwidth, oself at each end and Gself per byte at the
 * receiver. 101 bytes with O = 0.02, oself = 0.3, Gself = 0.002: sent at 0.3, there at once,
 * received at 0.3 + 0.3 + 100 * 0.002 = 0.8. By default (as parsed) oself = o and Gself =
 * Gcopy: 0.5 + 0.5 + 100 * 0.001 = 1.1. */
static void test_self_message(void) {
  loggp_params p[2] = {base, base};
  p[0].O = 0.02;
  p[0].oself = 0.3;
  p[0].Gself = 0.002;
  char err[256];
  CHECK(loggp_parse("loggp:L=2,o=0.5,g=1,G=0.01,Gcopy=0.001,O=0.02", &p[1], err, sizeof err) == 0, "parse: %s", err);
  const double expected[2] = {0.8, 1.1};
  for (int k = 0; k < 2; k++) {
    double t = self_message(&p[k]);
    CHECK(near(t, expected[k]), "a message to oneself%s: %g, got %g", k ? " by default" : "", expected[k], t);
  }
}

/* step, ostep: above step bytes a message costs ostep more at each end. At step 100 and
 * ostep 0.25, one message of 101 bytes: 4 + 2 * 0.25 = 4.5; of 100 bytes as without the step
 * (0.5 + 2 + 0.5 + 99 * 0.01 = 3.99); a 101-byte message to oneself pays no step (0.5 + 0.5 +
 * 100 * 0.001 = 1.1, as in test_self_message). */
static void test_step(void) {
  loggp_params p = base;
  p.step = 100;
  p.ostep = 0.25;
  p.oself = p.o;
  p.Gself = p.Gcopy;
  int slowest;
  double t = one_message(&p, 101, &slowest);
  CHECK(near(t, 4.5) && slowest == 1, "above the step: 4.5, got %g", t);
  t = one_message(&p, 100, &slowest);
  CHECK(near(t, 3.99), "at the step: 3.99, got %g", t);
  t = self_message(&p);
  CHECK(near(t, 1.1), "a message to oneself pays no step: 1.1, got %g", t);
  char err[256];
  CHECK(loggp_parse("loggp:L=1,o=2,g=3,G=4,step=256,ostep=0.2,Lbyte=0.5", &p, err, sizeof err) == 0 && p.step == 256 &&
            p.ostep == 0.2 && p.Lbyte == 0.5,
        "parse step, ostep, Lbyte: %s", err);
}

/* Lbyte: a message's latency grows by Lbyte per byte after the first. One message of 101
 * bytes at Lbyte 0.01: 4 + 100 * 0.01 = 5; a message to oneself has no latency to grow (1.1,
 * as in test_self_message). */
static void test_latency_per_byte(void) {
  loggp_params p = base;
  p.Lbyte = 0.01;
  p.oself = p.o;
  p.Gself = p.Gcopy;
  int slowest;
  double t = one_message(&p, 101, &slowest);
  CHECK(near(t, 5.0) && slowest == 1, "Lbyte: 5, got %g", t);
  t = self_message(&p);
  CHECK(near(t, 1.1), "Lbyte, a message to oneself: 1.1, got %g", t);
}

/* ocopy: each local copy costs ocopy beyond its bytes. Two copies of 101 bytes at ocopy = 0.2
 * and Gcopy = 0.001: 2 * (0.2 + 0.101) = 0.602 (0.202 without ocopy). */
static void test_copy_cost(void) {
  loggp_params p = base;
  p.ocopy = 0.2;
  nhood_sched s[1];
  start_all(s, 1);
  for (int k = 0; k < 2; k++) nhood_sched_copy(&s[0], bytes(NHOOD_BUF_SEND, 101), bytes(NHOOD_BUF_RECV, 101));
  double t = predict(s, 1, &p, NULL);
  CHECK(near(t, 0.602), "two local copies at ocopy 0.2: 0.602, got %g", t);
}

static void test_parse(void) {
  loggp_params p;
  char err[256];
  CHECK(loggp_parse("loggp:preset=ib-edr", &p, err, sizeof err) == 0 && near(p.L, 1.2) && near(p.o, 0.3) &&
            near(p.g, 0.2) && near(p.G, 1.0 / 12000) && near(p.Gcopy, p.G / 4),
        "ib-edr preset");
  CHECK(loggp_parse("loggp:preset=shm,o=0.25,G=0.001", &p, err, sizeof err) == 0 && near(p.L, 0.3) && near(p.o, 0.25) &&
            near(p.G, 0.001) && near(p.Gcopy, 0.00025),
        "preset with overrides; Gcopy follows G");
  CHECK(loggp_parse("loggp:L=1,o=2,g=3,G=4,Gcopy=5", &p, err, sizeof err) == 0 && p.L == 1 && p.o == 2 && p.g == 3 &&
            p.G == 4 && p.Gcopy == 5,
        "custom parameters");
  CHECK(loggp_parse("loggp:L=1,o=2,g=3", &p, err, sizeof err) != 0 && strstr(err, "G=") != NULL, "missing G: '%s'",
        err);
  CHECK(loggp_parse("loggp:o=1,preset=shm", &p, err, sizeof err) != 0, "preset after a key");
  CHECK(loggp_parse("loggp:L=-1,o=2,g=3,G=4", &p, err, sizeof err) != 0, "negative latency");
  CHECK(loggp_parse("logp:L=1", &p, err, sizeof err) != 0, "not loggp");
  CHECK(loggp_parse("loggp:L=1,L=2,o=1,g=1,G=1", &p, err, sizeof err) != 0 && strstr(err, "twice"),
        "repeated key: '%s'", err);

  /* Two levels: the presets' node and NIC numbers (common/cost_model.c), overridable; without
   * a preset one level unless told otherwise. ranks_per_node is never set here. */
  CHECK(loggp_parse("loggp:preset=ib-edr", &p, err, sizeof err) == 0 && near(p.node_L, 0.3) && near(p.node_o, 0.1) &&
            near(p.node_g, 0.05) && near(p.node_G, 1.0 / 10000) && near(p.nic_o, 1.0 / 150) &&
            near(p.nic_G, 1.0 / 12500) && p.ranks_per_node == 0,
        "ib-edr's node and NIC parameters");
  CHECK(loggp_parse("loggp:preset=shm,L=5", &p, err, sizeof err) == 0 && p.L == 5 && near(p.node_L, 0.3) &&
            p.nic_o == 0 && p.nic_G == 0,
        "shm: node_L stays the preset's; no NIC cost");
  CHECK(loggp_parse("loggp:preset=ib-edr,nic_o=0,node_G=0.5", &p, err, sizeof err) == 0 && p.nic_o == 0 &&
            near(p.nic_G, 1.0 / 12500) && p.node_G == 0.5,
        "node and NIC keys override a preset");
  CHECK(loggp_parse("loggp:L=1,o=2,g=3,G=4", &p, err, sizeof err) == 0 && p.node_L == 1 && p.node_o == 2 &&
            p.node_g == 3 && p.node_G == 4 && p.nic_o == 0 && p.nic_G == 0,
        "no preset: node_* = L, o, g, G, free NICs");
  CHECK(loggp_parse("loggp:L=1,o=2,g=3,G=4,node_o=0.5,nic_G=0.01,nic_o=0.02", &p, err, sizeof err) == 0 &&
            p.node_L == 1 && p.node_o == 0.5 && p.node_g == 3 && p.nic_G == 0.01 && p.nic_o == 0.02,
        "no preset, some node and NIC keys");
  CHECK(loggp_parse("loggp:nic_o=1,preset=shm", &p, err, sizeof err) != 0 && strstr(err, "preset must come first"),
        "preset after a NIC key: '%s'", err);
  CHECK(loggp_parse("loggp:L=1,o=2,g=3,G=4,O=0.5,ocopy=0.25", &p, err, sizeof err) == 0 && p.O == 0.5 &&
            p.node_O == 0.5 && p.ocopy == 0.25,
        "O, node_O after it without a preset, ocopy");
  CHECK(loggp_parse("loggp:preset=ib-edr,node_O=0.25", &p, err, sizeof err) == 0 && p.O == 0 && p.node_O == 0.25,
        "a preset's O is 0; node_O overrides it within a node");
  CHECK(loggp_parse("loggp:preset=shm,node_x=1", &p, err, sizeof err) != 0 && strstr(err, "nic_G"),
        "unknown key lists the node and NIC keys: '%s'", err);

  /* Round cost and noise. */
  CHECK(loggp_parse("loggp:preset=shm,round=0.4,noise=0/0/0/0/0/0.1/0.1/0.2/0.2/0.3/0.5/1/2/3/4", &p, err,
                    sizeof err) == 0 &&
            near(p.round, 0.4) && near(p.noise[5], 0.1) && near(p.noise[14], 4) && loggp_has_noise(&p) && p.seed == 0,
        "round and noise: '%s'", err);
  CHECK(loggp_parse("loggp:preset=shm", &p, err, sizeof err) == 0 && p.round == 0 && !loggp_has_noise(&p),
        "no round cost or noise by default");
  CHECK(loggp_parse("loggp:preset=shm,noise=0/0/0/0/0/0.2/0.1/0.2/0.2/0.3/0.5/1/2/3/4", &p, err, sizeof err) != 0 &&
            strstr(err, "decrease"),
        "decreasing quantiles: '%s'", err);
  CHECK(loggp_parse("loggp:preset=shm,noise=0/1/2", &p, err, sizeof err) != 0 && strstr(err, "15 quantiles"),
        "too few quantiles: '%s'", err);
  CHECK(loggp_parse("loggp:preset=shm,noise=0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0", &p, err, sizeof err) != 0 &&
            strstr(err, "15 quantiles"),
        "too many quantiles: '%s'", err);
}

int main(void) {
  test_one_message();
  test_gap_limited_sends();
  test_bandwidth_limited_sends();
  test_receive_overhead();
  test_receives_after_sends();
  test_two_round_relay();
  test_long_then_short();
  test_incomplete_schedules();
  test_two_levels_reduce_to_one();
  test_on_node_prices();
  test_injection_contention();
  test_ejection_contention();
  test_two_levels_deterministic();
  test_receiver_bandwidth();
  test_round_cost();
  test_noise();
  test_skew();
  test_sender_copies();
  test_self_message();
  test_copy_cost();
  test_step();
  test_latency_per_byte();
  test_parse();
  return unit_summary("test_loggp");
}
