/*
 * The selection layer without MPI: the tuning-rule parser (selection/tune.h), the price of
 * one round (common/cost_model.h) and the cost model (selection/cost.h) on hand-built
 * schedules, both with hand-computed times, the parameter file,
 * and the model's choice on virtual ranks of a Moore neighborhood (cart-dim-batch for small
 * blocks, direct for large ones under ib-edr; direct everywhere when rounds are made costly).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "schedule/schedule.h"
#include "selection/cost.h"
#include "selection/trial.h"
#include "selection/select.h"
#include "selection/tune.h"
#include "api/topologies.h"
#include "topology/topology.h"
#include "unit.h"

static const char *lookup(const char *rules, nhood_coll_kind kind, double bytes, int *rc) {
  static char name[NHOOD_ALGORITHM_NAME_MAX];
  *rc = nhood_tune_lookup(rules, "NHOOD_TUNE", kind, bytes, name);
  return name;
}

static void test_tune(void) {
  int rc;
  const char *rules = " allgather : -2K = cart-dim-batch ; allgather:2K-=direct;alltoall,alltoallv=combine;*=mpi";
  CHECK(strcmp(lookup(rules, NHOOD_ALLGATHER, 0, &rc), "cart-dim-batch") == 0 && rc == MPI_SUCCESS, "0 B");
  CHECK(strcmp(lookup(rules, NHOOD_ALLGATHER, 2048, &rc), "cart-dim-batch") == 0, "2K: first rule wins");
  CHECK(strcmp(lookup(rules, NHOOD_ALLGATHER, 2049, &rc), "direct") == 0, "above 2K");
  CHECK(strcmp(lookup(rules, NHOOD_ALLTOALLV, 1e9, &rc), "combine") == 0, "collective list");
  CHECK(strcmp(lookup(rules, NHOOD_REDUCE, 5, &rc), "mpi") == 0, "wildcard");
  CHECK(strcmp(lookup("alltoall:16-64=direct", NHOOD_ALLTOALL, 15, &rc), "") == 0, "below the range");
  CHECK(strcmp(lookup("alltoall:16-64=direct", NHOOD_ALLTOALL, 64, &rc), "direct") == 0, "upper end included");
  CHECK(strcmp(lookup("alltoall:1M=direct", NHOOD_ALLTOALL, 1048576, &rc), "direct") == 0, "single size, M");
  CHECK(strcmp(lookup("", NHOOD_ALLTOALL, 1, &rc), "") == 0 && rc == MPI_SUCCESS, "empty rules");
  CHECK(strcmp(lookup("allgather=auto;*=direct", NHOOD_ALLGATHER, 1, &rc), "auto") == 0, "auto defers");

  /* Every malformed rule is MPI_ERR_INFO naming the source and the rule, also when an earlier
   * rule matched. */
  const char *bad[] = {"allgather",
                       "allgather=fast",
                       "allgatherz=direct",
                       "allgather:1-x=direct",
                       "allgather:9-3=direct",
                       "allgather=direct;alltoall:K=direct"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char message[NHOOD_MAX_ERROR_STRING];
    lookup(bad[k], NHOOD_ALLGATHER, 1, &rc);
    NHOOD_Error_message(message, NULL);
    CHECK(rc == MPI_ERR_INFO && strstr(message, "NHOOD_TUNE") && strstr(message, "rule"), "\"%s\": rc %d, \"%s\"",
          bad[k], rc, message);
  }

  /* Parsed once, matched many times: the table holds a rule per non-empty rule. */
  nhood_tune_rules parsed;
  CHECK(nhood_tune_parse(rules, "test", &parsed) == MPI_SUCCESS && parsed.n == 4, "parse: %d rules", parsed.n);
  CHECK(parsed.rule[2].colls == (1u << NHOOD_ALLTOALL | 1u << NHOOD_ALLTOALLV), "collective mask %#x",
        parsed.rule[2].colls);
  const char *matched = nhood_tune_match(&parsed, NHOOD_ALLTOALLW, 1);
  CHECK(matched != NULL && strcmp(matched, "mpi") == 0, "match: wildcard");
  nhood_tune_free(&parsed);
  CHECK(nhood_tune_parse("allgather=direct;x=direct", "test", &parsed) == MPI_ERR_INFO && parsed.n == 0 &&
            parsed.rule == NULL,
        "a failed parse leaves the table empty");

  /* NHOOD_TUNE: parsed when first seen and again when it changes (setenv between calls). */
  char name[NHOOD_ALGORITHM_NAME_MAX];
  unsetenv("NHOOD_TUNE");
  CHECK(nhood_tune_env_match(NHOOD_ALLGATHER, 1, name) == MPI_SUCCESS && name[0] == '\0', "unset: \"%s\"", name);
  setenv("NHOOD_TUNE", "allgather=cart-bruck", 1);
  CHECK(nhood_tune_env_match(NHOOD_ALLGATHER, 1, name) == MPI_SUCCESS && strcmp(name, "cart-bruck") == 0, "set: \"%s\"",
        name);
  CHECK(nhood_tune_env_match(NHOOD_ALLTOALL, 1, name) == MPI_SUCCESS && name[0] == '\0', "other collective");
  setenv("NHOOD_TUNE", "allgather=cart-2hop", 1);
  CHECK(nhood_tune_env_match(NHOOD_ALLGATHER, 1, name) == MPI_SUCCESS && strcmp(name, "cart-2hop") == 0,
        "changed: \"%s\"", name);
  setenv("NHOOD_TUNE", "allgather=", 1);
  for (int k = 0; k < 2; k++) { /* the error stays while the value does */
    char message[NHOOD_MAX_ERROR_STRING];
    rc = nhood_tune_env_match(NHOOD_ALLGATHER, 1, name);
    NHOOD_Error_message(message, NULL);
    CHECK(rc == MPI_ERR_INFO && strstr(message, "NHOOD_TUNE") && name[0] == '\0', "malformed, call %d: rc %d, \"%s\"",
          k, rc, message);
  }
  unsetenv("NHOOD_TUNE");
  CHECK(nhood_tune_env_match(NHOOD_ALLGATHER, 1, name) == MPI_SUCCESS && name[0] == '\0', "unset again");
}

/* The price of one round must be `want` (hand-computed). */
static void expect_round(const nhood_cost_params *p, nhood_cost_round_load r, double want, const char *what) {
  double t = nhood_cost_round(p, &r);
  CHECK(fabs(t - want) < 1e-9, "%s: %.6f, expected %.3f", what, t, want);
}

/* The formula of common/cost_model.h term by term; test_predict's schedules are priced with
 * it, and combine's depth estimate too (test_pattern). */
static void test_round(void) {
  nhood_cost_params p = {.L = 10, .o = 1, .g = 0.5, .G = 0.01, .Gcopy = 0.001, .mpi_factor = 1, .eager = 150};
  expect_round(&p, (nhood_cost_round_load){0}, 0, "nothing");
  /* Copies alone: no latency, no overhead. */
  expect_round(&p, (nhood_cost_round_load){.copied = 50}, 0.05, "copies only");
  /* One send: no gap; bytes at G. */
  expect_round(&p, (nhood_cost_round_load){.sends = 1, .sent = 10}, 11.1, "one send: 10 + 1 + 0.1");
  /* Receives pay o each but no gap (the gap is between injections). */
  expect_round(&p, (nhood_cost_round_load){.recvs = 3, .received = 30}, 13.3, "three receives: 10 + 3 + 0.3");
  /* 0.05 + 10 + 1*3 + 0.5*1 + 0.01*max(200, 300) */
  nhood_cost_round_load r = {.sends = 2, .recvs = 1, .sent = 200, .received = 300, .copied = 50};
  expect_round(&p, r, 16.55, "two sends, a receive, a copy");
  r.sent = 400; /* the larger side counts: 0.01 * 400 */
  expect_round(&p, r, 17.55, "more sent than received");
  r.sent = 200;
  /* Rendezvous: rdv per message end above eager, rdv_round once for the round; the counts
   * are the caller's, rdv = 0 makes them free. */
  r.recvs_rdv = 1;
  expect_round(&p, r, 16.55, "rdv = 0");
  p.rdv = 7;
  p.rdv_round = 5;
  expect_round(&p, r, 16.55 + 7 + 5, "one receive above eager");
  r.sends_rdv = 2;
  expect_round(&p, r, 16.55 + 3 * 7 + 5, "every message above eager");
  CHECK(!nhood_cost_is_rendezvous(&p, 150) && nhood_cost_is_rendezvous(&p, 151),
        "eager bytes are eager, one more is not");
  nhood_cost_params q;
  nhood_cost_params_default(&q);
  CHECK(nhood_cost_params_valid(&q) && nhood_cost_params_valid(&p), "valid parameters");
  q.o = -1;
  CHECK(!nhood_cost_params_valid(&q), "negative o");
  q.o = NAN;
  CHECK(!nhood_cost_params_valid(&q), "NaN o");
}

/* The model's prediction of s at `scale` must be `want` (hand-computed). */
static void expect_cost(const nhood_sched *s, const nhood_cost_params *p, double scale, double want, const char *what) {
  double t = nhood_cost_predict(s, p, scale, NULL, 0, NULL);
  CHECK(fabs(t - want) < 1e-9, "%s: %.6f, expected %.2f", what, t, want);
}

/* Round 1: two sends of 100 B, one receive of 300 B, a 50 B copy; round 2: one send of 10 B. */
static void test_predict(void) {
  nhood_sched s;
  nhood_region r100 = {0, MPI_BYTE, 100, NHOOD_BUF_SEND, 0}, r300 = {0, MPI_BYTE, 300, NHOOD_BUF_RECV, 0};
  nhood_region r50 = {0, MPI_BYTE, 50, NHOOD_BUF_SEND, 0}, r50t = {0, MPI_BYTE, 50, NHOOD_BUF_SCRATCH, 0};
  nhood_region r10 = {0, MPI_BYTE, 10, NHOOD_BUF_SEND, 0};
  CHECK(nhood_sched_init(&s, "hand", 8, 1) == MPI_SUCCESS, "init");
  nhood_sched_send(&s, 1, 0, r100);
  nhood_sched_send(&s, 2, 0, r100);
  nhood_sched_recv(&s, 3, 0, r300);
  nhood_sched_copy(&s, r50, r50t);
  nhood_sched_fence(&s);
  nhood_sched_send(&s, 1, 0, r10);
  CHECK(nhood_sched_finish(&s) == MPI_SUCCESS, "finish");
  nhood_cost_params p = {.L = 10, .o = 1, .g = 0.5, .G = 0.01, .Gcopy = 0.001, .mpi_factor = 1};
  /* round 1: 0.001*50 + 10 + 1*3 + 0.5*1 + 0.01*max(200, 300) = 16.55; round 2: 10 + 1 + 0.1 */
  expect_cost(&s, &p, 1.0, 27.65, "predicted");
  /* Twice the bytes: only the byte terms double (0.05 + 3 + 0.1 more). */
  expect_cost(&s, &p, 2.0, 30.80, "scaled");
  /* Rendezvous: rdv per message end above eager (at 150: round 1's 300-byte receive only); a
   * message of exactly eager bytes is still eager. */
  p.eager = 150;
  p.rdv = 7;
  expect_cost(&s, &p, 1.0, 34.65, "rendezvous in round 1");
  p.eager = 300;
  expect_cost(&s, &p, 1.0, 27.65, "300 bytes at eager = 300");
  p.eager = 15; /* scaled by 2, all four messages cross: 30.80 + 4 * 7 */
  expect_cost(&s, &p, 2.0, 58.80, "every message");
  /* The handshake's wait, once per round that has a message above eager: at eager 150 only
   * round 1 (34.65 + 5); at eager 15 and scale 2 both rounds (58.80 + 2 * 5). */
  p.rdv_round = 5;
  p.eager = 150;
  expect_cost(&s, &p, 1.0, 39.65, "rdv_round in round 1");
  p.eager = 15;
  expect_cost(&s, &p, 2.0, 68.80, "rdv_round in both rounds");
  p.rdv = 0;
  p.rdv_round = 0;
  expect_cost(&s, &p, 2.0, 30.80, "rdv = 0");
  nhood_sched_free(&s);
}

static void test_params_file(void) {
  char path[] = "/tmp/nhood-test-params-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  FILE *f = fdopen(fd, "w");
  nhood_cost_params p = {.L = 210.5,
                         .o = 9.25,
                         .g = 0,
                         .G = 0.0081,
                         .Gcopy = 0.0012,
                         .mpi_factor = 0.97,
                         .eager = 4032,
                         .rdv = 120.5,
                         .rdv_round = 88.25},
                    q;
  CHECK(nhood_cost_params_write(f, &p, "measured by hand\nsecond line") == 0, "write");
  fclose(f);
  char err[256] = "";
  nhood_cost_params_default(&q);
  CHECK(nhood_cost_params_read(path, &q, err, sizeof err) == 0, "read back: %s", err);
  CHECK(fabs(q.L - p.L) < 1e-9 && fabs(q.o - p.o) < 1e-9 && fabs(q.G - p.G) < 1e-12 &&
            fabs(q.Gcopy - p.Gcopy) < 1e-12 && fabs(q.mpi_factor - p.mpi_factor) < 1e-9 && q.eager == p.eager &&
            fabs(q.rdv - p.rdv) < 1e-9 && fabs(q.rdv_round - p.rdv_round) < 1e-9,
        "round trip");

  const struct {
    const char *text, *expect;
  } bad[] = {{"L = 1\nspeed = 3\n", "line 2: unknown key"},
             {"preset = infiniband\n", "unknown preset"},
             {"o = -1\n", "not a non-negative number"},
             {"G 0.5\n", "line 1: expected"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    f = fopen(path, "w");
    fputs(bad[k].text, f);
    fclose(f);
    err[0] = '\0';
    CHECK(nhood_cost_params_read(path, &q, err, sizeof err) != 0 && strstr(err, bad[k].expect) && strstr(err, path),
          "\"%s\" gave \"%s\"", bad[k].text, err);
  }
  f = fopen(path, "w");
  fputs("preset = shm   # a base\nL = 2\n", f);
  fclose(f);
  CHECK(nhood_cost_params_read(path, &q, err, sizeof err) == 0 && q.L == 2 && q.o == 0.1, "preset then override");
  remove(path);
  CHECK(nhood_cost_params_read(path, &q, err, sizeof err) != 0 && strstr(err, path), "missing file: %s", err);
}

/* "auto" on 64 virtual ranks of a periodic 8x8 grid with the Moore radius-1 offsets. */
static const nhood_algorithm *choose(const nhood_cost_params *p, double bytes) {
  enum { P = 64, N = 8 };
  int dims[2] = {N, N}, periods[2] = {1, 1}, offsets[16], k = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[k++] = dy, offsets[k++] = dx;
  size_t n = (size_t)nhood_algorithm_count() * NHOOD_SIZE_CLASSES;
  double *costs = calloc(n, sizeof *costs), *mine = calloc(n, sizeof *mine);
  for (int r = 0; r < P; r++) {
    NHOOD_Topo t;
    int coords[2] = {r / N, r % N};
    CHECK(
        nhood_topo_create_cart_offsets_on_grid(2, dims, periods, coords, 8, offsets, MPI_INFO_NULL, &t) == MPI_SUCCESS,
        "topology");
    CHECK(nhood_auto_costs(t, NULL, NHOOD_ALLGATHER, 0, r, p, NULL, mine, NULL, NULL) == MPI_SUCCESS, "costs");
    for (size_t i = 0; i < n; i++) costs[i] = mine[i] > costs[i] ? mine[i] : costs[i];
    NHOOD_Topo_free(&t);
  }
  const nhood_algorithm *a = nhood_auto_choose(costs, nhood_size_class(bytes), 0);
  free(costs);
  free(mine);
  return a;
}

static void test_choice(void) {
  nhood_cost_params p;
  nhood_cost_params_default(&p);
  CHECK(strcmp(choose(&p, 8)->name, "cart-dim-batch") == 0, "ib-edr, 8 B: %s", choose(&p, 8)->name);
  CHECK(strcmp(choose(&p, 1 << 20)->name, "direct") == 0, "ib-edr, 1 MiB: %s", choose(&p, 1 << 20)->name);
  /* 4 KiB blocks: cart-dim-batch's second round carries 3 blocks (12 KiB, above ib-edr's
   * 8 KiB eager limit) and pays a rendezvous that direct's 4 KiB messages never do. */
  CHECK(strcmp(choose(&p, 4096)->name, "direct") == 0, "ib-edr, 4 KiB: %s", choose(&p, 4096)->name);
  p.rdv = 0;
  CHECK(strcmp(choose(&p, 4096)->name, "cart-dim-batch") == 0, "ib-edr without rendezvous, 4 KiB: %s",
        choose(&p, 4096)->name);
  nhood_cost_params_default(&p);
  p.L = 1000; /* rounds cost far more than messages: one round wins at every size */
  CHECK(strcmp(choose(&p, 8)->name, "direct") == 0, "L=1000, 8 B: %s", choose(&p, 8)->name);
  p.mpi_factor = 0.9; /* MPI's own is the faster direct exchange */
  CHECK(strcmp(choose(&p, 8)->name, "mpi") == 0, "mpi_factor 0.9: %s", choose(&p, 8)->name);
  CHECK(nhood_size_class(0) == 0 && nhood_size_class(1) == 1 && nhood_size_class(2) == 2 && nhood_size_class(3) == 2 &&
            nhood_size_class(4) == 3 && nhood_size_class(1e30) == NHOOD_SIZE_CLASSES - 1,
        "size classes");
}

/* The margin, the short list and a trial's decision, on made-up prices at class 3. */
static double *prices(const char *const names[], const double values[], int n) {
  int count = nhood_algorithm_count();
  double *costs = malloc(sizeof(double) * (size_t)count * NHOOD_SIZE_CLASSES);
  for (int k = 0; k < count * NHOOD_SIZE_CLASSES; k++) costs[k] = INFINITY;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < count; k++)
      if (strcmp(nhood_algorithm_at(k)->name, names[i]) == 0) costs[(size_t)k * NHOOD_SIZE_CLASSES + 3] = values[i];
  return costs;
}

static void test_margin_and_trial(void) {
  const char *const names[] = {"direct", "combine", "cart-dim-batch", "cart-direct"};
  const double near[] = {100, 85, 90, 300}, far[] = {100, 70, 90, 300};
  double *c = prices(names, near, 4);
  CHECK(strcmp(nhood_auto_choose(c, 3, 0)->name, "combine") == 0, "no margin: the cheapest");
  CHECK(strcmp(nhood_auto_choose(c, 3, 0.25)->name, "direct") == 0, "15%% gain under a 25%% margin: direct");
  const nhood_algorithm *list[NHOOD_SHORTLIST_MAX];
  int n = nhood_auto_shortlist(c, 3, 0.25, list);
  CHECK(n == 3 && strcmp(list[0]->name, "direct") == 0 && strcmp(list[1]->name, "combine") == 0 &&
            strcmp(list[2]->name, "cart-dim-batch") == 0,
        "short list: the choice, then the next cheapest; cart-direct (3x) is out");
  free(c);
  c = prices(names, far, 4);
  CHECK(strcmp(nhood_auto_choose(c, 3, 0.25)->name, "combine") == 0, "30%% gain beats a 25%% margin");
  n = nhood_auto_shortlist(c, 3, 0.25, list);
  CHECK(n == 3 && strcmp(list[0]->name, "combine") == 0 && strcmp(list[1]->name, "direct") == 0,
        "short list: the choice, then the plain schedule");
  free(c);
  const char *const with_mpi[] = {"direct", "mpi", "combine", "cart-dim"};
  const double mpi_cheaper[] = {100, 95, 70, 80}, all_plain[] = {100, 100, 300, 400};
  c = prices(with_mpi, mpi_cheaper, 4);
  n = nhood_auto_shortlist(c, 3, 0.25, list);
  CHECK(n == 3 && strcmp(list[0]->name, "combine") == 0 && strcmp(list[1]->name, "mpi") == 0 &&
            strcmp(list[2]->name, "direct") == 0,
        "both baselines, the cheaper first, before other schedules");
  free(c);
  c = prices(with_mpi, all_plain, 4);
  n = nhood_auto_shortlist(c, 3, 0.25, list);
  CHECK(n == 2 && strcmp(list[0]->name, "direct") == 0 && strcmp(list[1]->name, "mpi") == 0,
        "direct and mpi alone: both measured, ties to the earlier");
  free(c);

  nhood_trial tr;
  const nhood_algorithm *three[3] = {nhood_algorithm_by_name("combine"), nhood_algorithm_by_name("direct"),
                                     nhood_algorithm_by_name("cart-dim-batch")};
  nhood_trial_init(&tr, three, 3, 3);
  CHECK(nhood_trial_length(&tr) == 12 && tr.winner < 0, "3 candidates x (1 + 3) executions");
  for (int e = 0; e < 12; e++) {
    int expected = (e / 3) % 2 ? 2 - e % 3 : e % 3; /* rounds alternate: 0 1 2, 2 1 0, ... */
    CHECK(nhood_trial_next(&tr) == expected && !nhood_trial_due(&tr), "candidates in turn, odd rounds reversed");
    nhood_trial_record(&tr, 1.0 + e);
  }
  CHECK(nhood_trial_due(&tr) && nhood_trial_timed_count(&tr) == 9, "due after 12, 9 timed values");
  CHECK(nhood_trial_timed(&tr)[0] == 4.0, "the warm-up round is not timed");
  /* Slowest-process times, timed rounds only, in execution order (round 1 reversed: cart-dim-batch,
   * direct, combine): combine, the model's choice, has the smallest median but lost round 2 to
   * direct, and 3 rounds need 3 wins: direct, the baseline, stays. */
  const double maxima[9] = {9, 5, 2, /* round 1 */ 6, 3, 9, /* round 2 */ 9, 5, 1 /* round 3 */};
  nhood_trial_decide(&tr, maxima);
  CHECK(tr.winner == 1 && tr.median[0] == 2 && tr.median[1] == 5 && tr.median[2] == 9,
        "a lower median that lost a round: the baseline stays");
  CHECK(nhood_trial_next(&tr) == 1, "the winner from now on");
  /* combine wins round 2 too: now it replaces direct; cart-dim-batch does not replace it. */
  const double swept[9] = {9, 5, 2, /* round 1 */ 2.5, 3, 9, /* round 2 */ 9, 5, 1 /* round 3 */};
  nhood_trial_init(&tr, three, 3, 3);
  nhood_trial_decide(&tr, swept);
  CHECK(tr.winner == 0, "faster in every round and by more than 5%%: replaces the baseline");
  CHECK(nhood_trial_wins_needed(5) == 4 && nhood_trial_wins_needed(1) == 1 && nhood_trial_wins_needed(20) == 15,
        "all but a quarter of the rounds");
  /* Five rounds: one lost round is allowed, two are not. */
  const nhood_algorithm *two[2] = {nhood_algorithm_by_name("direct"), nhood_algorithm_by_name("mpi")};
  nhood_trial five;
  nhood_trial_init(&five, two, 2, 5);
  /* The first timed round is reversed: (mpi, direct), (direct, mpi), ... mpi's median 8 against
   * direct's 10; mpi loses round 4, and in two_lost round 5 too. */
  const double one_lost[10] = {8, 10, 10, 8, 8, 10, 10, 12, 9, 10},
               two_lost[10] = {8, 10, 10, 8, 8, 10, 10, 12, 11, 10};
  nhood_trial_decide(&five, one_lost);
  CHECK(five.winner == 1, "4 of 5 rounds and a median 20%% lower: mpi replaces direct");
  nhood_trial_init(&five, two, 2, 5);
  nhood_trial_decide(&five, two_lost);
  CHECK(five.winner == 0 && five.median[1] < five.median[0] / 1.05, "3 of 5 rounds: direct stays, medians aside");
  nhood_trial tie;
  nhood_trial_init(&tie, three, 2, 1);
  /* One timed round, reversed: direct's time first, then combine's. */
  const double close[2] = {1.04, 1.0}, apart[2] = {1.06, 1.0};
  nhood_trial_decide(&tie, close);
  CHECK(tie.winner == 1, "within 5%% of the baseline: the baseline");
  nhood_trial_decide(&tie, apart);
  CHECK(tie.winner == 0, "6%% faster than the baseline: the faster");
  const nhood_algorithm *no_baseline[2] = {nhood_algorithm_by_name("combine"),
                                           nhood_algorithm_by_name("cart-dim-batch")};
  nhood_trial_init(&tie, no_baseline, 2, 1);
  const double second_near[2] = {1.0, 1.04}; /* cart-dim-batch's time first */
  nhood_trial_decide(&tie, second_near);
  CHECK(tie.winner == 0, "no baseline measured: the model's choice stands within 5%%");
  char text[NHOOD_SELECTION_TEXT_MAX];
  nhood_trial_describe(&tr, text, sizeof text);
  CHECK(strstr(text, "measured: combine 2000000.0 us, direct 5000000.0 us") == text && strstr(text, "kept combine"),
        "described");
  nhood_trial_init(&tr, three, 1, 3);
  CHECK(tr.winner == 0 && nhood_trial_length(&tr) == 4, "one candidate: decided at once");
  nhood_trial_init(&tr, three, 3, 0);
  CHECK(tr.winner == 0, "no timed rounds: the model's choice");

  nhood_cost_params lo, hi;
  nhood_cost_params_node(1, &lo);
  nhood_cost_params_node(16, &hi);
  CHECK(lo.L == 0.3 && hi.L > 40 && hi.L / hi.o > lo.L / lo.o, "time-sharing raises a round's latency most");
}

/* Two levels: on nodes of two ranks, rank 0 sends 100 B to rank 1 (its node) and to rank 2
 * (another node) and receives 300 B from rank 3 (another node). On-node messages take the
 * node_* terms, the others the network's; the interface counts only the latter. */
static void test_two_levels(void) {
  nhood_sched s;
  nhood_region r100 = {0, MPI_BYTE, 100, NHOOD_BUF_SEND, 0}, r300 = {0, MPI_BYTE, 300, NHOOD_BUF_RECV, 0};
  CHECK(nhood_sched_init(&s, "hand", 8, 1) == MPI_SUCCESS, "init");
  nhood_sched_send(&s, 1, 0, r100);
  nhood_sched_send(&s, 2, 0, r100);
  nhood_sched_recv(&s, 3, 0, r300);
  CHECK(nhood_sched_finish(&s) == MPI_SUCCESS, "finish");
  nhood_cost_params p = {.L = 10,
                         .o = 1,
                         .g = 0.5,
                         .G = 0.01,
                         .Gcopy = 0.001,
                         .mpi_factor = 1,
                         .node_L = 2,
                         .node_o = 0.25,
                         .node_g = 0.125,
                         .node_G = 0.001,
                         .nic_o = 0.5,
                         .nic_G = 0.002};
  nhood_nodes nodes;
  nhood_nodes_blocks(&nodes, 4, 2);
  double nic[4];
  /* network: 10 + 1*2 + 0.5*0 + 0.01*max(100, 300); node: (L already paid) 0.25*1 + 0.001*100 */
  double t = nhood_cost_predict(&s, &p, 1.0, &nodes, 0, nic);
  CHECK(fabs(t - (15 + 0.35)) < 1e-9, "two levels: %.6f, expected 15.35", t);
  CHECK(nic[0] == 1 && nic[1] == 100 && nic[2] == 1 && nic[3] == 300, "interface load %g %g %g %g", nic[0], nic[1],
        nic[2], nic[3]);
  /* The interface: the larger of injection (0.5 + 0.2) and ejection (0.5 + 0.6). */
  CHECK(fabs(nhood_cost_nic(&p, nic) - 1.1) < 1e-9, "interface time %.6f", nhood_cost_nic(&p, nic));
  /* One node: every message on-node, priced as before with L, o, g, G. */
  nhood_nodes_blocks(&nodes, 4, 4);
  t = nhood_cost_predict(&s, &p, 1.0, &nodes, 0, nic);
  CHECK(fabs(t - (10 + 3 + 0.5 + 0.01 * 300)) < 1e-9, "one node: %.6f", t);
  nhood_sched_free(&s);
}

int main(void) {
  test_tune();
  test_round();
  test_predict();
  test_two_levels();
  test_params_file();
  test_choice();
  test_margin_and_trial();
  return unit_summary("test_selection");
}
