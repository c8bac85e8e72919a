/*
 * nhood-calibrate's single calls timed by another program in turns with its own
 * (nhood_calibrate.h, nhood-bench --sim-reference), and nhood-sim's model fitted to them.
 */
#include "calibrate.h"
#include "nhood_calibrate.h"

#include <stdlib.h>
#include <string.h>

struct nhood_calib_reference {
  calib c;
  results res;
  loggp_params base;
  calib_call calls[MAX_POINTS];
  char base_path[512];
};

nhood_calib_reference *nhood_calib_reference_create(const char *base_path, char *err, size_t errlen) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) { /* the calls have ring neighbours at distances 1 + j mod (P - 1) */
    snprintf(err, errlen, "--sim-reference needs 2 ranks or more");
    return NULL;
  }
  nhood_calib_reference *r = calib_xmalloc(sizeof *r);
  memset(r, 0, sizeof *r);
  char text[4096];
  /* Every rank reads the file (it names the same file everywhere); all fail together. */
  int bad = loggp_read_model_file("--sim-reference", base_path, text, sizeof text, err, errlen) != 0 ||
            loggp_parse(text, &r->base, err, errlen) != 0,
      any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    if (!bad) snprintf(err, errlen, "--sim-reference: %s could not be read on another rank", base_path);
    free(r);
    return NULL;
  }
  snprintf(r->base_path, sizeof r->base_path, "%s", base_path);
  MPI_Comm_dup(MPI_COMM_WORLD, &r->c.comm);
  MPI_Comm_rank(r->c.comm, &r->c.rank);
  MPI_Comm_size(r->c.comm, &r->c.size);
  calib_call_points(&r->c, &r->res);
  r->res.nranks = r->c.size;
  size_t most = 1;
  for (int p = 0; p < r->res.ncalls; p++) {
    size_t need = calib_call_bytes(&r->res.calls[p]);
    most = need > most ? need : most;
  }
  r->c.sendbuf = calib_xmalloc(most);
  r->c.recvbuf = calib_xmalloc(most);
  memset(r->c.sendbuf, 1, most);
  for (int p = 0; p < r->res.ncalls; p++) calib_call_create(&r->c, &r->res.calls[p], &r->calls[p]);
  return r;
}

int nhood_calib_reference_points(const nhood_calib_reference *r) { return r->res.ncalls; }

void nhood_calib_reference_call(nhood_calib_reference *r, int point) { calib_call_run(&r->c, &r->calls[point]); }

int nhood_calib_reference_fit(nhood_calib_reference *r, const double *us, int samples, const char *path,
                              double *max_error) {
  for (int p = 0; p < r->res.ncalls; p++) r->res.calls[p].us = us[p];
  /* One node, where the base says so: its sender copies (O > 0), as nhood-calibrate found. */
  /* Medians of as few samples as --quick takes get the quick fit: their points are not
   * precise enough for restarts of the search to matter. */
  if (fit_sim_calls(&r->res, &r->base, r->base.O > 0, samples <= QUICK_CALL_SAMPLES) != 0) return 1;
  *max_error = r->res.sim_error;
  FILE *out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out,
          "# nhood-sim's model (nhood-sim --model @%s): nhood-calibrate's %d single calls on %d ranks, timed in turns "
          "with one case's calls,\n# fitted within %.0f%%; noise, skew, Gcopy and the step's size from %s\n",
          path, r->res.ncalls, r->res.nranks, 100 * r->res.sim_error, r->base_path);
  write_sim_model_line(out, &r->res.sim);
  int failed = ferror(out) != 0;
  failed |= fclose(out) != 0;
  return failed;
}

void nhood_calib_reference_free(nhood_calib_reference *r) {
  if (r == NULL) return;
  for (int p = 0; p < r->res.ncalls; p++) calib_call_free(&r->calls[p]);
  MPI_Comm_free(&r->c.comm);
  free(r->c.sendbuf);
  free(r->c.recvbuf);
  free(r);
}
