/*
 * Cold communicators through the interposition library, in a plain MPI program run under
 * nhood-run: calls go to MPI's own until nhood's set-up pays back, then nhood takes over in
 * the middle of a sequence of calls, on every process at the same call, and every call's
 * result stays right.
 *
 *   test_cold [CALLS [BURST]]     (default 200 rounds, 1 call on the first graph per round)
 *
 * Two distributed graphs of the same processes, called in turn, each call's received blocks
 * checked:
 *   doubled   every process sends to and receives from every other twice (duplicate edges): a
 *             call can gain (the two messages to one neighbor merged), so nhood takes over once
 *             the calls pay for the set-up;
 *   ring      a directed ring (receive from the left, send to the right): one message each way
 *             is already the floor of every call, so with mpi_factor 1 no call gains and the
 *             communicator stays cold, never asked again.
 * Then one more ring, called just past its first asking (NHOOD_COLD + 1 calls) and freed
 * there, and one more doubled graph likewise, which the first one's measured outcome judges;
 * then a graph of every edge tripled, freed soon after nhood took it over, and another such,
 * which the first one's set-up, timed before its probation, judges. Last, twice, a graph of
 * every edge quadrupled (then quintupled: a shape not judged by the first's life) called 3
 * times and freed behind the library's back (PMPI_Comm_free, then PMPI_Comm_disconnect, as a
 * library calling MPI's profiling names does), and a new one of that shape called until nhood
 * has taken it over: on even ranks it usually gets the freed handle back (on odd ones a
 * duplicate of MPI_COMM_SELF takes it first; AddressSanitizer's quarantine gives it to none),
 * and it must start its count afresh there too, or the processes would take it over at
 * different calls.
 * Each round makes BURST MPI_Neighbor_allgather in a row on the doubled graph, one on the
 * ring, and one MPI_Neighbor_alltoallv on the ring every third round (the v collectives ask
 * with their mean block; MPICH 4.0's own pairs duplicate edges of alltoallv wrongly, so the
 * doubled graph has none). Run with NHOOD_STATS=1, NHOOD_COLD=N and NHOOD_PARAMS=shm, the
 * table says when each communicator was asked and what it decided
 * (tests/interpose/CMakeLists.txt checks it). Exit status 1 when a check failed anywhere.
 */
#define _GNU_SOURCE /* dladdr */
#include <stdio.h>
#include <stdlib.h>

#include "interposed.h"

static int rank, size, failures;

/*
 * MPI's own calls on one communicator, seen from here: this program defines
 * PMPI_Neighbor_allgather (exported: ENABLE_EXPORTS), so the interposition library's cold
 * calls reach it before MPI's (nhood's own algorithm "mpi" runs on a communicator of its own,
 * not counted). The first call on `watched` that does not reach it is where nhood took over;
 * every process must see the same.
 */
static MPI_Comm watched = MPI_COMM_NULL;
static long own_calls;

typedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  static allgather_fn mpi_own;
  if (mpi_own == NULL) *(void **)&mpi_own = dlsym(RTLD_NEXT, "PMPI_Neighbor_allgather");
  if (comm == watched) own_calls++;
  return mpi_own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

static MPI_Comm graph(int indegree, const int *in, int outdegree, const int *out) {
  MPI_Comm comm;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indegree, in, interposed_unweighted(), outdegree, out,
                                 interposed_unweighted(), MPI_INFO_NULL, 0, &comm);
  return comm;
}

/* One allgather (and with `v` on every third call an alltoallv) on comm, whose neighbors are
 * `in`; the value process r sends at call k to its j-th neighbor is 1000 k + 10 r (+ j for
 * alltoallv). */
static void call(MPI_Comm comm, int degree, const int *in, int k, const char *name, int v) {
  int mine = 1000 * k + 10 * rank, got[64], send[64], counts[64], displs[64];
  for (int j = 0; j < degree; j++) got[j] = -1;
  MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm);
  for (int j = 0; j < degree; j++)
    if (got[j] != 1000 * k + 10 * in[j]) {
      failures++;
      fprintf(stderr, "rank %d: %s call %d: allgather block %d is %d, not %d\n", rank, name, k, j, got[j],
              1000 * k + 10 * in[j]);
    }
  if (!v || k % 3 != 0) return;
  /* The block for the ring's out-neighbor is the one it receives from this process. */
  for (int j = 0; j < degree; j++) send[j] = mine + j, counts[j] = 1, displs[j] = j, got[j] = -1;
  MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, got, counts, displs, MPI_INT, comm);
  for (int j = 0; j < degree; j++) {
    if (got[j] != 1000 * k + 10 * in[j]) {
      failures++;
      fprintf(stderr, "rank %d: %s call %d: alltoallv block %d is %d, not %d\n", rank, name, k, j, got[j],
              1000 * k + 10 * in[j]);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int calls = argc > 1 ? atoi(argv[1]) : 200, burst = argc > 2 ? atoi(argv[2]) : 1;
  if (!interposed() || size < 3 || size > 32) {
    if (rank == 0) fprintf(stderr, "test_cold: run through nhood-run on 3 to 32 processes\n");
    MPI_Finalize();
    return 2;
  }
  int all[64], left = (rank + size - 1) % size, right = (rank + 1) % size, n = 0;
  for (int r = 0; r < size; r++)
    if (r != rank) all[n++] = r, all[n++] = r;
  MPI_Comm doubled = graph(n, all, n, all), ring = graph(1, &left, 1, &right);
  int first_nhood = 0; /* the first call on doubled that was not MPI's own (0: none) */
  watched = doubled;
  for (int k = 1, d = 1; k <= calls; k++) {
    for (int b = 0; b < burst; b++, d++) { /* a burst: the same communicator called again */
      long before = own_calls;
      call(doubled, n, all, d, "doubled", 0);
      if (own_calls == before && first_nhood == 0) first_nhood = d;
    }
    call(ring, 1, &left, k, "ring", 1);
  }
  watched = MPI_COMM_NULL;
  int lowest = 0, highest = 0;
  MPI_Allreduce(&first_nhood, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&first_nhood, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lowest != highest) {
    failures++;
    fprintf(stderr, "rank %d: nhood took over the doubled graph at call %d; other processes at %d to %d\n", rank,
            first_nhood, lowest, highest);
  }
  if (rank == 0) printf("test_cold: doubled: nhood from call %d\n", first_nhood);
  MPI_Comm_free(&doubled);
  MPI_Comm_free(&ring);
  const char *cold = getenv("NHOOD_COLD");
  int brief_calls = (cold && atoi(cold) > 0 ? atoi(cold) : 16) + 1;
  MPI_Comm brief = graph(1, &left, 1, &right);
  for (int k = 1; k <= brief_calls; k++) call(brief, 1, &left, k, "brief", 0);
  MPI_Comm_free(&brief);
  /* A doubled graph again, called just past its asking: the probation's measurement of the
   * first one judges it (the sentence says so, whichever way the first went). */
  MPI_Comm again = graph(n, all, n, all);
  for (int k = 1; k <= brief_calls; k++) call(again, n, all, k, "again", 0);
  MPI_Comm_free(&again);
  /* A graph of another shape (every edge three times), called until nhood takes it over and
   * three calls more, then freed before its probation: the set-up timed so far judges the next
   * one of its shape (the sentence says "(measured)"). */
  int triple[96], m = 0;
  for (int r = 0; r < size && 3 * (size - 1) <= 64; r++) /* call() takes 64 blocks at most */
    if (r != rank) triple[m++] = r, triple[m++] = r, triple[m++] = r;
  MPI_Comm tripled = graph(m, triple, m, triple);
  watched = tripled;
  int after = -1, taken = 0, k = 1;
  for (; k <= 5000 && after < 3; k++) {
    long before = own_calls;
    call(tripled, m, triple, k, "tripled", 0);
    int mine = own_calls == before, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all) taken = 1;
    if (taken) after++;
  }
  watched = MPI_COMM_NULL;
  if (rank == 0) printf("test_cold: tripled: nhood from call %d, freed after call %d\n", k - 4, k - 1);
  MPI_Comm_free(&tripled);
  tripled = graph(m, triple, m, triple);
  for (int j = 1; j <= brief_calls; j++) call(tripled, m, triple, j, "tripled again", 0);
  MPI_Comm_free(&tripled);
  int reused = 0;
  for (int round = 0; round < 2 && (4 + round) * (size - 1) <= 64; round++) {
    int quad[64], q = 0;
    for (int r = 0; r < size; r++)
      for (int copy = 0; copy < 4 + round && r != rank; copy++) quad[q++] = r;
    MPI_Comm old = graph(q, quad, q, quad), handle = old, filler = MPI_COMM_NULL;
    for (int j = 1; j <= 3; j++) call(old, q, quad, j, "bypassed", 0);
    if (round == 0)
      PMPI_Comm_free(&old);
    else
      PMPI_Comm_disconnect(&old);
    if (rank % 2) MPI_Comm_dup(MPI_COMM_SELF, &filler);
    MPI_Comm fresh = graph(q, quad, q, quad);
    reused += fresh == handle;
    watched = fresh;
    int first = 0;
    for (int j = 1; j <= 2000 && first == 0; j++) {
      long before = own_calls;
      call(fresh, q, quad, j, "fresh", 0);
      if (own_calls == before) first = j;
    }
    watched = MPI_COMM_NULL;
    int lowest = 0, highest = 0;
    MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&first, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lowest != highest || lowest == 0) {
      failures++;
      fprintf(stderr, "rank %d: nhood took over the graph of %d copies of each edge at call %d; others at %d to %d\n",
              rank, 4 + round, first, lowest, highest);
    }
    MPI_Comm_free(&fresh);
    if (filler != MPI_COMM_NULL) MPI_Comm_free(&filler);
  }
  int back = 0;
  MPI_Reduce(&reused, &back, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("test_cold: freed behind the library: the handle came back %d times of %d\n", back, 2 * size);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_cold: %d calls on 2 communicators, %d failed checks\n", calls, total);
  fflush(stdout);
  MPI_Finalize();
  return total != 0;
}
