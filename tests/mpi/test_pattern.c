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
  TEST_CHECK(NHOOD_Topo_create_adjacent(mine.indegree, mine.sources, test_unweighted(), mine.outdegree,
                                        mine.destinations, test_unweighted(), MPI_INFO_NULL, &t));
  topospec_rank_free(&mine);
  return t;
}

static int same_records(const nhood_records *a, const nhood_records *b) {
  return a->nrecords == b->nrecords && a->nwords == b->nwords &&
         (a->nwords == 0 || memcmp(a->words, b->words, sizeof(int) * (size_t)a->nwords) == 0);
}

static int same_pattern(const nhood_combine_pattern *x, const nhood_combine_pattern *y) {
  if (x->nlevels != y->nlevels || !same_records(&x->duties, &y->duties) || !same_records(&x->self, &y->self) ||
      !same_records(&x->incoming, &y->incoming) || x->predicted_us[1] != y->predicted_us[1])
    return 0;
  for (int l = 0; l < x->nlevels; l++)
    if (x->levels[l].partner != y->levels[l].partner || !same_records(&x->levels[l].out, &y->levels[l].out) ||
        !same_records(&x->levels[l].in, &y->levels[l].in))
      return 0;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failures = 0, checks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *specs[] = {"er:density=1,seed=3", "er:density=0.6,seed=5", "moore:d=2,r=1", "moore:d=1,r=3,periodic=0",
                         "mtx:" NHOOD_MATRIX_DIR "/dwt_162.mtx.gz"};
  MPI_Comm private_comm;
  TEST_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &private_comm));
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  /* Few ranks share few targets: merge whenever partners share one, and as deep as the
   * hypercube goes, whatever the cost model would choose (the model runs too: its choice
   * must agree between the drivers). */
  params.theta = 1;
  params.force_levels = 64;
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
    if (getenv("NHOOD_TEST_SABOTAGE") && rank == size - 1 && over_mpi.nlevels > 0) same = 0;
    checks++;
    if (!same) {
      failures++;
      fprintf(stderr, "rank %d: %s: the MPI driver's pattern differs from the in-process one\n", rank, specs[s]);
    }
    int messages = over_mpi.duties.nrecords, total = 0;
    MPI_Reduce(&messages, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("  %-32.32s np=%d: %d supersteps, %d levels, %d combined messages, %lld messages at most per rank\n",
             specs[s], size, stats.supersteps, over_mpi.nlevels, total, stats.msgs_max);
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
