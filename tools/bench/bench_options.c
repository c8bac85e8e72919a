/* nhood-bench's options: parsing, defaults and the usage text. */
#include "bench.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERS 200
#define DEFAULT_WARMUP 20
#define DEFAULT_COMMS 20

const char *const coll_names[NCOLLS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
const char *const mode_names[NMODES] = {"blocking", "nonblocking", "persistent", "overlap", "churn"};

void print_usage(FILE *out) {
  fprintf(
      out,
      "usage: mpiexec -n P nhood-bench --topo SPEC [--topo SPEC ...] [options]\n"
      "\n"
      "Times neighborhood collectives: the MPI library's own (algorithm 'mpi', on a\n"
      "distributed-graph communicator) against nhood's algorithms. Every algorithm's received\n"
      "bytes, MPI's own included, are first checked against the result MPI-4.1 defines.\n"
      "\n"
      "  --topo SPEC     topology, may be repeated:\n"
      "                    er:density=D[,seed=S]             directed Erdos-Renyi graph\n"
      "                    moore:d=D,r=R[,periodic=0|1]      Moore neighborhood on a D-dim grid\n"
      "                    vonneumann:d=D,r=R[,periodic=0|1] von Neumann neighborhood\n"
      "                    (either grid: ,graph=1 for adjacency lists, no Cartesian communicator)\n"
      "                    mtx:PATH                          SpMV halo of a Matrix Market file\n"
      "  --coll LIST     allgather,allgatherv,alltoall,alltoallv,alltoallw (default: all)\n"
      "  --sizes LIST    bytes per block (default 4,1024,65536); the v/w collectives send\n"
      "                  that or half of it per edge, chosen by a hash of the edge\n"
      "  --algo LIST     mpi and nhood algorithm names (direct, auto, ...; default mpi,direct;\n"
      "                  all: mpi, auto and every algorithm of nhood's registry); pmpi: MPI's\n"
      "                  own by its profiling names; isend: the exchange written by hand\n"
      "                  (MPI_Irecv, MPI_Isend, MPI_Waitall; blocking mode only)\n"
      "  --mode LIST     blocking, nonblocking, persistent, overlap (default blocking); overlap:\n"
      "                  each algorithm's non-blocking call alone (its latency t), then posted,\n"
      "                  followed by t of computation, then waited for (OSU's method): the\n"
      "                  note says how much of t the computation hid; NHOOD_PROGRESS=thread\n"
      "                  runs nhood's progress thread (MPI_THREAD_MULTIPLE is asked for);\n"
      "                  churn: communicators created, called N times (blocking) and freed,\n"
      "                  one row per --calls N: 'pmpi' and 'mpi' create MPI's graph\n"
      "                  communicator ('mpi' by the names nhood-run intercepts), nhood's\n"
      "                  algorithms a topology object (NHOOD_Topo_create_adjacent)\n"
      "  --calls LIST    churn: calls per communicator (default 1,3,10,100,1000)\n"
      "  --comms K       churn: timed communicators per algorithm and N (default %d)\n"
      "  --iters N       timed calls per algorithm and case (default %d)\n"
      "  --warmup W      untimed calls per algorithm before timing (default %d)\n"
      "  --theta N       combine: least common targets for partners to merge (default: the\n"
      "                  library's, or NHOOD_COMBINE_THETA)\n"
      "  --json FILE     also write one JSON object per result line to FILE (truncated)\n"
      "  --calibrate OPTS\n"
      "                  first run nhood-calibrate with OPTS (its options, separated by spaces,\n"
      "                  e.g. \"--out P --sim-model M\") in this launch, so that what it measures\n"
      "                  and what the cases measure come from one run of the processes\n"
      "  --sim-reference BASE\n"
      "                  time nhood-calibrate's single calls in turns with each blocking case's\n"
      "                  algorithms, fit nhood-sim's model to them (noise, skew and Gcopy from\n"
      "                  the model file BASE, e.g. --calibrate's --sim-model) and write it to\n"
      "                  BASE.N for the Nth case (a row 'sim-reference' names it): a model from\n"
      "                  the same seconds as the calls it is to predict\n"
      "  --help          this text\n"
      "\n"
      "Latencies are per call in microseconds: a call's latency is its slowest rank's time, and\n"
      "the table gives its median, min and max over calls. Rows with coll 'create' time topology creation, rows with\n"
      "coll 'sched_build' the persistent init of each nhood algorithm.\n",
      DEFAULT_COMMS, DEFAULT_ITERS, DEFAULT_WARMUP);
}

/* Looks name up in a table of names; returns its index or -1. */
static int find_name(const char *name, const char *const *table, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(name, table[i]) == 0) return i;
  return -1;
}

/* Appends the index of item in names[n] (a `what` of the option) to list[*count]: 0, or 1
 * with a message for a name that is unknown or already listed. */
static int append_name(const char *option, const char *what, const char *item, const char *const *names, int n,
                       int *list, int *count, char *err, size_t errlen) {
  int k = find_name(item, names, n);
  for (int i = 0; k >= 0 && i < *count; i++) k = list[i] == k ? -1 : k;
  if (k < 0) {
    snprintf(err, errlen, "%s: unknown or repeated %s '%s'", option, what, item);
    return 1;
  }
  list[(*count)++] = k;
  return 0;
}

static char *xstrdup(const char *s) { return strcpy(xmalloc(strlen(s) + 1), s); }

/* Appends an algorithm name unless it is listed already. */
static void append_algo(const char *name, options *opt) {
  for (int a = 0; a < opt->nalgos; a++)
    if (strcmp(opt->algos[a], name) == 0) return;
  opt->algos = xrealloc(opt->algos, (size_t)(opt->nalgos + 1) * sizeof(char *));
  opt->algos[opt->nalgos++] = xstrdup(name);
}

/* Appends the comma-separated items of one option value to its list. */
static int parse_list(const char *option, const char *value, options *opt, char *err, size_t errlen) {
  int rc = 1;
  char *copy = xstrdup(value);
  for (char *item = strtok(copy, ","); item != NULL; item = strtok(NULL, ",")) {
    if (strcmp(option, "--coll") == 0) {
      if (append_name(option, "collective", item, coll_names, NCOLLS, opt->colls, &opt->ncolls, err, errlen) != 0)
        goto cleanup;
    } else if (strcmp(option, "--mode") == 0) {
      if (append_name(option, "mode", item, mode_names, NMODES, opt->modes, &opt->nmodes, err, errlen) != 0)
        goto cleanup;
    } else if (strcmp(option, "--calls") == 0) {
      int calls;
      if (cli_parse_int(option, item, 1, &calls, err, errlen) != 0) goto cleanup;
      opt->calls = xrealloc(opt->calls, (size_t)(opt->ncalls + 1) * sizeof(int));
      opt->calls[opt->ncalls++] = calls;
    } else if (strcmp(option, "--sizes") == 0) {
      int size;
      if (cli_parse_int(option, item, 0, &size, err, errlen) != 0) goto cleanup;
      opt->sizes = xrealloc(opt->sizes, (size_t)(opt->nsizes + 1) * sizeof(int));
      opt->sizes[opt->nsizes++] = size;
    } else if (strcmp(item, "all") == 0) { /* MPI's own, auto and nhood's registry */
      int count = 0;
      const char *name = NULL;
      append_algo("mpi", opt);
      append_algo("auto", opt);
      NHOOD_Algorithm_count(&count);
      for (int k = 0; k < count; k++)
        if (NHOOD_Algorithm_get(k, &name, NULL) == MPI_SUCCESS && strcmp(name, "mpi") != 0) append_algo(name, opt);
    } else { /* --algo: any name, nhood decides which it knows */
      for (int a = 0; a < opt->nalgos; a++)
        if (strcmp(opt->algos[a], item) == 0) {
          snprintf(err, errlen, "--algo: '%s' given twice", item);
          goto cleanup;
        }
      append_algo(item, opt);
    }
  }
  rc = 0;
cleanup:
  free(copy);
  return rc;
}

void free_options(options *opt) {
  for (int a = 0; a < opt->nalgos; a++) free(opt->algos[a]);
  free(opt->algos);
  free(opt->sizes);
  free(opt->calls);
  free(opt->topos);
  memset(opt, 0, sizeof *opt);
}

/* Fills in the defaults of the lists that were not given. */
static int apply_defaults(options *opt, char *err, size_t errlen) {
  if (opt->ncolls == 0)
    for (int c = 0; c < NCOLLS; c++) opt->colls[opt->ncolls++] = c;
  if (opt->nmodes == 0) opt->modes[opt->nmodes++] = MODE_BLOCKING;
  if (opt->nsizes == 0 && parse_list("--sizes", "4,1024,65536", opt, err, errlen) != 0) return 1;
  if (opt->nalgos == 0 && parse_list("--algo", "mpi,direct", opt, err, errlen) != 0) return 1;
  if (opt->ncalls == 0 && parse_list("--calls", "1,3,10,100,1000", opt, err, errlen) != 0) return 1;
  return 0;
}

int parse_options(int argc, char **argv, options *opt, char *err, size_t errlen) {
  memset(opt, 0, sizeof *opt);
  opt->iters = DEFAULT_ITERS;
  opt->warmup = DEFAULT_WARMUP;
  opt->comms = DEFAULT_COMMS;
  opt->topos = xmalloc((size_t)argc * sizeof(char *));
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      opt->help = 1;
      return 0;
    }
    static const char *const with_value[] = {"--topo",  "--coll",      "--sizes",        "--algo", "--mode",
                                             "--iters", "--warmup",    "--theta",        "--json", "--calls",
                                             "--comms", "--calibrate", "--sim-reference"};
    const char *name, *value;
    if (cli_option_with_value(argc, argv, &i, with_value, sizeof with_value / sizeof with_value[0], &name, &value, err,
                              errlen) != 0)
      return 1;
    if (strcmp(name, "--topo") == 0)
      opt->topos[opt->ntopos++] = value;
    else if (strcmp(name, "--iters") == 0) {
      if (cli_parse_int(name, value, 1, &opt->iters, err, errlen) != 0) return 1;
    } else if (strcmp(name, "--warmup") == 0) {
      if (cli_parse_int(name, value, 0, &opt->warmup, err, errlen) != 0) return 1;
    } else if (strcmp(name, "--comms") == 0) {
      if (cli_parse_int(name, value, 1, &opt->comms, err, errlen) != 0) return 1;
    } else if (strcmp(name, "--theta") == 0) {
      if (cli_parse_int(name, value, 1, &opt->theta, err, errlen) != 0) return 1;
    } else if (strcmp(name, "--json") == 0)
      opt->json_path = value;
    else if (strcmp(name, "--calibrate") == 0)
      opt->calibrate = value;
    else if (strcmp(name, "--sim-reference") == 0)
      opt->sim_reference = value;
    else if (parse_list(name, value, opt, err, errlen) != 0)
      return 1;
  }
  if (opt->ntopos == 0) {
    snprintf(err, errlen, "no --topo given (try --help)");
    return 1;
  }
  return apply_defaults(opt, err, errlen);
}
