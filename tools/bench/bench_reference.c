/*
 * --sim-reference BASE: nhood-calibrate's single calls timed in turns with each blocking
 * case's algorithms, and nhood-sim's model fitted to them per case (nhood_calibrate.h). This
 * machine runs at one speed or at 1.5-2x it and changes within seconds, also within a launch:
 * a model fitted before the cases ran described the cases that ran in the same state only.
 * Each case's model comes from the same seconds as the case's own calls.
 */
#include "bench.h"
#include "cli.h"
#include "nhood_calibrate.h"

#include <stdlib.h>
#include <string.h>

struct bench_reference {
  nhood_calib_reference *calls;
  int npoints, nsamples, capacity, cases;
  double *samples; /* [point][sample], seconds, this rank's */
  const char *base;
};

bench_reference *bench_reference_create(const char *base, int iters, char *err, size_t errlen) {
  nhood_calib_reference *calls = nhood_calib_reference_create(base, err, errlen);
  if (calls == NULL) return NULL;
  bench_reference *r = xcalloc(1, sizeof *r);
  r->calls = calls;
  r->base = base;
  r->npoints = nhood_calib_reference_points(calls);
  r->capacity = iters;
  r->samples = xmalloc((size_t)r->npoints * (size_t)iters * sizeof *r->samples);
  return r;
}

int bench_reference_points(const bench_reference *r) { return r ? r->npoints : 0; }

void bench_reference_warm(bench_reference *r, int calls) {
  for (int p = 0; r && p < r->npoints; p++)
    for (int k = 0; k < calls; k++) nhood_calib_reference_call(r->calls, p);
}

void bench_reference_turn(bench_reference *r, int point, int batch) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  nhood_calib_reference_call(r->calls, point);
  r->samples[(size_t)point * (size_t)r->capacity + (size_t)batch] = MPI_Wtime() - t0;
  if (batch + 1 > r->nsamples) r->nsamples = batch + 1;
}

/* Each point's median of its calls' slowest rank (as the cases' latencies), the fit, its file
 * BASE.N (the Nth case) and a row naming it. */
void bench_reference_case_end(const bench *b, bench_reference *r, const char *topo, const char *coll, int bytes) {
  if (r == NULL || r->nsamples == 0) return;
  int n = r->nsamples;
  double *us = xmalloc((size_t)r->npoints * sizeof *us), *slowest = xmalloc((size_t)n * sizeof *slowest);
  for (int p = 0; p < r->npoints; p++) {
    MPI_Reduce(r->samples + (size_t)p * (size_t)r->capacity, slowest, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    us[p] = b->rank == 0 ? cli_median(slowest, n) * 1e6 : 0;
  }
  r->nsamples = 0;
  r->cases++;
  if (b->rank == 0) {
    char path[1024];
    double error = 0;
    snprintf(path, sizeof path, "%s.%d", r->base, r->cases);
    int failed = nhood_calib_reference_fit(r->calls, us, n, path, &error);
    if (failed)
      printf("%-11s %-11s %9d sim-reference: the model could not be fitted or written to %s\n", coll, "blocking", bytes,
             path);
    else
      printf("%-11s %-11s %9d sim-reference: %s (%d calls within %.0f%%)\n", coll, "blocking", bytes, path, r->npoints,
             100 * error);
    if (b->json != NULL && !failed) {
      fprintf(b->json, "{\"topo\":");
      cli_json_string(b->json, topo);
      fprintf(b->json, ",\"coll\":");
      cli_json_string(b->json, coll);
      fprintf(b->json, ",\"mode\":\"blocking\",\"bytes\":%d,\"algo\":\"sim-reference\",\"model\":", bytes);
      cli_json_string(b->json, path);
      fprintf(b->json, ",\"fit_error\":%.4f,\"points\":%d}\n", error, r->npoints);
      fflush(b->json);
    }
  }
  free(us);
  free(slowest);
}

void bench_reference_free(bench_reference *r) {
  if (r == NULL) return;
  nhood_calib_reference_free(r->calls);
  free(r->samples);
  free(r);
}
