/* nhood-calibrate's options (calibrate.h). */
#include "calibrate.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void calibrate_print_usage(FILE *out) {
  fprintf(out,
          "usage: mpiexec -n P " TOOL
          " [--out FILE] [--iters N] [--quick] [--json FILE] [--sim-model FILE]\n"
          "\n"
          "Measures the parameters of nhood's cost model (L, o, g, G, Gcopy, mpi_factor; see\n"
          "src/common/cost_model.h) on the ranks it runs on, all of them at once, and writes the\n"
          "file the library reads with NHOOD_PARAMS=FILE. Run it with the ranks and placement of\n"
          "the jobs it should describe.\n"
          "\n"
          "  --out FILE    parameter file to write (default " DEFAULT_OUT
          "; replaced)\n"
          "  --iters N     timed samples per point, after warm-up (default %d, fewer where they would\n"
          "                take much longer than %.0f s in all; %d with --quick)\n"
          "  --quick       few samples and short chains: a rough result in seconds (for tests)\n"
          "  --save        write the file the library itself reads, without NHOOD_PARAMS, for\n"
          "                jobs of this many processes on this node under this MPI library\n"
          "                (NHOOD_CACHE_DIR, else ~/.cache/nhood; one node only)\n"
          "  --json FILE   also write the measured points and the fit as JSON to FILE (replaced)\n"
          "  --sim-model FILE\n"
          "                also time single calls and the noise of a round, fit nhood-sim's LogGP\n"
          "                model to them (L, o, G, round, noise; tools/sim/loggp.h) and write it to\n"
          "                FILE, for nhood-sim --model @FILE\n"
          "  --help        this text\n"
          "\n"
          "Times are the median of each rank's samples, then the maximum over ranks, in\n"
          "microseconds. With one rank nothing can be measured and FILE gets the built-in\n"
          "defaults.\n",
          DEFAULT_ITERS, BUDGET_S, QUICK_ITERS);
}

/* Every rank parses the same arguments and reaches the same verdict. 0, or 1 with a message. */
int calibrate_parse_options(int argc, char **argv, options *opt, char *err, size_t errlen) {
  memset(opt, 0, sizeof *opt);
  opt->out_path = DEFAULT_OUT;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      opt->help = 1;
      return 0;
    }
    if (strcmp(arg, "--quick") == 0) {
      opt->quick = 1;
      continue;
    }
    if (strcmp(arg, "--save") == 0) {
      opt->save = 1;
      continue;
    }
    static const char *const with_value[] = {"--out", "--iters", "--json", "--sim-model"};
    const char *name, *value;
    if (cli_option_with_value(argc, argv, &i, with_value, sizeof with_value / sizeof with_value[0], &name, &value, err,
                              errlen) != 0)
      return 1;
    if (strcmp(name, "--out") == 0)
      opt->out_path = value, opt->out_given = 1;
    else if (strcmp(name, "--json") == 0)
      opt->json_path = value;
    else if (strcmp(name, "--sim-model") == 0)
      opt->sim_model_path = value;
    else if (cli_parse_int(name, value, 1, &opt->iters, err, errlen) != 0)
      return 1;
  }
  if (opt->save && opt->out_given) {
    snprintf(err, errlen, "--save and --out both name the file to write; give one");
    return 1;
  }
  if (opt->json_path != NULL && strcmp(opt->json_path, opt->out_path) == 0) {
    snprintf(err, errlen, "--json and --out name the same file '%s'", opt->out_path);
    return 1;
  }
  return 0;
}

/* Creates the directories above path (mkdir -p of its dirname). 0, or 1 with a message. */
int make_parents(const char *path, char *err, size_t errlen) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *c = dir + 1; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "--save: cannot create %.300s: %s", dir, strerror(errno));
      return 1;
    }
    *c = '/';
  }
  return 0;
}

/* Whether path can be written, checked before the measurements rather than after them, without
 * destroying what it holds (opened for appending; a file this check creates is removed again).
 * 0, or 1 with a message. */
int check_writable(const char *option, const char *path, char *err, size_t errlen) {
  struct stat st;
  int existed = stat(path, &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "cannot write %s %s: it is a directory", option, path);
    return 1;
  }
  FILE *f = fopen(path, "a");
  if (f == NULL) {
    snprintf(err, errlen, "cannot write %s %s: %s", option, path, strerror(errno));
    return 1;
  }
  fclose(f);
  if (!existed) remove(path);
  return 0;
}
