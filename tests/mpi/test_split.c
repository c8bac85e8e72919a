/*
 * NHOOD_Topo_split: over the corpus, a topology cut into 1-3 parts (by source, by
 * destination) must give, part by part with non-blocking calls all in flight at once, exactly
 * what one allgather and one alltoall on the whole topology give (nhood's, which the main
 * suite checks against MPI's own); every block once, none left over. Only a Cartesian
 * communicator's topology may be refused (MPI_ERR_TOPOLOGY), and bad arguments must be
 * MPI_ERR_ARG.
 *
 *   test_split [--algorithm NAME]   (the parts' algorithm; default direct)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "nhood.h"
#include "testutil.h"

enum { W = 2 }; /* ints per block */

static int failures;

static int value(int source, int target, int k) { return source * 100003 + (target + 7) * 31 + k; }

static int part_of(int by, int source, int destination, int nparts) {
  return (by == NHOOD_SPLIT_BY_SOURCE ? source : destination) % nparts;
}

static void fail(const corpus_entry *e, const char *what, int rank) {
  failures++;
  fprintf(stderr, "rank %d: FAILED %s: %s\n", rank, e->name, what);
}

/* allgather (alltoall == 0) or alltoall over the parts, compared with the whole topology's. */
static void check_parts(const corpus_entry *e, NHOOD_Topo whole, NHOOD_Topo *parts, int nparts, int by, int alltoall,
                        int rank) {
  int in = e->indegree, out = e->outdegree;
  int *send = test_calloc((size_t)(out + 1) * W, sizeof(int)), *expect = test_calloc((size_t)(in + 1) * W, sizeof(int));
  for (int j = 0; j < (alltoall ? out : 1); j++)
    for (int k = 0; k < W; k++) send[j * W + k] = value(rank, alltoall ? e->destinations[j] : -1, k);
  int rc = alltoall ? NHOOD_Neighbor_alltoall(send, W, MPI_INT, expect, W, MPI_INT, e->nhood_comm, whole)
                    : NHOOD_Neighbor_allgather(send, W, MPI_INT, expect, W, MPI_INT, e->nhood_comm, whole);
  if (rc != MPI_SUCCESS) fail(e, "the whole topology's call failed", rank);
  /* Each part: its own send and receive layout, the kept neighbors in the whole's order. */
  int **psend = test_calloc((size_t)nparts, sizeof *psend), **precv = test_calloc((size_t)nparts, sizeof *precv);
  NHOOD_Request *reqs = test_calloc((size_t)nparts, sizeof *reqs);
  for (int p = 0; p < nparts; p++) {
    int pin = 0, pout = 0;
    TEST_CHECK(NHOOD_Topo_degrees(parts[p], 0, &pin, &pout, NULL));
    psend[p] = test_calloc((size_t)(pout + 1) * W, sizeof(int));
    precv[p] = test_calloc((size_t)(pin + 1) * W, sizeof(int));
    memset(precv[p], 0xff, sizeof(int) * (size_t)(pin + 1) * W);
    int at = 0;
    for (int j = 0; j < out; j++) {
      int d = e->destinations[j];
      if (d == MPI_PROC_NULL || part_of(by, rank, d, nparts) != p) continue;
      for (int k = 0; k < W; k++) psend[p][at * W + k] = alltoall ? send[j * W + k] : send[k];
      at++;
    }
    if (at != pout) fail(e, "a part's out-degree differs from the rule's", rank);
    rc = alltoall
             ? NHOOD_Ineighbor_alltoall(psend[p], W, MPI_INT, precv[p], W, MPI_INT, e->nhood_comm, parts[p], &reqs[p])
             : NHOOD_Ineighbor_allgather(pout ? psend[p] : send, W, MPI_INT, precv[p], W, MPI_INT, e->nhood_comm,
                                         parts[p], &reqs[p]);
    if (rc != MPI_SUCCESS) fail(e, "a part's call failed", rank);
  }
  TEST_CHECK(NHOOD_Waitall(nparts, reqs));
  int *taken = test_calloc((size_t)nparts, sizeof(int));
  for (int i = 0; i < in; i++) {
    int s = e->sources[i];
    if (s == MPI_PROC_NULL) continue;
    int p = part_of(by, s, rank, nparts), at = taken[p]++;
    if (memcmp(&precv[p][at * W], &expect[i * W], sizeof(int) * W) != 0) {
      char what[160];
      snprintf(what, sizeof what, "%s, %d parts by %s: block %d (from rank %d) differs",
               alltoall ? "alltoall" : "allgather", nparts, by == NHOOD_SPLIT_BY_SOURCE ? "source" : "destination", i,
               s);
      fail(e, what, rank);
    }
  }
  for (int p = 0; p < nparts; p++) {
    int pin = 0;
    TEST_CHECK(NHOOD_Topo_degrees(parts[p], 0, &pin, NULL, NULL));
    if (taken[p] != pin) fail(e, "a part received more blocks than the rule gives it", rank);
    free(psend[p]);
    free(precv[p]);
  }
  free(taken), free(psend), free(precv), free(reqs), free(send), free(expect);
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  int rank = 0, size = 1, cases = 0, refused = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *algorithm = argc > 2 && strcmp(argv[1], "--algorithm") == 0 ? argv[2] : "direct";
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm);
  corpus c;
  corpus_build(&info, 1, NULL, &c);
  failures += c.nfailures;
  for (int n = 0; n < c.nentries; n++) {
    const corpus_entry *e = &c.entries[n];
    if (e->isomorphic_sizes) continue; /* the parts of an offset topology are graphs */
    NHOOD_Topo whole = e->topo[0], parts[3];
    watchdog_arm(e->name);
    for (int nparts = 1; nparts <= 3; nparts++)
      for (int by = NHOOD_SPLIT_BY_SOURCE; by <= NHOOD_SPLIT_BY_DESTINATION; by++) {
        int rc = NHOOD_Topo_split(whole, e->nhood_comm, nparts, by, info, parts), errclass = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &errclass);
        if (errclass == MPI_ERR_TOPOLOGY && e->kind == MPI_CART) { /* a Cartesian communicator's: refused */
          refused++;
          continue;
        }
        if (rc != MPI_SUCCESS) {
          fail(e, "NHOOD_Topo_split failed", rank);
          continue;
        }
        check_parts(e, whole, parts, nparts, by, 0, rank);
        check_parts(e, whole, parts, nparts, by, 1, rank);
        cases += 2;
        for (int p = 0; p < nparts; p++) TEST_CHECK(NHOOD_Topo_free(&parts[p]));
      }
    watchdog_disarm();
  }
  /* Bad arguments. */
  if (c.nentries > 0) {
    NHOOD_Topo parts[2];
    int errclass = MPI_SUCCESS;
    MPI_Error_class(
        NHOOD_Topo_split(c.entries[0].topo[0], c.entries[0].nhood_comm, 0, NHOOD_SPLIT_BY_SOURCE, MPI_INFO_NULL, parts),
        &errclass);
    if (errclass != MPI_ERR_ARG) fail(&c.entries[0], "nparts 0 was not MPI_ERR_ARG", rank);
    MPI_Error_class(NHOOD_Topo_split(c.entries[0].topo[0], c.entries[0].nhood_comm, 2, 7, MPI_INFO_NULL, parts),
                    &errclass);
    if (errclass != MPI_ERR_ARG) fail(&c.entries[0], "an unknown 'by' was not MPI_ERR_ARG", rank);
    MPI_Error_class(NHOOD_Topo_split(NHOOD_TOPO_NULL, MPI_COMM_WORLD, 2, NHOOD_SPLIT_BY_SOURCE, MPI_INFO_NULL, parts),
                    &errclass);
    if (errclass != MPI_ERR_TOPOLOGY) fail(&c.entries[0], "a null topology was not MPI_ERR_TOPOLOGY", rank);
  }
  if (rank == 0)
    printf("test_split np=%d: %d cases over %d topologies, %d splits of Cartesian communicators refused\n", size, cases,
           c.nentries, refused);
  corpus_free(&c);
  MPI_Info_free(&info);
  return test_finish("test_split", failures);
}
