/*
 * nhood-sim's model measured where nhood-calibrate runs (calibrate.h): the quantiles of the
 * skew and noise series (calibrate_series.c), and the LogGP evaluator (tools/sim/loggp.h)
 * fitted to the single calls measured there.
 *
 * Quantiles. In a 1-byte round with one neighbour each way, a round ends when both processes'
 * work and messages are done, so its time over the fastest round is the larger of two
 * processes' delays: with both drawn from one distribution F, the excess is distributed as
 * F^2. A process's delay at probability p is therefore the excess's quantile at p^2 (exact
 * for 2 processes, where each waits for the other alone).
 *
 * The evaluator. Each call point (nhood's direct with k neighbours of b bytes each way and
 * `self` local copies, one round after a barrier, as nhood-bench times a call) is a schedule
 * the evaluator runs on P virtual ranks as the ranks ran it; its prediction with the measured
 * skew (the median over SIM_SEEDS draws) is fitted to the measured median by least squares on
 * relative error, over L, o, G (= O on one node), round and ocopy (g = 0: these rounds do not
 * tell o from g, as for the cost model). The evaluator overlaps L with the sender's o but not
 * the round cost, so rounds of one and of many messages tell the two apart. All sizes are
 * below the eager limits of the MPIs nhood knows (the evaluator has no rendezvous).
 * Nelder-Mead on the logarithms of the NFIT parameters, from the cost model's values.
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

/* One call point on P ranks, as direct runs it (time_calls): k receives and k sends of `bytes`
 * with ring neighbours, and `self` local copies. 0, or 1 out of memory. */
static int build_call(int P, int k, int self, int bytes, nhood_sched *s) {
  for (int r = 0; r < P; r++) {
    if (nhood_sched_init(&s[r], "calibrate", 2 * (k + self), k) != 0) return 1;
    for (int j = 0; j < self; j++)
      nhood_sched_copy(&s[r], (nhood_region){0, MPI_BYTE, bytes, NHOOD_BUF_SEND, 0},
                       (nhood_region){0, MPI_BYTE, bytes, NHOOD_BUF_RECV, 0});
    for (int j = 0; j < k; j++) {
      int d = 1 + j % (P - 1);
      nhood_sched_recv(&s[r], (r - d + P) % P, j, (nhood_region){0, MPI_BYTE, bytes, NHOOD_BUF_RECV, 0});
    }
    for (int j = 0; j < k; j++) {
      int d = 1 + j % (P - 1);
      nhood_sched_send(&s[r], (r + d) % P, j, (nhood_region){0, MPI_BYTE, bytes, NHOOD_BUF_SEND, 0});
    }
    if (nhood_sched_finish(&s[r]) != 0) return 1;
  }
  return 0;
}

#define NFIT 5 /* the fitted parameters: L, o, G (= O on one node), round, ocopy */

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

int fit_sim_model(results *res) {
  const nhood_cost_params *p = &res->params;
  fit_data f = {.res = res, .P = res->nranks, .copies = res->nodes == 1};
  int rc = 1;
  if (res->ncalls == 0) return 1;
  f.calls = calloc((size_t)res->ncalls, sizeof *f.calls);
  if (f.calls == NULL) goto done;
  for (int i = 0; i < res->ncalls; i++) {
    f.calls[i] = calloc((size_t)f.P, sizeof *f.calls[i]);
    if (f.calls[i] == NULL ||
        build_call(f.P, res->calls[i].k, res->calls[i].self, res->calls[i].bytes, f.calls[i]) != 0)
      goto done;
  }
  f.model = (loggp_params){.Gcopy = p->Gcopy};
  memcpy(f.model.noise, res->noise, sizeof f.model.noise);
  memcpy(f.model.skew, res->skew, sizeof f.model.skew);
  /* From the cost model: its L split evenly between latency and round cost; a copy's own cost
   * a tenth of o. */
  double start[NFIT] = {fmax(p->L / 2, 1e-3), fmax(p->o, 1e-3), fmax(p->G, 1e-7), fmax(p->L / 2, 1e-3),
                        fmax(p->o / 10, 1e-3)},
         y[NFIT];
  nelder_mead(&f, start, 500, y);
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
  fprintf(out, "loggp:L=%.6g,o=%.6g,g=0,G=%.6g,O=%.6g,Gcopy=%.6g,ocopy=%.6g,round=%.6g", m->L, m->o, m->G, m->O,
          m->Gcopy, m->ocopy, m->round);
  const char *name[2] = {"noise", "skew"};
  const double *q[2] = {m->noise, m->skew};
  for (int s = 0; s < 2; s++) {
    fprintf(out, ",%s=", name[s]);
    for (int i = 0; i < LOGGP_NOISE_POINTS; i++) fprintf(out, "%s%.4g", i ? "/" : "", q[s][i]);
  }
  fprintf(out, "\n");
  int failed = ferror(out) != 0;
  failed |= fclose(out) != 0;
  return failed;
}
