/*
 * nhood-bench: latency of neighborhood collectives, the MPI library's own (algorithm "mpi")
 * against nhood's algorithms, on topologies given as SPECs (see tools/common/topospec.h).
 *
 *   mpiexec -n P nhood-bench --topo SPEC [--topo SPEC ...]
 *       --coll allgather|allgatherv|alltoall|alltoallv|alltoallw[,...] --sizes 4,64,1024
 *       --algo mpi,direct[,...] [--mode blocking|nonblocking|persistent[,...]]
 *       [--iters N] [--warmup W] [--theta N] [--json FILE]
 *
 * Later tools script against the options and the JSON rows: keep both stable. The options
 * are parsed in bench_options.c, the rows written in bench_report.c.
 *
 * Every result is checked before it is timed. The reference receive buffer is what MPI-4.1
 * prescribes, computed locally from the rule that generates the send data; every algorithm,
 * the MPI library's own included, must reproduce it byte for byte. (An independent reference
 * rather than the MPI library's output: MPICH 4.0 pairs the duplicate edges of
 * MPI_Neighbor_alltoall in the wrong order and loses data in MPI_Neighbor_alltoallw, and
 * nhood must not be judged against that.)
 *
 * The machines this runs on are often shared and oversubscribed, so timings interleave the
 * algorithms in batches (each batch runs every algorithm in turn) instead of timing one
 * algorithm after the other, and each call is timed on its own to report the median.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "bench.h"
#include "blockdata.h"
#include "cli.h"
#include "nhood_calibrate.h"
#include "topospec.h"

#include <nhood.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init in Open MPI 4.x */
#endif

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Persistent neighborhood collectives of the MPI library: MPI-4, or Open MPI's extension;
 * without either, "mpi" runs non-blocking in persistent mode and the rows say so. */
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define PERSISTENT_NEIGHBOR_INIT(coll) MPI_Neighbor_##coll##_init
#define PERSISTENT_NEIGHBOR_INIT_P(coll) PMPI_Neighbor_##coll##_init
#define PERSISTENT_KIND "native"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT_NEIGHBOR_INIT(coll) MPIX_Neighbor_##coll##_init
#define PERSISTENT_NEIGHBOR_INIT_P(coll) PMPIX_Neighbor_##coll##_init
#define PERSISTENT_KIND "mpix"
#else
#define PERSISTENT_KIND "emulated"
#endif

#define EXIT_USAGE 2
/* The algo column's least width; longer names widen it (bench.algo_width). */
#define ALGO_WIDTH 12

/* ------------------------------------------------------------------------------------- */
/* Algorithms                                                                             */
/* ------------------------------------------------------------------------------------- */

/* One algorithm in one case (topology, collective, mode, size). */
typedef struct runner {
  algorithm *algo;
  mode_kind mode; /* as run: "mpi" may fall back from persistent to non-blocking */
  MPI_Request mpi_request;
  NHOOD_Request nhood_request;
  int ok;
  char error[ERROR_LEN];
  const char *resolved; /* the algorithm that ran (auto resolves to one; after its trial) */
  char selection[256];  /* how it was chosen (NHOOD_Selection_info), after the timed calls */
  int rounds, sends;
  int validated;
  double *samples;
  int nsamples;
  /* overlap mode: the call alone (median over calls of the slowest rank, us), the
   * computation alone per call (seconds) */
  double pure_us;
  double *compute_samples;
} runner;

/* ------------------------------------------------------------------------------------- */
/* The calls                                                                              */
/* ------------------------------------------------------------------------------------- */

/* The forms of one neighborhood collective, for coll_call: the blocking call, the start of the
 * non-blocking one, or the persistent init; the MPI library's or nhood's. The arguments given
 * are the ones all six forms share; each form appends its own from coll_call's variables. */
#ifdef PERSISTENT_NEIGHBOR_INIT
#define CALL_MPI_INIT(coll, ...) PERSISTENT_NEIGHBOR_INIT(coll)(__VA_ARGS__)
#define CALL_PMPI_INIT(coll, ...) PERSISTENT_NEIGHBOR_INIT_P(coll)(__VA_ARGS__)
#else /* never called: "mpi" runs non-blocking in persistent mode (mpi_effective_mode) */
#define CALL_MPI_INIT(coll, ...) MPI_ERR_UNSUPPORTED_OPERATION
#define CALL_PMPI_INIT(coll, ...) MPI_ERR_UNSUPPORTED_OPERATION
#endif
/* "pmpi" calls the same by the profiling names, which an interposition library (nhood-run)
 * does not intercept: MPI's own collective, next to what the program's calls become. */
#define CALL_MPI_NAMED(P, coll, ...)                                                    \
  (mode == MODE_BLOCKING      ? P##MPI_Neighbor_##coll(__VA_ARGS__, comm)               \
   : mode == MODE_NONBLOCKING ? P##MPI_Ineighbor_##coll(__VA_ARGS__, comm, mpi_request) \
                              : CALL_##P##MPI_INIT(coll, __VA_ARGS__, comm, MPI_INFO_NULL, mpi_request))
#define CALL_MPI(coll, ...) \
  (algo->profiling ? CALL_MPI_NAMED(P, coll, __VA_ARGS__) : CALL_MPI_NAMED(, coll, __VA_ARGS__))
#define CALL_NHOOD(coll, ...)                                                   \
  (mode == MODE_BLOCKING ? NHOOD_Neighbor_##coll(__VA_ARGS__, comm, algo->topo) \
   : mode == MODE_NONBLOCKING                                                   \
       ? NHOOD_Ineighbor_##coll(__VA_ARGS__, comm, algo->topo, nhood_request)   \
       : NHOOD_Neighbor_##coll##_init(__VA_ARGS__, comm, algo->topo, algo->info, nhood_request))
#define CALL(coll, ...)                            \
  (algo->handwritten ? handwritten_call(nb, x)     \
   : algo->is_mpi    ? CALL_MPI(coll, __VA_ARGS__) \
                     : CALL_NHOOD(coll, __VA_ARGS__))

/* The exchange's collective as `algo` makes it in `mode`: blocking, or the start of a
 * non-blocking call, or a persistent init, into *mpi_request ("mpi") or *nhood_request. "mpi"
 * calls the MPI library on the graph communicator; nhood's algorithms run on MPI_COMM_WORLD
 * with their topology object (and, at init, their info). */
int coll_call(const neighborhood *nb, const exchange *x, const algorithm *algo, mode_kind mode,
              MPI_Request *mpi_request, NHOOD_Request *nhood_request) {
  MPI_Comm comm = algo->is_mpi ? nb->graph_comm : MPI_COMM_WORLD;
  switch (x->coll) {
    case COLL_ALLGATHER:
      return CALL(allgather, x->sendbuf, x->sendcount, MPI_BYTE, x->recvbuf, x->bytes, MPI_BYTE);
    case COLL_ALLGATHERV:
      return CALL(allgatherv, x->sendbuf, x->sendcount, MPI_BYTE, x->recvbuf, x->recvcounts, x->rdispls, MPI_BYTE);
    case COLL_ALLTOALL:
      return CALL(alltoall, x->sendbuf, x->bytes, MPI_BYTE, x->recvbuf, x->bytes, MPI_BYTE);
    case COLL_ALLTOALLV:
      return CALL(alltoallv, x->sendbuf, x->sendcounts, x->sdispls, MPI_BYTE, x->recvbuf, x->recvcounts, x->rdispls,
                  MPI_BYTE);
    default:
      return CALL(alltoallw, x->sendbuf, x->sendcounts, x->sdispls_bytes, x->types, x->recvbuf, x->recvcounts,
                  x->rdispls_bytes, x->types);
  }
}

#undef CALL
#undef CALL_NHOOD
#undef CALL_MPI
#undef CALL_MPI_NAMED
#undef CALL_MPI_INIT
#undef CALL_PMPI_INIT

/* The mode "mpi" really runs in: persistent falls back to non-blocking without support. */
static mode_kind mpi_effective_mode(mode_kind mode) {
#ifdef PERSISTENT_NEIGHBOR_INIT
  return mode;
#else
  return mode == MODE_PERSISTENT ? MODE_NONBLOCKING : mode;
#endif
}

/*
 * Why the MPI library's own call must not run in a case, or NULL: known bugs of the
 * installed MPIs that corrupt data, hang or crash, rather than only costing time.
 * - MPICH before 4.1 mixes up indegree and outdegree in MPI_Neighbor_alltoallw and its
 *   non-blocking and persistent forms (pmodels/mpich#6233, fixed by #6250): data goes
 *   missing, or the call hangs, once a rank has indegree != outdegree.
 * - Open MPI 4's blocking MPI_Neighbor_* (coll/basic) hand the MPI_PROC_NULL neighbors of a
 *   distributed graph to the point-to-point layer and crash; its non-blocking and
 *   persistent forms (libnbc) are fine.
 */
static const char *mpi_skip_reason(const neighborhood *nb, coll_kind coll, mode_kind mode) {
  (void)nb;
  (void)coll;
  (void)mode;
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  if (coll == COLL_ALLTOALLW && nb->any_unequal_degrees)
    return "skipped: MPICH before 4.1 mixes up indegree and outdegree in "
           "MPI_Neighbor_alltoallw (pmodels/mpich#6233)";
#endif
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
  if (mode == MODE_BLOCKING && nb->any_proc_null)
    return "skipped: Open MPI 4's blocking MPI_Neighbor_* crash on MPI_PROC_NULL neighbors "
           "of a distributed graph";
#endif
  return NULL;
}

static void algorithms_create(const bench *b, const neighborhood *nb, algorithm *algos) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    algorithm *algo = &algos[a];
    algo->name = b->opt.algos[a];
    algo->profiling = strcmp(algo->name, "pmpi") == 0;
    algo->handwritten = strcmp(algo->name, "isend") == 0;
    algo->is_mpi = algo->profiling || algo->handwritten || strcmp(algo->name, "mpi") == 0;
    algo->info = MPI_INFO_NULL;
    algo->topo = NHOOD_TOPO_NULL;
    if (algo->is_mpi) continue;
    MPI_Info_create(&algo->info);
    MPI_Info_set(algo->info, NHOOD_INFO_ALGORITHM, algo->name);
    /* Stencils as relative offsets on a Cartesian communicator, which the isomorphic
     * algorithms need; the other algorithms read the same lists. */
    int rc;
    if (nb->lists.is_cart) {
      MPI_Comm cart;
      rc = stencil_cart_create(&nb->lists, &cart);
      if (rc == MPI_SUCCESS) {
        rc = nhood_topo_create(&nb->lists, &cart, algo->info, &algo->topo);
        MPI_Comm_free(&cart);
      }
    } else {
      rc = nhood_topo_create(&nb->lists, NULL, algo->info, &algo->topo);
    }
    algo->failed = agree_on_nhood_failure(b, rc, "creating the topology object", algo->error);
  }
}

static void algorithms_free(const bench *b, algorithm *algos) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    if (algos[a].topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&algos[a].topo);
    if (algos[a].info != MPI_INFO_NULL) MPI_Info_free(&algos[a].info);
  }
}

/* ------------------------------------------------------------------------------------- */
/* One case: validation, then interleaved timing                                          */
/* ------------------------------------------------------------------------------------- */

/* Sets a runner up for its case: the persistent request, and what its schedule does. */
static int runner_setup(const neighborhood *nb, const exchange *x, runner *r) {
  if (r->algo->is_mpi) {
    r->resolved = r->algo->name;
    r->rounds = 1;
    r->sends = nb->real_destinations;
    /* r->mode is persistent only where the MPI library has persistent collectives. */
    return r->mode == MODE_PERSISTENT ? coll_call(nb, x, r->algo, MODE_PERSISTENT, &r->mpi_request, NULL) : MPI_SUCCESS;
  }
  /* A persistent request tells what the schedule does; other modes build one to ask. */
  int rc = coll_call(nb, x, r->algo, MODE_PERSISTENT, NULL, &r->nhood_request);
  if (rc != MPI_SUCCESS) {
    nhood_failure(r->error, "persistent init", rc);
    return rc;
  }
  NHOOD_Request_schedule_info(r->nhood_request, &r->resolved, &r->rounds, &r->sends, NULL, NULL);
  if (r->mode != MODE_PERSISTENT) NHOOD_Request_free(&r->nhood_request);
  return MPI_SUCCESS;
}

static void runner_teardown(runner *r) {
  if (r->mpi_request != MPI_REQUEST_NULL) MPI_Request_free(&r->mpi_request);
  if (r->nhood_request != NHOOD_REQUEST_NULL) NHOOD_Request_free(&r->nhood_request);
  free(r->samples);
  r->samples = NULL;
  free(r->compute_samples);
  r->compute_samples = NULL;
}

/* One call of the runner's algorithm in its mode, complete when it returns. */
static int runner_call(const neighborhood *nb, const exchange *x, runner *r) {
  static const char *const what[NMODES] = {"blocking call", "non-blocking call", "start/wait"};
  int is_mpi = r->algo->is_mpi, rc;
  if (r->mode != MODE_PERSISTENT)
    rc = coll_call(nb, x, r->algo, r->mode, &r->mpi_request, &r->nhood_request);
  else
    rc = is_mpi ? MPI_Start(&r->mpi_request) : NHOOD_Start(&r->nhood_request);
  if (rc == MPI_SUCCESS && r->mode != MODE_BLOCKING)
    rc = is_mpi ? MPI_Wait(&r->mpi_request, MPI_STATUS_IGNORE) : NHOOD_Wait(&r->nhood_request);
  /* nhood's failures are explained; the MPI library's abort under the default error handler. */
  if (rc != MPI_SUCCESS && !is_mpi) nhood_failure(r->error, what[r->mode], rc);
  return rc;
}

/* A call that failed after the same call validated: other ranks may be inside it, so there
 * is nothing to recover. */
static void call_or_abort(const bench *b, const neighborhood *nb, const exchange *x, runner *r) {
  if (runner_call(nb, x, r) == MPI_SUCCESS) return;
  fprintf(stderr, "nhood-bench: rank %d: %s: %s after a successful validation\n", b->rank, r->algo->name, r->error);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Sets up every runner and checks its first result against the expected one. */
static void validate_runners(const bench *b, const neighborhood *nb, const exchange *x, runner *runners) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    if (r->algo->failed) {
      snprintf(r->error, sizeof r->error, "%s", r->algo->error);
      continue;
    }
    const char *skip = r->algo->handwritten ? (r->mode != MODE_BLOCKING ? "skipped: isend is blocking only" : NULL)
                       : r->algo->is_mpi    ? mpi_skip_reason(nb, x->coll, r->mode)
                                            : NULL;
    if (skip != NULL) {
      snprintf(r->error, sizeof r->error, "%s", skip);
      continue;
    }
    int rc = runner_setup(nb, x, r);
    if (agree_on_failure(b, rc != MPI_SUCCESS, r->error)) continue;
    memset(x->recvbuf, SENTINEL, x->recvlen);
    rc = runner_call(nb, x, r);
    if (agree_on_failure(b, rc != MPI_SUCCESS, r->error)) continue;
    int same = memcmp(x->recvbuf, x->expected, x->recvlen) == 0;
    MPI_Allreduce(&same, &r->validated, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    r->ok = 1;
  }
}

/* What ran and how "auto" chose it, after a call: a trial (selection/trial.h) may change
 * it during the warm-up and the first timed calls. */
static void note_selection(runner *r) {
  if (r->algo->is_mpi) return;
  if (r->mode == MODE_BLOCKING) {
    NHOOD_Last_algorithm(&r->resolved);
    NHOOD_Selection_info(NHOOD_REQUEST_NULL, r->selection, sizeof r->selection);
  } else if (r->mode == MODE_PERSISTENT) {
    NHOOD_Request_schedule_info(r->nhood_request, &r->resolved, &r->rounds, &r->sends, NULL, NULL);
    NHOOD_Selection_info(r->nhood_request, r->selection, sizeof r->selection);
  }
}

/* Warmup, then one batch per iteration in which every algorithm runs once, in turn, each
 * call after a barrier. On a shared, oversubscribed machine the conditions drift within
 * seconds, and algorithms timed call by call side by side see the same drift (batches of ten
 * calls per algorithm left 5-10% between algorithms that run the same schedule); the barrier
 * keeps one call's exit skew (large after a many-round schedule) out of the next call's time.
 * The order within a batch is shuffled, the same on every rank (a generator seeded by the
 * batch number), so that no algorithm always follows the same one: work a call leaves behind
 * (rendezvous completions of large messages finish after the barrier) then lands on every
 * algorithm alike. With a fixed rotation, "auto" (listed first) always followed the last
 * algorithm, and ran 20% slower than "direct" with the very same schedule. */
static void time_runners(const bench *b, const neighborhood *nb, const exchange *x, runner *runners,
                         bench_reference *ref) {
  int nalgos = b->opt.nalgos, n = nalgos + bench_reference_points(ref); /* turns >= nalgos: ref's calls */
  int *order = xcalloc((size_t)n, sizeof *order);
  for (int a = 0; a < nalgos; a++)
    for (int k = 0; runners[a].ok && k < b->opt.warmup; k++) call_or_abort(b, nb, x, &runners[a]);
  bench_reference_warm(ref, b->opt.warmup);
  for (int batch = 0; batch < b->opt.iters; batch++) {
    uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(batch + 1);
    for (int a = 0; a < n; a++) order[a] = a;
    for (int a = n - 1; a > 0; a--) { /* Fisher-Yates with a splitmix64 step */
      state += 0x9e3779b97f4a7c15ull;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      int j = (int)(z % (uint64_t)(a + 1)), t = order[a];
      order[a] = order[j];
      order[j] = t;
    }
    for (int turn = 0; turn < n; turn++) {
      if (order[turn] >= nalgos) {
        bench_reference_turn(ref, order[turn] - nalgos, batch);
        continue;
      }
      runner *r = &runners[order[turn]];
      if (!r->ok) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      call_or_abort(b, nb, x, r);
      r->samples[r->nsamples++] = MPI_Wtime() - t0;
      /* What ran is read after the last batch's call, behind a barrier: on an
       * oversubscribed machine, work a process does right after its call takes the CPU
       * from processes still inside theirs, and "mpi" reads nothing. */
      if (batch == b->opt.iters - 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        note_selection(r);
      }
    }
  }
  free(order);
}

/* ------------------------------------------------------------------------------------- */
/* Overlap (OSU's method)                                                                 */
/* ------------------------------------------------------------------------------------- */

static volatile double compute_sink;

/* Floating-point work that touches no memory, as the computation a program overlaps. The
 * empty asm makes each step opaque, so the compiler cannot fold the loop away. */
static void compute(long iterations) {
  double a = 1.0, b = 1e-9;
  for (long k = 0; k < iterations; k++) {
    a = a * 0.999999999 + b;
#if defined(__GNUC__)
    __asm__ __volatile__("" : "+g"(a));
#endif
  }
  compute_sink = a;
}

/* Iterations of compute per microsecond on this rank: the fastest of a few timed runs. */
static double calibrate_compute(void) {
  const long n = 2000000;
  double best = 1e30;
  for (int k = 0; k < 5; k++) {
    double t0 = MPI_Wtime();
    compute(n);
    double t = MPI_Wtime() - t0;
    if (t > 0 && t < best) best = t;
  }
  return (double)n / (best * 1e6);
}

/* The median over calls of the slowest rank, in us, on every rank. */
static double slowest_median_us(const double *samples, int n) {
  double *slowest = xmalloc((size_t)n * sizeof *slowest);
  MPI_Allreduce(samples, slowest, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double median = cli_median(slowest, n) * 1e6;
  free(slowest);
  return median;
}

/* After the runners' non-blocking calls were timed alone: each is posted, followed by
 * computation as long as its latency, then waited for; the computation is also timed alone.
 * Batches and barriers as time_runners. */
static void time_overlap(const bench *b, const neighborhood *nb, const exchange *x, runner *runners) {
  int n = b->opt.nalgos;
  long *iterations = xcalloc((size_t)n, sizeof *iterations);
  for (int a = 0; a < n; a++) {
    runner *r = &runners[a];
    if (!r->ok) continue;
    r->pure_us = slowest_median_us(r->samples, r->nsamples);
    iterations[a] = (long)(r->pure_us * b->compute_per_us);
    r->nsamples = 0;
    r->compute_samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  }
  for (int batch = 0; batch < b->opt.iters; batch++)
    for (int turn = 0; turn < n; turn++) {
      runner *r = &runners[(turn + batch) % n];
      if (!r->ok) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      compute(iterations[(turn + batch) % n]);
      r->compute_samples[batch] = MPI_Wtime() - t0;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      int rc = coll_call(nb, x, r->algo, MODE_NONBLOCKING, &r->mpi_request, &r->nhood_request);
      compute(iterations[(turn + batch) % n]);
      if (rc == MPI_SUCCESS)
        rc = r->algo->is_mpi ? MPI_Wait(&r->mpi_request, MPI_STATUS_IGNORE) : NHOOD_Wait(&r->nhood_request);
      r->samples[r->nsamples++] = MPI_Wtime() - t0;
      if (rc != MPI_SUCCESS) {
        nhood_failure(r->error, "non-blocking call with computation", rc);
        fprintf(stderr, "nhood-bench: rank %d: %s: %s after a successful validation\n", b->rank, r->algo->name,
                r->error);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
  free(iterations);
}

/* The rows of one case, reduced over ranks; emitted once "mpi"'s median is known. */
static void report_case(const bench *b, const neighborhood *nb, const exchange *x, mode_kind mode, runner *runners) {
  result_row *rows = xcalloc((size_t)b->opt.nalgos, sizeof *rows);
  double mpi_median = 0;
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    result_row *row = &rows[a];
    *row = (result_row){.topo = nb->spec_text,
                        .coll = coll_names[x->coll],
                        .mode = mode_names[mode],
                        .bytes = x->bytes,
                        .algo = r->algo->name,
                        .iters = b->opt.iters,
                        .warmup = b->opt.warmup,
                        .msgs = -1,
                        .rounds = -1,
                        .us_per_nbr = -1,
                        .overlap_pct = -1};
    if (r->algo->is_mpi && mode == MODE_PERSISTENT) row->mpi_persistent = PERSISTENT_KIND;
    if (!r->ok) {
      row->error = r->error;
      continue;
    }
    reduce_latency(r->samples, r->nsamples, row);
    if (mode == MODE_OVERLAP) {
      row->pure_us = r->pure_us;
      row->compute_us = slowest_median_us(r->compute_samples, b->opt.iters);
      double hidden = r->pure_us > 0 ? 100.0 * (1.0 - (row->median - row->compute_us) / r->pure_us) : 0;
      row->overlap_pct = hidden < 0 ? 0 : hidden > 100 ? 100 : hidden;
      row->progress = b->progress;
    }
    row->algo_resolved = r->resolved;
    if (r->selection[0]) row->selection = r->selection;
    row->msgs = max_over_ranks(r->sends);
    row->rounds = max_over_ranks(r->rounds);
    row->validated = r->validated;
    /* The ratio's baseline: MPI's own, by the profiling names where they were asked for. */
    if (r->algo->is_mpi && (r->algo->profiling || mpi_median == 0)) mpi_median = row->median;
  }
  for (int a = 0; a < b->opt.nalgos; a++) {
    rows[a].mpi_median = mpi_median;
    emit_row(b, &rows[a]);
  }
  free(rows);
}

static void bench_case(const bench *b, const neighborhood *nb, algorithm *algos, coll_kind coll, mode_kind mode,
                       int bytes) {
  exchange x;
  if (max_over_ranks(exchange_init(&x, coll, bytes, nb, b->rank)) != 0) {
    if (b->rank == 0)
      printf("%-11s %-11s %9d skipped: a buffer exceeds int displacements\n", coll_names[coll], mode_names[mode],
             bytes);
    exchange_free(&x);
    return;
  }

  runner *runners = xcalloc((size_t)b->opt.nalgos, sizeof *runners);
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    r->algo = &algos[a];
    r->mode = mode == MODE_OVERLAP ? MODE_NONBLOCKING : r->algo->is_mpi ? mpi_effective_mode(mode) : mode;
    r->mpi_request = MPI_REQUEST_NULL;
    r->nhood_request = NHOOD_REQUEST_NULL;
    r->samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  }
  validate_runners(b, nb, &x, runners);
  bench_reference *ref = mode == MODE_BLOCKING ? b->ref : NULL; /* its calls are blocking */
  time_runners(b, nb, &x, runners, ref);
  if (mode == MODE_OVERLAP) time_overlap(b, nb, &x, runners);
  report_case(b, nb, &x, mode, runners);
  bench_reference_case_end(b, ref, nb->spec_text, coll_names[coll], bytes);

  for (int a = 0; a < b->opt.nalgos; a++) runner_teardown(&runners[a]);
  free(runners);
  exchange_free(&x);
}

/* ------------------------------------------------------------------------------------- */
/* Topologies                                                                             */
/* ------------------------------------------------------------------------------------- */

static void print_topology_header(const bench *b, const neighborhood *nb) {
  int local[2] = {nb->lists.indegree, nb->lists.outdegree}, max[2];
  long long edges = nb->real_destinations, total_edges;
  MPI_Reduce(local, max, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&edges, &total_edges, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (b->rank != 0) return;
  printf("\n# topo %s: %d rank%s, %lld edge%s, max indegree %d, max outdegree %d\n", nb->spec_text, b->size,
         cli_plural(b->size), total_edges, cli_plural(total_edges), max[0], max[1]);
  print_table_header(b);
}

static void bench_topology(const bench *b, const topospec *spec) {
  neighborhood nb = {.spec_text = spec->text, .graph_comm = MPI_COMM_NULL};
  algorithm *algos = NULL;
  char err[512];
  int failed = topospec_for_rank(spec, b->rank, b->size, &nb.lists, err, sizeof err) != 0;
  if (failed) fprintf(stderr, "nhood-bench: rank %d: %s: %s\n", b->rank, spec->text, err);
  if (max_over_ranks(failed)) goto cleanup;
  int proc_null = 0;
  for (int j = 0; j < nb.lists.outdegree; j++) nb.real_destinations += nb.lists.destinations[j] != MPI_PROC_NULL;
  for (int i = 0; i < nb.lists.indegree; i++) proc_null |= nb.lists.sources[i] == MPI_PROC_NULL;
  nb.any_proc_null = max_over_ranks(proc_null || nb.real_destinations < nb.lists.outdegree);
  nb.any_unequal_degrees = max_over_ranks(nb.lists.indegree != nb.lists.outdegree);
  graph_comm_create(&nb.lists, &nb.graph_comm);
  algos = xcalloc((size_t)b->opt.nalgos, sizeof *algos);
  algorithms_create(b, &nb, algos);

  print_topology_header(b, &nb);
  bench_creation(b, &nb);
  for (int c = 0; c < b->opt.ncolls; c++) {
    bench_schedule_build(b, &nb, algos, b->opt.colls[c]);
    for (int m = 0; m < b->opt.nmodes; m++)
      for (int s = 0; s < b->opt.nsizes; s++)
        if (b->opt.modes[m] == MODE_CHURN)
          bench_churn(b, &nb, b->opt.colls[c], b->opt.sizes[s]);
        else
          bench_case(b, &nb, algos, b->opt.colls[c], b->opt.modes[m], b->opt.sizes[s]);
  }
cleanup:
  if (algos != NULL) algorithms_free(b, algos);
  free(algos);
  if (nb.graph_comm != MPI_COMM_NULL) MPI_Comm_free(&nb.graph_comm);
  topospec_rank_free(&nb.lists);
}

/* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4": the first clause, one line. */
static void short_library_version(char *out, size_t outlen) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  size_t n = strcspn(version, ",\n");
  for (size_t i = 0; i < n; i++)
    if (version[i] == '\t') version[i] = ' ';
  snprintf(out, outlen, "%.*s", (int)n, version);
}

/* --calibrate OPTS: nhood-calibrate with OPTS, split at spaces, in this launch (a machine's
 * state can change from one launch to the next). Its exit status. */
static int run_calibrate(const char *opts) {
  char *copy = xmalloc(strlen(opts) + 1), *argv[64] = {"nhood-calibrate"};
  int argc = 1;
  strcpy(copy, opts);
  for (char *word = strtok(copy, " "); word != NULL && argc < 63; word = strtok(NULL, " ")) argv[argc++] = word;
  argv[argc] = NULL;
  fflush(stdout);
  int rc = nhood_calibrate_run(argc, argv);
  fflush(stdout);
  free(copy);
  return rc;
}

int main(int argc, char **argv) {
  bench b = {.json = NULL};
  topospec *specs = NULL;
  char err[512] = "";
  int exit_code = 0;
  /* nhood's progress thread calls MPI beside the program: it needs MPI_THREAD_MULTIPLE. */
  const char *progress = getenv("NHOOD_PROGRESS");
  if (progress != NULL && strcmp(progress, "thread") == 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);

  /* Every rank parses the same arguments and reaches the same verdict; only rank 0 talks. */
  if (parse_options(argc, argv, &b.opt, err, sizeof err) != 0) {
    if (b.rank == 0) fprintf(stderr, "nhood-bench: %s\n", err);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }
  if (b.opt.help) {
    if (b.rank == 0) print_usage(stdout);
    goto cleanup;
  }
  if (b.opt.theta > 0) { /* read by the library when it builds a combining pattern */
    char theta[16];
    snprintf(theta, sizeof theta, "%d", b.opt.theta);
    setenv("NHOOD_COMBINE_THETA", theta, 1);
  }

  /* All SPECs first, so a typo in the last one does not surface after an hour. */
  specs = xcalloc((size_t)b.opt.ntopos, sizeof *specs);
  int bad = 0;
  for (int t = 0; t < b.opt.ntopos && !bad; t++) bad = topospec_parse(b.opt.topos[t], &specs[t], err, sizeof err) != 0;
  if (b.rank == 0 && b.opt.json_path != NULL && !bad) {
    b.json = fopen(b.opt.json_path, "w");
    if (b.json == NULL) {
      snprintf(err, sizeof err, "cannot write --json %s: %s", b.opt.json_path, strerror(errno));
      bad = 1;
    }
  }
  /* Usually every rank fails alike and rank 0 speaks for all; a file that only some ranks
   * cannot read is reported by those ranks. */
  int rank0_bad = bad;
  MPI_Bcast(&rank0_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (max_over_ranks(bad)) {
    if (b.rank == 0 && bad)
      fprintf(stderr, "nhood-bench: %s\n", err);
    else if (bad && !rank0_bad)
      fprintf(stderr, "nhood-bench: rank %d: %s\n", b.rank, err);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }

  /* The names the algo column prints: --algo's, and the create rows' ("mpi", "nhood", and for
   * stencils CART_OFFSETS_ROW). */
  b.algo_width = ALGO_WIDTH;
  for (int a = 0; a < b.opt.nalgos; a++)
    if ((int)strlen(b.opt.algos[a]) > b.algo_width) b.algo_width = (int)strlen(b.opt.algos[a]);
  for (int t = 0; t < b.opt.ntopos; t++)
    if ((specs[t].kind == TOPOSPEC_MOORE || specs[t].kind == TOPOSPEC_VONNEUMANN) &&
        (int)strlen(CART_OFFSETS_ROW) > b.algo_width)
      b.algo_width = (int)strlen(CART_OFFSETS_ROW);
  if (b.opt.calibrate != NULL && (exit_code = run_calibrate(b.opt.calibrate)) != 0) goto cleanup;
  if (b.opt.sim_reference != NULL &&
      (b.ref = bench_reference_create(b.opt.sim_reference, b.opt.iters, err, sizeof err)) == NULL) {
    if (b.rank == 0) fprintf(stderr, "nhood-bench: %s\n", err);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }
  short_library_version(b.mpi_library, sizeof b.mpi_library);
  NHOOD_Progress_mode(&b.progress);
  for (int m = 0; m < b.opt.nmodes; m++)
    if (b.opt.modes[m] == MODE_OVERLAP) b.compute_per_us = calibrate_compute();
  if (b.rank == 0)
    printf("nhood-bench: %d rank%s, %s, iters %d, warmup %d, MPI persistent collectives: %s, nhood progress: %s\n",
           b.size, cli_plural(b.size), b.mpi_library, b.opt.iters, b.opt.warmup, PERSISTENT_KIND, b.progress);
  for (int t = 0; t < b.opt.ntopos; t++) bench_topology(&b, &specs[t]);

cleanup:
  bench_reference_free(b.ref);
  for (int t = 0; specs != NULL && t < b.opt.ntopos; t++) topospec_free(&specs[t]);
  free(specs);
  if (b.json != NULL) fclose(b.json);
  free_options(&b.opt);
  MPI_Finalize();
  return exit_code;
}
