/*
 * nhood-info: what "auto" would choose, without running anything. Prints the algorithms, the
 * cost-model parameters in force and, for each topology SPEC (on P virtual ranks) and
 * collective, the predicted time of every algorithm at each block size and the choice.
 *
 *   nhood-info [--ranks P] [--topo SPEC ...] [--coll LIST] [--sizes 1,4,...]
 *              [--params FILE | --model loggp:preset=NAME | loggp:L=..,o=..,g=..,G=..]
 *              [--theta N] [--json FILE]
 *   nhood-info --algorithms [--ranks P] [--topo SPEC ...] [--coll LIST] [--theta N]
 *
 * --algorithms prints the registry instead (src/selection/select.c: every algorithm's name,
 * what it does and what runs where it does not apply) and, for each --topo given, where each
 * algorithm applies per collective: on all P virtual ranks' topologies, as the library needs.
 *
 * The decision is the library's own (selection/select.h): every virtual rank predicts its
 * own schedules (for combine, after Phase 1 on all ranks), the maximum over ranks is taken,
 * and the cheapest algorithm wins, as the allreduce at the first "auto" call does. No MPI_Init.
 */
#include <nhood.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loggp.h"
#include "common/nodes.h"
#include "sim_phase1.h"
#include "sim_grid.h"
#include "selection/cold.h"
#include "selection/select.h"
#include "sim_topos.h"
#include "topology/topology.h"
#include "topospec.h"

#define EXIT_USAGE 2
#define MAX_SIZES 64
#define MAX_TOPOS 16

typedef struct options {
  int ranks, theta;
  int ranks_per_node; /* --ranks-per-node; 0: one node (no two-level model, node does not apply) */
  int ntopos;
  const char *topos[MAX_TOPOS];
  int ncolls;
  nhood_coll_kind colls[NHOOD_NCOLLS];
  int nsizes;
  double sizes[MAX_SIZES];
  nhood_cost_params params;
  char params_source[300];
  const char *json_path;
  int algorithms;  /* --algorithms */
  int colls_given; /* --coll was given */
  int persistent;  /* --mode persistent: the table of a persistent request's starts */
} options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: nhood-info [--ranks P] [--topo SPEC ...] [--coll LIST] [--sizes LIST]\n"
          "                  [--params FILE | --model M] [--theta N] [--mode M] [--json FILE]\n"
          "       nhood-info --algorithms [--ranks P] [--topo SPEC ...] [--coll LIST] [--theta N]\n"
          "\n"
          "Prints nhood's algorithms, the cost-model parameters and, per topology and collective,\n"
          "every algorithm's predicted time (us, slowest rank) at each block size and the choice of\n"
          "\"auto\" -- the library's own decision, computed for P virtual ranks without MPI.\n"
          "\n"
          "  --ranks P      virtual ranks (default 32)\n"
          "  --ranks-per-node K  nodes of K consecutive ranks: the two-level model (on-node and network\n"
          "                 messages, each node's network interface shared) and the node algorithm\n"
          "  --topo SPEC    er:density=D[,seed=S] | moore:d=D,r=R[,periodic=0|1] |\n"
          "                 vonneumann:d=D,r=R[,periodic=0|1] | mtx:PATH (default moore:d=2,r=2);\n"
          "                 ,graph=1 on a grid: the stencil as adjacency lists\n"
          "  --coll LIST    allgather,allgatherv,alltoall,alltoallv,alltoallw,reduce,scatter_reduce\n"
          "                 (default allgather)\n"
          "  --sizes LIST   bytes per block (default 1,4,16,...,1048576)\n"
          "  --params FILE  parameters in NHOOD_PARAMS format (default: NHOOD_PARAMS, else built-in)\n"
          "  --model M      loggp:preset=ib-edr|shm or loggp:L=..,o=..,g=..,G=..[,Gcopy=..]\n"
          "  --theta N      combining threshold for Phase 1 (default 1, the library's)\n"
          "  --mode M       blocking (default; nonblocking prices the same) or persistent: a\n"
          "                 persistent request's starts, a v collective's size pass run at init\n"
          "  --json FILE    one JSON line per (topology, collective, size, algorithm)\n"
          "  --algorithms   instead: nhood's algorithms (its registry), each with what it does and\n"
          "                 what runs where it does not apply; with --topo, for each collective\n"
          "                 (default: all seven), whether each applies on all P ranks' topologies\n"
          "                 (combine: after Phase 1), else the reason (the first such rank's)\n");
}

static int parse_sizes(const char *value, options *opt, char *err, size_t errlen) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", value);
  opt->nsizes = 0;
  for (char *item = strtok(copy, ","); item != NULL; item = strtok(NULL, ",")) {
    int v;
    if (opt->nsizes == MAX_SIZES) {
      snprintf(err, errlen, "--sizes: at most %d sizes", MAX_SIZES);
      return 1;
    }
    if (cli_parse_int("--sizes", item, 0, &v, err, errlen) != 0) return 1;
    opt->sizes[opt->nsizes++] = v;
  }
  if (opt->nsizes == 0) {
    snprintf(err, errlen, "--sizes: empty list");
    return 1;
  }
  return 0;
}

static int parse_colls(const char *value, options *opt, char *err, size_t errlen) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", value);
  opt->ncolls = 0;
  for (char *item = strtok(copy, ","); item != NULL; item = strtok(NULL, ",")) {
    int found = -1;
    for (int k = 0; k < NHOOD_NCOLLS; k++)
      if (strcmp(item, nhood_coll_names[k]) == 0) found = k;
    if (found < 0) {
      snprintf(err, errlen, "--coll: unknown collective '%s'", item);
      return 1;
    }
    opt->colls[opt->ncolls++] = (nhood_coll_kind)found;
  }
  return 0;
}

static int parse_options(int argc, char **argv, options *opt, char *err, size_t errlen) {
  static const char *const with_value[] = {"--ranks", "--topo",  "--coll", "--sizes",          "--params",
                                           "--model", "--theta", "--json", "--ranks-per-node", "--mode"};
  const nhood_cost_params *active;
  const char *source;
  opt->ranks = 32;
  opt->theta = 1;
  opt->ncolls = 1;
  opt->colls[0] = NHOOD_ALLGATHER;
  for (int k = 0; k <= 10; k++) opt->sizes[opt->nsizes++] = ldexp(1, 2 * k);
  if (nhood_cost_params_active(&active, &source) != MPI_SUCCESS) {
    NHOOD_Error_message(err, NULL);
    return 1;
  }
  opt->params = *active;
  snprintf(opt->params_source, sizeof opt->params_source, "%s", source);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      exit(0);
    }
    if (strcmp(argv[i], "--algorithms") == 0) {
      opt->algorithms = 1;
      continue;
    }
    const char *name, *value;
    if (cli_option_with_value(argc, argv, &i, with_value, sizeof with_value / sizeof *with_value, &name, &value, err,
                              errlen) != 0)
      return 1;
    int rc = 0;
    if (strcmp(name, "--ranks") == 0)
      rc = cli_parse_int(name, value, 1, &opt->ranks, err, errlen);
    else if (strcmp(name, "--ranks-per-node") == 0)
      rc = cli_parse_int(name, value, 1, &opt->ranks_per_node, err, errlen);
    else if (strcmp(name, "--theta") == 0)
      rc = cli_parse_int(name, value, 1, &opt->theta, err, errlen);
    else if (strcmp(name, "--topo") == 0) {
      if (opt->ntopos == MAX_TOPOS) {
        snprintf(err, errlen, "--topo: at most %d", MAX_TOPOS);
        return 1;
      }
      opt->topos[opt->ntopos++] = value;
    } else if (strcmp(name, "--coll") == 0) {
      rc = parse_colls(value, opt, err, errlen);
      opt->colls_given = 1;
    } else if (strcmp(name, "--sizes") == 0)
      rc = parse_sizes(value, opt, err, errlen);
    else if (strcmp(name, "--params") == 0) {
      nhood_cost_params_default(&opt->params);
      rc = nhood_cost_params_read(value, &opt->params, err, errlen);
      snprintf(opt->params_source, sizeof opt->params_source, "%s", value);
    } else if (strcmp(name, "--model") == 0) {
      loggp_params m;
      rc = loggp_parse(value, &m, err, errlen);
      /* The eager limit and its cost come from the preset the spec names (none otherwise). */
      opt->params = (nhood_cost_params){.mpi_factor = 1, .setup = NHOOD_COST_SETUP}; /* no LogGP term */
      loggp_to_cost(&m, &opt->params);
      snprintf(opt->params_source, sizeof opt->params_source, "%s", value);
    } else if (strcmp(name, "--mode") == 0) {
      rc = cli_parse_mode(name, value, &opt->persistent, err, errlen);
    } else
      opt->json_path = value;
    if (rc != 0) return 1;
  }
  if (opt->algorithms && !opt->colls_given)
    for (opt->ncolls = 0; opt->ncolls < NHOOD_NCOLLS; opt->ncolls++) opt->colls[opt->ncolls] = opt->ncolls;
  if (opt->ntopos == 0 && !opt->algorithms) opt->topos[opt->ntopos++] = "moore:d=2,r=2";
  return 0;
}

/* ---- --algorithms ---------------------------------------------------------------------- */

/* text, the cursor at column `at`: its words, wrapped before column 100 onto lines indented
 * by `indent`. */
static void print_wrapped(const char *text, int at, int indent) {
  const int width = 100;
  int column = at, first = 1;
  while (*text != '\0') {
    int word = (int)strcspn(text, " ");
    if (!first && column + 1 + word > width) {
      printf("\n%*s", indent, "");
      column = indent;
    } else if (!first) {
      putchar(' ');
      column++;
    }
    printf("%.*s", word, text);
    column += word;
    first = 0;
    text += word;
    text += strspn(text, " ");
  }
  putchar('\n');
}

/* The name column: the longest name, "auto" included. */
static int name_width(void) {
  int w = (int)strlen("auto");
  for (int k = 0; k < nhood_algorithm_count(); k++)
    if ((int)strlen(nhood_algorithm_at(k)->name) > w) w = (int)strlen(nhood_algorithm_at(k)->name);
  return w;
}

/* The registry, in its order: each algorithm's name at column 2 (and nowhere else), what it
 * does and, where it has one, its fallback chain. */
static void print_registry(void) {
  int w = name_width(), column = 2 + w + 2;
  printf(
      "nhood's algorithms (the registry; NHOOD_Algorithm_get gives the same), in the order \"auto\"\n"
      "breaks ties in:\n");
  for (int k = 0; k < nhood_algorithm_count(); k++) {
    const nhood_algorithm *alg = nhood_algorithm_at(k);
    printf("  %-*s  ", w, alg->name);
    print_wrapped(alg->description, column, column);
    if (alg->fallback == NULL) continue;
    char chain[256] = "fallback where it does not apply:";
    const char *sep = " ";
    for (const nhood_algorithm *f = nhood_algorithm_by_name(alg->fallback); f != NULL;
         f = f->fallback ? nhood_algorithm_by_name(f->fallback) : NULL, sep = ", else ")
      snprintf(chain + strlen(chain), sizeof chain - strlen(chain), "%s%s", sep, f->name);
    printf("%*s", column, "");
    print_wrapped(chain, column, column);
  }
  printf("  %-*s  ", w, "auto");
  print_wrapped(
      "not an algorithm but the default request: the one the cost model predicts to be fastest for the "
      "call, among those that apply (nhood-info without --algorithms prints its decision table)",
      column, column);
}

/* Whether alg makes its own schedule for a call of `kind` on every rank: NULL if so, else the
 * reason of the first rank where not (*rank). The arguments read are those
 * NHOOD_Topo_algorithm_applies reads: the collective and the isomorphic-sizes assertion. */
static const char *unfit_somewhere(const nhood_algorithm *alg, int ranks, NHOOD_Topo *topos,
                                   nhood_grid_view *const *grid, nhood_coll_kind kind, int isomorphic_sizes,
                                   int *rank) {
  for (*rank = 0; *rank < ranks; (*rank)++) {
    nhood_coll_args a = {.kind = kind, .isomorphic_sizes = isomorphic_sizes};
    const char *why = nhood_algorithm_unfit(alg, sim_grid_topo_for(alg->name, topos[*rank], grid, *rank, &a), &a);
    if (why != NULL) return why;
  }
  return NULL;
}

/* Per collective, whether each algorithm applies on every rank's topology (combine's pattern
 * is attached already, by Phase 1 on all ranks); where not, what runs instead and why, on the
 * first rank where it does not (named when it is not rank 0). */
static void print_applicability(const options *opt, const char *topo, NHOOD_Topo *topos, nhood_grid_view *const *grid) {
  int w = name_width(), column = 2 + w + 2;
  for (int c = 0; c < opt->ncolls; c++) {
    nhood_coll_kind kind = opt->colls[c];
    printf("\n# %s, %d rank%s, %s: where each algorithm applies (on every rank)\n", topo, opt->ranks,
           cli_plural(opt->ranks), nhood_coll_names[kind]);
    for (int k = 0; k < nhood_algorithm_count(); k++) {
      const nhood_algorithm *alg = nhood_algorithm_at(k);
      int r, r_asserted;
      const char *why = unfit_somewhere(alg, opt->ranks, topos, grid, kind, 0, &r);
      printf("  %-*s  ", w, alg->name);
      if (why == NULL) {
        printf("applies\n");
        continue;
      }
      nhood_coll_args a = {.kind = kind};
      const nhood_algorithm *runs =
          nhood_algorithm_resolve(alg, why, sim_grid_topo_for(alg->name, topos[r], grid, r, &a), &a);
      int asserted = unfit_somewhere(alg, opt->ranks, topos, grid, kind, 1, &r_asserted) == NULL;
      char where[32] = "", text[NHOOD_MAX_ERROR_STRING + 256];
      if (r > 0) snprintf(where, sizeof where, "(rank %d) ", r);
      snprintf(text, sizeof text, "no%s, %s runs: %s%s",
               asserted ? " (yes with " NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES ")" : "", runs ? runs->name : "nothing",
               where, why);
      print_wrapped(text, column, column + 2);
    }
  }
}

static void print_header(const options *opt) {
  printf("nhood %d.%d.%d\n", NHOOD_VERSION_MAJOR, NHOOD_VERSION_MINOR, NHOOD_VERSION_PATCH);
  printf("algorithms: %s\n", nhood_algorithm_names());
  printf(
      "  (\"auto\" picks the cheapest predicted one; ties go to the earlier one; nhood-info --algorithms\n"
      "  says what each does and where it applies)\n");
  printf("cost model parameters (%s):\n", opt->params_source);
  printf("  L = %g us, o = %g us, g = %g us, G = %g us/B (%.3g GB/s), Gcopy = %g us/B, mpi_factor = %g\n",
         opt->params.L, opt->params.o, opt->params.g, opt->params.G, opt->params.G > 0 ? 1e-3 / opt->params.G : 0,
         opt->params.Gcopy, opt->params.mpi_factor);
  if (opt->params.rdv > 0 || opt->params.rdv_round > 0)
    printf(
        "  eager = %g B: a larger message costs rdv = %g us more at each end, and its round rdv_round = %g us "
        "once (rendezvous)\n",
        opt->params.eager, opt->params.rdv, opt->params.rdv_round);
  else
    printf("  no rendezvous cost (rdv = 0)\n");
}

/* The maximum over ranks of every rank's prediction (what the library's allreduce computes),
 * each node's network interface load summed over its ranks first where nodes are given. */
static int predict_all(const options *opt, NHOOD_Topo *topos, nhood_grid_view *const *grid, nhood_coll_kind kind,
                       double *costs, char *err, size_t errlen) {
  int nalg = nhood_algorithm_count(), rc = 1;
  size_t n = (size_t)nalg * NHOOD_SIZE_CLASSES;
  nhood_nodes nodes;
  nhood_nodes_blocks(&nodes, opt->ranks, opt->ranks_per_node > 0 ? opt->ranks_per_node : opt->ranks);
  const nhood_nodes *two_levels = opt->ranks_per_node > 0 ? &nodes : NULL;
  double *mine = malloc(2 * n * sizeof *mine), *node_costs = malloc(n * sizeof *node_costs);
  double *nic = calloc(4 * (size_t)nalg, sizeof *nic), *node_nic = calloc(4 * (size_t)nalg, sizeof *node_nic);
  if (!mine || !node_costs || !nic || !node_nic) {
    snprintf(err, errlen, "out of memory");
    goto cleanup;
  }
  for (size_t k = 0; k < n; k++) costs[k] = node_costs[k] = -INFINITY;
  for (int r = 0; r < opt->ranks; r++) {
    /* mine: the table of the mode asked for; mine + n: the other one */
    if (nhood_auto_costs(topos[r], grid && grid[r] ? grid[r]->topo : NULL, kind, 0, r, &opt->params, two_levels,
                         opt->persistent ? mine + n : mine, opt->persistent ? mine : mine + n,
                         two_levels ? nic : NULL) != MPI_SUCCESS) {
      NHOOD_Error_message(err, NULL);
      goto cleanup;
    }
    for (size_t k = 0; k < n; k++) node_costs[k] = mine[k] > node_costs[k] ? mine[k] : node_costs[k];
    for (int k = 0; two_levels && k < 4 * nalg; k++) node_nic[k] += nic[k];
    if (r + 1 == opt->ranks || nhood_node_of(&nodes, r + 1) != nhood_node_of(&nodes, r)) { /* the node's last rank */
      if (two_levels) nhood_auto_add_nic(&opt->params, node_nic, node_costs);
      for (size_t k = 0; k < n; k++) {
        costs[k] = node_costs[k] > costs[k] ? node_costs[k] : costs[k];
        node_costs[k] = -INFINITY;
      }
      memset(node_nic, 0, 4 * (size_t)nalg * sizeof *node_nic);
    }
  }
  rc = 0;
cleanup:
  free(mine);
  free(node_costs);
  free(nic);
  free(node_nic);
  return rc;
}

static void print_table(const options *opt, const char *topo, nhood_coll_kind kind, const double *costs, FILE *json) {
  int nalg = nhood_algorithm_count();
  printf("\n# %s, %d rank%s, %s%s: predicted us (slowest rank) per block size\n", topo, opt->ranks,
         cli_plural(opt->ranks), nhood_coll_names[kind], opt->persistent ? ", persistent request's start" : "");
  printf("%9s", "bytes");
  for (int k = 0; k < nalg; k++) printf(" %14s", nhood_algorithm_at(k)->name);
  printf("  auto\n");
  const nhood_algorithm *previous = NULL;
  for (int s = 0; s < opt->nsizes; s++) {
    int cls = nhood_size_class(opt->sizes[s]);
    const nhood_algorithm *choice = nhood_auto_choose(costs, cls, opt->params.margin);
    const nhood_algorithm *list[NHOOD_SHORTLIST_MAX];
    int nlist = nhood_auto_shortlist(costs, cls, opt->params.margin, list);
    printf("%9.0f", opt->sizes[s]);
    for (int k = 0; k < nalg; k++) {
      double c = costs[(size_t)k * NHOOD_SIZE_CLASSES + cls];
      if (isfinite(c))
        printf(" %14.2f", c);
      else
        printf(" %14s", "-");
      if (json && isfinite(c)) {
        fprintf(json, "{\"topo\":");
        cli_json_string(json, topo);
        fprintf(json,
                ",\"ranks\":%d,\"coll\":\"%s\",\"bytes\":%.0f,\"algo\":\"%s\",\"model_us\":%.4f,"
                "\"chosen\":%s,\"mode\":\"%s\",\"params\":",
                opt->ranks, nhood_coll_names[kind], opt->sizes[s], nhood_algorithm_at(k)->name, c,
                nhood_algorithm_at(k) == choice ? "true" : "false", opt->persistent ? "persistent" : "blocking");
        cli_json_string(json, opt->params_source);
        fprintf(json, "}\n");
      }
    }
    printf("  %s%s", choice->name, previous != NULL && previous != choice ? "   <- switch" : "");
    if (nlist > 1) { /* what a repeated call measures (selection/trial.h) */
      printf("   measures");
      for (int k = 0; k < nlist; k++) printf("%s %s", k ? "," : "", list[k]->name);
    }
    printf("\n");
    previous = choice;
  }
}

/* What a cold communicator of these topologies does through nhood-run (selection/cold.h): the
 * set-up and each size's largest gain per call, maxima over ranks as the library's allreduce
 * takes them, and the break-even call count. Blocking calls only: a persistent request takes
 * over at its init. */
static void print_cold(const options *opt, NHOOD_Topo *topos, nhood_coll_kind kind) {
  double setup = 0;
  printf(
      "# cold communicators through nhood-run (setup = %g allreduces): MPI's own until nhood's set-up "
      "pays back\n",
      opt->params.setup);
  printf("%9s %14s %14s %12s\n", "bytes", "set-up us", "gain us/call", "break-even");
  for (int s = 0; s < opt->nsizes; s++) {
    double gain = 0;
    for (int r = 0; r < opt->ranks; r++) {
      double mine_setup = 0, mine_gain = 0;
      nhood_cold_estimate(topos[r], r, opt->ranks, &opt->params, kind, opt->sizes[s], &mine_setup, &mine_gain);
      setup = fmax(setup, mine_setup);
      gain = fmax(gain, mine_gain);
    }
    long next = 0;
    int take_over = 0;
    nhood_cold_verdict(setup, gain, gain, 0, 0, &next, &take_over);
    printf("%9.0f %14.1f %14.3f ", opt->sizes[s], setup, gain);
    if (take_over)
      printf("%12ld   nhood from call %ld\n", next,
             nhood_cold_take_over_call(NHOOD_COLD_FIRST_CHECK, next, NHOOD_COLD_FIRST_CHECK));
    else
      printf("%12s   MPI's own: no schedule beats it\n", "never");
  }
}

/* What algorithms learn at first use (selection/registry.h), over the virtual ranks: Phase 1
 * of every pattern (without --ranks-per-node the ranks share one node, where the patterns
 * that need nodes do not apply) and the grid under a graph, searched once. */
typedef struct {
  nhood_learner base; /* first */
  const options *opt;
  NHOOD_Topo *topos;
  const loggp_params *model;
  nhood_grid_view ***grid;
  int grid_searched;
  char *err;
  size_t errlen;
} info_learner;

static int learn_pattern(nhood_learner *l, nhood_pattern_kind *kind) {
  info_learner *s = (info_learner *)l;
  phase1_stats p1;
  if ((kind->needs & NHOOD_PHASE1_NODES) && s->opt->ranks_per_node <= 0) return MPI_SUCCESS;
  return sim_phase1_run(kind, s->opt->ranks, s->topos, s->opt->theta, s->model, &p1, s->err, s->errlen) != 0
             ? MPI_ERR_OTHER
             : MPI_SUCCESS;
}

static int learn_grid(nhood_learner *l) {
  info_learner *s = (info_learner *)l;
  if (s->grid_searched) return MPI_SUCCESS;
  s->grid_searched = 1;
  return sim_grid_find(s->opt->ranks, s->topos, s->grid, s->err, s->errlen) != 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int run_topology(const options *opt, const char *text, FILE *json, char *err, size_t errlen) {
  topospec spec;
  sim_topos_stats stats;
  int rc = 1;
  size_t n = (size_t)nhood_algorithm_count() * NHOOD_SIZE_CLASSES;
  double *costs = malloc(n * sizeof *costs);
  NHOOD_Topo *topos = calloc((size_t)opt->ranks, sizeof *topos);
  nhood_grid_view **grid = NULL;
  if (topospec_parse(text, &spec, err, errlen) != 0) {
    free(costs);
    free(topos);
    return 1;
  }
  if (costs == NULL || topos == NULL) {
    snprintf(err, errlen, "out of memory for %d rank%s", opt->ranks, cli_plural(opt->ranks));
    goto cleanup;
  }
  if (sim_topos_create(&spec, opt->ranks, topos, &stats, err, errlen) != 0) goto cleanup;
  loggp_params model = {.L = opt->params.L,
                        .o = opt->params.o,
                        .g = opt->params.g,
                        .G = opt->params.G,
                        .Gcopy = opt->params.Gcopy,
                        .oself = opt->params.o,
                        .Gself = opt->params.Gcopy};
  model.ranks_per_node = opt->ranks_per_node;
  /* What every algorithm "auto" prices learns, as the library learns it at the first call. */
  info_learner l = {.base = {.pattern = learn_pattern, .grid = learn_grid},
                    .opt = opt,
                    .topos = topos,
                    .model = &model,
                    .grid = &grid,
                    .err = err,
                    .errlen = errlen};
  for (int k = 0; k < nhood_algorithm_count(); k++)
    if (nhood_algorithm_learn(nhood_algorithm_at(k), &l.base) != MPI_SUCCESS) goto cleanup;
  if (learn_grid(&l.base) != MPI_SUCCESS) goto cleanup; /* for the line below, where none asked */
  if (grid && grid[0]) {
    const nhood_topo *g = grid[0]->topo;
    printf("\n# %s, %d rank%s: a graph on a grid of", text, opt->ranks, cli_plural(opt->ranks));
    for (int d = 0; d < g->ndims; d++)
      printf("%s%d%s", d ? " x " : " ", g->dims[d], g->periods[d] ? " (periodic)" : "");
    printf(", %d offsets: the isomorphic algorithms apply\n", g->noffsets);
  }
  if (opt->algorithms) print_applicability(opt, text, topos, grid);
  for (int c = 0; c < opt->ncolls && !opt->algorithms; c++) {
    if (predict_all(opt, topos, grid, opt->colls[c], costs, err, errlen) != 0) goto cleanup;
    print_table(opt, text, opt->colls[c], costs, json);
    if (!opt->persistent) print_cold(opt, topos, opt->colls[c]);
  }
  rc = 0;
cleanup:
  for (int r = 0; topos != NULL && r < opt->ranks; r++)
    if (topos[r] != NHOOD_TOPO_NULL) NHOOD_Topo_free(&topos[r]);
  free(topos);
  free(costs);
  sim_grid_free(opt->ranks, grid);
  topospec_free(&spec);
  return rc;
}

int main(int argc, char **argv) {
  options opt = {0};
  char err[NHOOD_MAX_ERROR_STRING + 128];
  if (parse_options(argc, argv, &opt, err, sizeof err) != 0) {
    fprintf(stderr, "nhood-info: %s\n", err);
    usage(stderr);
    return EXIT_USAGE;
  }
  FILE *json = NULL;
  if (opt.json_path != NULL && (json = fopen(opt.json_path, "w")) == NULL) {
    fprintf(stderr, "nhood-info: cannot write %s\n", opt.json_path);
    return EXIT_USAGE;
  }
  if (opt.algorithms) {
    printf("nhood %d.%d.%d\n", NHOOD_VERSION_MAJOR, NHOOD_VERSION_MINOR, NHOOD_VERSION_PATCH);
    print_registry();
  } else
    print_header(&opt);
  int status = 0;
  for (int t = 0; t < opt.ntopos && status == 0; t++)
    if (run_topology(&opt, opt.topos[t], json, err, sizeof err) != 0) {
      fprintf(stderr, "nhood-info: %s: %s\n", opt.topos[t], err);
      status = EXIT_USAGE;
    }
  if (json != NULL) fclose(json);
  return status;
}
