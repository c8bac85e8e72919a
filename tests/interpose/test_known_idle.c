/*
 * Cold communicators whose answer every process knows (selection/cold.h,
 * nhood_cold_known_idle): on 2 processes with at most one message each way between them, no
 * call gains, and the cold path's asking takes no allreduce. Run under nhood-run on 2
 * processes with NHOOD_COLD=4; each communicator is called 20 times, every result checked:
 *   pair      one edge each way: both processes see it from their degrees alone;
 *   selfloop  the same plus a self loop on rank 0 (degree 2 there): rank 0 needs the lists
 *             and rank 1 does not, and both must come to the same answer (else rank 0 would
 *             wait in an allreduce rank 1 never joins);
 *   doubled   two edges each way: a call can gain (the two messages merged), so it is asked,
 *             with an allreduce.
 * This program defines MPI_Allreduce (exported) to count the allreduces on each communicator.
 * Exit status 1 when a check failed.
 */
#define _GNU_SOURCE /* RTLD_NEXT, dladdr */
#include <stdio.h>
#include <stdlib.h>

#include "interposed.h"

static int rank, size, failures;
static MPI_Comm watched = MPI_COMM_NULL;
static long allreduces;

typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static allreduce_fn mpi_own;
  if (mpi_own == NULL) *(void **)&mpi_own = dlsym(RTLD_NEXT, "MPI_Allreduce");
  if (comm == watched) allreduces++;
  return mpi_own(sendbuf, recvbuf, count, datatype, op, comm);
}

/* 20 allgathers on a graph whose in-neighbors are `in` (and out-neighbors the same), checked;
 * returns the allreduces nhood made on it. */
static long run(const char *name, int degree, const int *in) {
  MPI_Comm comm;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, in, interposed_unweighted(), degree, in,
                                 interposed_unweighted(), MPI_INFO_NULL, 0, &comm);
  watched = comm;
  allreduces = 0;
  for (int k = 1; k <= 20; k++) {
    int mine = 100 * k + rank, got[4] = {-1, -1, -1, -1};
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm);
    for (int j = 0; j < degree; j++)
      if (got[j] != 100 * k + in[j]) {
        failures++;
        fprintf(stderr, "rank %d: %s call %d: block %d is %d, not %d\n", rank, name, k, j, got[j], 100 * k + in[j]);
      }
  }
  watched = MPI_COMM_NULL;
  MPI_Comm_free(&comm);
  return allreduces;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *cold = getenv("NHOOD_COLD");
  if (!interposed() || size != 2 || cold == NULL || atoi(cold) < 1 || atoi(cold) > 10) {
    if (rank == 0) fprintf(stderr, "test_known_idle: run through nhood-run on 2 processes with NHOOD_COLD=1..10\n");
    MPI_Finalize();
    return 2;
  }
  int other = 1 - rank, pair[1] = {other}, selfloop[2] = {rank, other}, doubled[2] = {other, other};
  long asked[3];
  asked[0] = run("pair", 1, pair);
  asked[1] = rank == 0 ? run("selfloop", 2, selfloop) : run("selfloop", 1, pair);
  asked[2] = run("doubled", 2, doubled);
  const long want[3][2] = {{0, 0}, {0, 0}, {1, 1000}}; /* allreduces: at least, at most */
  const char *names[3] = {"pair", "selfloop", "doubled"};
  for (int c = 0; c < 3; c++)
    if (asked[c] < want[c][0] || asked[c] > want[c][1]) {
      failures++;
      fprintf(stderr, "rank %d: %s: %ld allreduces by nhood, not %ld to %ld\n", rank, names[c], asked[c], want[c][0],
              want[c][1]);
    }
  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_known_idle: %d failed checks\n", total);
  MPI_Finalize();
  return total != 0;
}
