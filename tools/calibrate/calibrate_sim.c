/*
 * nhood-sim's model measured where nhood-calibrate runs (calibrate.h): the quantiles of the
 * skew and noise series (calibrate_series.c), and the LogGP evaluator (tools/sim/loggp.h)
 * fitted to the single calls measured there.
 *
 * Quantiles. In a 1-byte round with one neighbour each way, a round ends when both processes'
 * work and messages are done, so its time over the fastest round is the larger of two
 * processes' delays: with both drawn from one distribution F, the excess is distributed as
 * F^2. A process's delay at probability p is therefore the excess's quantile at p^2 (exact
 * for 2 processes, where each waits for the other alone). The excess is over the fastest
 * round, an extreme of the sample, so where a typical round's own costs end and its delay
 * begins is not measured: the fit places it (noise0, subtracted from every delay drawn).
 * Without it every round paid about the median delay beside its costs, and the fit made up
 * for it with a smaller o: batches of many small messages came out 10-17% low and chains of
 * rounds 10-17% high. (Taking the excess over the median round instead lost the typical
 * rounds' own spread from the band: 113 of 276 medians in band against 177.)
 *
 * The evaluator. Each call point (calibrate_calls.c: nhood's direct, schedules of several
 * rounds, rounds of messages to oneself; each after a barrier, as nhood-bench times a call) is
 * a schedule the evaluator runs on P virtual ranks as the ranks ran it; its prediction with
 * the measured skew and noise (the median over SIM_SEEDS draws) is fitted to the measured
 * median by least squares on relative error, over L, o, G (= O on one node), round, ocopy,
 * oself, Gself, ostep, Lbyte and noise0 (g = 0: these rounds do not tell o from g, as for the
 * cost model). The evaluator overlaps L with the sender's o but not the round cost, so rounds of
 * one and of many messages, and rounds that wait for a neighbour and rounds that do not, tell
 * them apart; Lbyte delays a lone message and hardly a batch, which tells it from G. The
 * step's place comes from the step series (find_step); its cost, ostep at each end, is fitted
 * with the rest, from the calls of 1 byte and of 1 and 3 KiB.
 * All sizes are below the eager limits of the MPIs nhood knows (the evaluator has no
 * rendezvous). Nelder-Mead on the logarithms of the NFIT parameters, from a start (the cost
 * model's values, or a model's).
 */
#include "calibrate.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/schedule.h"

void noise_quantiles(double *excess, int n, double quantiles[LOGGP_NOISE_POINTS], double delay[LOGGP_NOISE_POINTS]) {
  qsort(excess, (size_t)n, sizeof *excess, cli_compare_double);
  for (int i = 0; i < LOGGP_NOISE_POINTS; i++) {
    double p = loggp_noise_p[i];
    quantiles[i] = cli_sorted_quantile(excess, n, p);
    delay[i] = cli_sorted_quantile(excess, n, p * p);
    /* a picosecond: what is left of equal times subtracted in microseconds */
    quantiles[i] = quantiles[i] < 1e-6 ? 0 : quantiles[i];
    delay[i] = delay[i] < 1e-6 ? 0 : delay[i];
  }
}

/* Least squares of t = a + b s + c [s > split] over the series; returns the sum of squared
 * residuals, *step = c. split < 0: no step (c = 0). */
static double step_fit(const double *t, int split, double *step) {
  double m[3][4] = {{0}}; /* the normal equations, augmented */
  int nvar = split < 0 ? 2 : 3;
  for (int i = 0; i < STEP_POINTS; i++) {
    double x[3] = {1, step_sizes[i], step_sizes[i] > split ? 1 : 0};
    for (int r = 0; r < nvar; r++) {
      for (int k = 0; k < nvar; k++) m[r][k] += x[r] * x[k];
      m[r][3] += x[r] * t[i];
    }
  }
  for (int col = 0; col < nvar; col++) /* Gauss-Jordan; the matrix is positive definite */
    for (int r = 0; r < nvar; r++) {
      if (r == col) continue;
      double f = m[r][col] / m[col][col];
      for (int k = col; k < 4; k++) m[r][k] -= f * m[col][k];
    }
  double coef[3] = {0};
  for (int r = 0; r < nvar; r++) coef[r] = m[r][3] / m[r][r];
  double sum = 0;
  for (int i = 0; i < STEP_POINTS; i++) {
    double e = coef[0] + coef[1] * step_sizes[i] + coef[2] * (step_sizes[i] > split ? 1 : 0) - t[i];
    sum += e * e;
  }
  *step = coef[2];
  return sum;
}

/* The split with two sizes or more on each side that fits best; taken where its step is up
 * (by 2% of the 1-byte call or more: below that, rounding) and significant: an F-test at 95%
 * of the line with the step against the line alone (one parameter more, 8 - 3 = 5 degrees of
 * freedom left: F(1, 5) = 6.61, so the squares must shrink by 2.32x or more). Open MPI 4.1
 * here: 0.35-0.55 us between 256 and 512 bytes. */
void find_step(results *res) {
  double best = INFINITY, c = 0, step;
  double none = step_fit(res->step_series, -1, &step);
  res->step_bytes = res->step_us = 0;
  for (int j = 1; j + 2 < STEP_POINTS; j++) {
    double sum = step_fit(res->step_series, step_sizes[j], &step);
    if (sum < best) best = sum, c = step, res->step_bytes = step_sizes[j];
  }
  if (c > 0.02 * res->step_series[0] && (none - best) / (best / (STEP_POINTS - 3)) >= 6.61)
    res->step_us = c;
  else
    res->step_bytes = 0;
}

/* A call point's schedules on P ranks (calibrate_calls.c). 0, or 1 out of memory. */
static int build_call(int P, const point *pt, nhood_sched *s) {
  for (int r = 0; r < P; r++)
    if (calib_call_schedule(P, r, pt, &s[r]) != 0) return 1;
  return 0;
}

#define NFIT 10 /* fitted: L, o, G (= O on one node), round, ocopy, oself, Gself, ostep, Lbyte, noise0 */
#define FIT_RESTARTS 4
#define FIT_BUDGET 600 /* evaluations of the objective per start */

typedef struct fit_data {
  results *res;
  int P;
  nhood_sched **calls; /* per call point, its P schedules */
  loggp_params model;
  int copies; /* one node: the sender's CPU copies the bytes in at the rate the receiver's copies them out */
} fit_data;

/* The evaluator's time of call point i, the median over the noise's draws. */
static double predict_call(fit_data *f, int i, const loggp_params *m) {
  double t[SIM_SEEDS];
  int runs = loggp_has_noise(m) ? SIM_SEEDS : 1;
  for (int s = 0; s < runs; s++) {
    loggp_params with_seed = *m;
    with_seed.seed = runs > 1 ? (unsigned)s + 1 : 0;
    loggp_prediction out;
    char err[256];
    if (loggp_predict(f->P, f->calls[i], &with_seed, &out, err, sizeof err) != 0) return INFINITY;
    t[s] = out.time_us;
  }
  return cli_median(t, runs);
}

static void params_of(const fit_data *f, const double y[NFIT], const double start[NFIT], loggp_params *m) {
  *m = f->model;
  m->L = start[0] * exp(y[0]);
  m->o = start[1] * exp(y[1]);
  m->G = start[2] * exp(y[2]);
  m->O = f->copies ? m->G : 0;
  m->round = start[3] * exp(y[3]);
  m->ocopy = start[4] * exp(y[4]);
  m->oself = start[5] * exp(y[5]);
  m->Gself = start[6] * exp(y[6]);
  m->ostep = m->step > 0 ? start[7] * exp(y[7]) : 0; /* no step found: none fitted */
  m->Lbyte = start[8] * exp(y[8]);
  m->noise0 = start[9] * exp(y[9]);
}

/* Sum of squared relative errors over the fitted points. */
static double objective(fit_data *f, const double y[NFIT], const double start[NFIT]) {
  loggp_params m;
  params_of(f, y, start, &m);
  double sum = 0;
  for (int i = 0; i < f->res->ncalls; i++) {
    double e = predict_call(f, i, &m) / f->res->calls[i].us - 1;
    sum += e * e;
  }
  return sum;
}

/* Nelder-Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2) from y = 0 with steps
 * of 1 (a factor e), at most `budget` evaluations; y[] gets the best point. */
static void nelder_mead(fit_data *f, const double start[NFIT], int budget, double y[NFIT]) {
  enum { N = NFIT };
  double x[N + 1][N], v[N + 1];
  for (int i = 0; i <= N; i++) {
    for (int j = 0; j < N; j++) x[i][j] = i == j + 1 ? 1.0 : 0.0;
    v[i] = objective(f, x[i], start);
  }
  for (int evals = N + 1; evals < budget;) {
    for (int i = 1; i <= N; i++) /* sort by value */
      for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
        double tv = v[j], tx[N];
        memcpy(tx, x[j], sizeof tx);
        v[j] = v[j - 1], v[j - 1] = tv;
        memcpy(x[j], x[j - 1], sizeof tx);
        memcpy(x[j - 1], tx, sizeof tx);
      }
    if (v[N] - v[0] < 1e-9 * (v[0] + 1e-12)) break;
    double c[N] = {0}, r[N], e[N];
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) c[j] += x[i][j] / N;
    for (int j = 0; j < N; j++) r[j] = c[j] + (c[j] - x[N][j]);
    double vr = objective(f, r, start);
    evals++;
    if (vr < v[0]) {
      for (int j = 0; j < N; j++) e[j] = c[j] + 2 * (c[j] - x[N][j]);
      double ve = objective(f, e, start);
      evals++;
      memcpy(x[N], ve < vr ? e : r, sizeof r);
      v[N] = ve < vr ? ve : vr;
    } else if (vr < v[N - 1]) {
      memcpy(x[N], r, sizeof r);
      v[N] = vr;
    } else {
      for (int j = 0; j < N; j++) e[j] = c[j] + 0.5 * (x[N][j] - c[j]);
      double vc = objective(f, e, start);
      evals++;
      if (vc < v[N]) {
        memcpy(x[N], e, sizeof e);
        v[N] = vc;
      } else {
        for (int i = 1; i <= N; i++) {
          for (int j = 0; j < N; j++) x[i][j] = x[0][j] + 0.5 * (x[i][j] - x[0][j]);
          v[i] = objective(f, x[i], start);
          evals++;
        }
      }
    }
  }
  int best = 0;
  for (int i = 1; i <= N; i++) best = v[i] < v[best] ? i : best;
  memcpy(y, x[best], sizeof x[best]);
}

int fit_sim_calls(results *res, const loggp_params *base, int copies, int quick) {
  fit_data f = {.res = res, .P = res->nranks, .copies = copies, .model = *base};
  int rc = 1;
  if (res->ncalls == 0) return 1;
  f.calls = calloc((size_t)res->ncalls, sizeof *f.calls);
  if (f.calls == NULL) goto done;
  for (int i = 0; i < res->ncalls; i++) {
    f.calls[i] = calloc((size_t)f.P, sizeof *f.calls[i]);
    if (f.calls[i] == NULL || build_call(f.P, &res->calls[i], f.calls[i]) != 0) goto done;
  }
  /* Nelder-Mead works on logarithms: a start at 0 (a fit that found no latency) would stay. */
  double start[NFIT] = {fmax(base->L, 1e-3),     fmax(base->o, 1e-3),     fmax(base->G, 1e-7),
                        fmax(base->round, 1e-3), fmax(base->ocopy, 1e-3), fmax(base->oself, 1e-3),
                        fmax(base->Gself, 1e-7), fmax(base->ostep, 1e-3), fmax(base->Lbyte, 1e-7),
                        fmax(base->noise0, 1e-3)},
         y[NFIT];
  /* Restarted from its best point with a fresh simplex of steps of a factor e: a simplex that
   * has shrunk around a poor point (one of five calibrations here fitted oself and Gself to
   * nothing, 33% off) gets out; the best point stays a vertex, so no restart loses ground.
   * Quick: one start (under AddressSanitizer a start takes about 14 s here). */
  for (int restart = 0; restart < (quick ? 1 : FIT_RESTARTS); restart++) {
    nelder_mead(&f, start, FIT_BUDGET, y);
    for (int j = 0; j < NFIT; j++) start[j] *= exp(y[j]);
  }
  for (int j = 0; j < NFIT; j++) y[j] = 0;
  params_of(&f, y, start, &res->sim);
  res->sim.node_L = res->sim.L, res->sim.node_o = res->sim.o, res->sim.node_G = res->sim.G,
  res->sim.node_O = res->sim.O;
  res->sim_error = 0;
  for (int i = 0; i < res->ncalls; i++) {
    point *pt = &res->calls[i];
    pt->model_us = predict_call(&f, i, &res->sim);
    res->sim_error = fmax(res->sim_error, fabs(pt->model_us / pt->us - 1));
  }
  res->sim_points = res->ncalls;
  res->sim_fitted = 1;
  rc = 0;
done:
  for (int i = 0; f.calls != NULL && i < res->ncalls; i++) {
    for (int r = 0; f.calls[i] != NULL && r < f.P; r++) nhood_sched_free(&f.calls[i][r]);
    free(f.calls[i]);
  }
  free(f.calls);
  return rc;
}

int fit_sim_model(results *res) {
  const nhood_cost_params *p = &res->params;
  /* The start: the cost model's L split evenly between latency and round cost; a copy's own
   * cost a tenth of o. */
  loggp_params base = {.Gcopy = p->Gcopy,
                       .L = p->L / 2,
                       .o = p->o,
                       .G = p->G,
                       .round = p->L / 2,
                       .ocopy = p->o / 10,
                       .oself = p->o,
                       .Gself = p->Gcopy,
                       .Lbyte = p->G / 4,
                       .noise0 = res->noise[5] / 4, /* a quarter of the median delay */
                       .step = res->step_bytes,
                       .ostep = res->step_us / 2};
  memcpy(base.noise, res->noise, sizeof base.noise);
  memcpy(base.skew, res->skew, sizeof base.skew);
  return fit_sim_calls(res, &base, res->nodes == 1, res->rounds == QUICK_ROUNDS);
}

void write_sim_model_line(FILE *out, const loggp_params *m) {
  fprintf(out,
          "loggp:L=%.6g,o=%.6g,g=0,G=%.6g,O=%.6g,Gcopy=%.6g,ocopy=%.6g,round=%.6g,oself=%.6g,Gself=%.6g,step=%g,"
          "ostep=%.6g,Lbyte=%.6g,noise0=%.6g",
          m->L, m->o, m->G, m->O, m->Gcopy, m->ocopy, m->round, m->oself, m->Gself, m->step, m->ostep, m->Lbyte,
          m->noise0);
  const char *name[2] = {"noise", "skew"};
  const double *q[2] = {m->noise, m->skew};
  for (int s = 0; s < 2; s++) {
    fprintf(out, ",%s=", name[s]);
    for (int i = 0; i < LOGGP_NOISE_POINTS; i++) fprintf(out, "%s%.4g", i ? "/" : "", q[s][i]);
  }
  fprintf(out, "\n");
}

int write_sim_model(const results *res, const char *path) {
  FILE *out = fopen(path, "w");
  if (out == NULL) return 1;
  const loggp_params *m = &res->sim;
  fprintf(out,
          "# nhood-sim's model (nhood-sim --model @%s), fitted by nhood-calibrate on %d ranks (%d on one node, "
          "%d cores there), %s, %s:\n# %d calls within %.0f%%; skew from %d rounds of %.3g us, noise from %s\n",
          path, res->nranks, res->ranks_per_node, res->cores, res->library, res->date, res->sim_points,
          100 * res->sim_error, res->skew_rounds, res->skew_round_us,
          res->noise_from_skew ? "the skew (no common clock)" : "rounds of chains");
  write_sim_model_line(out, m);
  int failed = ferror(out) != 0;
  failed |= fclose(out) != 0;
  return failed;
}
