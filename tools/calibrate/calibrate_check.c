/*
 * calibrate_check: the test's check on a file nhood-calibrate wrote.
 *
 *   calibrate_check FILE [--defaults]
 *
 * FILE must parse with the library's own reader (nhood_cost_params_read), name every parameter
 * (each starts as NaN, so a missing key stays NaN), hold finite values with L > 0,
 * mpi_factor in [0.5, 2] and eager > 0 where rdv or rdv_round > 0, and carry the header (MPI library, how to use it);
 * a measured file also the set-up, setup >= 1 and said in the header.
 * With --defaults (a one-rank run) the values must be the built-in defaults. Exit 0, or 1 with a message.
 */
#include "common/cost_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *path, const char *what) {
  fprintf(stderr, "calibrate_check: %s: %s\n", path, what);
  return 1;
}

static int file_contains(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  char line[1024];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-5 * fabs(b); }

int main(int argc, char **argv) {
  int defaults = argc == 3 && strcmp(argv[2], "--defaults") == 0;
  if (argc != 2 && !defaults) {
    fprintf(stderr, "usage: calibrate_check FILE [--defaults]\n");
    return 2;
  }
  const char *path = argv[1];
  nhood_cost_params p = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
  char err[512];
  if (nhood_cost_params_read(path, &p, err, sizeof err) != 0) return fail(path, err);
  const double values[] = {p.L,      p.o,      p.g,      p.G,      p.Gcopy,  p.mpi_factor, p.eager, p.rdv,  p.rdv_round,
                           p.margin, p.node_L, p.node_o, p.node_g, p.node_G, p.nic_o,      p.nic_G, p.setup};
  const char *const names[] = {"L",      "o",      "g",         "G",      "Gcopy",  "mpi_factor",
                               "eager",  "rdv",    "rdv_round", "margin", "node_L", "node_o",
                               "node_g", "node_G", "nic_o",     "nic_G",  "setup"};
  for (int i = 0; i < (int)(sizeof values / sizeof values[0]); i++)
    if (!isfinite(values[i])) {
      fprintf(stderr, "calibrate_check: %s: %s is missing or not finite\n", path, names[i]);
      return 1;
    }
  if (!(p.L > 0)) return fail(path, "L is not positive");
  if (!(p.mpi_factor >= 0.5 && p.mpi_factor <= 2)) return fail(path, "mpi_factor is outside [0.5, 2]");
  if ((p.rdv > 0 || p.rdv_round > 0) && !(p.eager > 0))
    return fail(path, "rdv or rdv_round is set but eager is not positive");
  if (!file_contains(path, "# MPI library: ") || !file_contains(path, "NHOOD_PARAMS="))
    return fail(path, "the header lacks the MPI library or the NHOOD_PARAMS line");
  if (!defaults && !(p.setup >= 1 && file_contains(path, "set-up on a new communicator")))
    return fail(path, "setup was not measured (below 1, or the header does not say how it was measured)");
  if (defaults) {
    nhood_cost_params d;
    nhood_cost_params_default(&d);
    if (!close_to(p.L, d.L) || !close_to(p.o, d.o) || !close_to(p.g, d.g) || !close_to(p.G, d.G) ||
        !close_to(p.Gcopy, d.Gcopy) || !close_to(p.mpi_factor, d.mpi_factor) || !close_to(p.eager, d.eager) ||
        !close_to(p.rdv, d.rdv) || !close_to(p.rdv_round, d.rdv_round))
      return fail(path, "not the built-in defaults");
    if (!file_contains(path, "built-in defaults")) return fail(path, "the header does not say these are the defaults");
  }
  printf(
      "calibrate_check: %s: L = %g, o = %g, g = %g, G = %g, Gcopy = %g, mpi_factor = %g, eager = %g, rdv = %g, "
      "rdv_round = %g, setup = %g: ok\n",
      path, p.L, p.o, p.g, p.G, p.Gcopy, p.mpi_factor, p.eager, p.rdv, p.rdv_round, p.setup);
  return 0;
}
