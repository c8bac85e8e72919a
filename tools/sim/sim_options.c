/* nhood-sim's options (sim_options.h). */
#include "sim_options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "selection/select.h"
#include "topology/topology.h"

const nhood_coll_kind supported_colls[NCOLLS] = {NHOOD_ALLGATHER, NHOOD_ALLGATHERV, NHOOD_ALLTOALL, NHOOD_ALLTOALLV,
                                                 NHOOD_ALLTOALLW};

/* The algorithms nhood-sim runs, "direct, combine, ...": the library's table without "mpi"
 * (table order; "auto" is not in the table). */
static const char *accepted_algos(void) {
  static char list[256];
  if (list[0] == '\0')
    for (int k = 0; k < nhood_algorithm_count(); k++) {
      const nhood_algorithm *alg = nhood_algorithm_at(k);
      if (!nhood_algorithm_has_schedule(alg)) continue;
      if (list[0] != '\0') strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, alg->name, sizeof list - strlen(list) - 1);
    }
  return list;
}

void print_usage(FILE *out) {
  fprintf(out,
          "usage: nhood-sim --ranks P --topo SPEC [--topo SPEC ...] [options]\n"
          "\n"
          "Builds the schedules of nhood's algorithms for P virtual ranks in this one process,\n"
          "runs them with the library's engine to check that every byte arrives where MPI-4.1\n"
          "puts it, and predicts their latency with a LogGP model. No MPI launcher is needed.\n"
          "\n"
          "  --ranks P        number of virtual ranks\n"
          "  --topo SPEC      topology, may be repeated:\n"
          "                     er:density=D[,seed=S]             directed Erdos-Renyi graph\n"
          "                     moore:d=D,r=R[,periodic=0|1]      Moore neighborhood on a D-dim grid\n"
          "                     vonneumann:d=D,r=R[,periodic=0|1] von Neumann neighborhood\n"
          "                     (either grid: ,graph=1 for adjacency lists, as codes pass stencils to\n"
          "                     MPI_Dist_graph_create_adjacent; the isomorphic algorithms then run\n"
          "                     on the grid the library finds under the graph)\n"
          "                     mtx:PATH                          SpMV halo of a Matrix Market file\n"
          "                     rmat:scale=S[,ef=E,seed=S,scramble=0|1]\n"
          "                                                       a Graph500 R-MAT graph's SpMV halo\n"
          "  --coll LIST      allgather,allgatherv,alltoall,alltoallv,alltoallw (default: all five;\n"
          "                   all but alltoallw with --algo combine, whose alltoallw needs MPI)\n"
          "  --sizes LIST     bytes per block (default 4; --bytes is an alias); the v and w\n"
          "                   collectives send that or half of it per edge (alltoallv/w) or per\n"
          "                   sender (allgatherv), by a hash\n"
          "  --algo LIST      nhood algorithms (default direct):\n"
          "                     %s\n"
          "                   all: every one of them; applicable: every one of them that makes\n"
          "                   its own schedule for the topology and collective on every rank\n"
          "                   (the others are left out, named on a line of their own). Where a\n"
          "                   named one does not apply its fallback runs: the row ends in \"ran\n"
          "                   NAME\" and JSON's algo_resolved names it. Not auto (it needs MPI to\n"
          "                   agree on a choice; nhood-info shows its decision table), nor mpi\n"
          "                   (the MPI library's own collective); nhood-info --algorithms lists\n"
          "                   what each does and where it applies\n"
          "  --theta N        combining threshold handed to algorithms with a Phase 1 (default %d)\n"
          "  --model M        loggp:preset=ib-edr|shm, or loggp:L=..,o=..,g=..,G=..[,Gcopy=..] in\n"
          "                   microseconds and microseconds per byte (default %s); O=.. (per byte\n"
          "                   at the sender's CPU, LogGOPS's O: shared memory's copy in); with\n"
          "                   --ranks-per-node also node_L, node_o, node_g, node_G, node_O (within\n"
          "                   a node) and nic_o, nic_G (per message and byte at each node's network\n"
          "                   interface), which a preset sets; ocopy=.. (per local copy beyond its\n"
          "                   bytes); round=.. (per round with messages) and\n"
          "                   noise=Q0/../Q14 (a process's delay per round, its quantiles at 0, 0.1,\n"
          "                   .., 0.9, 0.95, 0.99, 0.999, 0.9999, 1), skew=.. (the same for a call's\n"
          "                   first round).\n"
          "                   @FILE: the model on FILE's first line not starting with '#' (what\n"
          "                   nhood-calibrate --sim-model writes)\n"
          "  --noise-from FILE\n"
          "                   the round cost, ocopy, oself and noise (noise0 too) of the model in FILE\n"
          "                   (a --model @FILE file), over --model's other parameters: a preset's\n"
          "                   network with the software costs and noise nhood-calibrate measured\n"
          "                   (not its skew: a program's processes enter a call as the program\n"
          "                   makes them)\n"
          "  --seeds N        draw the model's noise N times (seeds 1..N): pred_us is the median,\n"
          "                   and the row gives the 10th-90th percentile band (default: no noise)\n"
          "  --per-entry B    alltoallv and alltoallw on mtx: and rmat: move the halo's own sizes,\n"
          "                   B bytes per entry (8: doubles), instead of --sizes' bytes per edge\n"
          "  --ranks-per-node K\n"
          "                   rank r is on node r / K: messages within a node are priced with\n"
          "                   node_*, messages between nodes queue at both nodes' interfaces\n"
          "                   (default: one level, every message priced with L, o, g, G)\n"
          "  --mode M         blocking (default): a call of a v collective whose algorithm forwards\n"
          "                   blocks includes the size pass that tells forwarders their sizes;\n"
          "                   persistent: a call is a persistent request's start, the size pass\n"
          "                   ran once at init (its time is shown apart)\n"
          "  --json FILE      also write one JSON object per case to FILE (truncated)\n"
          "  --goal PREFIX    also write each case's schedules as a GOAL schedule, LogGOPSim's\n"
          "                   input, to PREFIX-N.goal (N counts the cases from 1; the JSON's goal)\n"
          "  --no-verify      skip the execution check (predictions only; for sizes whose buffers\n"
          "                   do not fit in memory)\n"
          "  --bound          before each call's rows, a lower bound on any schedule's time under\n"
          "                   the model: the busiest rank's own bytes, the busiest interface's\n"
          "                   bytes (tools/sim/sim_bound.h)\n"
          "  --help           this text\n"
          "\n"
          "Exit status: 0 when every case was built, verified and predicted; 1 when a case failed;\n"
          "2 for a usage error.\n",
          accepted_algos(), DEFAULT_THETA, DEFAULT_MODEL);
}

static int parse_coll(const char *item, options *opt, char *err, size_t errlen) {
  for (size_t c = 0; c < NCOLLS; c++) {
    if (strcmp(item, nhood_coll_names[supported_colls[c]]) != 0) continue;
    for (int k = 0; k < opt->ncolls; k++)
      if (opt->colls[k] == supported_colls[c]) {
        snprintf(err, errlen, "--coll: '%s' given twice", item);
        return 1;
      }
    opt->colls[opt->ncolls++] = supported_colls[c];
    return 0;
  }
  snprintf(err, errlen,
           "--coll: unknown collective '%s' (expected allgather, allgatherv, "
           "alltoall, alltoallv, alltoallw)",
           item);
  return 1;
}

/* Appends an algorithm of the table unless it is listed already. conditional: from
 * "applicable" (runs only where it applies); a name given otherwise runs everywhere. */
static int add_algo(const char *name, int conditional, options *opt, char *err, size_t errlen) {
  for (int k = 0; k < opt->nalgos; k++)
    if (strcmp(opt->algos[k], name) == 0) {
      opt->conditional[k] = opt->conditional[k] && conditional;
      return 0;
    }
  if (opt->nalgos == MAX_ALGOS) {
    snprintf(err, errlen, "--algo: more than %d algorithms", MAX_ALGOS);
    return 1;
  }
  opt->conditional[opt->nalgos] = conditional;
  snprintf(opt->algos[opt->nalgos++], NHOOD_ALGORITHM_NAME_MAX, "%s", name);
  return 0;
}

/* Algorithm names come from the library's table, so new algorithms need no change here:
 * "all" is every entry nhood-sim can run, "applicable" those of them that apply to each
 * topology and collective. "auto" and "mpi" are refused with the reason: auto decides
 * collectively, over MPI (at the first call, every process's predictions are reduced), and
 * mpi is MPI's own collective. */
static int parse_algo(const char *item, options *opt, char *err, size_t errlen) {
  if (strcmp(item, "all") == 0 || strcmp(item, "applicable") == 0) {
    for (int k = 0; k < nhood_algorithm_count(); k++)
      if (nhood_algorithm_has_schedule(nhood_algorithm_at(k)) &&
          add_algo(nhood_algorithm_at(k)->name, strcmp(item, "applicable") == 0, opt, err, errlen) != 0)
        return 1;
    return 0;
  }
  const nhood_algorithm *alg = nhood_algorithm_by_name(item);
  if (alg == NULL || !nhood_algorithm_has_schedule(alg)) {
    int refused = alg != NULL || strcmp(item, "auto") == 0; /* mpi or auto, rather than a typo */
    snprintf(err, errlen,
             "--algo: %s '%s' (nhood-sim runs: %s; auto needs MPI to agree on a choice: see nhood-info for "
             "auto's decision table; mpi is the MPI library's own collective, whose messages are direct's)",
             refused ? "cannot simulate" : "unknown algorithm", item, accepted_algos());
    return 1;
  }
  for (int k = 0; k < opt->nalgos; k++)
    if (opt->named[k] && strcmp(opt->algos[k], item) == 0) {
      snprintf(err, errlen, "--algo: '%s' given twice", item);
      return 1;
    }
  if (add_algo(item, 0, opt, err, errlen) != 0) return 1;
  for (int k = 0; k < opt->nalgos; k++) opt->named[k] |= strcmp(opt->algos[k], item) == 0;
  return 0;
}

static int parse_size(const char *item, options *opt, char *err, size_t errlen) {
  if (opt->nsizes == MAX_SIZES) {
    snprintf(err, errlen, "--sizes: more than %d sizes", MAX_SIZES);
    return 1;
  }
  return cli_parse_int("--sizes", item, 0, &opt->sizes[opt->nsizes++], err, errlen);
}

/* Hands each comma-separated item of a list option to its parser. */
static int parse_list(const char *value, options *opt, int (*parse_item)(const char *, options *, char *, size_t),
                      char *err, size_t errlen) {
  char copy[1024];
  if (strlen(value) >= sizeof copy) {
    snprintf(err, errlen, "list '%.40s...' is too long", value);
    return 1;
  }
  strcpy(copy, value);
  for (char *item = strtok(copy, ","); item != NULL; item = strtok(NULL, ","))
    if (parse_item(item, opt, err, errlen) != 0) return 1;
  return 0;
}

/* --noise-from FILE: the round cost, the costs of a local copy and of a message to oneself
 * (oself; its bytes' rate is the model's, as Gcopy) and the noise (with its zero, noise0) of
 * FILE's model
 * replace the model's: the machine's software and noise. Not its skew: how far apart
 * processes enter a call is the program's (nhood-calibrate measures it after a barrier, for
 * calls timed as nhood-bench times them, which --model @FILE takes). */
static int apply_noise_from(options *opt, char *err, size_t errlen) {
  char text[sizeof opt->model_text];
  loggp_params from;
  if (loggp_read_model_file("--noise-from", opt->noise_from, text, sizeof text, err, errlen) != 0 ||
      loggp_parse(text, &from, err, errlen) != 0)
    return 1;
  opt->model.round = from.round;
  opt->model.ocopy = from.ocopy;
  opt->model.oself = from.oself;
  memcpy(opt->model.noise, from.noise, sizeof from.noise);
  opt->model.noise0 = from.noise0; /* where the noise's delays start */
  return 0;
}

static int apply_defaults(options *opt, char *err, size_t errlen) {
  if (opt->nranks == 0) {
    snprintf(err, errlen, "no --ranks given (try --help)");
    return 1;
  }
  if (opt->ntopos == 0) {
    snprintf(err, errlen, "no --topo given (try --help)");
    return 1;
  }
  if (opt->nsizes == 0) opt->sizes[opt->nsizes++] = 4;
  if (opt->nalgos == 0 && parse_algo("direct", opt, err, errlen) != 0) return 1;
  if (opt->ncolls == 0)
    for (size_t c = 0; c < NCOLLS; c++) opt->colls[opt->ncolls++] = supported_colls[c];
  opt->algo_width = ALGO_WIDTH;
  for (int a = 0; a < opt->nalgos; a++)
    if ((int)strlen(opt->algos[a]) > opt->algo_width) opt->algo_width = (int)strlen(opt->algos[a]);
  if (opt->model_spec[0] == '@') {
    if (loggp_read_model_file("--model", opt->model_spec + 1, opt->model_text, sizeof opt->model_text, err, errlen) !=
        0)
      return 1;
    opt->model_spec = opt->model_text;
  }
  if (loggp_parse(opt->model_spec, &opt->model, err, errlen) != 0) return 1;
  if (opt->noise_from != NULL && apply_noise_from(opt, err, errlen) != 0) return 1;
  opt->model.ranks_per_node = opt->ranks_per_node;
  return 0;
}

/* Options as "--name value" or "--name=value". Returns 0, or 1 with a message in err. */
int parse_options(int argc, char **argv, options *opt, char *err, size_t errlen) {
  memset(opt, 0, sizeof *opt);
  opt->theta = DEFAULT_THETA;
  opt->model_spec = DEFAULT_MODEL;
  opt->verify = 1;
  opt->topos = malloc((size_t)argc * sizeof *opt->topos);
  if (opt->topos == NULL) {
    snprintf(err, errlen, "out of memory");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      opt->help = 1;
      return 0;
    }
    if (strcmp(arg, "--no-verify") == 0) {
      opt->verify = 0;
      continue;
    }
    if (strcmp(arg, "--bound") == 0) {
      opt->bound = 1;
      continue;
    }
    static const char *const with_value[] = {"--ranks", "--topo",  "--coll",  "--sizes",          "--bytes",
                                             "--algo",  "--theta", "--model", "--ranks-per-node", "--per-entry",
                                             "--json",  "--mode",  "--goal",  "--seeds",          "--noise-from"};
    const char *name, *value;
    if (cli_option_with_value(argc, argv, &i, with_value, sizeof with_value / sizeof with_value[0], &name, &value, err,
                              errlen) != 0)
      return 1;
    int rc = 0;
    if (strcmp(name, "--ranks") == 0)
      rc = cli_parse_int(name, value, 1, &opt->nranks, err, errlen);
    else if (strcmp(name, "--topo") == 0)
      opt->topos[opt->ntopos++] = value;
    else if (strcmp(name, "--coll") == 0)
      rc = parse_list(value, opt, parse_coll, err, errlen);
    else if (strcmp(name, "--sizes") == 0 || strcmp(name, "--bytes") == 0)
      rc = parse_list(value, opt, parse_size, err, errlen);
    else if (strcmp(name, "--algo") == 0)
      rc = parse_list(value, opt, parse_algo, err, errlen);
    else if (strcmp(name, "--theta") == 0)
      rc = cli_parse_int(name, value, 1, &opt->theta, err, errlen);
    else if (strcmp(name, "--model") == 0)
      opt->model_spec = value;
    else if (strcmp(name, "--ranks-per-node") == 0)
      rc = cli_parse_int(name, value, 1, &opt->ranks_per_node, err, errlen);
    else if (strcmp(name, "--per-entry") == 0)
      rc = cli_parse_int(name, value, 1, &opt->per_entry, err, errlen);
    else if (strcmp(name, "--mode") == 0)
      rc = cli_parse_mode(name, value, &opt->persistent, err, errlen);
    else if (strcmp(name, "--goal") == 0)
      opt->goal_prefix = value;
    else if (strcmp(name, "--seeds") == 0)
      rc = cli_parse_int(name, value, 1, &opt->seeds, err, errlen);
    else if (strcmp(name, "--noise-from") == 0)
      opt->noise_from = value;
    else
      opt->json_path = value;
    if (rc != 0) return 1;
  }
  return apply_defaults(opt, err, errlen);
}
