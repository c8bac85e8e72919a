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

/* One message of B bytes: o + L + (B - 1) G + o, at the receiver. */
static void test_one_message(void) {
  nhood_sched s[2];
  int slowest;
  start_all(s, 2);
  nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, 101));
  nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_RECV, 101));
  double t = predict(s, 2, &base, &slowest);
  CHECK(near(t, 0.5 + 2 + 100 * 0.01 + 0.5) && slowest == 1, "one message: %g (rank %d)", t, slowest);

  start_all(s, 2);
  nhood_sched_send(&s[0], 1, 0, bytes(NHOOD_BUF_SEND, 0));
  nhood_sched_recv(&s[1], 0, 0, bytes(NHOOD_BUF_RECV, 0));
  t = predict(s, 2, &base, NULL);
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

/* Receives cost the receiver's CPU o each, one after the other. */
static void test_receive_overhead(void) {
  nhood_sched s[5];
  start_all(s, 5);
  for (int q = 1; q <= 4; q++) {
    nhood_sched_send(&s[q], 0, 0, bytes(NHOOD_BUF_SEND, 1));
    nhood_sched_recv(&s[0], q, 0, bytes(NHOOD_BUF_RECV, 1));
  }
  int slowest;
  double t = predict(s, 5, &base, &slowest);
  CHECK(near(t, 2.5 + 4 * 0.5) && slowest == 0, "four arrivals at 2.5: 4.5, got %g (rank %d)", t, slowest);
}

/* A round's receives wait for its sends: rank 0 sends 4 messages (CPU busy until 3.5) while
 * 8 messages arrive at 2.5; it takes them from 3.5 on. */
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
  CHECK(near(t, 3.5 + 8 * 0.5) && slowest == 0, "7.5 at rank 0, got %g (rank %d)", t, slowest);
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
  test_parse();
  return unit_summary("test_loggp");
}
