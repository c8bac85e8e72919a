/* nhood-calibrate's report: the table it prints, the parameter file's header and the JSON of
 * the raw points (calibrate.h). */
#include "calibrate.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The library version's first line, tabs as spaces. */
void library_version(char *out, size_t outlen) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  size_t n = strcspn(version, "\n");
  while (n > 0 && (version[n - 1] == ' ' || version[n - 1] == '\r')) n--;
  for (size_t i = 0; i < n; i++)
    if (version[i] == '\t') version[i] = ' ';
  snprintf(out, outlen, "%.*s", (int)n, version);
}

void now_string(char *out, size_t outlen) {
  time_t t = time(NULL);
  struct tm tm;
  if (localtime_r(&t, &tm) == NULL || strftime(out, outlen, "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
    snprintf(out, outlen, "(unknown date)");
}

/* Nodes (shared-memory domains), the most ranks on one, and that node's cores (rank 0's). */
void placement(results *res) {
  MPI_Comm node;
  int node_rank, node_size;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  int leader = node_rank == 0;
  MPI_Allreduce(&leader, &res->nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&node_size, &res->ranks_per_node, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  res->cores = cores > 0 && cores < 1 << 20 ? (int)cores : 0;
  MPI_Bcast(&res->cores, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

int oversubscribed(const results *res) { return res->cores > 0 && res->ranks_per_node > res->cores; }

/* The comment lines at the top of the parameter file. */
void file_header(const results *res, const char *out_path, char *h, size_t hlen) {
  size_t n = 0;
#define ADD(...) n += (size_t)snprintf(h + n, n < hlen ? hlen - n : 0, __VA_ARGS__)
  ADD("nhood cost-model parameters (src/common/cost_model.h), written by " TOOL " on %s\n", res->date);
  ADD("%d rank%s on %d node%s (at most %d on one; %d core%s there%s)\n", res->nranks, cli_plural(res->nranks),
      res->nodes, cli_plural(res->nodes), res->ranks_per_node, res->cores, cli_plural(res->cores),
      oversubscribed(res) ? ": oversubscribed, and the parameters describe that" : "");
  ADD("MPI library: %s\n", res->library);
  if (res->nranks == 1) {
    ADD("One rank: nothing to measure. These are the built-in defaults (the ib-edr preset);\n");
    ADD("run " TOOL " on the ranks of the jobs to be described.\n");
  } else {
    ADD("Times: median of %d sample%s per rank (%d of copies, %d of MPI's exchange) after %d warm-up,\n",
        res->iters_rounds, cli_plural(res->iters_rounds), res->iters_copy, res->iters_mpi, res->warmup);
    ADD("maximum over ranks; rounds in chains of %d (k sends and k receives each, ring neighbours).\n", res->rounds);
    ADD("L, o, G, rdv, rdv_round: least squares on relative error, non-negative, of\n");
    ADD("L + (2o+g)*k + G*k*bytes + (rdv*2k + rdv_round)*[bytes > eager] over\n");
    int kmax = 1;
    for (int i = 0; i < res->npoints; i++)
      if (res->points[i].bytes == 1 && res->points[i].k > kmax) kmax = res->points[i].k;
    ADD("%d rounds (1 byte, k = 1 to %d; k = %d, 1 KiB to 256 KiB; %d KiB, k = 1 to %d); largest error %.0f%%.\n",
        res->npoints, kmax, res->bytes_peers, HANDSHAKE_BYTES / 1024, kmax, 100 * res->max_error);
    if (res->params.eager > 0)
      ADD("eager: the largest size measured below the step the fit found (the limit lies between it\n"
          "and the next size measured).\n");
    else
      ADD("No rendezvous step: fitting one did not halve the residual (rdv = 0).\n");
    ADD("g = 0: rounds with as many sends as receives cannot tell o from g, so o holds the\n");
    ADD("whole per-message slope (2o+g)/2.\n");
    ADD("Gcopy: what a memcpy of 256 KiB-4 MiB adds to a round of %d 1-byte message%s, every rank copying.\n",
        res->mpi_peers, cli_plural(res->mpi_peers));
    ADD("mpi_factor: MPI_Neighbor_alltoall / Isend+Irecv by hand, %d neighbour%s, geometric mean\n", res->mpi_peers,
        cli_plural(res->mpi_peers));
    ADD("over %d and %d bytes (%.3g; clamped to [%.1f, %.0f]).\n", MPI_SMALL, MPI_MEDIUM, res->raw_factor, FACTOR_MIN,
        FACTOR_MAX);
    if (res->setup_us > 0) {
      ADD("setup: nhood's set-up on a new communicator of %d ring neighbour%s, %.1f us (its first %d\n", res->mpi_peers,
          cli_plural(res->mpi_peers), res->setup_us, res->setup_calls);
      ADD("8-byte allgathers under auto less the next %d), in allreduces as src/selection/cold.h prices them.\n",
          res->setup_calls);
    }
  }
  ADD("node_L, node_o, node_g, node_G: L, o, g, G, as measured between processes of one node. The\n");
  ADD("network between nodes and each node's interface (nic_o, nic_G) cannot be measured on one node:\n");
  ADD("nic_* = 0, not modelled; for several nodes, start from a preset (docs/TUNING.md).\n");
  ADD("margin: the largest error above, clamped to [0.1, 0.5]: \"auto\" takes a schedule of more\n");
  ADD("rounds or copies only where it is predicted faster than one message per neighbor by more.\n");
  ADD("Use: NHOOD_PARAMS=%s mpiexec ... (read once per process; see src/selection/cost.h)\n", out_path);
#undef ADD
}

/* A series' quantiles at 0, 10, 50, 90, 99, 99.9, 99.99 and 100%: the rounds' and a process's
 * delay. */
static void print_quantiles(const double excess[LOGGP_NOISE_POINTS], const double delay[LOGGP_NOISE_POINTS]) {
  static const int shown[] = {0, 1, 5, 9, 11, 12, 13, 14};
  const double *q[2] = {excess, delay};
  const char *name[2] = {"round over the fastest =", "a process's delay      ="};
  for (int s = 0; s < 2; s++) {
    printf("  %s", name[s]);
    for (int i = 0; i < (int)(sizeof shown / sizeof shown[0]); i++) printf("%s %.3g", i ? "," : "", q[s][shown[i]]);
    printf(" us%s\n", s ? " (the round's at p^2)" : "");
  }
}

void print_results(const results *res) {
  const nhood_cost_params *p = &res->params;
  printf("\n%-9s %5s %9s %12s %12s %7s\n", "series", "k", "bytes", "us/round", "model", "error");
  for (int i = 0; i < res->npoints; i++) {
    const point *pt = &res->points[i];
    printf("%-9s %5d %9d %12.3f %12.3f %+6.0f%%%s\n", pt->series, pt->k, pt->bytes, pt->us, pt->model_us,
           100 * (pt->model_us - pt->us) / pt->us, pt->repeated ? "  (repeated destinations)" : "");
  }
  printf("\n%-9s %5s %9s %12s %12s\n", "copy", "", "bytes", "us", "us/byte");
  for (int i = 0; i < NELEMS(copy_sizes); i++)
    printf("%-9s %5s %9d %12.3f %12.4g\n", "memcpy", "", copy_sizes[i], res->copy_us[i],
           res->copy_us[i] / copy_sizes[i]);
  printf("\n%-9s %5s %9s %12s %12s %7s\n", "exchange", "k", "bytes", "mpi us", "direct us", "ratio");
  for (int i = 0; i < NELEMS(mpi_sizes); i++)
    printf("%-9s %5d %9d %12.3f %12.3f %7.3f\n", "alltoall", res->mpi_peers, mpi_sizes[i], res->mpi_us[i],
           res->direct_us[i], res->mpi_us[i] / res->direct_us[i]);
  printf("\n%-9s %5s %9s %12s %12s\n", "set-up", "k", "calls", "us", "allreduces");
  printf("%-9s %5d %9d %12.3f %12.1f\n", "auto", res->mpi_peers, res->setup_calls, res->setup_us, res->params.setup);
  if (res->iters_rounds < res->iters || res->iters_copy < res->iters || res->iters_mpi < res->iters ||
      res->iters_setup < res->iters)
    printf("\n" TOOL
           ": note: slow rounds; took %d samples of each round point, %d of each copy, %d of each "
           "exchange and %d of the set-up instead of %d, to stay near %.0f s (--iters N takes N regardless)\n",
           res->iters_rounds, res->iters_copy, res->iters_mpi, res->iters_setup, res->iters, BUDGET_S);
  printf("\nfitted (largest error of the round model %.0f%%):\n", 100 * res->max_error);
  printf("  L          = %-12.4g us per round\n", p->L);
  printf("  o          = %-12.4g us per message at each end (the whole slope; g = 0)\n", p->o);
  printf("  g          = %-12.4g us between injections\n", p->g);
  printf("  G          = %-12.4g us per byte (%.3g GB/s)\n", p->G, p->G > 0 ? 1e-3 / p->G : INFINITY);
  printf("  Gcopy      = %-12.4g us per byte (%.3g GB/s)\n", p->Gcopy, p->Gcopy > 0 ? 1e-3 / p->Gcopy : INFINITY);
  printf("  mpi_factor = %-12.4g (measured %.3g)\n", p->mpi_factor, res->raw_factor);
  printf("  setup      = %-12.4g allreduces (nhood's set-up on a communicator, %.1f us)\n", p->setup, res->setup_us);
  if (p->eager > 0)
    printf(
        "  eager      = %-12.6g bytes (rendezvous above; the step lies before the next size measured)\n"
        "  rdv        = %-12.4g us per message above eager, at each end\n"
        "  rdv_round  = %-12.4g us per round with such a message\n",
        p->eager, p->rdv, p->rdv_round);
  else
    printf("  eager, rdv : no rendezvous step found (rdv = 0)\n");
  if (res->skew_rounds > 0) {
    printf(
        "\nskew: %d rounds of 1 byte each way, each after a barrier (median %.3g us); quantiles at 0, 10, 50, "
        "90, 99, 99.9, 99.99, 100%%:\n",
        res->skew_rounds, res->skew_round_us);
    print_quantiles(res->skew_excess, res->skew);
    if (res->noise_from_skew)
      printf("noise: the skew's (no common clock across %d nodes to time the rounds of a chain)\n", res->nodes);
    else {
      printf(
          "noise: %d rounds after the first of chains of %d, from the last rank's end of one round to the "
          "next's:\n",
          res->noise_rounds, NOISE_CHAIN);
      print_quantiles(res->noise_excess, res->noise);
    }
  }
  if (res->sim_fitted) {
    const loggp_params *m = &res->sim;
    printf("\nstep: direct, one message each way, us by size:");
    for (int i = 0; i < STEP_POINTS; i++)
      printf(" %d B %.3f%s", step_sizes[i], res->step_series[i], i + 1 < STEP_POINTS ? "," : "\n");
    if (res->step_bytes > 0)
      printf("  a step of %.3g us above %g bytes (up to the next size measured)\n", res->step_us, res->step_bytes);
    else
      printf("  no clear step\n");
    printf(
        "\nsingle calls (nhood's direct; schedules of several rounds or with messages to oneself by the engine; "
        "after a barrier, the slowest rank's median) and nhood-sim's model:\n");
    printf("%-8s %5s %6s %7s %9s %12s %12s %7s\n", "k", "self", "rounds", "to-self", "bytes", "us", "model", "error");
    for (int i = 0; i < res->ncalls; i++) {
      const point *pt = &res->calls[i];
      printf("%-8d %5d %6d %7d %9d %12.3f %12.3f %+6.0f%%\n", pt->k, pt->self, pt->rounds > 1 ? pt->rounds : 1,
             pt->selfmsg, pt->bytes, pt->us, pt->model_us, 100 * (pt->model_us / pt->us - 1));
    }
    printf("nhood-sim's LogGP model, fitted to %d calls with that skew (largest error %.0f%%):\n", res->sim_points,
           100 * res->sim_error);
    printf(
        "  L = %.4g us, o = %.4g us, g = 0, G = %.4g us/B, O = %.4g us/B, Gcopy = %.4g us/B, ocopy = %.4g us, "
        "round = %.4g us, oself = %.4g us, Gself = %.4g us/B, step = %g B, ostep = %.4g us, "
        "Lbyte = %.4g us/B, noise0 = %.4g us\n",
        m->L, m->o, m->G, m->O, m->Gcopy, m->ocopy, m->round, m->oself, m->Gself, m->step, m->ostep, m->Lbyte,
        m->noise0);
  }
  if (res->max_error > 0.5) {
    const point *worst = &res->points[0];
    for (int i = 1; i < res->npoints; i++)
      if (fabs(res->points[i].model_us / res->points[i].us - 1) > fabs(worst->model_us / worst->us - 1))
        worst = &res->points[i];
    printf(TOOL
           ": note: the model misses the round with k = %d, %d bytes by %.0f%%: the machine may be noisy "
           "(try more --iters), or MPI may switch protocols more than once (the model has one step)\n",
           worst->k, worst->bytes, 100 * fabs(worst->model_us / worst->us - 1));
  }
}

static void json_params(FILE *f, const nhood_cost_params *p) {
  fprintf(
      f,
      "{\"L\": %.6g, \"o\": %.6g, \"g\": %.6g, \"G\": %.6g, \"Gcopy\": %.6g, \"mpi_factor\": %.6g, \"eager\": %.6g, "
      "\"rdv\": %.6g, \"rdv_round\": %.6g, \"setup\": %.6g}",
      p->L, p->o, p->g, p->G, p->Gcopy, p->mpi_factor, p->eager, p->rdv, p->rdv_round, p->setup);
}

/* A series' quantiles at noise_p: "NAME_excess_us" (the rounds') and "NAME_us" (a process's delay). */
static void json_series(FILE *f, const char *name, const double excess[LOGGP_NOISE_POINTS],
                        const double delay[LOGGP_NOISE_POINTS]) {
  fprintf(f, " \"%s_excess_us\": [", name);
  for (int i = 0; i < LOGGP_NOISE_POINTS; i++) fprintf(f, "%s%.6g", i ? ", " : "", excess[i]);
  fprintf(f, "], \"%s_us\": [", name);
  for (int i = 0; i < LOGGP_NOISE_POINTS; i++) fprintf(f, "%s%.6g", i ? ", " : "", delay[i]);
  fprintf(f, "]");
}

int write_json(const results *res, const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL) return 1;
  fprintf(f, "{\n  \"tool\": \"" TOOL "\",\n  \"date\": ");
  cli_json_string(f, res->date);
  fprintf(f, ",\n  \"mpi_library\": ");
  cli_json_string(f, res->library);
  fprintf(f, ",\n  \"ranks\": %d, \"nodes\": %d, \"ranks_per_node\": %d, \"cores\": %d,\n", res->nranks, res->nodes,
          res->ranks_per_node, res->cores);
  fprintf(f,
          "  \"iters\": %d, \"iters_rounds\": %d, \"iters_copy\": %d, \"iters_mpi\": %d, \"warmup\": %d, "
          "\"rounds_per_chain\": %d,\n",
          res->iters, res->iters_rounds, res->iters_copy, res->iters_mpi, res->warmup, res->rounds);
  fprintf(f, "  \"setup_us\": %.6g, \"setup_calls\": %d, \"iters_setup\": %d,\n", res->setup_us, res->setup_calls,
          res->iters_setup);
  fprintf(f, "  \"rounds\": [");
  for (int i = 0; i < res->npoints; i++) {
    const point *pt = &res->points[i];
    fprintf(f,
            "%s\n    {\"series\": \"%s\", \"k\": %d, \"bytes\": %d, \"repeated\": %s, \"us\": %.6g, "
            "\"model_us\": %.6g}",
            i ? "," : "", pt->series, pt->k, pt->bytes, pt->repeated ? "true" : "false", pt->us, pt->model_us);
  }
  fprintf(f, "%s],\n  \"copy\": [", res->npoints ? "\n  " : "");
  for (int i = 0; res->nranks > 1 && i < NELEMS(copy_sizes); i++)
    fprintf(f, "%s\n    {\"bytes\": %d, \"us\": %.6g}", i ? "," : "", copy_sizes[i], res->copy_us[i]);
  fprintf(f, "%s],\n  \"mpi_vs_direct\": [", res->nranks > 1 ? "\n  " : "");
  for (int i = 0; res->nranks > 1 && i < NELEMS(mpi_sizes); i++)
    fprintf(f, "%s\n    {\"k\": %d, \"bytes\": %d, \"mpi_us\": %.6g, \"direct_us\": %.6g}", i ? "," : "",
            res->mpi_peers, mpi_sizes[i], res->mpi_us[i], res->direct_us[i]);
  fprintf(f, "%s],\n  \"defaults\": %s,\n  \"max_error\": %.6g,\n  \"params\": ", res->nranks > 1 ? "\n  " : "",
          res->nranks == 1 ? "true" : "false", res->max_error);
  json_params(f, &res->params);
  fprintf(f, ",\n  \"noise_p\": [");
  for (int i = 0; i < LOGGP_NOISE_POINTS; i++) fprintf(f, "%s%.6g", i ? ", " : "", loggp_noise_p[i]);
  fprintf(f, "],\n  \"skew_rounds\": %d, \"skew_round_us\": %.6g,", res->skew_rounds, res->skew_round_us);
  json_series(f, "skew", res->skew_excess, res->skew);
  fprintf(f, ",\n  \"noise_rounds\": %d, \"noise_from_skew\": %s,", res->noise_rounds,
          res->noise_from_skew ? "true" : "false");
  json_series(f, "noise", res->noise_excess, res->noise);
  fprintf(f, ",\n  \"step_sizes\": [");
  for (int i = 0; i < STEP_POINTS; i++) fprintf(f, "%s%d", i ? ", " : "", step_sizes[i]);
  fprintf(f, "], \"step_series\": [");
  for (int i = 0; i < STEP_POINTS; i++) fprintf(f, "%s%.6g", i ? ", " : "", res->step_series[i]);
  fprintf(f, "], \"step_bytes\": %g, \"step_us\": %.6g", res->step_bytes, res->step_us);
  fprintf(f, ",\n  \"calls\": [");
  for (int i = 0; i < res->ncalls; i++)
    fprintf(f,
            "%s\n    {\"k\": %d, \"self\": %d, \"rounds\": %d, \"selfmsg\": %d, \"bytes\": %d, \"us\": %.6g, "
            "\"model_us\": %.6g}",
            i ? "," : "", res->calls[i].k, res->calls[i].self, res->calls[i].rounds > 1 ? res->calls[i].rounds : 1,
            res->calls[i].selfmsg, res->calls[i].bytes, res->calls[i].us, res->calls[i].model_us);
  fprintf(f, "]");
  if (res->sim_fitted)
    fprintf(f,
            ",\n  \"sim_model\": {\"L\": %.6g, \"o\": %.6g, \"g\": 0, \"G\": %.6g, \"O\": %.6g, \"Gcopy\": %.6g, "
            "\"ocopy\": %.6g, \"round\": %.6g, \"oself\": %.6g, \"Gself\": %.6g, \"step\": %g, \"ostep\": %.6g, "
            "\"Lbyte\": %.6g, \"noise0\": %.6g, \"points\": %d, \"max_error\": %.6g}",
            res->sim.L, res->sim.o, res->sim.G, res->sim.O, res->sim.Gcopy, res->sim.ocopy, res->sim.round,
            res->sim.oself, res->sim.Gself, res->sim.step, res->sim.ostep, res->sim.Lbyte, res->sim.noise0,
            res->sim_points, res->sim_error);
  fprintf(f, "\n}\n");
  int failed = ferror(f) != 0;
  failed |= fclose(f) != 0;
  return failed;
}

/* Rank 0 writes the files; every rank learns whether that worked. 0, or 1 (reported). */
int write_outputs(const results *res, const options *opt, int rank) {
  int failed = 0;
  if (rank == 0) {
    char header[4096];
    file_header(res, opt->out_path, header, sizeof header);
    FILE *f = fopen(opt->out_path, "w");
    if (f == NULL) {
      fprintf(stderr, TOOL ": cannot write %s: %s\n", opt->out_path, strerror(errno));
      failed = 1;
    } else {
      failed = nhood_cost_params_write(f, &res->params, header) != 0;
      failed |= fclose(f) != 0;
      if (failed) fprintf(stderr, TOOL ": writing %s failed\n", opt->out_path);
    }
    if (!failed && opt->sim_model_path != NULL && res->sim_fitted && write_sim_model(res, opt->sim_model_path) != 0) {
      fprintf(stderr, TOOL ": writing --sim-model %s failed\n", opt->sim_model_path);
      failed = 1;
    }
    if (!failed && opt->json_path != NULL && write_json(res, opt->json_path) != 0) {
      fprintf(stderr, TOOL ": writing --json %s failed\n", opt->json_path);
      failed = 1;
    }
    if (!failed && opt->save)
      printf(TOOL ": wrote %s%s%s; the library reads it for %d processes on this node (NHOOD_PARAMS unset)\n",
             opt->out_path, opt->json_path ? " and " : "", opt->json_path ? opt->json_path : "", res->nranks);
    else if (!failed)
      printf(TOOL ": wrote %s%s%s; use it with NHOOD_PARAMS=%s\n", opt->out_path, opt->json_path ? " and " : "",
             opt->json_path ? opt->json_path : "", opt->out_path);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return failed;
}
