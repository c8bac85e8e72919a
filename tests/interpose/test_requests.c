/*
 * MPI's request semantics for the requests of the interposition library, in a plain MPI
 * program (no nhood.h) run under nhood-run: what MPI_Ineighbor_* and the persistent
 * MPI_Neighbor_*_init return must work with every request function, mixed with
 * point-to-point requests, MPI_REQUEST_NULL and inactive persistent requests, whatever order
 * the processes wait in.
 *
 *   test_requests [--case NAME]      (every case by default)
 *
 * Topology: a ring as a distributed graph (receive from the left and right neighbors, send to
 * both), so receive block 0 holds the left neighbor's value and block 1 the right one's. Run
 * with NHOOD_ALGORITHM=combine (and NHOOD_COMBINE_LEVELS=64, THETA=1) the schedules take
 * several rounds, which only move when something calls into nhood: the waiting-order cases
 * then hang unless every request function advances every nhood request in flight.
 * A case that hangs is stopped by an alarm (60 s) that names it; the exit status is 1 when a
 * case failed on any process.
 */
#define _GNU_SOURCE /* dladdr */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interposed.h"

static int rank, size, failures, checks;
static const char *only;
static char current[128];

static void on_alarm(int sig) {
  (void)sig;
  char line[200];
  int n = snprintf(line, sizeof line, "rank %d: TIMEOUT in case %s (a hang)\n", rank, current);
  if (write(2, line, n > 0 ? (size_t)n : 0) < 0) _exit(3);
  _exit(3);
}

static int begin(const char *name) {
  if (only && strcmp(only, name) != 0) return 0;
  snprintf(current, sizeof current, "%s", name);
  alarm(60);
  return 1;
}

#define CHECK(cond, ...)                                      \
  do {                                                        \
    checks++;                                                 \
    if (!(cond)) {                                            \
      failures++;                                             \
      fprintf(stderr, "rank %d: FAILED %s: ", rank, current); \
      fprintf(stderr, __VA_ARGS__);                           \
      fprintf(stderr, "\n");                                  \
    }                                                         \
  } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s did not succeed", #call)

static MPI_Comm ring;
/* MPI_UNWEIGHTED through a volatile pointer: GCC's access checks see MPICH's and Open MPI's
 * sentinel as an array of size 0 and warn. */
static int *volatile unweighted;
static int left, right;

/* Starts a non-blocking allgather of `value` on the ring. */
static void iallgather(const int *value, int *recv, MPI_Request *req) {
  recv[0] = recv[1] = -1;
  OK(MPI_Ineighbor_allgather(value, 1, MPI_INT, recv, 1, MPI_INT, ring, req));
}

static void check_ring(const int recv[2], int base, const char *what) {
  CHECK(recv[0] == base + left && recv[1] == base + right, "%s: got %d %d, want %d %d", what, recv[0], recv[1],
        base + left, base + right);
}

/* A collective's status: nothing counted, not cancelled. (MPI leaves source and tag of a
 * collective undefined: nhood's say MPI_ANY_SOURCE and MPI_ANY_TAG, an empty status; Open MPI's
 * own say 0 and 0.) */
static void check_collective_status(const MPI_Status *s, const char *what) {
  int count = -1, cancelled = -1;
  MPI_Get_count(s, MPI_BYTE, &count);
  MPI_Test_cancelled(s, &cancelled);
  CHECK(count == 0 && !cancelled, "%s: status count %d cancelled %d", what, count, cancelled);
}

/* MPI_Waitall over nhood's non-blocking request, point-to-point ones, MPI_REQUEST_NULL and an
 * inactive persistent nhood request: all complete, the non-persistent ones become null, the
 * persistent one stays. */
static void case_waitall_mixed(void) {
  if (!begin("waitall-mixed")) return;
  int value = 100 + rank, recv[2], p2p_in = -1, p2p_out = rank;
  MPI_Request reqs[5];
  reqs[0] = MPI_REQUEST_NULL;
  iallgather(&value, recv, &reqs[1]);
  OK(MPI_Irecv(&p2p_in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[2]));
  OK(MPI_Isend(&p2p_out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[3]));
  int pvalue = 0, precv[2];
#ifdef ALLGATHER_INIT
  OK(ALLGATHER_INIT(&pvalue, 1, MPI_INT, precv, 1, MPI_INT, ring, MPI_INFO_NULL, &reqs[4]));
#else
  reqs[4] = MPI_REQUEST_NULL;
#endif
  MPI_Request persistent = reqs[4];
  MPI_Status st[5];
  OK(MPI_Waitall(5, reqs, st));
  check_ring(recv, 100, "ineighbor_allgather");
  CHECK(p2p_in == left, "point-to-point got %d, want %d", p2p_in, left);
  CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL,
        "completed requests are not MPI_REQUEST_NULL");
  CHECK(reqs[4] == persistent, "the persistent request's handle changed");
  CHECK(st[2].MPI_SOURCE == left && st[2].MPI_TAG == 7, "receive status source %d tag %d", st[2].MPI_SOURCE,
        st[2].MPI_TAG);
  check_collective_status(&st[1], "Waitall status of the collective");
  /* Started, it runs; waited, it is inactive again. */
  for (int round = 0; round < 2 && persistent != MPI_REQUEST_NULL; round++) {
    pvalue = 200 + 10 * round + rank;
    OK(MPI_Start(&reqs[4]));
    OK(MPI_Waitall(5, reqs, st));
    check_ring(precv, 200 + 10 * round, "persistent allgather");
    CHECK(reqs[4] == persistent, "the persistent request's handle changed");
    check_collective_status(&st[4], "Waitall status of the persistent collective");
  }
  if (persistent != MPI_REQUEST_NULL) OK(MPI_Request_free(&reqs[4]));
  CHECK(reqs[4] == MPI_REQUEST_NULL, "MPI_Request_free did not set the handle to MPI_REQUEST_NULL");
}

/* MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome: each index exactly once, the right
 * data behind it, then MPI_UNDEFINED once only null or inactive requests are left. */
static void case_any_some(const char *name, int which) {
  if (!begin(name)) return;
  int v1 = 300 + rank, v2 = 400 + rank, r1[2], r2[2], p2p_in = -1, p2p_out = rank;
  MPI_Request reqs[6];
  int seen[6] = {0};
  reqs[0] = MPI_REQUEST_NULL;
  iallgather(&v1, r1, &reqs[1]);
  OK(MPI_Irecv(&p2p_in, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[2]));
  iallgather(&v2, r2, &reqs[3]);
  OK(MPI_Isend(&p2p_out, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &reqs[4]));
  int pvalue = 0, precv[2];
#ifdef ALLGATHER_INIT
  OK(ALLGATHER_INIT(&pvalue, 1, MPI_INT, precv, 1, MPI_INT, ring, MPI_INFO_NULL, &reqs[5])); /* inactive */
#else
  reqs[5] = MPI_REQUEST_NULL;
#endif
  MPI_Request persistent = reqs[5];
  for (int rounds = 0; rounds < 100000; rounds++) {
    int index = MPI_UNDEFINED, flag = 0, outcount = 0, indices[6];
    MPI_Status st[6];
    if (which == 0) {
      OK(MPI_Waitany(6, reqs, &index, &st[0]));
      outcount = index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
      indices[0] = index;
    } else if (which == 1) {
      OK(MPI_Waitsome(6, reqs, &outcount, indices, st));
    } else if (which == 2) {
      OK(MPI_Testany(6, reqs, &index, &flag, &st[0]));
      outcount = !flag ? 0 : index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
      indices[0] = index;
    } else {
      OK(MPI_Testsome(6, reqs, &outcount, indices, st));
    }
    if (outcount == MPI_UNDEFINED) break;
    for (int k = 0; k < outcount; k++) {
      int i = indices[k];
      CHECK(i >= 1 && i <= 4 && !seen[i], "index %d returned (seen before: %d)", i, i >= 0 && i < 6 ? seen[i] : -1);
      if (i < 0 || i >= 6) continue;
      seen[i]++;
      CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d is not MPI_REQUEST_NULL once returned", i);
      if (i == 1 || i == 3) check_collective_status(&st[k], "status of a collective");
      if (i == 2) CHECK(st[k].MPI_SOURCE == right && st[k].MPI_TAG == 8, "receive status");
    }
  }
  CHECK(seen[1] == 1 && seen[2] == 1 && seen[3] == 1 && seen[4] == 1, "not every request completed once: %d %d %d %d",
        seen[1], seen[2], seen[3], seen[4]);
  check_ring(r1, 300, "first allgather");
  check_ring(r2, 400, "second allgather");
  CHECK(p2p_in == right, "point-to-point got %d", p2p_in);
  CHECK(reqs[5] == persistent, "the inactive persistent request changed");
  if (persistent != MPI_REQUEST_NULL) OK(MPI_Request_free(&reqs[5]));
}

/* MPI_Test and MPI_Request_get_status on nhood's request; an inactive persistent request
 * answers at once, with an empty status, and stays. */
static void case_test_status(void) {
  if (!begin("test-get-status")) return;
  int value = 500 + rank, recv[2], flag = 0;
  MPI_Request req;
  MPI_Status st;
  iallgather(&value, recv, &req);
  while (!flag) OK(MPI_Request_get_status(req, &flag, &st));
  CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
  check_collective_status(&st, "MPI_Request_get_status");
  flag = 0;
  OK(MPI_Test(&req, &flag, &st));
  CHECK(flag && req == MPI_REQUEST_NULL, "MPI_Test after completion: flag %d", flag);
  check_ring(recv, 500, "allgather");
#ifdef ALLGATHER_INIT
  int pvalue = 0, precv[2];
  MPI_Request p;
  OK(ALLGATHER_INIT(&pvalue, 1, MPI_INT, precv, 1, MPI_INT, ring, MPI_INFO_NULL, &p));
  MPI_Request h = p;
  flag = 0;
  OK(MPI_Request_get_status(p, &flag, &st));
  CHECK(flag, "an inactive persistent request is not complete for MPI_Request_get_status");
  OK(MPI_Wait(&p, &st));
  CHECK(p == h, "MPI_Wait on an inactive persistent request changed it");
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "not an empty status");
  OK(MPI_Start(&p));
  flag = 0;
  while (!flag) OK(MPI_Test(&p, &flag, MPI_STATUS_IGNORE));
  CHECK(p == h, "MPI_Test of a persistent request changed it");
  pvalue = 600 + rank;
  OK(MPI_Startall(1, &p));
  OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
  check_ring(precv, 600, "persistent allgather after MPI_Startall");
  OK(MPI_Request_free(&p));
#endif
}

/* Processes wait in different orders: even ranks the first collective first, odd ranks the
 * second; and a process that waits on a receive its peer sends only once its own collective
 * is complete. Neither may deadlock. */
static void case_orders(void) {
  if (!begin("wait-orders")) return;
  int v1 = 700 + rank, v2 = 800 + rank, r1[2], r2[2];
  MPI_Request a, b;
  iallgather(&v1, r1, &a);
  iallgather(&v2, r2, &b);
  if (rank % 2 == 0) {
    OK(MPI_Wait(&a, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
  } else {
    OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&a, MPI_STATUS_IGNORE));
  }
  check_ring(r1, 700, "first allgather");
  check_ring(r2, 800, "second allgather");

  /* Rank 0 waits for a message from rank 1 before it waits for its collective; rank 1
   * sends it only after its own collective completed, which needs rank 0's part. */
  int v3 = 900 + rank, r3[2], token = -1;
  MPI_Request c, recv;
  iallgather(&v3, r3, &c);
  if (size > 1 && rank == 0) {
    OK(MPI_Irecv(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &recv));
    OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    CHECK(token == 42, "token %d", token);
  }
  OK(MPI_Wait(&c, MPI_STATUS_IGNORE));
  if (size > 1 && rank == 1) {
    token = 42;
    OK(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
  }
  check_ring(r3, 900, "third allgather");
}

/* Freeing an active request (erroneous for collectives in MPI, accepted here): the run still
 * ends everywhere, nobody hangs; the same for a persistent request freed while started, and
 * one that outlives its communicator. */
static void case_free(void) {
  if (!begin("free-active")) return;
  /* A freed active request still reads and writes its buffers until it completes, which may
   * be after this function returns: they must outlive it (AddressSanitizer). */
  static int value, recv[2];
  value = 1000 + rank;
  MPI_Request req;
  iallgather(&value, recv, &req);
  OK(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free did not set MPI_REQUEST_NULL");
  /* A later collective on the ring completes (the freed one ran to its end first). */
  int again = 1100 + rank, recv2[2];
  OK(MPI_Neighbor_allgather(&again, 1, MPI_INT, recv2, 1, MPI_INT, ring));
  check_ring(recv2, 1100, "allgather after a freed one");
#ifdef ALLGATHER_INIT
  MPI_Comm dup;
  OK(MPI_Comm_dup(ring, &dup)); /* keeps the topology */
  static int pvalue, precv[2];
  pvalue = 1200 + rank;
  MPI_Request p;
  OK(ALLGATHER_INIT(&pvalue, 1, MPI_INT, precv, 1, MPI_INT, dup, MPI_INFO_NULL, &p));
  OK(MPI_Comm_free(&dup));
  OK(MPI_Start(&p));
  OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
  check_ring(precv, 1200, "persistent allgather after MPI_Comm_free");
  OK(MPI_Start(&p));
  OK(MPI_Request_free(&p)); /* while active */
  OK(MPI_Neighbor_allgather(&again, 1, MPI_INT, recv2, 1, MPI_INT, ring));
  check_ring(recv2, 1100, "allgather after a freed persistent one");
#endif
}

/* Errors go through the communicator's error handler: MPI_ERRORS_RETURN returns the class;
 * a handler of the program's own sees the call; cancelling a collective is MPI_ERR_REQUEST. */
static int handler_calls, handler_code;
static void record_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls++;
  handler_code = *code;
}

static void case_errors(void) {
  if (!begin("errors")) return;
  int value = 0, recv[2], cls = 0;
  MPI_Comm comm;
  OK(MPI_Comm_dup(ring, &comm));
  OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int rc = MPI_Neighbor_allgather(&value, -1, MPI_INT, recv, 1, MPI_INT, comm);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "a negative count gave class %d, want MPI_ERR_COUNT", cls);
  MPI_Errhandler mine;
  OK(MPI_Comm_create_errhandler(record_handler, &mine));
  OK(MPI_Comm_set_errhandler(comm, mine));
  rc = MPI_Neighbor_alltoall(&value, 1, MPI_DATATYPE_NULL, recv, 1, MPI_INT, comm);
  MPI_Error_class(rc, &cls);
  CHECK(handler_calls == 1 && rc != MPI_SUCCESS, "the program's handler ran %d times (rc %d)", handler_calls, rc);
  OK(MPI_Errhandler_free(&mine));
  OK(MPI_Comm_free(&comm));
  MPI_Request req;
  iallgather(&value, recv, &req);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  rc = MPI_Cancel(&req);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel of a collective gave class %d, want MPI_ERR_REQUEST", cls);
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
#ifdef ALLGATHER_INIT
  /* A persistent neighborhood collective started while active. */
  static int pvalue, precv[2];
  MPI_Request preq;
  ALLGATHER_INIT(&pvalue, 1, MPI_INT, precv, 1, MPI_INT, ring, MPI_INFO_NULL, &preq);
  OK(MPI_Start(&preq));
  rc = MPI_Start(&preq);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Start of an active persistent collective gave class %d, want MPI_ERR_REQUEST",
        cls);
  OK(MPI_Wait(&preq, MPI_STATUS_IGNORE));
  OK(MPI_Request_free(&preq));
#endif
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* MPI accepts NULL count, displacement and type arrays on a process of degree 0, and
 * alltoallw arrays sized by the degree: here rank 0 has no neighbors at all. */
static void case_degree_zero(void) {
  if (!begin("degree-zero")) return;
  int nb[2], deg = 0; /* the ring without rank 0: symmetric, so consistent */
  if (rank != 0) {
    if (left != 0) nb[deg++] = left;
    if (right != 0) nb[deg++] = right;
  }
  MPI_Comm g;
  OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, nb, unweighted, deg, nb, unweighted, MPI_INFO_NULL, 0, &g));
  int *counts = deg ? malloc(sizeof(int) * (size_t)deg) : NULL,
      *displs = deg ? malloc(sizeof(int) * (size_t)deg) : NULL;
  MPI_Aint *bdispls = deg ? malloc(sizeof(MPI_Aint) * (size_t)deg) : NULL;
  MPI_Datatype *types = deg ? malloc(sizeof(MPI_Datatype) * (size_t)deg) : NULL;
  int send[2] = {rank, rank}, recv[2] = {-1, -1};
  for (int k = 0; k < deg; k++)
    counts[k] = 1, displs[k] = k, bdispls[k] = (MPI_Aint)(k * sizeof(int)), types[k] = MPI_INT;
  OK(MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, g));
  for (int k = 0; k < deg; k++) CHECK(recv[k] == nb[k], "alltoallv block %d: %d, want %d", k, recv[k], nb[k]);
  recv[0] = recv[1] = -1;
  OK(MPI_Neighbor_alltoallw(send, counts, bdispls, types, recv, counts, bdispls, types, g));
  for (int k = 0; k < deg; k++) CHECK(recv[k] == nb[k], "alltoallw block %d: %d, want %d", k, recv[k], nb[k]);
  OK(MPI_Neighbor_allgatherv(send, deg ? 1 : 0, MPI_INT, recv, counts, displs, MPI_INT, g));
  free(counts), free(displs), free(bdispls), free(types);
  OK(MPI_Comm_free(&g));
}

/* Communicators freed, then others created: MPI may hand out a freed one's handle again
 * (both MPIs here do), and the library, which remembers each thread's last communicator, must
 * run the new one on its own topology. Round r's graph has r % 3 + 1 edges from the left
 * neighbor and as many to the right one (duplicates), so a stale topology delivers the wrong
 * number of blocks, or hangs. Two communicators alternating come last. */
static void case_comm_reuse(void) {
  if (!begin("comm-reuse")) return;
  int reused = 0;
  MPI_Comm freed[9]; /* every communicator freed so far: MPI may give any of them out again */
  for (int round = 0; round < 9; round++) {
    int degree = round % 3 + 1, from[3], to[3], value = 2000 + 10 * round + rank, recv[4];
    for (int k = 0; k < degree; k++) from[k] = left, to[k] = right;
    MPI_Comm g;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, from, unweighted, degree, to, unweighted, MPI_INFO_NULL,
                                      0, &g));
    for (int f = 0; f < round; f++) reused += g == freed[f];
    for (int k = 0; k < 4; k++) recv[k] = -1;
    OK(MPI_Neighbor_allgather(&value, 1, MPI_INT, recv, 1, MPI_INT, g));
    for (int k = 0; k < 4; k++) {
      int want = k < degree ? 2000 + 10 * round + left : -1;
      CHECK(recv[k] == want, "round %d (degree %d): block %d is %d, want %d", round, degree, k, recv[k], want);
    }
    freed[round] = g;
    OK(MPI_Comm_free(&g));
  }
  /* AddressSanitizer holds freed memory back from reuse, and Open MPI's handles are pointers
   * (Open MPI 5 reuses them on some processes only: one is enough). */
#if !defined(__SANITIZE_ADDRESS__)
  OK(MPI_Allreduce(MPI_IN_PLACE, &reused, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(reused > 0, "MPI never gave a freed communicator's handle to a new one: the case tests nothing");
#else
  (void)reused;
#endif
  MPI_Comm other;
  int single[1] = {right}, from_left[1] = {left};
  OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, from_left, unweighted, 1, single, unweighted, MPI_INFO_NULL, 0,
                                    &other));
  for (int k = 0; k < 4; k++) {
    int value = 3000 + 10 * k + rank, recv[2] = {-1, -1};
    OK(MPI_Neighbor_allgather(&value, 1, MPI_INT, recv, 1, MPI_INT, k % 2 ? other : ring));
    if (k % 2)
      CHECK(recv[0] == 3000 + 10 * k + left && recv[1] == -1, "alternating, other: got %d %d", recv[0], recv[1]);
    else
      check_ring(recv, 3000 + 10 * k, "alternating, ring");
  }
  OK(MPI_Comm_free(&other));
}

/* With MPI's default handler (MPI_ERRORS_ARE_FATAL) a bad argument stops the program, after
 * nhood's message; run alone (--case fatal), expected to abort. */
static void case_fatal(void) {
  if (!only || strcmp(only, "fatal") != 0) return;
  begin("fatal");
  int value = 0, recv[2];
  MPI_Neighbor_allgather(&value, -1, MPI_INT, recv, 1, MPI_INT, ring);
  fprintf(stderr, "rank %d: FAILED fatal: the call returned\n", rank);
  failures++;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 1; k + 1 < argc; k++)
    if (strcmp(argv[k], "--case") == 0) only = argv[++k];
  signal(SIGALRM, on_alarm);
  if (!interposed()) {
    if (rank == 0) fprintf(stderr, "test_requests: libnhood-mpi.so is not preloaded (run it under nhood-run)\n");
    MPI_Finalize();
    return 1;
  }
  unweighted = MPI_UNWEIGHTED;
  left = (rank + size - 1) % size, right = (rank + 1) % size;
  int nb[2] = {left, right};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, unweighted, 2, nb, unweighted, MPI_INFO_NULL, 0, &ring);

  case_waitall_mixed();
  case_any_some("waitany", 0);
  case_any_some("waitsome", 1);
  case_any_some("testany", 2);
  case_any_some("testsome", 3);
  case_test_status();
  case_orders();
  case_free();
  case_errors();
  case_degree_zero();
  case_comm_reuse();
  case_fatal();
  alarm(0);

  MPI_Comm_free(&ring);
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_requests np=%d: %d passed, %d failed\n", size, checks - failures, failures);
  MPI_Finalize();
  return failures > 0;
}
