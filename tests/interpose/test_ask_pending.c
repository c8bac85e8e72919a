/*
 * An asking in flight (src/interpose/control.c, ip_ask): the cold path posts its allreduce at
 * call NHOOD_COLD and reads the verdict a few calls later, so a communicator may reach
 * MPI_Finalize, or a persistent init, with that allreduce still pending. Run under nhood-run
 * with NHOOD_COLD=4 NHOOD_STATS=1:
 *   kept        a ring called NHOOD_COLD + 1 times and never freed: MPI_Finalize completes its
 *               asking (NHOOD_STATS prints the verdict "after 5 calls");
 *   persistent  a ring called NHOOD_COLD + 1 times, then made a persistent allgather, started
 *               three times, and freed: nhood runs the starts (their results are right) and
 *               the asking completes at MPI_Comm_free;
 *   bypassed    a ring called NHOOD_COLD + 1 times and freed by PMPI_Comm_free, as a library
 *               calling MPI's profiling names does: Open MPI deletes its attribute at once,
 *               MPICH only when the asking's request completes, at MPI_Finalize, inside
 *               nhood's own wait for it.
 * Exit status 1 when a check failed.
 */
#define _GNU_SOURCE /* dladdr */
#include <stdio.h>
#include <stdlib.h>

#include "interposed.h"

static int rank, size, failures;

static void check(const char *what, int k, int got, int want) {
  if (got == want) return;
  failures++;
  fprintf(stderr, "rank %d: %s call %d: %d, not %d\n", rank, what, k, got, want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *cold = getenv("NHOOD_COLD");
  int asked = cold ? atoi(cold) : 0;
  if (!interposed() || asked < 1) {
    if (rank == 0) fprintf(stderr, "test_ask_pending: run through nhood-run with NHOOD_COLD=N\n");
    MPI_Finalize();
    return 2;
  }
  int left = (rank + size - 1) % size, right = (rank + 1) % size, got = -1, mine = 0;
  int *unweighted = interposed_unweighted();
  MPI_Comm kept, persistent, bypassed;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, unweighted, 1, &right, unweighted, MPI_INFO_NULL, 0, &kept);
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, unweighted, 1, &right, unweighted, MPI_INFO_NULL, 0,
                                 &persistent);
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, unweighted, 1, &right, unweighted, MPI_INFO_NULL, 0,
                                 &bypassed);
  for (int k = 1; k <= asked + 1; k++) {
    mine = 100 * k + rank;
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, &got, 1, MPI_INT, bypassed);
    check("bypassed", k, got, 100 * k + left);
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, &got, 1, MPI_INT, kept);
    check("kept", k, got, 100 * k + left);
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, &got, 1, MPI_INT, persistent);
    check("persistent", k, got, 100 * k + left);
  }
#ifdef ALLGATHER_INIT
  MPI_Request request;
  ALLGATHER_INIT(&mine, 1, MPI_INT, &got, 1, MPI_INT, persistent, MPI_INFO_NULL, &request);
  for (int k = 1; k <= 3; k++) {
    mine = 7000 + 100 * k + rank;
    got = -1;
    MPI_Start(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    check("persistent start", k, got, 7000 + 100 * k + left);
  }
  MPI_Request_free(&request);
#endif
  MPI_Comm_free(&persistent);
  PMPI_Comm_free(&bypassed);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_ask_pending: %d failed checks\n", total);
  MPI_Finalize(); /* `kept` is never freed: its asking completes here */
  return total ? 1 : 0;
}
