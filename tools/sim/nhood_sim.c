/*
 * nhood-sim: the library's real schedule builders for P virtual ranks in one process (no
 * MPI_Init, no mpiexec). For every case it builds every rank's schedule, runs them all with
 * the library's engine over an in-process transport and checks that every byte lands where
 * MPI-4.1 puts it, and predicts the call's latency with a LogGP model.
 *
 *   nhood-sim --ranks P --topo SPEC [--topo SPEC ...]
 *       --coll allgather|allgatherv|alltoall|alltoallv|alltoallw[,...] --sizes B[,...]
 *       --algo direct[,...]|all|applicable [--theta 4]
 *       [--model loggp:preset=NAME | loggp:L=..,o=..,g=..,G=..] [--ranks-per-node K]
 *       [--mode blocking|persistent] [--json FILE] [--goal PREFIX] [--no-verify] [--bound]
 *
 * --bytes is an alias of --sizes (its name before nhood-bench's and nhood-info's spelling
 * became the one).
 *
 * Later tools script against the options and the JSON rows: keep both stable. docs/SIM.md
 * describes both and the model.
 */
#include <nhood.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "goal.h"
#include "loggp.h"
#include "pattern/kind.h"
#include "schedule/algorithms.h"
#include "selection/select.h"
#include "sim_bound.h"
#include "sim_call.h"
#include "sim_exec.h"
#include "sim_options.h"
#include "sim_phase1.h"
#include "sim_grid.h"
#include "sim_topos.h"
#include "topology/topology.h"
#include "topospec.h"

#define EXIT_CASE_FAILED 1
#define EXIT_USAGE 2
/* Room for one of the library's messages and some context. */
#define MESSAGE_LEN (NHOOD_MAX_ERROR_STRING + 128)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------------------------------- */
/* Topologies of all virtual ranks                                                        */
/* ------------------------------------------------------------------------------------- */

typedef struct topo_set {
  const topospec *spec;
  int nranks;
  NHOOD_Topo *topos;
  long long edges;     /* destinations other than MPI_PROC_NULL, over all ranks */
  long long neighbors; /* indegree + outdegree, over all ranks */
  int max_in, max_out;
  double build_s;
  /* Per --algo: whether its Phase 1 ran on these topologies, and what it cost. */
  int phase1_ran[MAX_ALGOS];
  phase1_stats phase1[MAX_ALGOS];
  /* The grid under graph topologies, for the isomorphic algorithms (sim_grid.h). */
  int grid_searched;
  nhood_grid_view **grid; /* per rank; NULL entries where none was found */
} topo_set;

static void topo_set_free(topo_set *ts) {
  for (int r = 0; ts->topos != NULL && r < ts->nranks; r++)
    if (ts->topos[r] != NHOOD_TOPO_NULL) NHOOD_Topo_free(&ts->topos[r]);
  free(ts->topos);
  ts->topos = NULL;
  sim_grid_free(ts->nranks, ts->grid);
  ts->grid = NULL;
}

/* One topology object per virtual rank (sim_topos.h). */
static int topo_set_init(topo_set *ts, const topospec *spec, int nranks, char *err, size_t errlen) {
  double t0 = now_s();
  sim_topos_stats stats;
  memset(ts, 0, sizeof *ts);
  ts->spec = spec;
  ts->nranks = nranks;
  ts->topos = calloc((size_t)nranks, sizeof *ts->topos);
  if (ts->topos == NULL) {
    snprintf(err, errlen, "out of memory for %d topology object%s", nranks, cli_plural(nranks));
    return 1;
  }
  if (sim_topos_create(spec, nranks, ts->topos, &stats, err, errlen) != 0) {
    topo_set_free(ts);
    return 1;
  }
  ts->edges = stats.edges;
  ts->neighbors = stats.neighbors;
  ts->max_in = stats.max_in;
  ts->max_out = stats.max_out;
  ts->build_s = now_s() - t0;
  return 0;
}

/* What an algorithm learns at first use (selection/registry.h), over the virtual ranks: its
 * pattern's Phase 1 (kept per algorithm of the options, with its statistics), the grid under
 * a graph (searched once, as the library searches it at its first call). */
typedef struct {
  nhood_learner base; /* first */
  topo_set *ts;
  const options *opt;
  int a;        /* the options' algorithm */
  int patterns; /* 0: no Phase 1 (a first, cheap look) */
  char *err;
  size_t errlen;
} sim_learner;

static int learn_pattern(nhood_learner *l, nhood_pattern_kind *kind) {
  sim_learner *s = (sim_learner *)l;
  if (!s->patterns || s->ts->phase1_ran[s->a]) return MPI_SUCCESS;
  double t0 = now_s();
  if (sim_phase1_run(kind, s->ts->nranks, s->ts->topos, s->opt->theta, &s->opt->model, &s->ts->phase1[s->a], s->err,
                     s->errlen) != 0)
    return MPI_ERR_OTHER;
  s->ts->phase1[s->a].wall_s = now_s() - t0;
  s->ts->phase1_ran[s->a] = 1;
  return MPI_SUCCESS;
}

static int learn_grid(nhood_learner *l) {
  sim_learner *s = (sim_learner *)l;
  if (s->ts->grid_searched) return MPI_SUCCESS;
  s->ts->grid_searched = 1;
  return sim_grid_find(s->ts->nranks, s->ts->topos, &s->ts->grid, s->err, s->errlen) != 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* 0, or 1 with a message in err. */
static int learn(const options *opt, topo_set *ts, int a, int patterns, char *err, size_t errlen) {
  sim_learner s = {.base = {.pattern = learn_pattern, .grid = learn_grid},
                   .ts = ts,
                   .opt = opt,
                   .a = a,
                   .patterns = patterns,
                   .err = err,
                   .errlen = errlen};
  return nhood_algorithm_learn(nhood_algorithm_by_name(opt->algos[a]), &s.base) != MPI_SUCCESS;
}

/* ------------------------------------------------------------------------------------- */
/* One case: build, verify, predict                                                       */
/* ------------------------------------------------------------------------------------- */

typedef struct case_row {
  const char *coll, *algo;
  const char *ran; /* the algorithm whose schedules were built (a fallback of algo where it does not
                    * apply); NULL when selection failed */
  int bytes;
  int built, predicted;
  double pred_us;
  double pass_us;        /* the size pass's predicted time; -1 where the call takes none */
  double p10_us, p90_us; /* --seeds: the band of pred_us over the seeds (pred_us their median) */
  double *samples;       /* --seeds: every seed's prediction, sorted (owned; NULL without) */
  int msgs_max, rounds_max;
  long long msgs_total;
  double build_us_per_nbr;
  int verified; /* 1 yes, 0 no, -1 not checked (--no-verify, or no memory) */
  double verify_s;
  double predict_s; /* the LogGP evaluation's wall time */
  phase1_stats phase1;
  char goal[512];          /* the GOAL file written (--goal); empty: none */
  char error[MESSAGE_LEN]; /* empty when all went well */
} case_row;

/* The sim moves bytes and prices bytes: a schedule with other datatypes would need MPI. */
static int check_byte_schedule(const nhood_sched *s, int r, char *err, size_t errlen) {
  for (int k = 0; k < s->nops; k++)
    if (s->ops[k].type != MPI_BYTE) {
      snprintf(err, errlen,
               "rank %d's schedule uses a datatype other than MPI_BYTE, which "
               "nhood-sim does not simulate",
               r);
      return 1;
    }
  return 0;
}

/* The schedules of one case: per rank the data schedule and, for combine's v collectives,
 * the size pass that runs before it (schedule/algorithms.h). */
typedef struct case_scheds {
  int nranks, nbuilt, npasses;
  nhood_sched *data, *pass;
  int **own_sizes; /* per rank: the pass's send buffer */
  void **pass_scratch;
} case_scheds;

static void case_scheds_free(case_scheds *cs) {
  for (int r = 0; r < cs->nbuilt; r++) nhood_sched_free(&cs->data[r]);
  for (int r = 0; r < cs->npasses; r++) {
    nhood_sched_free(&cs->pass[r]);
    free(cs->own_sizes[r]);
    free(cs->pass_scratch[r]);
  }
  free(cs->data);
  free(cs->pass);
  free(cs->own_sizes);
  free(cs->pass_scratch);
}

static int build_failed(case_row *row, int r, const char *what) {
  char message[NHOOD_MAX_ERROR_STRING];
  NHOOD_Error_message(message, NULL);
  snprintf(row->error, sizeof row->error, "rank %d: %s: %s", r, what, message);
  return 1;
}

/* The size pass: built for every rank, run in-process, its scratch kept for the data build. */
static int run_size_pass(const topo_set *ts, const sim_call *call, const nhood_algorithm *chosen, case_scheds *cs,
                         case_row *row) {
  int n = ts->nranks;
  cs->pass = calloc((size_t)n, sizeof *cs->pass);
  cs->own_sizes = calloc((size_t)n, sizeof *cs->own_sizes);
  cs->pass_scratch = calloc((size_t)n, sizeof *cs->pass_scratch);
  if (!cs->pass || !cs->own_sizes || !cs->pass_scratch) {
    snprintf(row->error, sizeof row->error, "out of memory for %d size pass%s", n, n == 1 ? "" : "es");
    return 1;
  }
  for (; cs->npasses < n; cs->npasses++) {
    int r = cs->npasses;
    if (nhood_algorithm_size_pass(chosen, ts->topos[r], &call->args[r], r, &cs->pass[r], &cs->own_sizes[r]) !=
        MPI_SUCCESS)
      return build_failed(row, r, "building the size pass");
    if (!(cs->pass_scratch[r] = malloc((size_t)cs->pass[r].scratch_bytes + 1))) {
      nhood_sched_free(&cs->pass[r]);
      free(cs->own_sizes[r]);
      snprintf(row->error, sizeof row->error, "out of memory for size pass scratch");
      return 1;
    }
  }
  static const char prefix[] = "size pass: ";
  if (sim_exec_run(n, cs->pass, (void *const *)cs->own_sizes, cs->pass_scratch, row->error + sizeof prefix - 1,
                   sizeof row->error - sizeof prefix + 1) != 0) {
    memcpy(row->error, prefix, sizeof prefix - 1);
    return 1;
  }
  return 0;
}

/* Builds every rank's schedule with the algorithm's own builder, timed as a whole (with the
 * size pass's build and in-process run, where there is one). */
static int build_schedules(const options *opt, const topo_set *ts, const sim_call *call, const char *algo,
                           case_scheds *cs, case_row *row) {
  const nhood_algorithm *chosen = NULL, *mine = NULL;
  for (int r = 0; r < ts->nranks; r++) {
    nhood_coll_args a = call->args[r];
    if (nhood_select(algo, sim_grid_topo_for(algo, ts->topos[r], ts->grid, r, &a), &a, &mine) != MPI_SUCCESS)
      return build_failed(row, r, "selecting");
    if (r == 0) chosen = mine;
    if (mine != chosen) { /* each process selects on its own: they must agree */
      snprintf(row->error, sizeof row->error, "rank 0 runs %s for %s, rank %d runs %s", chosen->name, algo, r,
               mine->name);
      return 1;
    }
  }
  if (chosen != NULL) row->ran = chosen->name;
  /* The same answer on every rank (schedule/algorithms.h). */
  int two_stage = ts->nranks > 0 && nhood_algorithm_needs_size_pass(chosen, ts->topos[0], &call->args[0]);
  double t0 = now_s();
  if (two_stage && run_size_pass(ts, call, chosen, cs, row) != 0) return 1;
  for (; cs->nbuilt < ts->nranks; cs->nbuilt++) {
    int r = cs->nbuilt;
    nhood_coll_args a = call->args[r];
    const nhood_topo *on = sim_grid_topo_for(algo, ts->topos[r], ts->grid, r, &a);
    if (nhood_algorithm_build(chosen, on, &a, r, two_stage ? cs->pass_scratch[r] : NULL, &cs->data[r]) != MPI_SUCCESS)
      return build_failed(row, r, algo);
  }
  double elapsed = now_s() - t0;
  row->build_us_per_nbr = ts->neighbors > 0 ? 1e6 * elapsed / (double)ts->neighbors : 0;
  for (int r = 0; r < ts->nranks; r++) {
    if (check_byte_schedule(&cs->data[r], r, row->error, sizeof row->error) != 0) return 1;
    int msgs = cs->data[r].nsends, rounds = cs->data[r].comm_rounds;
    if (cs->npasses && !opt->persistent) { /* a persistent request ran its size pass at init */
      msgs += cs->pass[r].nsends;
      rounds += cs->pass[r].comm_rounds;
    }
    if (msgs > row->msgs_max) row->msgs_max = msgs;
    if (rounds > row->rounds_max) row->rounds_max = rounds;
    row->msgs_total += msgs;
  }
  row->built = 1;
  return 0;
}

/* --goal: the case's schedules as LogGOPSim's input (goal.h), what a call runs: a persistent
 * request's start without its size pass. */
static int write_goal(const options *opt, const topo_set *ts, const case_scheds *cs, case_row *row) {
  static int cases;
  snprintf(row->goal, sizeof row->goal, "%s-%d.goal", opt->goal_prefix, ++cases);
  FILE *out = fopen(row->goal, "w");
  if (out == NULL) {
    snprintf(row->error, sizeof row->error, "cannot write %s", row->goal);
    return 1;
  }
  int rc = goal_write(out, ts->nranks, cs->npasses && !opt->persistent ? cs->pass : NULL, cs->data, opt->model.Gcopy,
                      opt->model.round, row->error, sizeof row->error);
  if (fclose(out) != 0 && rc == 0) rc = 1, snprintf(row->error, sizeof row->error, "cannot write %s", row->goal);
  return rc;
}

/* pred_us, pass_us and the band. A size pass and its data schedule run one after the other:
 * their predicted times add up (an upper bound, as a rank may begin its data schedule before
 * the slowest finishes). A persistent request runs its size pass once, at init: its starts
 * cost the data schedule. With --seeds, one prediction per seed of the model's noise: pred_us
 * is their median, pass_us the pass's median. 0, or 1 with the row's error. */
static int predict(const options *opt, const topo_set *ts, const case_scheds *cs, case_row *row) {
  int runs = opt->seeds > 0 ? opt->seeds : 1, rc = 1;
  double *total = malloc(2 * (size_t)runs * sizeof *total), *pass = total + runs;
  char err[NHOOD_MAX_ERROR_STRING] = "out of memory";
  loggp_params model = opt->model, after_pass = opt->model;
  if (cs->npasses && !opt->persistent) /* the call's start, and its skew, is the pass's */
    memset(after_pass.skew, 0, sizeof after_pass.skew);
  for (int k = 0; total != NULL && k < runs; k++) {
    loggp_prediction prediction, pass_prediction = {0};
    model.seed = after_pass.seed = opt->seeds > 0 ? (unsigned)k + 1 : 0;
    if (loggp_predict(ts->nranks, cs->data, &after_pass, &prediction, err, sizeof err) != 0 ||
        (cs->npasses && loggp_predict(ts->nranks, cs->pass, &model, &pass_prediction, err, sizeof err) != 0))
      goto done;
    total[k] = prediction.time_us + (opt->persistent ? 0 : pass_prediction.time_us);
    pass[k] = pass_prediction.time_us;
  }
  if (total == NULL) goto done;
  qsort(total, (size_t)runs, sizeof *total, cli_compare_double);
  qsort(pass, (size_t)runs, sizeof *pass, cli_compare_double);
  row->pred_us = cli_sorted_quantile(total, runs, 0.5);
  row->p10_us = cli_sorted_quantile(total, runs, 0.1);
  row->p90_us = cli_sorted_quantile(total, runs, 0.9);
  row->pass_us = cs->npasses ? cli_sorted_quantile(pass, runs, 0.5) : -1;
  rc = 0;
done:
  if (rc != 0 && row->error[0] == '\0') snprintf(row->error, sizeof row->error, "LogGP: %s", err);
  if (rc == 0 && opt->seeds > 0)
    row->samples = total; /* pass, its second half, is dropped with it */
  else
    free(total);
  return rc;
}

static void run_case(const options *opt, topo_set *ts, const sim_call *call, int a, int sabotage, case_row *row) {
  case_scheds cs = {.nranks = ts->nranks};
  cs.data = calloc((size_t)ts->nranks, sizeof *cs.data);
  *row = (case_row){
      .coll = nhood_coll_names[call->kind], .algo = opt->algos[a], .bytes = call->bytes, .verified = -1, .pass_us = -1};
  if (cs.data == NULL) {
    snprintf(row->error, sizeof row->error, "out of memory for %d schedule%s", ts->nranks, cli_plural(ts->nranks));
    goto cleanup;
  }
  if (learn(opt, ts, a, 1, row->error, sizeof row->error) != 0) goto cleanup;
  row->phase1 = ts->phase1[a];
  if (build_schedules(opt, ts, call, opt->algos[a], &cs, row) != 0) goto cleanup;
  if (opt->goal_prefix && write_goal(opt, ts, &cs, row) != 0) goto cleanup;
  if (opt->verify) {
    double t0 = now_s();
    sim_verdict verdict = sim_exec_verify(call, cs.data, sabotage, row->error, sizeof row->error);
    row->verify_s = now_s() - t0;
    if (verdict != SIM_CANNOT_RUN) row->verified = verdict == SIM_VERIFIED;
  }
  double t0 = now_s();
  if (predict(opt, ts, &cs, row) != 0) goto cleanup;
  row->predict_s = now_s() - t0;
  row->predicted = 1;
cleanup:
  case_scheds_free(&cs);
}

/* ------------------------------------------------------------------------------------- */
/* Output                                                                                 */
/* ------------------------------------------------------------------------------------- */

/* A delay drawn at the i-th of loggp_noise_p: the quantile less the noise's zero. */
static double delay_at(const loggp_params *m, const double *q, int i) { return fmax(0, q[i] - m->noise0); }

static void print_header(const options *opt) {
  const loggp_params *m = &opt->model;
  char levels[256] = ""; /* nothing for one level, as before --ranks-per-node */
  if (opt->ranks_per_node > 0)
    snprintf(levels, sizeof levels,
             ", %d rank%s per node (within a node L %g us, o %g us, g %g us, G %.4g us/B, O %.4g us/B; "
             "network interface %.4g us + %.4g us/B)",
             opt->ranks_per_node, cli_plural(opt->ranks_per_node), m->node_L, m->node_o, m->node_g, m->node_G,
             m->node_O, m->nic_o, m->nic_G);
  char costs[256] = ""; /* the round cost, the noise and the skew, where there are */
  const double *first = m->skew[LOGGP_NOISE_POINTS - 1] > 0 ? m->skew : m->noise;
  if (m->round > 0 || loggp_has_noise(m))
    snprintf(costs, sizeof costs,
             ", round %g us, delay per round %g us at the median and %g at the 90th percentile (in the first "
             "round %g and %g)%s",
             m->round, delay_at(m, m->noise, 5), delay_at(m, m->noise, 9), delay_at(m, first, 5), delay_at(m, first, 9),
             opt->seeds > 0 ? "" : " (not drawn without --seeds)");
  char sender[128] = ""; /* O and the step, where given */
  int n = m->O > 0 ? snprintf(sender, sizeof sender, ", O %.4g us/B", m->O) : 0;
  if (m->ostep > 0)
    snprintf(sender + n, sizeof sender - (size_t)n, ", %g us more at each end above %g B", m->ostep, m->step);
  printf(
      "nhood-sim: %d virtual rank%s, model %s (L %g us, o %g us, g %g us, G %.4g us/B%s, "
      "Gcopy %.4g us/B%s)%s%s%s\n",
      opt->nranks, cli_plural(opt->nranks), opt->model_spec, m->L, m->o, m->g, m->G, sender, m->Gcopy, costs, levels,
      opt->persistent ? ", persistent requests (a size pass at init)" : "", opt->verify ? "" : ", not verifying");
}

static void print_topology(const options *opt, const topo_set *ts) {
  printf(
      "\n# topo %s: %d rank%s, %lld edge%s, max indegree %d, max outdegree %d (objects built "
      "in %.2f s)\n",
      ts->spec->text, ts->nranks, cli_plural(ts->nranks), ts->edges, cli_plural(ts->edges), ts->max_in, ts->max_out,
      ts->build_s);
  printf("%-11s %9s %-*s %12s %9s %6s %12s %-8s %8s %s\n", "coll", "bytes", opt->algo_width, "algo", "pred_us",
         "msgs_max", "rounds", "build_us/nbr", "verified", "verify_s", "phase1");
}

static void print_row(const options *opt, const case_row *row) {
  char pred[32] = "-", msgs[16] = "-", rounds[16] = "-", build[32] = "-", phase1[96] = "-";
  const char *verified = row->verified < 0 ? "-" : row->verified ? "yes" : "NO";
  if (row->predicted) snprintf(pred, sizeof pred, "%.3f", row->pred_us);
  if (row->built) {
    snprintf(msgs, sizeof msgs, "%d", row->msgs_max);
    snprintf(rounds, sizeof rounds, "%d", row->rounds_max);
    snprintf(build, sizeof build, "%.4f", row->build_us_per_nbr);
  }
  if (row->phase1.supersteps > 0)
    snprintf(phase1, sizeof phase1, "%d superstep%s, pred %.3g s, wall %.3g s", row->phase1.supersteps,
             cli_plural(row->phase1.supersteps), row->phase1.pred_s, row->phase1.wall_s);
  /* A fallback that ran is named at the end, as nhood-bench's note does. */
  char ran[NHOOD_ALGORITHM_NAME_MAX + 8] = "";
  if (row->ran != NULL && strcmp(row->ran, row->algo) != 0) snprintf(ran, sizeof ran, "  ran %s", row->ran);
  /* The size pass of a v collective: part of pred_us, or a persistent request's init. */
  char pass[64] = "";
  if (row->predicted && row->pass_us >= 0)
    snprintf(pass, sizeof pass, "  size pass %.3f us%s", row->pass_us, opt->persistent ? " at init" : " included");
  char band[64] = ""; /* --seeds: the 10th-90th percentile of the noise's runs */
  if (row->predicted && opt->seeds > 0) snprintf(band, sizeof band, "  band %.3f-%.3f us", row->p10_us, row->p90_us);
  printf("%-11s %9d %-*s %12s %9s %6s %12s %-8s %8.2f %s%s%s%s\n", row->coll, row->bytes, opt->algo_width, row->algo,
         pred, msgs, rounds, build, verified, row->verify_s, phase1, ran, pass, band);
  if (row->error[0] != '\0') printf("  %s: %s\n", row->verified == 0 ? "verification failed" : "error", row->error);
  fflush(stdout);
}

static void json_row(FILE *out, const options *opt, const topo_set *ts, const case_row *row) {
  const loggp_params *m = &opt->model;
  fprintf(out, "{\"ranks\":%d,\"topo\":", ts->nranks);
  cli_json_string(out, ts->spec->text);
  fprintf(out, ",\"coll\":\"%s\",\"bytes\":%d,\"algo\":", row->coll, row->bytes);
  cli_json_string(out, row->algo);
  /* What ran: algo, or the fallback that ran where algo does not apply (as nhood-bench's rows
   * say); null when no algorithm was selected. */
  fprintf(out, ",\"algo_resolved\":");
  if (row->ran != NULL)
    cli_json_string(out, row->ran);
  else
    fprintf(out, "null");
  fprintf(out, ",\"theta\":%d", opt->theta);
  if (row->predicted)
    fprintf(out, ",\"pred_us\":%.6f", row->pred_us);
  else
    fprintf(out, ",\"pred_us\":null");
  /* --seeds: the band over the noise's runs; null without */
  if (row->predicted && opt->seeds > 0) {
    fprintf(out, ",\"seeds\":%d,\"pred_p10_us\":%.6f,\"pred_p90_us\":%.6f,\"pred_samples_us\":[", opt->seeds,
            row->p10_us, row->p90_us);
    for (int k = 0; row->samples != NULL && k < opt->seeds; k++) fprintf(out, "%s%.6f", k ? "," : "", row->samples[k]);
    fprintf(out, "]");
  } else {
    fprintf(out, ",\"seeds\":null,\"pred_p10_us\":null,\"pred_p90_us\":null,\"pred_samples_us\":null");
  }
  /* size_pass_us: null where the call takes none; included in pred_us unless persistent */
  fprintf(out, ",\"mode\":\"%s\"", opt->persistent ? "persistent" : "blocking");
  if (row->predicted && row->pass_us >= 0)
    fprintf(out, ",\"size_pass_us\":%.6f", row->pass_us);
  else
    fprintf(out, ",\"size_pass_us\":null");
  if (row->built)
    fprintf(out,
            ",\"msgs_sent_max\":%d,\"msgs_total\":%lld,\"rounds_max\":%d,"
            "\"sched_build_us_per_nbr\":%.6f",
            row->msgs_max, row->msgs_total, row->rounds_max, row->build_us_per_nbr);
  else
    fprintf(out,
            ",\"msgs_sent_max\":null,\"msgs_total\":null,\"rounds_max\":null,"
            "\"sched_build_us_per_nbr\":null");
  const phase1_stats *p1 = &row->phase1;
  fprintf(out,
          ",\"phase1_supersteps\":%d,\"phase1_msgs_max\":%lld,\"phase1_bytes_max\":%lld,"
          "\"phase1_pred_s\":%.9g,\"phase1_wall_s\":%.9g",
          p1->supersteps, p1->msgs_max, p1->bytes_max, p1->pred_s, p1->wall_s);
  fprintf(out, ",\"verified\":%s", row->verified < 0 ? "null" : row->verified ? "true" : "false");
  fprintf(out, ",\"model\":");
  cli_json_string(out, opt->model_spec);
  fprintf(out,
          ",\"loggp_L_us\":%.9g,\"loggp_o_us\":%.9g,\"loggp_g_us\":%.9g,"
          "\"loggp_G_us_per_byte\":%.9g,\"loggp_Gcopy_us_per_byte\":%.9g,\"loggp_round_us\":%.9g",
          m->L, m->o, m->g, m->G, m->Gcopy, m->round);
  /* null: not given, one level (model.ranks_per_node 0) */
  if (opt->ranks_per_node > 0)
    fprintf(out, ",\"ranks_per_node\":%d", opt->ranks_per_node);
  else
    fprintf(out, ",\"ranks_per_node\":null");
  fprintf(out, ",\"topo_edges\":%lld,\"verify_wall_s\":%.3f,\"predict_wall_s\":%.6f", ts->edges, row->verify_s,
          row->predict_s);
  if (row->goal[0] != '\0') {
    fprintf(out, ",\"goal\":");
    cli_json_string(out, row->goal);
  }
  if (row->error[0] != '\0') {
    fprintf(out, ",\"error\":");
    cli_json_string(out, row->error);
  }
  fprintf(out, "}\n");
  fflush(out);
}

/* ------------------------------------------------------------------------------------- */
/* Main                                                                                   */
/* ------------------------------------------------------------------------------------- */

/* Whether algorithm a makes its own schedule for this call on every rank (no fallback), as the
 * library decides it: for combine, once its pattern is attached (Phase 1 runs here when that
 * is still to be known). Where Phase 1 fails the answer is yes, and run_case reports it. */
static int applies_everywhere(const options *opt, topo_set *ts, const sim_call *call, int a) {
  const nhood_algorithm *alg = nhood_algorithm_by_name(opt->algos[a]);
  char err[MESSAGE_LEN];
  for (int pass = 0; pass < 2; pass++) {
    /* First without Phase 1: where the algorithm applies anyway, it need not run here. */
    if (learn(opt, ts, a, pass, err, sizeof err) != 0) return 1; /* run_case reports it */
    int r = 0;
    for (; r < ts->nranks; r++) {
      nhood_coll_args args = call->args[r];
      if (nhood_algorithm_unfit(alg, sim_grid_topo_for(alg->name, ts->topos[r], ts->grid, r, &args), &args)) break;
    }
    if (r == ts->nranks) return 1;
  }
  return 0;
}

/* For --algo applicable: which algorithms run this call, and a line before its rows naming
 * those left out, unless the previous call of this collective left out the same ones. */
static void choose_applicable(const options *opt, topo_set *ts, const sim_call *call, int runs[], char *last,
                              size_t lastlen) {
  char names[MAX_ALGOS * (NHOOD_ALGORITHM_NAME_MAX + 2)] = "", key[sizeof names + 32];
  for (int a = 0; a < opt->nalgos; a++) {
    runs[a] = !opt->conditional[a] || applies_everywhere(opt, ts, call, a);
    if (!runs[a])
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", opt->algos[a]);
  }
  snprintf(key, sizeof key, "%s:%s", nhood_coll_names[call->kind], names);
  if (strcmp(key, last) == 0) return;
  snprintf(last, lastlen, "%s", key);
  if (names[0] != '\0')
    printf("  %s: left out, as they do not apply: %s (nhood-info --algorithms --topo SPEC says why)\n",
           nhood_coll_names[call->kind], names);
}

/* The bound of one call (sim_bound.h), a line before its rows. */
static void print_bound(const options *opt, const sim_call *call) {
  sim_bound b;
  char err[MESSAGE_LEN];
  if (sim_bound_compute(call, &opt->model, &b, err, sizeof err) != 0) {
    printf("  bound: %s\n", err);
    return;
  }
  printf("  %s %d: no schedule below %.3f us%s: rank", nhood_coll_names[call->kind], call->bytes, b.us,
         b.valid ? "" : " (not a bound: g or o below G)");
  if (b.rank >= 0)
    printf(" %d sends %lld bytes (%.3f us)", b.rank, b.rank_bytes, b.rank_us);
  else
    printf("s send nothing");
  if (b.node >= 0)
    printf("; node %d's interface %lld bytes out, %lld in (%.3f us)", b.node, b.node_out, b.node_in, b.nic_us);
  printf("\n");
}

/* Every case of one topology; returns the number of cases that failed. */
static int simulate_topology(const options *opt, const topospec *spec, int sabotage, FILE *json) {
  topo_set ts;
  char err[MESSAGE_LEN];
  char left_out[MAX_ALGOS * (NHOOD_ALGORITHM_NAME_MAX + 2) + 32] = "";
  int failed = 0, runs[MAX_ALGOS];
  if (topo_set_init(&ts, spec, opt->nranks, err, sizeof err) != 0) {
    fprintf(stderr, "nhood-sim: %s: %s\n", spec->text, err);
    return 1;
  }
  print_topology(opt, &ts);
  for (int c = 0; c < opt->ncolls; c++)
    for (int s = 0; s < opt->nsizes; s++) {
      sim_call call;
      if (sim_call_init(&call, opt->colls[c], opt->sizes[s], opt->per_entry, ts.nranks, ts.topos, err, sizeof err) !=
          0) {
        printf("%-11s %9d skipped: %s\n", nhood_coll_names[opt->colls[c]], opt->sizes[s], err);
        failed++;
        continue;
      }
      if (opt->bound) print_bound(opt, &call);
      choose_applicable(opt, &ts, &call, runs, left_out, sizeof left_out);
      for (int a = 0; a < opt->nalgos; a++) {
        case_row row;
        if (!runs[a]) continue;
        run_case(opt, &ts, &call, a, sabotage, &row);
        failed += row.error[0] != '\0';
        print_row(opt, &row);
        if (json != NULL) json_row(json, opt, &ts, &row);
        free(row.samples);
      }
      sim_call_free(&call);
    }
  topo_set_free(&ts);
  return failed;
}

int main(int argc, char **argv) {
  options opt;
  topospec *specs = NULL;
  FILE *json = NULL;
  char err[MESSAGE_LEN] = "";
  int exit_code = EXIT_USAGE, nparsed = 0;
  if (parse_options(argc, argv, &opt, err, sizeof err) != 0) {
    fprintf(stderr, "nhood-sim: %s\n", err);
    goto cleanup;
  }
  if (opt.help) {
    print_usage(stdout);
    exit_code = 0;
    goto cleanup;
  }
  /* All SPECs first, so that a typo in the last one does not surface after an hour. */
  specs = calloc((size_t)opt.ntopos, sizeof *specs);
  if (specs == NULL) {
    fprintf(stderr, "nhood-sim: out of memory\n");
    goto cleanup;
  }
  for (; nparsed < opt.ntopos; nparsed++)
    if (topospec_parse(opt.topos[nparsed], &specs[nparsed], err, sizeof err) != 0) {
      fprintf(stderr, "nhood-sim: %s\n", err);
      goto cleanup;
    }
  if (opt.json_path != NULL && (json = fopen(opt.json_path, "w")) == NULL) {
    fprintf(stderr, "nhood-sim: cannot write --json %s: %s\n", opt.json_path, strerror(errno));
    goto cleanup;
  }
  /* Hidden: corrupts one delivered byte per case, to show that verification can fail. */
  const char *sabotage_env = getenv("NHOOD_SIM_SABOTAGE");
  int sabotage = sabotage_env != NULL && strcmp(sabotage_env, "1") == 0, failed = 0;
  print_header(&opt);
  for (int t = 0; t < opt.ntopos; t++) failed += simulate_topology(&opt, &specs[t], sabotage, json);
  if (failed > 0) fprintf(stderr, "nhood-sim: %d case(s) failed\n", failed);
  exit_code = failed > 0 ? EXIT_CASE_FAILED : 0;
cleanup:
  for (int t = 0; t < nparsed; t++) topospec_free(&specs[t]);
  free(specs);
  free(opt.topos);
  if (json != NULL) fclose(json);
  return exit_code;
}
