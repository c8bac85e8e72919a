/*
 * Phase 1 of message combining over MPI (src/pattern/bsp_mpi.c) must compute exactly the
 * pattern the in-process driver computes for the same topologies: every rank runs both and
 * compares its own pattern. Topologies dense enough to combine on few ranks are included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "pattern/combine.h"
#include "testutil.h"
#include "topospec.h"

static NHOOD_Topo topology_of(const topospec *spec, int rank, int size) {
  char err[256] = "";
  topospec_rank mine;
  if (topospec_for_rank(spec, rank, size, &mine, err, sizeof err) != 0) {
    fprintf(stderr, "topospec: %s\n", err);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  NHOOD_Topo t;
  TEST_CHECK(NHOOD_Topo_create_adjacent(mine.indegree, mine.sources, NULL, mine.outdegree, mine.destinations, NULL,
                                        MPI_INFO_NULL, &t));
  topospec_rank_free(&mine);
  return t;
}

static int same_pattern(const nhood_combine_pattern *x, const nhood_combine_pattern *y) {
  if (x->npairs != y->npairs || x->nincoming != y->nincoming || x->steps != y->steps) return 0;
  for (int k = 0; k < x->npairs; k++) {
    const nhood_combine_pair *a = &x->pairs[k], *b = &y->pairs[k];
    if (a->partner != b->partner || a->step != b->step || a->nmine != b->nmine || a->ntheirs != b->ntheirs ||
        memcmp(a->mine, b->mine, sizeof(int) * (size_t)(a->nmine + a->ntheirs)) != 0)
      return 0;
  }
  return x->nincoming == 0 || memcmp(x->incoming, y->incoming, sizeof *x->incoming * (size_t)x->nincoming) == 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failures = 0, checks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *shared = getenv("NHOOD_SHARED_DIR");
  char matrix[1024];
  snprintf(matrix, sizeof matrix, "mtx:%s/matrices/dwt_162.mtx", shared ? shared : "../shared");
  const char *specs[] = {"er:density=1,seed=3", "er:density=0.6,seed=5", "moore:d=2,r=1", "moore:d=1,r=3,periodic=0",
                         matrix};
  MPI_Comm private_comm;
  TEST_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &private_comm));
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  params.theta = 2; /* few ranks share few targets: pair as soon as it can save a message */
  watchdog_arm("pattern");
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    char err[256] = "";
    topospec spec;
    if (topospec_parse(specs[s], &spec, err, sizeof err) != 0) {
      fprintf(stderr, "%s: %s\n", specs[s], err);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    NHOOD_Topo *all = test_calloc((size_t)size, sizeof *all);
    for (int r = 0; r < size; r++) all[r] = topology_of(&spec, r, size);
    nhood_combine_pattern over_mpi, *local = test_calloc((size_t)size, sizeof *local);
    nhood_bsp_stats stats;
    memset(&stats, 0, sizeof stats);
    TEST_CHECK(nhood_combine_build_mpi(private_comm, 7, all[rank], &params, &over_mpi, &stats));
    TEST_CHECK(nhood_combine_build_local(size, all, &params, local, NULL));
    int same = same_pattern(&over_mpi, &local[rank]);
    if (getenv("NHOOD_TEST_SABOTAGE") && rank == size - 1 && over_mpi.npairs > 0) same = 0;
    checks++;
    if (!same) {
      failures++;
      fprintf(stderr, "rank %d: %s: the MPI driver's pattern differs from the in-process one\n", rank, specs[s]);
    }
    int pairs = over_mpi.npairs, total_pairs = 0;
    MPI_Reduce(&pairs, &total_pairs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("  %-32.32s np=%d: %d supersteps, %d pair memberships, %lld messages at most per rank\n", specs[s], size,
             stats.supersteps, total_pairs, stats.msgs_max);
    nhood_combine_pattern_free(&over_mpi);
    for (int r = 0; r < size; r++) {
      nhood_combine_pattern_free(&local[r]);
      NHOOD_Topo_free(&all[r]);
    }
    free(local);
    free(all);
    topospec_free(&spec);
  }
  watchdog_disarm();
  int totals[2] = {0, 0}, mine[2] = {checks, failures};
  MPI_Reduce(mine, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("test_pattern np=%d: %d passed, %d failed\n", size, totals[0] - totals[1], totals[1]);
  MPI_Comm_free(&private_comm);
  MPI_Finalize();
  return rank == 0 && totals[1] != 0;
}
