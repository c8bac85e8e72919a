/*
 * The program's own messages and nhood's never match each other.
 *
 * On a periodic Cartesian communicator (the program's), with a Moore neighborhood given as
 * offsets so that every algorithm runs (the isomorphic ones apply; the others run as they are),
 * under auto and every algorithm of the registry:
 *
 *   1. Every process keeps RECVS receives from MPI_ANY_SOURCE with MPI_ANY_TAG posted on the
 *      program's communicator while it runs a blocking allgather, a non-blocking alltoall and
 *      three starts of a persistent allgather. None of them may complete (nothing nhood sends
 *      may reach them), and every collective's data must be right (nothing of nhood's may be
 *      taken by them). Then the program's own messages arrive and each receive must get one
 *      of them, whole.
 *   2. Every process sends SENDS messages to other processes on the program's communicator,
 *      with tags 0 to SENDS - 1 (the tags nhood's first calls use on its own communicator),
 *      before the same collectives run, and receives them only afterwards: they wait at their
 *      receivers while the collectives run, and must arrive intact, none taken by nhood.
 *
 * A hang (a stolen message) is reported by the watchdog with the case it happened in.
 * Freeing the program's communicator while persistent requests on it live is mpi.lifetime's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

#define RECVS 4
#define SENDS 8
#define MARK 0x5a5a0000
#define MAXDEG 8

static int rank, size, failures;
static MPI_Status ignored[SENDS]; /* not MPI_STATUSES_IGNORE: MPICH's declaration makes GCC warn */
static MPI_Comm comm;
static NHOOD_Topo topo;
static int indeg, outdeg, sources[MAXDEG], destinations[MAXDEG];

#define EXPECT(cond, ...)                   \
  do {                                      \
    if (!(cond)) {                          \
      if (failures++ < 10) {                \
        fprintf(stderr, "rank %d: ", rank); \
        fprintf(stderr, __VA_ARGS__);       \
        fprintf(stderr, "\n");              \
      }                                     \
    }                                       \
  } while (0)

/* What process q contributes in round r (to = -1: one block for all; else block for `to`). */
static int value(int q, int to, int r) { return (q * 1009 + to + 1) * 100 + r; }

/* Blocking allgather, non-blocking alltoall, three starts of a persistent allgather: the data
 * of each checked. */
static void collectives(const char *algorithm) {
  MPI_Info info;
  NHOOD_Topo t;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm));
  int offsets[2 * MAXDEG], n = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[2 * n] = dy, offsets[2 * n + 1] = dx, n++;
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(comm, n, offsets, info, &t));
  TEST_CHECK(MPI_Info_free(&info));

  int mine, got[MAXDEG], send[MAXDEG];
  for (int r = 0; r < 2; r++) {
    mine = value(rank, -1, r);
    EXPECT(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, t) == MPI_SUCCESS, "%s: allgather",
           algorithm);
    for (int i = 0; i < indeg; i++)
      EXPECT(got[i] == value(sources[i], -1, r), "%s: allgather block %d is %d, not %d", algorithm, i, got[i],
             value(sources[i], -1, r));
  }
  NHOOD_Request req;
  for (int j = 0; j < outdeg; j++) send[j] = value(rank, destinations[j], 7);
  EXPECT(NHOOD_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, comm, t, &req) == MPI_SUCCESS, "%s: ialltoall",
         algorithm);
  EXPECT(NHOOD_Wait(&req) == MPI_SUCCESS, "%s: wait", algorithm);
  for (int i = 0; i < indeg; i++)
    EXPECT(got[i] == value(sources[i], rank, 7), "%s: alltoall block %d is %d", algorithm, i, got[i]);
  NHOOD_Request preq;
  EXPECT(
      NHOOD_Neighbor_allgather_init(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, t, MPI_INFO_NULL, &preq) == MPI_SUCCESS,
      "%s: allgather_init", algorithm);
  for (int r = 0; r < 3; r++) {
    mine = value(rank, -1, 10 + r);
    EXPECT(NHOOD_Start(&preq) == MPI_SUCCESS && NHOOD_Wait(&preq) == MPI_SUCCESS, "%s: persistent", algorithm);
    for (int i = 0; i < indeg; i++)
      EXPECT(got[i] == value(sources[i], -1, 10 + r), "%s: persistent block %d is %d", algorithm, i, got[i]);
  }
  TEST_CHECK(NHOOD_Request_free(&preq));
  TEST_CHECK(NHOOD_Topo_free(&t));
}

/* Case 1: wildcard receives posted throughout. */
static void wildcard_receives(const char *algorithm) {
  int in[RECVS][2];
  MPI_Request r[RECVS];
  for (int k = 0; k < RECVS; k++) TEST_CHECK(MPI_Irecv(in[k], 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r[k]));
  collectives(algorithm);
  int any = 0;
  TEST_CHECK(MPI_Testall(RECVS, r, &any, ignored)); /* advances them too */
  EXPECT(!any, "%s: a receive from MPI_ANY_SOURCE/MPI_ANY_TAG completed during the collectives", algorithm);
  for (int k = 0; k < RECVS && !any; k++) {
    int done = 0;
    MPI_Status st;
    TEST_CHECK(MPI_Request_get_status(r[k], &done, &st));
    EXPECT(!done, "%s: wildcard receive %d got a message from %d, tag %d, during the collectives", algorithm, k,
           st.MPI_SOURCE, st.MPI_TAG);
  }
  /* Now the program's own messages, once every process has checked (the barrier, a
   * collective, matches no point-to-point message): RECVS to each process from the one before
   * it. */
  TEST_CHECK(MPI_Barrier(comm));
  int out[RECVS][2];
  MPI_Request s[RECVS];
  int to = (rank + 1) % size;
  for (int k = 0; k < RECVS; k++) {
    out[k][0] = MARK + rank;
    out[k][1] = k;
    TEST_CHECK(MPI_Isend(out[k], 2, MPI_INT, to, 100 + k, comm, &s[k]));
  }
  MPI_Status st[RECVS];
  TEST_CHECK(MPI_Waitall(RECVS, r, st));
  TEST_CHECK(MPI_Waitall(RECVS, s, ignored));
  int from = (rank + size - 1) % size;
  for (int k = 0; k < RECVS; k++)
    EXPECT(st[k].MPI_SOURCE == from && st[k].MPI_TAG == 100 + in[k][1] && in[k][0] == MARK + from,
           "%s: wildcard receive %d got (%d, %d) from %d tag %d, not the program's message", algorithm, k, in[k][0],
           in[k][1], st[k].MPI_SOURCE, st[k].MPI_TAG);
  TEST_CHECK(MPI_Barrier(comm)); /* no wildcard receive left for the next case's messages */
}

/* Case 2: the program's sends waiting at their receivers throughout. */
static void pending_sends(const char *algorithm) {
  int out[SENDS][2], in[SENDS][2];
  MPI_Request s[SENDS], r[SENDS];
  for (int k = 0; k < SENDS; k++) {
    out[k][0] = MARK + rank;
    out[k][1] = 1000 + k;
    TEST_CHECK(MPI_Isend(out[k], 2, MPI_INT, (rank + 1 + k) % size, k, comm, &s[k]));
  }
  collectives(algorithm);
  for (int k = 0; k < SENDS; k++)
    TEST_CHECK(MPI_Irecv(in[k], 2, MPI_INT, (rank + size - 1 - k % size + size) % size, k, comm, &r[k]));
  TEST_CHECK(MPI_Waitall(SENDS, r, ignored));
  TEST_CHECK(MPI_Waitall(SENDS, s, ignored));
  for (int k = 0; k < SENDS; k++) {
    int from = (rank + size - 1 - k % size + size) % size;
    EXPECT(in[k][0] == MARK + from && in[k][1] == 1000 + k, "%s: the program's message of tag %d arrived as (%d, %d)",
           algorithm, k, in[k][0], in[k][1]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int world;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  TEST_CHECK(MPI_Dims_create(world, 2, dims));
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* The neighbor lists, from a topology object of the same offsets. */
  int offsets[2 * MAXDEG], n = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[2 * n] = dy, offsets[2 * n + 1] = dx, n++;
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(comm, n, offsets, MPI_INFO_NULL, &topo));
  TEST_CHECK(NHOOD_Topo_degrees(topo, 1, &indeg, &outdeg, NULL));
  TEST_CHECK(NHOOD_Topo_neighbors(topo, 1, MAXDEG, sources, NULL, MAXDEG, destinations, NULL));
  TEST_CHECK(NHOOD_Topo_free(&topo));

  const char *names[TEST_MAX_ALGORITHMS];
  int nalg = test_algorithms(1, names);
  char what[128];
  for (int a = 0; a < nalg; a++) {
    snprintf(what, sizeof what, "%s, wildcard receives posted", names[a]);
    watchdog_arm(what);
    wildcard_receives(names[a]);
    snprintf(what, sizeof what, "%s, the program's sends pending", names[a]);
    watchdog_arm(what);
    pending_sends(names[a]);
  }
  if (rank == 0)
    printf("test_isolation np=%d: %d algorithms, %d wildcard receives and %d pending sends per process each\n", size,
           nalg, RECVS, SENDS);
  TEST_CHECK(MPI_Comm_free(&comm));
  return test_finish("test_isolation", failures);
}
