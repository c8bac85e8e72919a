/*
 * nhood-calibrate's measurements for nhood-sim's model (--sim-model): nhood's own single calls,
 * the skew of a call's start and the noise of a round (nhood_calibrate.c's opening comment and
 * docs/SIM.md say what each is for; calibrate_sim.c fits the model to them).
 */
#include "calibrate.h"
#include "cli.h"

#include <nhood.h>

#include <stdlib.h>
#include <string.h>

/* Call points (calibrate_calls.c), each call after a barrier, the points taking turns sample
 * by sample; a point's time is the median over samples of the slowest rank's, as nhood-bench
 * takes a call's. */
static void time_points(calib *c, int quick, point *pts, int npts) {
  int n = quick ? QUICK_CALL_SAMPLES : CALL_SAMPLES, warm = n / 10 + 1;
  calib_call calls[MAX_POINTS];
  for (int p = 0; p < npts; p++) calib_call_create(c, &pts[p], &calls[p]);
  size_t total = (size_t)npts * (size_t)n;
  double *t = calib_xmalloc(total * sizeof *t), *slowest = c->rank == 0 ? calib_xmalloc(total * sizeof *t) : NULL;
  for (int i = -warm; i < n; i++)
    for (int p = 0; p < npts; p++) {
      MPI_Barrier(c->comm);
      double start = MPI_Wtime();
      calib_call_run(c, &calls[p]);
      if (i >= 0) t[(size_t)p * n + i] = (MPI_Wtime() - start) * 1e6;
    }
  MPI_Reduce(t, slowest, (int)total, MPI_DOUBLE, MPI_MAX, 0, c->comm);
  for (int p = 0; c->rank == 0 && p < npts; p++) pts[p].us = cli_median(slowest + (size_t)p * n, n);
  for (int p = 0; p < npts; p++) calib_call_free(&calls[p]);
  free(t);
  free(slowest);
}

/* --sim-model's calls, the points its model is fitted to. */
void calib_time_calls(calib *c, int quick, results *res) {
  calib_call_points(c, res);
  time_points(c, quick, res->calls, res->ncalls);
}

/* The step series: direct with one ring neighbour each way, at each of step_sizes. */
void calib_time_step(calib *c, int quick, results *res) {
  point pts[STEP_POINTS];
  for (int i = 0; i < STEP_POINTS; i++) pts[i] = (point){"step", 1, step_sizes[i], 0, 0, 0, .self = 0};
  time_points(c, quick, pts, STEP_POINTS);
  for (int i = 0; i < STEP_POINTS; i++) res->step_series[i] = pts[i].us;
  if (c->rank == 0) find_step(res);
}

/* The skew series: n 1-byte rounds with one neighbour each way, each after a barrier and
 * timed alone (as nhood-bench times a call), as many as fit in about NOISE_BUDGET_S (the same
 * number on every rank). Each rank's times less its fastest are pooled at rank 0, which
 * derives the quantiles of a process's delay at a call's start (calibrate_sim.c). */
void calib_time_skew(calib *c, int quick, results *res) {
  int warm = 100, want = quick ? QUICK_NOISE_ROUNDS : NOISE_ROUNDS;
  want = want > NOISE_GATHERED / c->size ? NOISE_GATHERED / c->size : want; /* rank 0 gathers them all */
  MPI_Barrier(c->comm);
  double t0 = MPI_Wtime();
  for (int r = 0; r < warm; r++) {
    MPI_Barrier(c->comm);
    calib_ring_round(c, 1, 1);
  }
  double per_round = (MPI_Wtime() - t0) / warm, slowest;
  MPI_Allreduce(&per_round, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  int n = slowest * want > NOISE_BUDGET_S ? (int)(NOISE_BUDGET_S / slowest) : want;
  n = n < MIN_NOISE_ROUNDS ? MIN_NOISE_ROUNDS : n;
  double *t = calib_xmalloc((size_t)n * sizeof *t);
  double *all = c->rank == 0 ? calib_xmalloc((size_t)n * (size_t)c->size * sizeof *all) : NULL;
  for (int r = 0; r < n; r++) {
    MPI_Barrier(c->comm);
    double start = MPI_Wtime();
    calib_ring_round(c, 1, 1);
    t[r] = (MPI_Wtime() - start) * 1e6;
  }
  double local_median = cli_median(t, n); /* sorts t: t[0] is the fastest */
  for (int r = n - 1; r >= 0; r--) t[r] -= t[0];
  MPI_Gather(t, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, c->comm);
  MPI_Reduce(&local_median, &res->skew_round_us, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
  res->skew_rounds = n;
  if (c->rank == 0) noise_quantiles(all, n * c->size, res->skew_excess, res->skew);
  free(t);
  free(all);
}

/* The noise series: chains of NOISE_CHAIN 1-byte rounds (one neighbour each way) after a
 * barrier, each rank noting when each of its rounds ends. A round of the chain ends when its
 * last rank's does, so round r's duration is the latest end of round r less the latest end
 * of round r-1, clocks compared across ranks: only where they are one clock (one node, or
 * MPI_WTIME_IS_GLOBAL). Round 0 (the barrier's skew) is left out; the durations less the
 * fastest give a process's delay per round as the skew series does. A rank's own round
 * times would not do: a rank that ends a round late starts the next one closer to its
 * neighbour's message, so they alternate between short and long whatever the noise. Without
 * one clock, the noise is the skew's (res->noise_from_skew). */
void calib_time_noise(calib *c, int quick, results *res) {
  int *flag = NULL, found = 0, global = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag, &found);
  global = found && flag != NULL && *flag;
  int one_clock = res->nodes == 1 || global, everywhere;
  MPI_Allreduce(&one_clock, &everywhere, 1, MPI_INT, MPI_MIN, c->comm); /* the same branch on every rank */
  if (!everywhere) {
    memcpy(res->noise, res->skew, sizeof res->noise);
    memcpy(res->noise_excess, res->skew_excess, sizeof res->noise_excess);
    res->noise_from_skew = 1;
    return;
  }
  int chains = (quick ? QUICK_NOISE_ROUNDS : NOISE_ROUNDS) / NOISE_CHAIN;
  double per_chain = NOISE_CHAIN * res->skew_round_us * 1e-6;
  MPI_Bcast(&per_chain, 1, MPI_DOUBLE, 0, c->comm);
  if (per_chain * chains > NOISE_BUDGET_S) chains = (int)(NOISE_BUDGET_S / per_chain);
  chains = chains < MIN_NOISE_ROUNDS / NOISE_CHAIN ? MIN_NOISE_ROUNDS / NOISE_CHAIN : chains;
  size_t n = (size_t)chains * NOISE_CHAIN;
  double *end = calib_xmalloc(n * sizeof *end), *latest = c->rank == 0 ? calib_xmalloc(n * sizeof *latest) : NULL;
  for (int k = 0; k < chains; k++) {
    MPI_Barrier(c->comm);
    for (int r = 0; r < NOISE_CHAIN; r++) {
      calib_ring_round(c, 1, 1);
      end[(size_t)k * NOISE_CHAIN + r] = MPI_Wtime();
    }
  }
  MPI_Reduce(end, latest, (int)n, MPI_DOUBLE, MPI_MAX, 0, c->comm);
  if (c->rank == 0) {
    int m = 0;
    for (int k = 0; k < chains; k++)
      for (int r = 1; r < NOISE_CHAIN; r++) {
        size_t i = (size_t)k * NOISE_CHAIN + r;
        end[m++] = (latest[i] - latest[i - 1]) * 1e6;
      }
    qsort(end, (size_t)m, sizeof *end, cli_compare_double);
    for (int i = m - 1; i >= 0; i--) end[i] -= end[0];
    noise_quantiles(end, m, res->noise_excess, res->noise);
    res->noise_rounds = m;
  }
  free(end);
  free(latest);
}
