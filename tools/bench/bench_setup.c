/* nhood-bench's rows of what set-up costs: creating a topology (MPI's graph communicator
 * against nhood's local objects) and building a persistent request's schedule (bench.h). */
#include "bench.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define CREATE_REPS_MPI 30
#define CREATE_REPS_NHOOD 1000

/* ------------------------------------------------------------------------------------- */
/* Topology creation                                                                      */
/* ------------------------------------------------------------------------------------- */

/* Times NHOOD_Topo_create_adjacent (cart == NULL) or NHOOD_Topo_create_cart_offsets on *cart,
 * each with NHOOD_Topo_free, repetition by repetition, and emits the row as `algo`. */
static void time_nhood_creation(const bench *b, const neighborhood *nb, const MPI_Comm *cart, const char *algo,
                                double *samples, result_row *row) {
  const topospec_rank *lists = &nb->lists;
  char error[ERROR_LEN] = "";
  int rc = MPI_SUCCESS;
  row->algo = row->algo_resolved = algo;
  row->validated = row->timed = 1;
  row->error = NULL;
  for (int k = 0; k < CREATE_REPS_NHOOD && rc == MPI_SUCCESS; k++) {
    NHOOD_Topo topo;
    double t0 = MPI_Wtime();
    rc = nhood_topo_create(lists, cart, MPI_INFO_NULL, &topo);
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_free(&topo);
    samples[k] = MPI_Wtime() - t0;
  }
  if (agree_on_nhood_failure(b, rc, cart ? "NHOOD_Topo_create_cart_offsets/free" : "NHOOD_Topo_create_adjacent/free",
                             error)) {
    row->validated = 0;
    row->error = error;
    row->timed = 0;
  } else {
    reduce_latency(samples, CREATE_REPS_NHOOD, row);
  }
  emit_row(b, row);
}

/* MPI_Dist_graph_create_adjacent + MPI_Comm_free against NHOOD_Topo_create_adjacent +
 * NHOOD_Topo_free (and for stencils NHOOD_Topo_create_cart_offsets), each repetition timed on
 * its own. */
void bench_creation(const bench *b, const neighborhood *nb) {
  const topospec_rank *lists = &nb->lists;
  double *samples = xmalloc(CREATE_REPS_NHOOD * sizeof(double));

  result_row row = {.topo = nb->spec_text,
                    .coll = "create",
                    .mode = "-",
                    .algo = "mpi",
                    .algo_resolved = "mpi",
                    .iters = CREATE_REPS_MPI,
                    .msgs = -1,
                    .rounds = -1,
                    .validated = 1,
                    .us_per_nbr = -1,
                    .overlap_pct = -1};
  for (int k = 0; k < CREATE_REPS_MPI; k++) {
    MPI_Comm comm;
    /* The MPI creation is collective: a barrier keeps late ranks from inflating it. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    graph_comm_create(lists, &comm);
    MPI_Comm_free(&comm);
    samples[k] = MPI_Wtime() - t0;
  }
  reduce_latency(samples, CREATE_REPS_MPI, &row);
  double mpi_median = row.median;
  emit_row(b, &row);

  row.iters = CREATE_REPS_NHOOD;
  row.mpi_median = mpi_median;
  time_nhood_creation(b, nb, NULL, "nhood", samples, &row);
  /* Stencils: an isomorphic neighborhood from relative offsets on an existing Cartesian
   * communicator (what the isomorphic algorithms use), also local. */
  if (lists->is_cart) {
    MPI_Comm cart;
    stencil_cart_create(lists, &cart);
    time_nhood_creation(b, nb, &cart, CART_OFFSETS_ROW, samples, &row);
    MPI_Comm_free(&cart);
  }
  free(samples);
}

/* ------------------------------------------------------------------------------------- */
/* Schedule construction                                                                  */
/* ------------------------------------------------------------------------------------- */

/* Times init + free of one algorithm's persistent request, after an untimed one (one-time
 * setup such as the private communicator is not schedule building), and fills the row. */
static void time_schedule_build(const bench *b, const neighborhood *nb, const exchange *x, const algorithm *algo,
                                double *samples, result_row *row) {
  int reps = b->opt.iters;
  char error[ERROR_LEN] = "";
  NHOOD_Request request = NHOOD_REQUEST_NULL;
  int rc = coll_call(nb, x, algo, MODE_PERSISTENT, NULL, &request);
  if (agree_on_nhood_failure(b, rc, "persistent init", error)) goto failed;
  int sends = 0, rounds = 0;
  NHOOD_Request_schedule_info(request, &row->algo_resolved, &rounds, &sends, NULL, NULL);
  row->msgs = max_over_ranks(sends);
  row->rounds = max_over_ranks(rounds);
  NHOOD_Request_free(&request);

  /* init is collective: every rank runs it equally often, so the counts stay matched. */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < reps && rc == MPI_SUCCESS; k++) {
    double t0 = MPI_Wtime();
    rc = coll_call(nb, x, algo, MODE_PERSISTENT, NULL, &request);
    if (rc == MPI_SUCCESS) rc = NHOOD_Request_free(&request);
    samples[k] = MPI_Wtime() - t0;
  }
  if (agree_on_nhood_failure(b, rc, "persistent init/free", error)) goto failed;

  reduce_latency(samples, reps, row);
  /* Per neighbor on each rank (building a schedule is O(degree)), then the worst rank. */
  int neighbors = nb->lists.indegree + nb->lists.outdegree;
  double local = cli_median(samples, reps) * 1e6 / (neighbors > 0 ? neighbors : 1), global;
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  row->us_per_nbr = global;
  row->validated = 1;
  emit_row(b, row);
  return;
failed:
  row->error = error;
  emit_row(b, row);
}

/* One row per nhood algorithm: NHOOD_Neighbor_<coll>_init + NHOOD_Request_free at the
 * smallest size. */
void bench_schedule_build(const bench *b, const neighborhood *nb, algorithm *algos, coll_kind coll) {
  int smallest = b->opt.sizes[0];
  for (int s = 1; s < b->opt.nsizes; s++) smallest = b->opt.sizes[s] < smallest ? b->opt.sizes[s] : smallest;
  exchange x;
  if (max_over_ranks(exchange_init(&x, coll, smallest, nb, b->rank)) != 0) {
    exchange_free(&x);
    return; /* bench_case reports the size as too large */
  }
  double *samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  for (int a = 0; a < b->opt.nalgos; a++) {
    const algorithm *algo = &algos[a];
    if (algo->is_mpi) continue;
    result_row row = {.topo = nb->spec_text,
                      .coll = "sched_build",
                      .mode = "persistent",
                      .bytes = smallest,
                      .algo = algo->name,
                      .iters = b->opt.iters,
                      .warmup = 1,
                      .msgs = -1,
                      .rounds = -1,
                      .us_per_nbr = -1,
                      .overlap_pct = -1};
    if (algo->failed) {
      row.error = algo->error;
      emit_row(b, &row);
    } else {
      time_schedule_build(b, nb, &x, algo, samples, &row);
    }
  }
  free(samples);
  exchange_free(&x);
}
