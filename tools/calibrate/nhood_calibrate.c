/*
 * nhood-calibrate: measures the parameters of nhood's cost model (src/common/cost_model.h) on the
 * ranks it runs on and writes the parameter file the library reads when NHOOD_PARAMS names it.
 *
 *   mpiexec -n P nhood-calibrate [--out FILE] [--iters N] [--quick] [--json FILE]
 *
 * The parameters describe the machine while a collective runs on all of its processes, so every
 * rank measures at the same time. Each sample starts after a barrier; a point's time is the
 * median of a rank's samples after warm-up, then the maximum over ranks. The round points take
 * turns sample by sample, and so do MPI's exchange and the direct one, so that a passing
 * disturbance (machines are often shared or oversubscribed) does not spoil one point.
 *
 * What is measured:
 *   rounds     chains of R rounds (R = 8; 4 with --quick) in which every rank sends one message
 *              to each of k ring neighbours (rank+1..rank+k) and receives one from each of
 *              rank-1..rank-k: MPI_Irecv, MPI_Isend, MPI_Waitall per round, as nhood's engine
 *              runs a schedule. Per-round time = the chain's time / R (a single round's time
 *              would include the skew with which ranks leave the barrier).
 *                latency   k = 1, 1 byte
 *                messages  k = 2, 4, 8, 16 (up to P-1), 1 byte; below three message counts
 *                          (P <= 3) k = 2 and 4 are added with repeated destinations
 *                bytes     k = min(4, P-1), 1, 2, 3, 4, 8, 16, 64 and 256 KiB per message
 *                handshake the message counts other than min(4, P-1) at 16 KiB, above most
 *                          eager limits: how much of a rendezvous is paid per message and
 *                          how much once per round
 *   copy       rounds of k = min(4, P-1) 1-byte messages with a memcpy
 *              of 256 KiB, 1 MiB or 4 MiB after each Waitall, against the same chain without
 *              it, interleaved: the difference is what a copy adds to a round while every
 *              rank copies too, as a collective's packing and unpacking do. The messages tie
 *              each rank to its neighbours, so a chain cannot finish before the ranks that
 *              share its core have copied as well. (On 32 ranks and 2 cores, copies in
 *              chains that only end with a barrier looked 2x faster than that, and a lone
 *              copy 9x: a rank could time its own copies while the others waited, and a
 *              combined schedule's packing looked nearly free.)
 *   mpi        MPI_Neighbor_alltoall on a distributed-graph communicator with the ring
 *              neighbours of the bytes series against the same exchange by hand (one Irecv and
 *              one Isend per neighbour, one Waitall: nhood's direct schedule), at 8 and
 *              8192 bytes per block, interleaved.
 *   setup      nhood's set-up on a new communicator (selection/cold.h): per sample, a new
 *              distributed graph of the same ring neighbours (not timed), then nhood's topology
 *              object of it and C blocking 8-byte NHOOD_Neighbor_allgather under "auto" (its
 *              private communicator, what it learns, the decision, the trial), less the next C
 *              calls, which run what was decided; C covers the longest trial.
 *
 * The fit: a round with k sends and k receives of b bytes each costs, in cost.h's model,
 *   L + o*2k + g*(k-1) + G*k*b  =  (L - g) + (2o + g)*k + G*k*b,
 * so these rounds determine L - g, 2o + g and G but cannot tell o from g: the tool sets g = 0
 * and o = (2o + g) / 2, the whole per-message slope, and says so in the file. L, 2o + g and G
 * come from one least-squares fit over all round points, on relative error (so that the
 * 256 KiB rounds do not drown the 1-byte ones), with every parameter non-negative and L at
 * least a tenth of the fastest round.
 *
 * Rendezvous: past MPI's eager limit a round costs a handshake more, a step the linear model
 * cannot follow (Open MPI's shared memory switches at 4 KiB). The fit is tried once per
 * candidate limit, the sizes of the bytes series below its largest, with two more columns,
 * (rdv * 2k + rdv_round) * [bytes > eager] (rdv per message end, rdv_round per round, as
 * cost.h counts them; the handshake series, with other k, tells the two apart); the candidate
 * with the smallest residual wins if it at least halves
 * the residual of the fit without rendezvous, and eager is then the largest size measured
 * below the step (conservative: the true limit lies between it and the next size). Otherwise
 * rdv = 0. setup is the measured set-up in the allreduces selection/cold.h prices with the
 * fitted parameters (nhood_cold_setup_allreduces). Gcopy is the least-squares time per byte of the copies;
 * mpi_factor the geometric mean, over the two sizes, of MPI's median over the direct
 * exchange's, clamped to [0.5, 2].
 *
 * Without --iters, a point gets fewer samples (no fewer than MIN_ITERS) where its warm-up says
 * that the default number would take more than its share of about 45 s: an oversubscribed
 * MPICH busy-polls and spends a scheduler time slice on every round.
 *
 * --sim-model FILE also measures nhood-sim's model (calibrate_series.c; docs/SIM.md): the time
 * of one message each way at 1 B to 2 KiB (where the MPI switches protocol, a step); nhood's
 * own direct calls of k = 1, 2, 4, 8 ring neighbours at 1 B, 1 KiB and 3 KiB, two with self
 * loops (local copies) and schedules of several rounds, each after a barrier; the skew of
 * 1-byte rounds after a barrier; the noise of the rounds of chains; calibrate_sim.c finds the
 * step and fits L, o, G (= O on one node), round, ocopy, oself, Gself, the step's cost and
 * Lbyte to the calls with the evaluator itself.
 *
 * With one rank nothing can be measured: the tool says so and writes the built-in defaults.
 * Rank 0 prints the measured points, the model's value at each and the fitted parameters,
 * writes FILE (default nhood-params.txt) and, with --json, the raw points.
 */
#include "calibrate.h"
#include "nhood_calibrate.h"
#include "cli.h"
#include "common/mpi_util.h" /* nhood_waitall: MPI_STATUSES_IGNORE without MPICH's false warning */
#include "common/cost_model.h"
#include "selection/cold.h"
#include "selection/cost.h"
#include "selection/trial.h"

#include <mpi.h>
#include <nhood.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const int message_counts[] = {1, 2, 4, 8, 16};
const int message_sizes[] = {1024, 2048, 3072, 4096, 8192, 16384, 65536, 262144};
const int copy_sizes[] = {256 << 10, 1 << 20, 4 << 20};
const int mpi_sizes[] = {MPI_SMALL, MPI_MEDIUM};
const int call_counts[] = {1, 2, 4, 8};
const int call_sizes[] = {1, 1024, 3072};
const int call_self_sizes[] = {1, 1024};
const int call_rounds[] = {2, 4};
const int step_sizes[] = {1, 8, 64, 128, 256, 512, 1024, 2048};

/* malloc that gives up loudly: failing on one rank only would leave the others waiting. */
void *calib_xmalloc(size_t size) {
  void *p = malloc(size > 0 ? size : 1);
  if (p == NULL) {
    fprintf(stderr, TOOL ": out of memory (%zu bytes)\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* MPI_UNWEIGHTED through a volatile object: Open MPI defines it as (int *)2, and GCC 12 then
 * warns that MPI_Dist_graph_create_adjacent reads weights from it (see nhood-bench). */
int *calib_unweighted(void) {
  int *volatile weights = MPI_UNWEIGHTED;
  return weights;
}

/* ------------------------------------------------------------------------------------- */
/* Timing                                                                                 */
/* ------------------------------------------------------------------------------------- */

/* This rank's median of n samples, then the maximum over ranks, in microseconds. */
static double max_median_us(const calib *c, double *samples, int n) {
  double local = cli_median(samples, n), global;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  return global * 1e6;
}

/* How many samples to take after a warm-up of c->warmup samples that took warm_s seconds on
 * this rank: c->iters, or fewer where they would exceed share * BUDGET_S (without --iters).
 * The same answer on every rank. */
static int samples_to_take(const calib *c, double warm_s, double share) {
  double per_sample;
  warm_s /= c->warmup;
  MPI_Allreduce(&warm_s, &per_sample, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (!c->adaptive || per_sample * c->iters <= share * BUDGET_S) return c->iters;
  int n = (int)(share * BUDGET_S / per_sample);
  int least = c->iters < MIN_ITERS ? c->iters : MIN_ITERS;
  return n < least ? least : n;
}

/* The j-th of k ring neighbours is at distance 1 + j mod (P-1): distinct while k < P, repeated
 * beyond (then the tag j keeps the pairs apart). */
int calib_ring_distance(const calib *c, int j) { return 1 + j % (c->size - 1); }

/* One round: k receives from rank-d_j and k sends to rank+d_j, `bytes` each, then Waitall,
 * then a local copy of c->copy bytes (none when 0). */
void calib_ring_round(calib *c, int k, int bytes) {
  static volatile unsigned char sink;
  for (int j = 0; j < k; j++) {
    int d = calib_ring_distance(c, j);
    MPI_Irecv(c->recvbuf + (size_t)j * bytes, bytes, MPI_BYTE, (c->rank - d + c->size) % c->size, j, c->comm,
              &c->requests[j]);
  }
  for (int j = 0; j < k; j++) {
    int d = calib_ring_distance(c, j);
    MPI_Isend(c->sendbuf + (size_t)j * bytes, bytes, MPI_BYTE, (c->rank + d) % c->size, j, c->comm,
              &c->requests[k + j]);
  }
  nhood_waitall(2 * k, c->requests);
  if (c->copy > 0) {
    memcpy(c->copy_dst, c->copy_src, c->copy);
    sink = c->copy_dst[(c->copy_turn++ * 4099u) % c->copy]; /* the copy is used */
  }
  (void)sink;
}

/* Per-round times (µs) of chains of c->rounds rounds, one for each of the n (k, bytes) pairs.
 * The points take turns, sample by sample, so that a disturbance of a few milliseconds (on a
 * shared or oversubscribed machine) spreads over all of them rather than spoiling one. */
static int time_rounds(calib *c, int n, const int *k, const int *bytes, double *us) {
  double *samples = calib_xmalloc((size_t)n * (size_t)c->iters * sizeof(double));
  double warm_start = MPI_Wtime();
  int iters = c->iters;
  for (int i = -c->warmup; i < iters; i++) {
    if (i == 0) iters = samples_to_take(c, MPI_Wtime() - warm_start, SHARE_ROUNDS);
    for (int p = 0; p < n; p++) {
      MPI_Barrier(c->comm);
      double t0 = MPI_Wtime();
      for (int r = 0; r < c->rounds; r++) calib_ring_round(c, k[p], bytes[p]);
      double t = MPI_Wtime() - t0;
      if (i >= 0) samples[(size_t)p * c->iters + i] = t / c->rounds;
    }
  }
  for (int p = 0; p < n; p++) us[p] = max_median_us(c, samples + (size_t)p * c->iters, iters);
  free(samples);
  return iters;
}

/* One step of an interleaved comparison: variant 0 or 1, with the arguments in *arg. */
typedef void (*pair_step)(calib *c, int variant, const void *arg);

/* Per-step times (µs) of two variants of a step, each timed in chains of c->rounds steps;
 * the two alternate which goes first, sample by sample, so that drift hits both alike.
 * share: this comparison's share of BUDGET_S. Returns the samples taken of each. */
static int time_pair(calib *c, double share, pair_step step, const void *arg, double us[2]) {
  double warm_start = MPI_Wtime();
  int iters = c->iters;
  for (int i = -c->warmup; i < iters; i++) {
    if (i == 0) iters = samples_to_take(c, MPI_Wtime() - warm_start, share);
    for (int half = 0; half < 2; half++) {
      int variant = (half == 0) == ((i & 1) == 0) ? 0 : 1;
      MPI_Barrier(c->comm);
      double t0 = MPI_Wtime();
      for (int r = 0; r < c->rounds; r++) step(c, variant, arg);
      double t = (MPI_Wtime() - t0) / c->rounds;
      if (i >= 0) (variant == 0 ? c->samples : c->samples2)[i] = t;
    }
  }
  us[0] = max_median_us(c, c->samples, iters);
  us[1] = max_median_us(c, c->samples2, iters);
  return iters;
}

typedef struct copy_step_args {
  int k, bytes;
} copy_step_args;

/* Variant 0: a round of k 1-byte messages, then a copy of `bytes`; variant 1: the round alone. */
static void copy_step(calib *c, int variant, const void *arg) {
  const copy_step_args *a = arg;
  c->copy = variant == 0 ? (size_t)a->bytes : 0;
  calib_ring_round(c, a->k, 1);
}

/* What a copy of `bytes` adds to a round of k 1-byte messages (µs) when every rank copies:
 * chains with and without the copy, interleaved; *taken: the samples. */
static double time_copy(calib *c, int k, int bytes, int *taken) {
  copy_step_args args = {.k = k, .bytes = bytes};
  double us[2];
  *taken = time_pair(c, SHARE_COPY / NELEMS(copy_sizes), copy_step, &args, us);
  c->copy = 0;
  return us[0] > us[1] ? us[0] - us[1] : 0;
}

/* A new distributed graph on c->comm of k ring neighbours: from the k ranks below, to the k
 * above (the exchange direct_exchange does by hand). */
static MPI_Comm ring_graph(calib *c, int k) {
  int sources[BYTES_PEERS], destinations[BYTES_PEERS];
  for (int j = 0; j < k; j++) {
    sources[j] = (c->rank - 1 - j + c->size) % c->size;
    destinations[j] = (c->rank + 1 + j) % c->size;
  }
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(c->comm, k, sources, calib_unweighted(), k, destinations, calib_unweighted(),
                                 MPI_INFO_NULL, 0, &graph);
  return graph;
}

/* The exchange MPI_Neighbor_alltoall does on graph (k ring neighbours), by hand. */
static void direct_exchange(calib *c, int k, int bytes) {
  for (int j = 0; j < k; j++)
    MPI_Irecv(c->recvbuf + (size_t)j * bytes, bytes, MPI_BYTE, (c->rank - 1 - j + c->size) % c->size, 0, c->comm,
              &c->requests[j]);
  for (int j = 0; j < k; j++)
    MPI_Isend(c->sendbuf + (size_t)j * bytes, bytes, MPI_BYTE, (c->rank + 1 + j) % c->size, 0, c->comm,
              &c->requests[k + j]);
  nhood_waitall(2 * k, c->requests);
}

typedef struct exchange_step_args {
  MPI_Comm graph;
  int k, bytes;
} exchange_step_args;

/* Variant 0: MPI_Neighbor_alltoall on the graph; variant 1: the same exchange by hand. */
static void exchange_step(calib *c, int variant, const void *arg) {
  const exchange_step_args *a = arg;
  if (variant == 0)
    MPI_Neighbor_alltoall(c->sendbuf, a->bytes, MPI_BYTE, c->recvbuf, a->bytes, MPI_BYTE, a->graph);
  else
    direct_exchange(c, a->k, a->bytes);
}

/* Per-call times (µs) of MPI_Neighbor_alltoall on graph and of the direct exchange, in chains
 * of c->rounds calls; the two alternate which goes first. Returns the samples taken of each. */
static int time_mpi_vs_direct(calib *c, MPI_Comm graph, int k, int bytes, double *mpi_us, double *direct_us) {
  exchange_step_args args = {.graph = graph, .k = k, .bytes = bytes};
  double us[2];
  int taken = time_pair(c, SHARE_MPI / NELEMS(mpi_sizes), exchange_step, &args, us);
  *mpi_us = us[0];
  *direct_us = us[1];
  return taken;
}

/* nhood's set-up on a new communicator of k ring neighbours (the opening comment's "setup"):
 * the slowest rank's median in µs; *calls: the calls a sample spans, *taken: the samples. */
static double time_setup(calib *c, int k, int *calls, int *taken) {
  *calls = nhood_trial_span();
  double warm_start = MPI_Wtime();
  int iters = c->iters;
  for (int i = -c->warmup; i < iters; i++) {
    if (i == 0) iters = samples_to_take(c, MPI_Wtime() - warm_start, SHARE_SETUP);
    MPI_Comm graph = ring_graph(c, k);
    NHOOD_Topo topo = NHOOD_TOPO_NULL;
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime(), t1 = 0;
    int rc = NHOOD_Topo_create_from_comm(graph, MPI_INFO_NULL, &topo);
    for (int n = 0; n < 2 * *calls && rc == MPI_SUCCESS; n++) {
      if (n == *calls) t1 = MPI_Wtime();
      rc = NHOOD_Neighbor_allgather(c->sendbuf, MPI_SMALL, MPI_BYTE, c->recvbuf, MPI_SMALL, MPI_BYTE, graph, topo);
    }
    double t2 = MPI_Wtime();
    if (rc != MPI_SUCCESS) {
      char text[NHOOD_MAX_ERROR_STRING];
      NHOOD_Error_message(text, NULL);
      fprintf(stderr, TOOL ": rank %d: nhood's set-up failed: %s\n", c->rank, text);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    NHOOD_Topo_free(&topo);
    MPI_Comm_free(&graph);
    if (i >= 0) c->samples[i] = (t1 - t0) - (t2 - t1);
  }
  *taken = iters;
  return max_median_us(c, c->samples, iters);
}

/* ------------------------------------------------------------------------------------- */
/* The measurements                                                                       */
/* ------------------------------------------------------------------------------------- */

static void add_point(results *res, const calib *c, const char *series, int k, int bytes) {
  point *pt = &res->points[res->npoints++];
  pt->series = series;
  pt->k = k;
  pt->bytes = bytes;
  pt->repeated = k > c->size - 1;
}

static void measure(calib *c, results *res) {
  int P = c->size;
  /* The points: message counts 1, 2, 4, ... up to P-1 (and P-1 itself), at least three. */
  int counts[NELEMS(message_counts) + 3], ncounts = 0;
  for (int i = 0; i < NELEMS(message_counts) && message_counts[i] <= P - 1; i++) counts[ncounts++] = message_counts[i];
  if (P - 1 < message_counts[NELEMS(message_counts) - 1] && counts[ncounts - 1] != P - 1) counts[ncounts++] = P - 1;
  if (ncounts < 3) { /* P <= 3: repeat destinations */
    ncounts = 0;
    counts[ncounts++] = 1;
    counts[ncounts++] = 2;
    counts[ncounts++] = 4;
    counts[ncounts++] = 8;
  }
  for (int i = 0; i < ncounts; i++) add_point(res, c, i == 0 ? "latency" : "messages", counts[i], 1);
  int kb = P - 1 < BYTES_PEERS ? P - 1 : BYTES_PEERS;
  res->bytes_peers = kb;
  for (int i = 0; i < NELEMS(message_sizes); i++) add_point(res, c, "bytes", kb, message_sizes[i]);
  for (int i = 0; i < ncounts; i++)
    if (counts[i] != kb) add_point(res, c, "handshake", counts[i], HANDSHAKE_BYTES);

  size_t need = 0;
  for (int i = 0; i < res->npoints; i++) {
    size_t n = (size_t)res->points[i].k * (size_t)res->points[i].bytes;
    need = n > need ? n : need;
  }
  size_t mpi_need = (size_t)BYTES_PEERS * MPI_MEDIUM;
  need = need > mpi_need ? need : mpi_need;
  int maxk = counts[ncounts - 1] > BYTES_PEERS ? counts[ncounts - 1] : BYTES_PEERS;
  maxk = maxk > call_counts[NELEMS(call_counts) - 1] ? maxk : call_counts[NELEMS(call_counts) - 1]; /* time_calls */
  c->buflen = need;
  c->sendbuf = calib_xmalloc(need);
  c->recvbuf = calib_xmalloc(need);
  memset(c->sendbuf, c->rank & 0xff, need);
  memset(c->recvbuf, 0, need);
  c->requests = calib_xmalloc(2 * (size_t)maxk * sizeof(MPI_Request));

  if (c->rank == 0) {
    printf(TOOL ": measuring rounds (%d points)...\n", res->npoints);
    fflush(stdout);
  }
  int ks[MAX_POINTS], sizes[MAX_POINTS];
  double us[MAX_POINTS];
  for (int i = 0; i < res->npoints; i++) {
    ks[i] = res->points[i].k;
    sizes[i] = res->points[i].bytes;
  }
  res->iters_rounds = time_rounds(c, res->npoints, ks, sizes, us);
  for (int i = 0; i < res->npoints; i++) res->points[i].us = us[i];

  /* Local copies. */
  if (c->rank == 0) {
    printf(TOOL ": measuring copies and MPI_Neighbor_alltoall...\n");
    fflush(stdout);
  }
  c->copy_src = calib_xmalloc(COPY_MAX);
  c->copy_dst = calib_xmalloc(COPY_MAX);
  memset(c->copy_src, 0x5a, COPY_MAX);
  memset(c->copy_dst, 0, COPY_MAX);
  res->iters_copy = c->iters;
  for (int i = 0; i < NELEMS(copy_sizes); i++) {
    int taken;
    res->copy_us[i] = time_copy(c, kb, copy_sizes[i], &taken);
    res->iters_copy = taken < res->iters_copy ? taken : res->iters_copy;
  }
  free(c->copy_src);
  free(c->copy_dst);

  /* MPI's neighborhood alltoall against the direct exchange. */
  res->mpi_peers = kb;
  MPI_Comm graph = ring_graph(c, kb);
  res->iters_mpi = c->iters;
  for (int i = 0; i < NELEMS(mpi_sizes); i++) {
    int taken = time_mpi_vs_direct(c, graph, kb, mpi_sizes[i], &res->mpi_us[i], &res->direct_us[i]);
    res->iters_mpi = taken < res->iters_mpi ? taken : res->iters_mpi;
  }
  MPI_Comm_free(&graph);

  if (c->rank == 0) {
    printf(TOOL ": measuring nhood's set-up on new communicators...\n");
    fflush(stdout);
  }
  res->setup_us = time_setup(c, kb, &res->setup_calls, &res->iters_setup);
  if (c->sim) {
    if (c->rank == 0) {
      printf(TOOL ": measuring nhood's single calls, the skew and the noise of rounds for nhood-sim's model...\n");
      fflush(stdout);
    }
    calib_time_step(c, c->rounds == QUICK_ROUNDS, res);
    calib_time_calls(c, c->rounds == QUICK_ROUNDS, res);
    calib_time_skew(c, c->rounds == QUICK_ROUNDS, res);
    calib_time_noise(c, c->rounds == QUICK_ROUNDS, res);
  }

  /* The fit. */
  nhood_cost_params *p = &res->params;
  nhood_cost_params_default(p);
  res->max_error = fit_rounds(res->points, res->npoints, p);
  /* The margin of "auto": what the model got wrong here, within reason. */
  p->margin = fmin(0.5, fmax(0.1, res->max_error));
  /* What runs here is the on-node set; the network and the nodes' interfaces are not here to
   * measure (the header says so). */
  p->node_L = p->L;
  p->node_o = p->o;
  p->node_g = p->g;
  p->node_G = p->G;
  p->nic_o = p->nic_G = 0;
  /* Gcopy through the origin, least squares on relative error: sum(x/t) / sum(x^2/t^2). */
  double num = 0, den = 0;
  for (int i = 0; i < NELEMS(copy_sizes); i++)
    if (res->copy_us[i] > 0) {
      num += copy_sizes[i] / res->copy_us[i];
      den += (double)copy_sizes[i] * copy_sizes[i] / (res->copy_us[i] * res->copy_us[i]);
    }
  if (den > 0) p->Gcopy = num / den;
  double log_sum = 0;
  int nratios = 0;
  for (int i = 0; i < NELEMS(mpi_sizes); i++)
    if (res->mpi_us[i] > 0 && res->direct_us[i] > 0) {
      log_sum += log(res->mpi_us[i] / res->direct_us[i]);
      nratios++;
    }
  res->raw_factor = nratios > 0 ? exp(log_sum / nratios) : 1.0;
  p->mpi_factor = fmin(FACTOR_MAX, fmax(FACTOR_MIN, res->raw_factor));
  p->setup = nhood_cold_setup_allreduces(p, P, kb, kb, res->setup_us);

  free(c->sendbuf);
  free(c->recvbuf);
  free(c->requests);
}

/* ------------------------------------------------------------------------------------- */

int nhood_calibrate_run(int argc, char **argv) {
  options opt;
  results res;
  memset(&res, 0, sizeof res);
  char err[512] = "";
  int rank, size, exit_code = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (calibrate_parse_options(argc, argv, &opt, err, sizeof err) != 0) {
    if (rank == 0) fprintf(stderr, TOOL ": %s\n", err);
    exit_code = EXIT_USAGE;
    goto done;
  }
  if (opt.help) {
    if (rank == 0) calibrate_print_usage(stdout);
    goto done;
  }
  /* The output files before the measurements, so that a typo does not surface after them. */
  int bad = 0;
  if (opt.save) {
    MPI_Comm node;
    int node_size = 0, one_node = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    MPI_Allreduce(&(int){node_size == size}, &one_node, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!one_node) {
      bad = 1;
      snprintf(err, sizeof err, "--save describes processes on one node; these span several (use --out)");
    } else if (nhood_cost_cache_path(size, opt.save_path, sizeof opt.save_path) != 0) {
      bad = 1;
      snprintf(err, sizeof err, "--save: no directory for the file (NHOOD_CACHE_DIR is off, no HOME)");
    } else if (rank == 0 && make_parents(opt.save_path, err, sizeof err) != 0) {
      bad = 1;
    }
    opt.out_path = opt.save_path;
    if (bad && rank == 0) fprintf(stderr, TOOL ": %s\n", err);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad) {
      exit_code = EXIT_USAGE;
      goto done;
    }
  }
  if (rank == 0) {
    bad = check_writable("--out", opt.out_path, err, sizeof err) != 0;
    if (!bad && opt.json_path != NULL) bad = check_writable("--json", opt.json_path, err, sizeof err) != 0;
    if (!bad && opt.sim_model_path != NULL)
      bad = check_writable("--sim-model", opt.sim_model_path, err, sizeof err) != 0;
    if (bad) fprintf(stderr, TOOL ": %s\n", err);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) {
    exit_code = EXIT_USAGE;
    goto done;
  }

  res.nranks = size;
  library_version(res.library, sizeof res.library);
  now_string(res.date, sizeof res.date);
  placement(&res);
  if (size == 1) {
    if (rank == 0)
      printf(TOOL
             ": one rank, nothing to measure (run it with the ranks of the jobs it should "
             "describe); writing the built-in defaults\n");
    nhood_cost_params_default(&res.params);
  } else {
    calib c = {.rank = rank, .size = size, .sim = opt.sim_model_path != NULL};
    MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
    c.iters = opt.iters > 0 ? opt.iters : opt.quick ? QUICK_ITERS : DEFAULT_ITERS;
    c.warmup = opt.quick ? 1 : c.iters / 10 > 2 ? c.iters / 10 : 2;
    c.rounds = opt.quick ? QUICK_ROUNDS : DEFAULT_ROUNDS;
    c.adaptive = opt.iters == 0;
    res.iters = c.iters;
    res.warmup = c.warmup;
    res.rounds = c.rounds;
    if (rank == 0) {
      printf(TOOL ": %d ranks on %d node%s (at most %d on one, %d core%s there), %s\n", size, res.nodes,
             cli_plural(res.nodes), res.ranks_per_node, res.cores, cli_plural(res.cores), res.library);
      printf(TOOL ": %d sample%s per point after %d warm-up, chains of %d rounds\n", c.iters, cli_plural(c.iters),
             c.warmup, c.rounds);
      if (oversubscribed(&res))
        printf(TOOL
               ": note: %d ranks share %d core%s: the machine is oversubscribed, and the parameters will "
               "describe that\n",
               res.ranks_per_node, res.cores, cli_plural(res.cores));
      fflush(stdout);
    }
    c.samples = calib_xmalloc((size_t)c.iters * sizeof(double));
    c.samples2 = calib_xmalloc((size_t)c.iters * sizeof(double));
    double t0 = MPI_Wtime();
    measure(&c, &res);
    double elapsed = MPI_Wtime() - t0;
    free(c.samples);
    free(c.samples2);
    MPI_Comm_free(&c.comm);
    if (rank == 0 && opt.sim_model_path != NULL && fit_sim_model(&res) != 0)
      fprintf(stderr, TOOL ": no round point to fit nhood-sim's model to; --sim-model not written\n");
    if (rank == 0) {
      print_results(&res);
      printf(TOOL ": measured in %.2f s\n", elapsed);
    }
  }
  if (write_outputs(&res, &opt, rank) != 0) exit_code = 1;

done:
  return exit_code;
}
