/*
 * A receive smaller than what arrives, in a program that left MPI's error handlers as they
 * are (MPI_ERRORS_ARE_FATAL): every process must get MPI_ERR_TRUNCATE back, with a message
 * that names the collective and, where one block is concerned, the block and the neighbor,
 * and nothing may abort or hang. Afterwards a correct call on the same objects must work.
 * A blocking call that repeats a correct one exactly while its neighbors send more (a
 * process's repeat runs from what it kept of the first: api/call_cache.h) must fail the same
 * way.
 *
 *   test_truncate [--algorithm a,b,...] [--starts N]   (N starts of each persistent request; 1)
 *
 * Topology: a bidirectional ring, receive from left and right, send to right and left (on 1
 * or 2 processes the neighbors coincide: self loops and duplicate edges). Each process sends
 * blocks of 4 ints and receives blocks of 2 (alltoallv: 3 against 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

#define DEG 2
#define BIG 4
#define SMALL 2

static int failures, checks;
static int starts = 1; /* of each persistent request (--starts) */

static void fail(int rank, const char *what, const char *detail, const char *msg) {
  failures++;
  fprintf(stderr, "rank %d: FAILED %s: %s (message \"%s\")\n", rank, what, detail, msg);
}

typedef enum { BLOCKING, NONBLOCKING_WAIT, NONBLOCKING_TEST, PERSISTENT, NMODES } mode;
static const char *const mode_names[NMODES] = {"blocking", "non-blocking (wait)", "non-blocking (test)", "persistent"};
typedef enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, NKINDS } kind;
static const char *const kind_names[NKINDS] = {"allgather", "allgatherv", "alltoall", "alltoallv"};

typedef struct {
  int rank, size, sources[DEG];
  MPI_Comm comm;
  NHOOD_Topo topo;
} setup;

/* Posts call k; scount elements per send block, rcount per receive block. */
static int call(setup *s, kind k, mode m, int scount, int rcount, int *sendbuf, int *recvbuf, NHOOD_Request *req) {
  int scounts[DEG] = {scount, scount}, sdispls[DEG] = {0, BIG}, rcounts[DEG] = {rcount, rcount},
      rdispls[DEG] = {0, BIG};
  MPI_Comm c = s->comm;
  NHOOD_Topo t = s->topo;
  MPI_Info none = MPI_INFO_NULL;
  switch (k) {
    case ALLGATHER:
      return m == BLOCKING ? NHOOD_Neighbor_allgather(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t)
             : m == PERSISTENT
                 ? NHOOD_Neighbor_allgather_init(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t, none, req)
                 : NHOOD_Ineighbor_allgather(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t, req);
    case ALLGATHERV:
      return m == BLOCKING
                 ? NHOOD_Neighbor_allgatherv(sendbuf, scount, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, c, t)
             : m == PERSISTENT
                 ? NHOOD_Neighbor_allgatherv_init(sendbuf, scount, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, c, t,
                                                  none, req)
                 : NHOOD_Ineighbor_allgatherv(sendbuf, scount, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, c, t, req);
    case ALLTOALL:
      return m == BLOCKING ? NHOOD_Neighbor_alltoall(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t)
             : m == PERSISTENT
                 ? NHOOD_Neighbor_alltoall_init(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t, none, req)
                 : NHOOD_Ineighbor_alltoall(sendbuf, scount, MPI_INT, recvbuf, rcount, MPI_INT, c, t, req);
    default:
      return m == BLOCKING     ? NHOOD_Neighbor_alltoallv(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts, rdispls,
                                                          MPI_INT, c, t)
             : m == PERSISTENT ? NHOOD_Neighbor_alltoallv_init(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts,
                                                               rdispls, MPI_INT, c, t, none, req)
                               : NHOOD_Ineighbor_alltoallv(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts,
                                                           rdispls, MPI_INT, c, t, req);
  }
}

/* Runs call k in mode m to completion and returns what the completing function returned. */
static int run(setup *s, kind k, mode m, int scount, int rcount, int *sendbuf, int *recvbuf) {
  NHOOD_Request req = NHOOD_REQUEST_NULL;
  int rc = call(s, k, m, scount, rcount, sendbuf, recvbuf, &req);
  if (m == BLOCKING || rc != MPI_SUCCESS) return rc;
  if (m == PERSISTENT) {
    /* With --starts N, N starts: where the first fails, none of the others may succeed (MPI
     * may report another class then: Open MPI's own persistent request, once failed, answers
     * MPI_ERR_REQUEST), and none may abort. After the first start "mpi" completes without
     * swapping MPI's error handlers where no receive can be truncated, and must keep them
     * where one can (engine/native_task.c). */
    int first = MPI_SUCCESS;
    for (int start = 0; start < starts; start++) {
      if ((rc = NHOOD_Start(&req)) == MPI_SUCCESS) rc = NHOOD_Wait(&req);
      if (start == 0) first = rc;
      if ((rc == MPI_SUCCESS) != (first == MPI_SUCCESS)) {
        failures++;
        fprintf(stderr, "rank %d: FAILED start %d of a persistent request returned %d, the first %d\n", s->rank,
                start + 1, rc, first);
      }
    }
    if (first != MPI_SUCCESS) rc = first;
    NHOOD_Request freed = req;
    TEST_CHECK(NHOOD_Request_free(&freed));
    return rc;
  }
  if (m == NONBLOCKING_WAIT) return NHOOD_Wait(&req);
  int flag = 0;
  while (!flag && rc == MPI_SUCCESS) rc = NHOOD_Test(&req, &flag);
  if (req != NHOOD_REQUEST_NULL) {
    failures++;
    fprintf(stderr, "rank %d: FAILED a completed request was not freed\n", s->rank);
  }
  return rc;
}

/* 1 when text holds "rank <r>" for a neighbor r, or names this process. */
static int names_neighbor(const setup *s, const char *text) {
  return text_names_rank(text, s->sources[0]) || text_names_rank(text, s->sources[1]) ||
         strstr(text, "this process") != NULL;
}

/* Checks what a call that received too much returned (rc, and its message). */
static void check_truncated(setup *s, const char *alg, const char *what, kind k, int rc) {
  char msg[NHOOD_MAX_ERROR_STRING] = "";
  int errclass = MPI_SUCCESS;
  NHOOD_Error_message(msg, NULL);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &errclass);
  /* MPI's own collectives ("mpi", and "auto", which may pick it) give what the MPI library
   * gives: Open MPI 4.1 returns MPI_ERR_OTHER, or nothing for self edges. They must not abort
   * or hang, and an error must name the collective. The others must return MPI_ERR_TRUNCATE
   * and say where: direct the block and the neighbor, the combining algorithms at least one. */
  int own = strcmp(alg, "mpi") == 0 || strcmp(alg, "auto") == 0, direct = strcmp(alg, "direct") == 0;
  int names_block = strstr(msg, "block") != NULL, names_peer = names_neighbor(s, msg);
  checks++;
  if (own && rc == MPI_SUCCESS)
    ;
  else if (!own && errclass != MPI_ERR_TRUNCATE)
    fail(s->rank, what, rc == MPI_SUCCESS ? "returned MPI_SUCCESS, not MPI_ERR_TRUNCATE" : "not MPI_ERR_TRUNCATE", msg);
  else if (strstr(msg, kind_names[k]) == NULL)
    fail(s->rank, what, "the message does not name the collective", msg);
  else if (direct && !(names_block && names_peer))
    fail(s->rank, what, "the message does not name both the block and the neighbor", msg);
  else if (!own && !names_block && !names_peer)
    fail(s->rank, what, "the message names neither a block nor a neighbor", msg);
}

/* A correct call in mode m must work. */
static void check_correct(setup *s, const char *what, kind k, mode m, int *sendbuf, int *recvbuf) {
  int small = k == ALLTOALLV ? 1 : SMALL, rc = run(s, k, m, small, small, sendbuf, recvbuf);
  checks++;
  if (rc != MPI_SUCCESS) {
    char msg[NHOOD_MAX_ERROR_STRING] = "";
    NHOOD_Error_message(msg, NULL);
    fail(s->rank, what, "a correct call failed", msg);
  }
}

static void run_case(setup *s, const char *alg, kind k, mode m) {
  char what[160];
  snprintf(what, sizeof what, "%s %s under %s", mode_names[m], kind_names[k], alg);
  watchdog_arm(what);
  int sendbuf[DEG * BIG], recvbuf[DEG * BIG];
  for (int e = 0; e < DEG * BIG; e++) sendbuf[e] = s->rank * 100 + e;
  int big = k == ALLTOALLV ? 3 : BIG, small = k == ALLTOALLV ? 1 : SMALL;
  check_truncated(s, alg, what, k, run(s, k, m, big, small, sendbuf, recvbuf));
  check_correct(s, what, k, m, sendbuf, recvbuf); /* the same objects still work */
  watchdog_disarm();
}

/* Blocking (direct): a correct call twice, then rank 0 repeats it exactly while the others send more;
 * every process whose sources include another than rank 0 receives too much. Then the correct
 * call again. */
static void run_repeat_case(setup *s, const char *alg, kind k) {
  char what[160];
  snprintf(what, sizeof what, "a repeated blocking %s under %s", kind_names[k], alg);
  watchdog_arm(what);
  int sendbuf[DEG * BIG], recvbuf[DEG * BIG];
  for (int e = 0; e < DEG * BIG; e++) sendbuf[e] = s->rank * 100 + e;
  int big = k == ALLTOALLV ? 3 : BIG, small = k == ALLTOALLV ? 1 : SMALL;
  for (int call = 0; call < 2; call++) check_correct(s, what, k, BLOCKING, sendbuf, recvbuf);
  int rc = run(s, k, BLOCKING, s->rank == 0 ? small : big, small, sendbuf, recvbuf);
  if (s->sources[0] != 0 || s->sources[1] != 0)
    check_truncated(s, alg, what, k, rc);
  else if (rc != MPI_SUCCESS) /* only rank 0 sends here, as much as is received */
    fail(s->rank, what, "failed where nothing was truncated", "");
  check_correct(s, what, k, BLOCKING, sendbuf, recvbuf);
  watchdog_disarm();
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv); /* MPI's error handlers stay as they are: errors are fatal */
  const char *filter = NULL;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--algorithm") == 0)
      filter = argv[++i];
    else if (strcmp(argv[i], "--starts") == 0)
      starts = atoi(argv[++i]);
  setup s;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  int left = (s.rank + s.size - 1) % s.size, right = (s.rank + 1) % s.size;
  s.sources[0] = left;
  s.sources[1] = right;
  int destinations[DEG] = {right, left};

  /* Every algorithm of the registry and auto: the isomorphic ones (cart-*) on the ring as
   * offsets, the others on the ring as a graph. */
  const char *algorithms[TEST_MAX_ALGORITHMS];
  int nalgorithms = test_algorithms(1, algorithms);
  for (int a = 0; a < nalgorithms; a++) {
    if (!test_selected(algorithms[a], filter)) continue;
    MPI_Info info;
    TEST_CHECK(MPI_Info_create(&info));
    TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithms[a]));
    int periodic = 1, offsets[DEG] = {1, -1}; /* the same ring as offsets */
    TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &s.size, &periodic, 0, &s.comm));
    if (strncmp(algorithms[a], "cart-", 5) == 0)
      TEST_CHECK(NHOOD_Topo_create_cart_offsets(s.comm, DEG, offsets, info, &s.topo));
    else
      TEST_CHECK(NHOOD_Topo_create_adjacent(DEG, s.sources, test_unweighted(), DEG, destinations, test_unweighted(),
                                            info, &s.topo));
    TEST_CHECK(MPI_Info_free(&info));
    for (int k = 0; k < NKINDS; k++) {
      for (int m = 0; m < NMODES; m++) run_case(&s, algorithms[a], (kind)k, (mode)m);
      /* Only direct's: the processes' calls differ, which others may detect before sending
       * (cart-dim compares block sizes) or take different decisions on (auto). */
      if (strcmp(algorithms[a], "direct") == 0) run_repeat_case(&s, algorithms[a], (kind)k);
    }
    TEST_CHECK(NHOOD_Topo_free(&s.topo));
    TEST_CHECK(MPI_Comm_free(&s.comm));
  }

  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (s.rank == 0) printf("test_truncate np=%d: %d passed, %d failed\n", s.size, checks - failures, failures);
  MPI_Finalize();
  return failures > 0;
}
