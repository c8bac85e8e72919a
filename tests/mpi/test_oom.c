/*
 * Out of memory in the middle of a call.
 *
 * The program links nhood statically with the linker's --wrap for malloc, calloc and realloc
 * (tests/mpi/CMakeLists.txt), so every allocation of nhood's code (and of this file's) passes
 * through the wrappers below, while the MPI library's, in its shared objects, do not. For
 * auto and every algorithm, a sequence of calls (a topology object created, a blocking
 * allgather, a non-blocking alltoall, a persistent allgather made and started, the reverse
 * topology made) is run once per allocation it makes, the k-th allocation failing in the k-th
 * run. Each call must then succeed or return MPI_ERR_NO_MEM, never crash or return another
 * class; afterwards, with allocation working again, every handle the run made must still work
 * (data checked) and be freeable. Leaks are LeakSanitizer's to find: the sanitizer pass runs
 * this test too.
 *
 * One process: a call that fails on one process leaves the others waiting in the collective,
 * as documented. The Cartesian grid of one process is periodic, so every neighbor is the
 * process itself, eight times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t count, size_t n);
void *__wrap_realloc(void *p, size_t n);

static long countdown; /* the allocation that fails: 1 = the next one; 0: none */
static int injected;   /* it did */

static int fail_now(void) {
  if (countdown <= 0 || --countdown > 0) return 0;
  injected = 1;
  return 1;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t count, size_t n) { return fail_now() ? NULL : __real_calloc(count, n); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

#define MAXDEG 8
static int failures, noffsets, offsets[2 * MAXDEG];
static MPI_Comm comm;

#define EXPECT(cond, ...)                      \
  do {                                         \
    if (!(cond) && failures++ < 20) {          \
      fprintf(stderr, "FAILED: " __VA_ARGS__); \
      fprintf(stderr, "\n");                   \
    }                                          \
  } while (0)

/* MPI_SUCCESS or MPI_ERR_NO_MEM; anything else is a failure. 1 when it succeeded. */
static int ok_or_no_mem(int rc, const char *what, const char *algorithm, long k) {
  if (rc == MPI_SUCCESS) return 1;
  char msg[NHOOD_MAX_ERROR_STRING] = "";
  NHOOD_Error_message(msg, NULL);
  EXPECT(rc == MPI_ERR_NO_MEM, "%s (%s), allocation %ld failing: returned %d, not MPI_ERR_NO_MEM (\"%s\")", what,
         algorithm, k, rc, msg);
  return 0;
}

/* The sequence with allocation k failing (0: none); 1 when allocation k was reached. */
static int sequence(const char *algorithm, long k) {
  NHOOD_Topo topo = NHOOD_TOPO_NULL, reverse = NHOOD_TOPO_NULL;
  NHOOD_Request preq = NHOOD_REQUEST_NULL, req = NHOOD_REQUEST_NULL;
  int mine = 11, got[MAXDEG], send[MAXDEG] = {0}, pmine = 0, pgot[MAXDEG];
  MPI_Info info;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm));
  injected = 0;
  countdown = k;
  if (ok_or_no_mem(NHOOD_Topo_create_cart_offsets(comm, noffsets, offsets, info, &topo), "create", algorithm, k)) {
    ok_or_no_mem(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, topo), "allgather", algorithm, k);
    if (ok_or_no_mem(NHOOD_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, comm, topo, &req), "ialltoall",
                     algorithm, k))
      ok_or_no_mem(NHOOD_Wait(&req), "wait", algorithm, k);
    if (ok_or_no_mem(
            NHOOD_Neighbor_allgather_init(&pmine, 1, MPI_INT, pgot, 1, MPI_INT, comm, topo, MPI_INFO_NULL, &preq),
            "allgather_init", algorithm, k) &&
        ok_or_no_mem(NHOOD_Start(&preq), "start", algorithm, k))
      ok_or_no_mem(NHOOD_Wait(&preq), "persistent wait", algorithm, k);
    ok_or_no_mem(NHOOD_Topo_reverse(topo, &reverse), "reverse", algorithm, k);
  }
  int reached = injected;
  countdown = 0;
  TEST_CHECK(MPI_Info_free(&info));

  /* Allocation works again: what was made must work and be freeable. */
  if (topo != NHOOD_TOPO_NULL) {
    mine = 100 + (int)k;
    int rc = NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, topo);
    EXPECT(rc == MPI_SUCCESS, "allgather after allocation %ld failed (%s): %d", k, algorithm, rc);
    for (int i = 0; i < noffsets && rc == MPI_SUCCESS; i++)
      EXPECT(got[i] == mine, "allgather after allocation %ld failed (%s): block %d is %d", k, algorithm, i, got[i]);
  }
  if (preq != NHOOD_REQUEST_NULL) {
    pmine = 200 + (int)k;
    int rc = NHOOD_Start(&preq);
    if (rc == MPI_SUCCESS) rc = NHOOD_Wait(&preq);
    EXPECT(rc == MPI_SUCCESS, "persistent start after allocation %ld failed (%s): %d", k, algorithm, rc);
    for (int i = 0; i < noffsets && rc == MPI_SUCCESS; i++)
      EXPECT(pgot[i] == pmine, "persistent allgather after allocation %ld failed (%s): block %d", k, algorithm, i);
    EXPECT(NHOOD_Request_free(&preq) == MPI_SUCCESS, "free the persistent request (%s, %ld)", algorithm, k);
  }
  EXPECT(req == NHOOD_REQUEST_NULL, "a non-blocking request left after its wait (%s, %ld)", algorithm, k);
  if (reverse != NHOOD_TOPO_NULL) EXPECT(NHOOD_Topo_free(&reverse) == MPI_SUCCESS, "free the reverse");
  if (topo != NHOOD_TOPO_NULL) EXPECT(NHOOD_Topo_free(&topo) == MPI_SUCCESS, "free the topology");
  return reached;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, dims[2] = {1, 1}, periods[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) {
    fprintf(stderr, "test_oom runs on one process\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[2 * noffsets] = dy, offsets[2 * noffsets + 1] = dx, noffsets++;
  const char *names[TEST_MAX_ALGORITHMS];
  int nalg = test_algorithms(1, names);
  long total = 0;
  char what[96];
  for (int a = 0; a < nalg; a++) {
    snprintf(what, sizeof what, "allocation failures under %s", names[a]);
    watchdog_arm(what);
    sequence(names[a], 0); /* first use: the caches of the communicator and settings */
    long k = 1;
    while (sequence(names[a], k)) k++;
    total += k - 1;
    printf("test_oom: %s: %ld allocations, each failed once\n", names[a], k - 1);
  }
  printf("test_oom: %ld runs with one failing allocation\n", total);
  TEST_CHECK(MPI_Comm_free(&comm));
  return test_finish("test_oom", failures);
}
