/*
 * Measured selection (selection/trial.h) through the API: a persistent "auto" request and
 * a repeated blocking "auto" call, on a Moore r = 1 stencil of a periodic Cartesian grid,
 * with blocks of two size classes, one after the other. Checked at every call: the data (each candidate of
 * the trial delivers MPI-4.1's result), NHOOD_Selection_info's state ("measuring (k of N
 * calls)", then "measured: ...; kept X" once the trial ended, after exactly the calls the
 * plan says), that X is the first baseline listed or more than 5% faster than it by the medians
 * the text reports, that every process kept the same X, and that the request's schedule is X's.
 *
 *   test_trial [--expect trial|model|asked] [--reps R]
 *
 * --expect model: NHOOD_TRIAL=off (the cost model alone); asked: an NHOOD_TUNE rule names
 * the algorithm. --reps: NHOOD_TRIAL's value when it is set (the trial's length follows).
 * Run with NHOOD_PARAMS=ib-edr, where the model's short list on this stencil has at least two
 * entries (test_trial fails if it has one: there would be nothing to test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

static int rank, size, failures;

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "rank %d: FAILED: %s%s%s\n", rank, what, detail ? ": " : "", detail ? detail : "");
  failures++;
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* "measured: A 1.0 us, B 2.0 us (...); kept B": the kept one's name into kept, and whether
 * it follows the rule of selection/trial.h as far as the printed medians show it. The first
 * baseline listed (direct or mpi; the first candidate where neither is listed) stands, and
 * each replacement has a median more than 5% below the one it replaced, so a kept candidate
 * other than that baseline lies more than 5% below it. The rounds won are not printed. */
static int kept_follows_rule(const char *text, char kept[64]) {
  const char *p = text + strlen("measured:"), *k = strstr(text, "; kept ");
  double first_us = -1, base_us = -1, kept_us = -1;
  char first[64] = "", base[64] = "";
  if (k == NULL) return 0;
  snprintf(kept, 64, "%s", k + strlen("; kept "));
  while (p < k) {
    char name[64];
    double us;
    int used = 0;
    if (sscanf(p, " %63[^ ,(] %lf us%n", name, &us, &used) != 2) break;
    if (first_us < 0) first_us = us, snprintf(first, sizeof first, "%s", name);
    if (base_us < 0 && (strcmp(name, "direct") == 0 || strcmp(name, "mpi") == 0))
      base_us = us, snprintf(base, sizeof base, "%s", name);
    if (strcmp(name, kept) == 0) kept_us = us;
    p += used;
    if (*p == ',') p++;
  }
  if (base_us < 0) base_us = first_us, snprintf(base, sizeof base, "%s", first);
  if (kept_us < 0) return 0;
  if (strcmp(kept, base) == 0) return 1;
  /* The text rounds to 0.1 us: each printed value may be 0.05 from its median. */
  return (kept_us - 0.05) * 1.05 < base_us + 0.05;
}

typedef struct {
  MPI_Comm cart;
  NHOOD_Topo topo;
  int n;          /* neighbors */
  int sources[8]; /* rank of the source of each block */
} stencil;

static void stencil_create(stencil *s) {
  int dims[2] = {0, 0}, periods[2] = {1, 1}, offsets[16], n = 0;
  MPI_Dims_create(size, 2, dims);
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &s->cart));
  int coords[2];
  MPI_Cart_coords(s->cart, rank, 2, coords);
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++) {
      if (dx == 0 && dy == 0) continue;
      offsets[2 * n] = dx;
      offsets[2 * n + 1] = dy;
      int from[2] = {coords[0] - dx, coords[1] - dy};
      MPI_Cart_rank(s->cart, from, &s->sources[n]);
      n++;
    }
  s->n = n;
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(s->cart, n, offsets, MPI_INFO_NULL, &s->topo));
}

/* One exchange of `count` ints per block, call `call`: sends and checks. */
static void fill(int *send, int count, int call) {
  for (int i = 0; i < count; i++) send[i] = rank * 100003 + call * 7 + i;
}
static int check(const stencil *s, const int *recv, int count, int call) {
  for (int b = 0; b < s->n; b++)
    for (int i = 0; i < count; i++)
      if (recv[b * count + i] != s->sources[b] * 100003 + call * 7 + i) return 0;
  return 1;
}

/* The state a selection text is in. */
static const char *state_of(const char *text) {
  return starts_with(text, "measuring (")   ? "measuring"
         : starts_with(text, "measured:")   ? "measured"
         : starts_with(text, "cost model:") ? "model"
         : starts_with(text, "asked for:")  ? "asked"
                                            : "?";
}

/* Runs calls until the selection leaves "measuring"; returns how many that took (the call
 * after which the text first shows the outcome), -1 after a failure. `persistent`: one
 * request started again and again; else blocking calls (a trial per size class). */
static int run(const stencil *s, int persistent, int count, const char *expect, int limit, char kept[64]) {
  int *send = malloc(sizeof(int) * (size_t)count), *recv = malloc(sizeof(int) * (size_t)count * (size_t)s->n);
  NHOOD_Request req = NHOOD_REQUEST_NULL;
  char text[256] = "";
  int took = -1;
  if (persistent)
    TEST_CHECK(NHOOD_Neighbor_allgather_init(send, count, MPI_INT, recv, count, MPI_INT, s->cart, s->topo,
                                             MPI_INFO_NULL, &req));
  for (int call = 0; call < limit; call++) {
    fill(send, count, call);
    memset(recv, 0xff, sizeof(int) * (size_t)count * (size_t)s->n);
    if (persistent) {
      TEST_CHECK(NHOOD_Start(&req));
      if (call % 2) {
        TEST_CHECK(NHOOD_Wait(&req));
      } else { /* completion through Test: the progress path of the trial's task */
        int flag = 0;
        while (!flag) TEST_CHECK(NHOOD_Test(&req, &flag));
      }
      TEST_CHECK(NHOOD_Selection_info(req, text, sizeof text));
    } else {
      TEST_CHECK(NHOOD_Neighbor_allgather(send, count, MPI_INT, recv, count, MPI_INT, s->cart, s->topo));
      TEST_CHECK(NHOOD_Selection_info(NHOOD_REQUEST_NULL, text, sizeof text));
    }
    if (!check(s, recv, count, call)) {
      fail("wrong data", text);
      break;
    }
    const char *state = state_of(text);
    if (call == 0 && strcmp(expect, "trial") == 0 && strcmp(state, "measuring") != 0) {
      fail("the first call did not start a trial (a short list of one?)", text);
      break;
    }
    if (strcmp(expect, "trial") != 0 && strcmp(state, expect) != 0) {
      fail("unexpected selection", text);
      break;
    }
    if (strcmp(state, "measuring") != 0) {
      took = call + 1;
      break;
    }
  }
  if (took > 0 && strcmp(expect, "trial") == 0) {
    if (!kept_follows_rule(text, kept)) fail("the kept candidate is neither the baseline nor 5% faster than it", text);
    /* The calls after the trial run the kept one and deliver. */
    for (int call = took; call < took + 3; call++) {
      fill(send, count, call);
      const char *ran = NULL;
      if (persistent) {
        TEST_CHECK(NHOOD_Start(&req));
        TEST_CHECK(NHOOD_Wait(&req));
        TEST_CHECK(NHOOD_Request_schedule_info(req, &ran, NULL, NULL, NULL, NULL));
      } else {
        TEST_CHECK(NHOOD_Neighbor_allgather(send, count, MPI_INT, recv, count, MPI_INT, s->cart, s->topo));
        TEST_CHECK(NHOOD_Last_algorithm(&ran));
      }
      if (!check(s, recv, count, call)) fail("wrong data after the trial", kept);
      if (ran == NULL || strncmp(ran, kept, strlen(kept)) != 0) fail("a call after the trial ran another one", ran);
    }
  } else if (took > 0) {
    snprintf(kept, 64, "%s", strchr(text, ':') + 2);
  }
  if (took < 0 && failures == 0) fail("the trial did not end", text);
  if (persistent) TEST_CHECK(NHOOD_Request_free(&req));
  free(send);
  free(recv);
  return took;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  watchdog_arm("test_trial");
  const char *expect = "trial";
  int reps = 5; /* NHOOD_TRIAL's default */
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--expect") == 0) expect = argv[i + 1];
    if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
  }
  stencil s;
  stencil_create(&s);
  /* Per size class, persistent then blocking; the blocking calls of the two classes in turn
   * would share nothing, so each class runs its own sequence. */
  const int counts[2] = {2, 2048}; /* 8 B and 8 KiB blocks */
  for (int persistent = 1; persistent >= 0; persistent--)
    for (int c = 0; c < 2; c++) {
      char kept[64] = "", what[160];
      int took = run(&s, persistent, counts[c], expect, 200, kept);
      snprintf(what, sizeof what, "%s, %d B blocks", persistent ? "persistent" : "blocking", counts[c] * 4);
      if (!test_same_everywhere(kept)) fail("processes kept different algorithms", what);
      if (strcmp(expect, "trial") == 0) {
        /* n candidates x (warm-up + reps), and for a request the start that agrees. */
        int n_min = 2 * (reps + 1) + persistent, n_max = 3 * (reps + 1) + persistent;
        if (took < n_min || took > n_max || (took - persistent) % (reps + 1) != 0) {
          char detail[200];
          snprintf(detail, sizeof detail, "%s: the trial took %d calls", what, took);
          fail("a trial of the wrong length", detail);
        }
      } else if (took != 1) {
        fail("a selection without a trial took calls", what);
      }
      if (rank == 0) printf("%s: %s after %d call%s\n", what, kept, took, took == 1 ? "" : "s");
    }
  NHOOD_Topo_free(&s.topo);
  MPI_Comm_free(&s.cart);
  return test_finish("test_trial", failures);
}
