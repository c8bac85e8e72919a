/*
 * MPI_THREAD_MULTIPLE through the interposition library: several threads per process call
 * neighborhood collectives at once, each on a communicator of its own (as MPI allows):
 * blocking allgather, non-blocking alltoall waited with MPI_Wait, persistent allgather
 * started and tested, and the first call of each thread derives its communicator's topology
 * object and private context concurrently. Every result is checked. Exits 77 (skipped) where
 * the MPI library does not provide MPI_THREAD_MULTIPLE.
 */
#define _GNU_SOURCE /* dladdr */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interposed.h"

#define THREADS 4
#define ROUNDS 200
#define MAXDEG 8

static int rank, size;
static const int *unweighted; /* MPI_UNWEIGHTED, read at run time (see test_requests.c) */

typedef struct {
  int id, failures;
  MPI_Comm comm;
  int degree, neighbors[MAXDEG];
} worker;

/* What neighbor q sends to this process in round r of thread id (the same on both ends). */
static int value(int q, int to, int id, int r) { return ((q * 131 + to) * 17 + id) * 1000 + r; }

static void *run(void *arg) {
  worker *w = arg;
  int send[MAXDEG], got[MAXDEG], persistent_send = 0, persistent_got[MAXDEG];
  MPI_Request req, preq;
  ALLGATHER_INIT(&persistent_send, 1, MPI_INT, persistent_got, 1, MPI_INT, w->comm, MPI_INFO_NULL, &preq);
  for (int r = 0; r < ROUNDS; r++) {
    int mine = value(rank, -1, w->id, r);
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, w->comm);
    for (int i = 0; i < w->degree; i++)
      if (got[i] != value(w->neighbors[i], -1, w->id, r)) w->failures++;
    for (int j = 0; j < w->degree; j++) send[j] = value(rank, w->neighbors[j], w->id, r);
    MPI_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, w->comm, &req);
    persistent_send = value(rank, -2, w->id, r);
    MPI_Start(&preq);
    int done = 0;
    while (!done) MPI_Test(&preq, &done, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < w->degree; i++) {
      if (got[i] != value(w->neighbors[i], rank, w->id, r)) w->failures++;
      if (persistent_got[i] != value(w->neighbors[i], -2, w->id, r)) w->failures++;
    }
  }
  MPI_Request_free(&preq);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!interposed()) {
    if (rank == 0) fprintf(stderr, "test_threads: libnhood-mpi.so is not preloaded (run it under nhood-run)\n");
    MPI_Finalize();
    return 1;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("test_threads: skipped, the MPI library provides thread level %d only\n", provided);
    MPI_Finalize();
    return 77;
  }
  alarm(120);
  unweighted = MPI_UNWEIGHTED;
  /* Each thread's communicator: a ring with chords at distance id + 1 (different degrees and
   * neighbors per thread). */
  worker w[THREADS];
  for (int t = 0; t < THREADS; t++) {
    int d = (t + 1) % size, n = 0;
    w[t] = (worker){.id = t};
    w[t].neighbors[n++] = (rank + 1) % size;
    w[t].neighbors[n++] = (rank + size - 1) % size;
    w[t].neighbors[n++] = (rank + d) % size;
    w[t].neighbors[n++] = (rank + size - d) % size;
    w[t].degree = n;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, w[t].neighbors, unweighted, n, w[t].neighbors, unweighted,
                                   MPI_INFO_NULL, 0, &w[t].comm);
  }
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, run, &w[t]);
  int failures = 0;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    failures += w[t].failures;
    MPI_Comm_free(&w[t].comm);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_threads np=%d: %d threads x %d rounds, %d wrong values\n", size, THREADS, ROUNDS, all);
  MPI_Finalize();
  return all != 0;
}
