/*
 * nhood-bench's churn mode: communicators as real programs use them. A library that builds a
 * distributed-graph communicator per index map or scatterer calls most of them a few times;
 * a solver calls one thousands of times. For each --calls N, every --algo lives through
 * --comms K communicators, the algorithms taking turns communicator by communicator (so that
 * a passing disturbance hits them alike), in the opposite order every other turn (so that
 * none always follows another: a life pays for what the one before it left unfinished), each
 * life timed from a barrier to the free:
 *
 *   pmpi    PMPI_Dist_graph_create_adjacent, N x PMPI_Neighbor_<coll>, PMPI_Comm_free: MPI's
 *           own, by the names an interposition library does not intercept (plain MPI, also
 *           under nhood-run);
 *   mpi     the same by the MPI_ names: under nhood-run, what an unmodified program gets;
 *   others  nhood's API: NHOOD_Topo_create_adjacent with that algorithm, N x
 *           NHOOD_Neighbor_<coll> on MPI_COMM_WORLD, NHOOD_Topo_free.
 *
 * A life's time is its slowest rank's; the row gives the median over the K lives and its
 * ratio to pmpi's (else mpi's). The last call of every life is checked against MPI-4.1's
 * result. One untimed life per algorithm comes first (first contact between processes).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* One life of a communicator for `name`: its time on this rank, and whether the last call
 * delivered the expected bytes. Returns an MPI error code (0: success). */
static int life(const neighborhood *nb, const exchange *x, const char *name, int calls, double *seconds, int *valid) {
  const topospec_rank *l = &nb->lists;
  algorithm algo = {.name = name, .info = MPI_INFO_NULL, .topo = NHOOD_TOPO_NULL};
  neighborhood on = *nb;
  algo.profiling = strcmp(name, "pmpi") == 0;
  algo.is_mpi = algo.profiling || strcmp(name, "mpi") == 0;
  if (!algo.is_mpi) {
    MPI_Info_create(&algo.info);
    MPI_Info_set(algo.info, NHOOD_INFO_ALGORITHM, name);
  }
  memset(x->recvbuf, SENTINEL, x->recvlen);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc;
  if (algo.profiling)
    rc = PMPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, l->indegree, l->sources, unweighted(), l->outdegree,
                                         l->destinations, unweighted(), MPI_INFO_NULL, 0, &on.graph_comm);
  else if (algo.is_mpi)
    rc = graph_comm_create(l, &on.graph_comm);
  else
    rc = nhood_topo_create(l, NULL, algo.info, &algo.topo);
  for (int k = 0; k < calls && rc == MPI_SUCCESS; k++) rc = coll_call(&on, x, &algo, MODE_BLOCKING, NULL, NULL);
  if (algo.profiling)
    PMPI_Comm_free(&on.graph_comm);
  else if (algo.is_mpi)
    MPI_Comm_free(&on.graph_comm);
  else if (algo.topo != NHOOD_TOPO_NULL)
    NHOOD_Topo_free(&algo.topo);
  *seconds = MPI_Wtime() - t0;
  *valid = rc == MPI_SUCCESS && memcmp(x->recvbuf, x->expected, x->recvlen) == 0;
  if (algo.info != MPI_INFO_NULL) MPI_Info_free(&algo.info);
  return rc;
}

void bench_churn(const bench *b, const neighborhood *nb, coll_kind coll, int bytes) {
  int n = b->opt.nalgos, comms = b->opt.comms;
  exchange x;
  if (max_over_ranks(exchange_init(&x, coll, bytes, nb, b->rank)) != 0) {
    exchange_free(&x);
    return; /* the other modes report the size as too large */
  }
  double *samples = xmalloc((size_t)n * comms * sizeof *samples);
  int *valid = xmalloc((size_t)n * sizeof *valid);
  char(*errors)[ERROR_LEN] = xcalloc((size_t)n, sizeof *errors);
  result_row *rows = xcalloc((size_t)n, sizeof *rows);
  for (int c = 0; c < b->opt.ncalls; c++) {
    int calls = b->opt.calls[c], failed = 0;
    for (int a = 0; a < n; a++) valid[a] = 1;
    for (int k = -1; k < comms && !failed; k++) /* k = -1: the untimed life */
      for (int turn = 0; turn < n && !failed; turn++) {
        int a = k % 2 ? n - 1 - turn : turn;
        double t = 0;
        int ok = 0, rc = life(nb, &x, b->opt.algos[a], calls, &t, &ok);
        if (rc != MPI_SUCCESS) nhood_failure(errors[a], b->opt.algos[a], rc);
        failed = agree_on_failure(b, rc != MPI_SUCCESS, errors[a]);
        valid[a] &= ok;
        if (k >= 0) samples[(size_t)a * comms + k] = t;
      }
    double reference = 0;
    for (int a = 0; a < n; a++) {
      int all_valid = 0;
      MPI_Allreduce(&valid[a], &all_valid, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      rows[a] = (result_row){.topo = nb->spec_text,
                             .coll = coll_names[coll],
                             .mode = mode_names[MODE_CHURN],
                             .bytes = bytes,
                             .algo = b->opt.algos[a],
                             .iters = comms,
                             .warmup = 1,
                             .msgs = -1,
                             .rounds = -1,
                             .validated = all_valid && !failed,
                             .us_per_nbr = -1,
                             .overlap_pct = -1,
                             .calls = calls,
                             .error = failed ? errors[a] : NULL};
      if (!failed) reduce_latency(samples + (size_t)a * comms, comms, &rows[a]);
      if (!failed && (strcmp(rows[a].algo, "pmpi") == 0 || (reference == 0 && strcmp(rows[a].algo, "mpi") == 0)))
        reference = rows[a].median;
    }
    for (int a = 0; a < n; a++) {
      if (strcmp(rows[a].algo, "pmpi") != 0) rows[a].mpi_median = reference;
      emit_row(b, &rows[a]);
    }
  }
  free(rows);
  free(errors);
  free(valid);
  free(samples);
  exchange_free(&x);
}
