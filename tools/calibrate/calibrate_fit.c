/* nhood-calibrate's fit of the cost model to the measured rounds (calibrate.h). */
#include "calibrate.h"

#include <math.h>
#include <string.h>

/* Solves the n x n system a x = b (row-major, n <= MAX_UNKNOWNS) by elimination with partial
 * pivoting; 0, or 1 when it is singular. */
static int solve(int n, double a[MAX_UNKNOWNS][MAX_UNKNOWNS], double b[MAX_UNKNOWNS], double x[MAX_UNKNOWNS]) {
  for (int col = 0; col < n; col++) {
    int pivot = col;
    for (int r = col + 1; r < n; r++)
      if (fabs(a[r][col]) > fabs(a[pivot][col])) pivot = r;
    if (fabs(a[pivot][col]) < 1e-12) return 1;
    for (int j = 0; j < n; j++) {
      double t = a[col][j];
      a[col][j] = a[pivot][j];
      a[pivot][j] = t;
    }
    double t = b[col];
    b[col] = b[pivot];
    b[pivot] = t;
    for (int r = col + 1; r < n; r++) {
      double f = a[r][col] / a[col][col];
      for (int j = col; j < n; j++) a[r][j] -= f * a[col][j];
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int j = r + 1; j < n; j++) s -= a[r][j] * x[j];
    x[r] = s / a[r][r];
  }
  return 0;
}

/* Non-negative least squares with m <= MAX_UNKNOWNS unknowns: minimizes sum_i (w_i (x_i . beta - y_i))^2
 * over beta >= 0, x row-major n x m. The solution is the unconstrained least-squares solution
 * on its support, so trying every support and keeping the best feasible one is exact. Returns
 * the weighted residual sum of squares. */
static double nnls(int n, int m, const double *x, const double *y, const double *w, double *beta) {
  double best = 0;
  for (int i = 0; i < n; i++) best += w[i] * w[i] * y[i] * y[i];
  for (int j = 0; j < m; j++) beta[j] = 0;
  for (unsigned mask = 1; mask < (1u << m); mask++) {
    int cols[MAX_UNKNOWNS], f = 0;
    for (int j = 0; j < m; j++)
      if (mask & (1u << j)) cols[f++] = j;
    /* Normal equations on the free columns, scaled to a unit diagonal (the columns differ by
     * six orders of magnitude). */
    double a[MAX_UNKNOWNS][MAX_UNKNOWNS] = {{0}}, b[MAX_UNKNOWNS] = {0}, z[MAX_UNKNOWNS], scale[MAX_UNKNOWNS];
    for (int i = 0; i < n; i++)
      for (int p = 0; p < f; p++) {
        for (int q = 0; q < f; q++) a[p][q] += w[i] * w[i] * x[i * m + cols[p]] * x[i * m + cols[q]];
        b[p] += w[i] * w[i] * x[i * m + cols[p]] * y[i];
      }
    int degenerate = 0;
    for (int p = 0; p < f; p++) {
      scale[p] = sqrt(a[p][p]);
      degenerate |= !(scale[p] > 0);
    }
    if (degenerate) continue;
    for (int p = 0; p < f; p++) {
      for (int q = 0; q < f; q++) a[p][q] /= scale[p] * scale[q];
      b[p] /= scale[p];
    }
    if (solve(f, a, b, z) != 0) continue;
    double candidate[MAX_UNKNOWNS] = {0};
    int feasible = 1;
    for (int p = 0; p < f; p++) {
      candidate[cols[p]] = z[p] / scale[p];
      feasible &= candidate[cols[p]] >= 0 && isfinite(candidate[cols[p]]);
    }
    if (!feasible) continue;
    double rss = 0;
    for (int i = 0; i < n; i++) {
      double r = -y[i];
      for (int j = 0; j < m; j++) r += x[i * m + j] * candidate[j];
      rss += w[i] * w[i] * r * r;
    }
    if (rss < best) {
      best = rss;
      memcpy(beta, candidate, (size_t)m * sizeof(double));
    }
  }
  return best;
}

/* One least-squares fit of the round points with rendezvous above `eager` (eager < 0: none);
 * beta = (L - floor, 2o + g, G, rdv, rdv_round). Returns the weighted residual. */
static double fit_with_limit(const point *pts, int n, double floor_L, double eager, double beta[MAX_UNKNOWNS]) {
  double x[MAX_POINTS * MAX_UNKNOWNS], y[MAX_POINTS], w[MAX_POINTS];
  int m = eager < 0 ? 3 : 5;
  for (int i = 0; i < n; i++) {
    x[m * i] = 1;
    x[m * i + 1] = pts[i].k;
    x[m * i + 2] = (double)pts[i].k * pts[i].bytes;
    if (m == 5) {
      x[m * i + 3] = 2.0 * pts[i].k * (pts[i].bytes > eager);
      x[m * i + 4] = pts[i].bytes > eager;
    }
    y[i] = pts[i].us - floor_L;
    w[i] = 1.0 / pts[i].us;
  }
  beta[3] = beta[4] = 0;
  return nnls(n, m, x, y, w, beta);
}

/* L, o (g = 0), G, eager and rdv from the round points; fills each point's model_us. Returns
 * the largest relative error of the model over the points. */
double fit_rounds(point *pts, int n, nhood_cost_params *p) {
  double beta[MAX_UNKNOWNS];
  double fastest = pts[0].us;
  for (int i = 1; i < n; i++) fastest = fmin(fastest, pts[i].us);
  double floor_L = 0.1 * fastest; /* a round always costs some latency */
  double without = fit_with_limit(pts, n, floor_L, -1, beta), best = without, eager = -1;
  int largest = 0;
  for (int i = 0; i < n; i++) largest = pts[i].bytes > largest ? pts[i].bytes : largest;
  for (int i = 0; i < n; i++) {
    if (pts[i].bytes >= largest || strcmp(pts[i].series, "bytes") != 0) continue;
    double trial[MAX_UNKNOWNS];
    double rss = fit_with_limit(pts, n, floor_L, pts[i].bytes, trial);
    if ((trial[3] > 0 || trial[4] > 0) && rss < 0.5 * without && rss < best) {
      best = rss;
      eager = pts[i].bytes;
      memcpy(beta, trial, sizeof beta);
    }
  }
  p->L = floor_L + beta[0];
  p->o = beta[1] / 2;
  p->g = 0;
  p->G = beta[2];
  p->eager = eager < 0 ? 0 : eager;
  p->rdv = eager < 0 ? 0 : beta[3];
  p->rdv_round = eager < 0 ? 0 : beta[4];
  double worst = 0;
  for (int i = 0; i < n; i++) { /* a chain's round: k messages of `bytes` each way, as the library prices it */
    int k = pts[i].k, rdv = nhood_cost_is_rendezvous(p, pts[i].bytes) ? k : 0;
    nhood_cost_round_load round = {.sends = k,
                                   .recvs = k,
                                   .sent = (double)k * pts[i].bytes,
                                   .received = (double)k * pts[i].bytes,
                                   .sends_rdv = rdv,
                                   .recvs_rdv = rdv};
    pts[i].model_us = nhood_cost_round(p, &round);
    worst = fmax(worst, fabs(pts[i].model_us - pts[i].us) / pts[i].us);
  }
  return worst;
}
