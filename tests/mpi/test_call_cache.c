/*
 * The blocking-call schedule cache (src/api/call_cache.h) must never serve a stale schedule.
 * Each case repeats a blocking call on one topology object after changing something the
 * schedule depends on, and checks the received data against values computed here:
 *   - count and displacement arrays changed in place (same pointers);
 *   - a datatype freed and a different one created (MPI may reuse the handle);
 *   - other buffers; alternating collectives;
 *   - the same topology object on two communicators that number the processes differently;
 *   - communicators freed and their handles reused by communicators with other rank orders;
 *   - topology objects freed and others, of other shapes, created (at the same address);
 *   - two topology objects called in turn (what NHOOD_Last_algorithm and _Selection_info say);
 *   - the same call repeated with blocks below and above the size a flat round sends eagerly;
 *   - the communicator freed while the cache still refers to it, then the topology freed.
 * Topology: a ring with every edge doubled; the expected data follows the MPI-4.1 rule
 * for duplicate edges (source_of).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

#define DEG 4 /* neighbors in the ring, duplicates included */

static int failures, checks;

static void expect(int ok, const char *what, int rank) {
  checks++;
  if (!ok) {
    failures++;
    fprintf(stderr, "rank %d: %s: wrong data\n", rank, what);
  }
}

/* Value of element e of the block that rank `from` sends as its block k, in round `round`. */
static int value(int from, int k, int e, int round) { return from * 10000 + k * 1000 + e * 10 + round; }

/* The ring built for `owner`: sources and destinations both left, right, left, right.
 * Every edge has the same multiplicity both ways, so the lists stay consistent when the
 * processes are renumbered (then "left" may even be oneself). */
static void ring_lists(int owner, int size, int src[DEG], int dst[DEG]) {
  int left = (owner + size - 1) % size, right = (owner + 1) % size;
  for (int k = 0; k < DEG; k++) src[k] = dst[k] = k % 2 ? right : left;
}

/* Which process sends my receive block k, and as which of its send blocks (MPI-4.1: the
 * k-th occurrence of q among my sources pairs with the k-th occurrence of me among q's
 * destinations). built_for[c] is the rank the ring of the process with rank c was built for. */
static void source_of(int k, int me, int size, const int *built_for, int *from, int *block) {
  int src[DEG], dst[DEG];
  ring_lists(built_for[me], size, src, dst);
  int q = src[k], occurrence = 0;
  for (int i = 0; i < k; i++) occurrence += src[i] == q;
  ring_lists(built_for[q], size, src, dst);
  for (int j = 0; j < DEG; j++)
    if (dst[j] == me && occurrence-- == 0) {
      *from = q;
      *block = j;
      return;
    }
  *from = *block = -1; /* inconsistent lists: cannot happen for this ring */
}

static NHOOD_Topo make_ring(int owner, int size) {
  int src[DEG], dst[DEG];
  ring_lists(owner, size, src, dst);
  NHOOD_Topo t;
  TEST_CHECK(NHOOD_Topo_create_adjacent(DEG, src, test_unweighted(), DEG, dst, test_unweighted(), MPI_INFO_NULL, &t));
  return t;
}

/* built_for when each process's ring was made for its rank in comm itself. */
static int *identity(int size) {
  int *ids = test_malloc(sizeof(int) * (size_t)size);
  for (int c = 0; c < size; c++) ids[c] = c;
  return ids;
}

/* alltoallv twice with the same arrays, changed in place in between. */
static void counts_changed_in_place(MPI_Comm comm, NHOOD_Topo topo) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *built_for = identity(size);
  int counts[DEG], displs[DEG], sendbuf[64], recvbuf[64];
  for (int round = 0; round < 3; round++) {
    int n = round + 1; /* 1, 2, 3 elements per block: same pointers, new contents */
    for (int k = 0; k < DEG; k++) {
      counts[k] = n;
      displs[k] = k * (n + round); /* gaps that move too */
      for (int e = 0; e < n; e++) sendbuf[displs[k] + e] = value(rank, k, e, round);
    }
    for (int i = 0; i < 64; i++) recvbuf[i] = -1;
    TEST_CHECK(
        NHOOD_Neighbor_alltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, comm, topo));
    int ok = 1;
    for (int k = 0; k < DEG; k++) {
      int from, block;
      source_of(k, rank, size, built_for, &from, &block);
      for (int e = 0; e < n; e++) ok &= recvbuf[displs[k] + e] == value(from, block, e, round);
    }
    expect(ok, "alltoallv after counts/displs changed in place", rank);
  }
  free(built_for);
}

/* allgatherv under "auto" on a fresh topology object, its receive displacements moved in place
 * (same pointer) every third call: the first calls are the executions of auto's trial, whose
 * request the cache keeps from one execution to the next, and a request kept for other
 * displacements would write the blocks where they were. Returns NHOOD_Selection_info after
 * the last call. */
static void trial_displs_moved(MPI_Comm comm, char *info, int len) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  NHOOD_Topo topo = make_ring(rank, size);
  int *built_for = identity(size);
  int counts[DEG], displs[DEG], sendbuf[2], recvbuf[DEG * 4];
  for (int round = 0; round < 40; round++) {
    int moved = round / 3 % 2; /* three calls alike, then the blocks elsewhere */
    for (int k = 0; k < DEG; k++) counts[k] = 2, displs[k] = moved ? 4 * k + 1 : 2 * (DEG - 1 - k);
    for (int e = 0; e < 2; e++) sendbuf[e] = value(rank, 0, e, round);
    for (int i = 0; i < DEG * 4; i++) recvbuf[i] = -1;
    TEST_CHECK(NHOOD_Neighbor_allgatherv(sendbuf, 2, MPI_INT, recvbuf, counts, displs, MPI_INT, comm, topo));
    int ok = 1;
    for (int k = 0; k < DEG; k++) {
      int from, block;
      source_of(k, rank, size, built_for, &from, &block);
      for (int e = 0; e < 2; e++) ok &= recvbuf[displs[k] + e] == value(from, 0, e, round);
    }
    expect(ok, "allgatherv through auto's trial, displacements moved in place", rank);
  }
  TEST_CHECK(NHOOD_Selection_info(NHOOD_REQUEST_NULL, info, len));
  TEST_CHECK(NHOOD_Topo_free(&topo));
  free(built_for);
}

/* allgather with a datatype, freed and replaced by one of another extent and size. */
static void datatype_replaced(MPI_Comm comm, NHOOD_Topo topo) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *built_for = identity(size);
  int sendbuf[8], recvbuf[DEG * 8];
  for (int round = 0; round < 4; round++) {
    int len = round % 2 ? 3 : 2;
    MPI_Datatype t;
    TEST_CHECK(MPI_Type_contiguous(len, MPI_INT, &t));
    TEST_CHECK(MPI_Type_commit(&t));
    for (int e = 0; e < len; e++) sendbuf[e] = value(rank, 0, e, round);
    for (int i = 0; i < DEG * 8; i++) recvbuf[i] = -1;
    TEST_CHECK(NHOOD_Neighbor_allgather(sendbuf, 1, t, recvbuf, 1, t, comm, topo));
    int ok = 1;
    for (int k = 0; k < DEG; k++) {
      int from, block;
      source_of(k, rank, size, built_for, &from, &block);
      for (int e = 0; e < len; e++) ok &= recvbuf[k * len + e] == value(from, 0, e, round);
    }
    ok &= recvbuf[DEG * len] == -1; /* nothing written past the last block */
    expect(ok, "allgather after the datatype was replaced", rank);
    TEST_CHECK(MPI_Type_free(&t));
  }
  free(built_for);
}

/* Alternating buffers and collectives on one topology object; built_for as in source_of. */
static void alternating_calls(MPI_Comm comm, NHOOD_Topo topo, const int *built_for) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int send[2][DEG], recv[2][DEG];
  for (int round = 0; round < 6; round++) {
    int b = round % 2;
    for (int k = 0; k < DEG; k++) send[b][k] = value(rank, k, 0, round);
    for (int k = 0; k < DEG; k++) recv[b][k] = -1;
    if (round % 3 == 2)
      TEST_CHECK(NHOOD_Neighbor_allgather(send[b], 1, MPI_INT, recv[b], 1, MPI_INT, comm, topo));
    else
      TEST_CHECK(NHOOD_Neighbor_alltoall(send[b], 1, MPI_INT, recv[b], 1, MPI_INT, comm, topo));
    int ok = 1;
    for (int k = 0; k < DEG; k++) {
      int from, block;
      source_of(k, rank, size, built_for, &from, &block);
      ok &= recv[b][k] == value(from, round % 3 == 2 ? 0 : block, 0, round);
    }
    expect(ok, "alternating buffers and collectives", rank);
  }
}

/* Exactly the same call (same buffers, counts, types) on whichever communicator is given:
 * only the communicator tells the cached schedule apart. */
static void identical_call(MPI_Comm comm, NHOOD_Topo topo, const int *built_for, int round) {
  static int send[DEG], recv[DEG];
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int k = 0; k < DEG; k++) {
    send[k] = value(rank, k, 0, round);
    recv[k] = -1;
  }
  TEST_CHECK(NHOOD_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, comm, topo));
  int ok = 1;
  for (int k = 0; k < DEG; k++) {
    int from, block;
    source_of(k, rank, size, built_for, &from, &block);
    ok &= recv[k] == value(from, block, 0, round);
  }
  expect(ok, "the same call on another communicator", rank);
}

/* A blocking allgather and alltoall under "direct", each repeated with the same buffers (so that
 * from the second call on it runs as the thread's flat round, engine/flat_round.h) and new
 * values, with blocks of `elems` ints: a flat round sends blocks up to NHOOD_FLAT_EAGER_BYTES
 * (256 B) by MPI_Send and larger ones by MPI_Isend, so both sides of that bound are called. */
static void repeated_blocks(int elems) {
  int rank, size, src[DEG], dst[DEG];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *built_for = identity(size), *send = test_malloc(sizeof(int) * (size_t)(DEG * elems)),
      *recv = test_malloc(sizeof(int) * (size_t)(DEG * elems));
  ring_lists(rank, size, src, dst);
  MPI_Info info;
  NHOOD_Topo t;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "direct"));
  TEST_CHECK(NHOOD_Topo_create_adjacent(DEG, src, test_unweighted(), DEG, dst, test_unweighted(), info, &t));
  TEST_CHECK(MPI_Info_free(&info));
  for (int gather = 0; gather < 2; gather++)
    for (int round = 0; round < 4; round++) {
      for (int k = 0; k < DEG; k++)
        for (int e = 0; e < elems; e++) send[k * elems + e] = value(rank, k, e, round), recv[k * elems + e] = -1;
      if (gather)
        TEST_CHECK(NHOOD_Neighbor_allgather(send, elems, MPI_INT, recv, elems, MPI_INT, MPI_COMM_WORLD, t));
      else
        TEST_CHECK(NHOOD_Neighbor_alltoall(send, elems, MPI_INT, recv, elems, MPI_INT, MPI_COMM_WORLD, t));
      int ok = 1;
      for (int k = 0; k < DEG; k++) {
        int from, block;
        source_of(k, rank, size, built_for, &from, &block);
        for (int e = 0; e < elems; e++) ok &= recv[k * elems + e] == value(from, gather ? 0 : block, e, round);
      }
      char what[96];
      snprintf(what, sizeof what, "repeated %s of %d-int blocks, call %d", gather ? "allgather" : "alltoall", elems,
               round + 1);
      expect(ok, what, rank);
    }
  TEST_CHECK(NHOOD_Topo_free(&t));
  free(send);
  free(recv);
  free(built_for);
}

/* Two topology objects (a ring one way) called in turn, one run by MPI's own collective and
 * one by "direct", each with buffers of its own: each object's repeats come from this thread's
 * memos of its calls, and after every call NHOOD_Last_algorithm and NHOOD_Selection_info name
 * what ran that call. */
static void two_objects_in_turn(int rank, int size) {
  static const char *const names[2] = {"mpi", "direct"};
  static int send[2], recv[2];
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  NHOOD_Topo t[2];
  for (int k = 0; k < 2; k++) {
    MPI_Info info;
    TEST_CHECK(MPI_Info_create(&info));
    TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, names[k]));
    TEST_CHECK(NHOOD_Topo_create_adjacent(1, &left, test_unweighted(), 1, &right, test_unweighted(), info, &t[k]));
    TEST_CHECK(MPI_Info_free(&info));
  }
  for (int round = 0; round < 4; round++)
    for (int k = 0; k < 2; k++) {
      send[k] = value(rank, k, 0, round);
      recv[k] = -1;
      TEST_CHECK(NHOOD_Neighbor_allgather(&send[k], 1, MPI_INT, &recv[k], 1, MPI_INT, MPI_COMM_WORLD, t[k]));
      expect(recv[k] == value(left, k, 0, round), "two objects in turn", rank);
      const char *ran = NULL;
      char text[256];
      TEST_CHECK(NHOOD_Last_algorithm(&ran));
      TEST_CHECK(NHOOD_Selection_info(NHOOD_REQUEST_NULL, text, (int)sizeof text));
      checks++;
      if (ran == NULL || strcmp(ran, names[k]) != 0 || strstr(text, names[k]) == NULL) {
        failures++;
        fprintf(stderr, "rank %d: call %d on the \"%s\" object: NHOOD_Last_algorithm says %s, selection \"%s\"\n", rank,
                round, names[k], ran ? ran : "(none)", text);
      }
    }
  for (int k = 0; k < 2; k++) TEST_CHECK(NHOOD_Topo_free(&t[k]));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  watchdog_arm("call cache");

  NHOOD_Topo ring = make_ring(rank, size);
  int *world = identity(size), *reversed_view = test_malloc(sizeof(int) * (size_t)size);
  counts_changed_in_place(MPI_COMM_WORLD, ring);
  char info[512];
  trial_displs_moved(MPI_COMM_WORLD, info, (int)sizeof info);
  /* Under the default ("auto"), those calls were the trial's: else this case tests nothing. */
  if (getenv("NHOOD_TUNE") == NULL) expect(strncmp(info, "measured:", 9) == 0, "auto's trial decided", rank);
  datatype_replaced(MPI_COMM_WORLD, ring);
  alternating_calls(MPI_COMM_WORLD, ring, world);

  /* The same topology object on a communicator with the ranks in reverse order: its
   * neighbor ranks now name other processes, and a schedule cached for MPI_COMM_WORLD would
   * talk to the wrong ones. Back and forth. */
  MPI_Comm reversed;
  TEST_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed));
  for (int c = 0; c < size; c++) reversed_view[c] = size - 1 - c; /* rings were built for world ranks */
  alternating_calls(reversed, ring, reversed_view);
  alternating_calls(MPI_COMM_WORLD, ring, world);
  alternating_calls(reversed, ring, reversed_view);
  for (int round = 0; round < 4; round++)
    identical_call(round % 2 ? reversed : MPI_COMM_WORLD, ring, round % 2 ? reversed_view : world, round);
  /* Communicators created and freed in turn, in alternating rank order: MPI reuses freed
   * handles, and a handle that matches the cached one must not bring back the schedule of the
   * freed communicator it used to name. */
  for (int round = 0; round < 6; round++) {
    MPI_Comm fresh;
    int reverse = round % 2;
    TEST_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, reverse ? size - rank : rank, &fresh));
    identical_call(fresh, ring, reverse ? reversed_view : world, 10 + round);
    TEST_CHECK(MPI_Comm_free(&fresh));
  }
  /* Topology objects freed and others created in turn, in alternating shapes, each called
   * twice: the allocator may give a new object the freed one's address, and the memo of this
   * thread's call on the freed one (api/call_cache.h) must not run its schedule or its MPI
   * graph communicator. Each shape under the default algorithm (the executions of a trial
   * under "auto"; NHOOD_TUNE's choice in the .native test) and under "direct". */
  MPI_Info direct;
  TEST_CHECK(MPI_Info_create(&direct));
  TEST_CHECK(MPI_Info_set(direct, NHOOD_INFO_ALGORITHM, "direct"));
  for (int round = 0; round < 12; round++) {
    int reverse = round % 2, src[DEG], dst[DEG];
    NHOOD_Topo t;
    ring_lists(reverse ? size - 1 - rank : rank, size, src, dst);
    TEST_CHECK(NHOOD_Topo_create_adjacent(DEG, src, test_unweighted(), DEG, dst, test_unweighted(),
                                          round % 4 < 2 ? MPI_INFO_NULL : direct, &t));
    for (int call = 0; call < 2; call++) identical_call(MPI_COMM_WORLD, t, reverse ? reversed_view : world, 30 + round);
    TEST_CHECK(NHOOD_Topo_free(&t));
  }
  TEST_CHECK(MPI_Info_free(&direct));
  two_objects_in_turn(rank, size);
  for (int elems = 1; elems <= 1024; elems *= 4) repeated_blocks(elems); /* 4 B to 4 KiB */
  /* Free a communicator while the cache still refers to it, then the topology. */
  identical_call(reversed, ring, reversed_view, 20);
  TEST_CHECK(MPI_Comm_free(&reversed));
  TEST_CHECK(NHOOD_Topo_free(&ring));
  free(world);
  free(reversed_view);

  watchdog_disarm();
  int total[2] = {0, 0}, mine[2] = {checks, failures};
  MPI_Reduce(mine, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("test_call_cache np=%d: %d passed, %d failed\n", size, total[0] - total[1], total[1]);
  MPI_Finalize();
  return total[1] != 0 && rank == 0;
}
