/*
 * nhood-sim's Phase 1 hooks for message combining and node-aware aggregation: run the library's
 * pattern construction (src/pattern/combine.c, node.c) for all virtual ranks with the
 * in-process driver and attach each rank's pattern to its topology object, where the builder
 * finds it.
 *
 * The LogGP projection charges every superstep, on the critical path, with: the slowest
 * rank's step computation (measured here), injecting its messages (o + g each, bytes at G),
 * receiving them (o each), one latency L, and the driver's synchronization (non-blocking
 * barrier and a small allreduce: 2 * ceil(log2 P) * (L + 2o)).
 */
#include "phase1_combine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "pattern/combine.h"
#include "pattern/node.h"
#include "schedule/algorithms.h"
#include "topology/topology.h"

double phase1_project_us(const nhood_bsp_stats *st, const loggp_params *m, int nranks) {
  double sync = nranks > 1 ? 2.0 * ceil(log2((double)nranks)) * (m->L + 2 * m->o) : 0.0, total = 0;
  for (int k = 0; k < st->nsteps_recorded; k++)
    total += 1e6 * st->step_compute_s[k] + st->step_msgs[k] * (m->o + m->g) + (double)st->step_bytes[k] * m->G +
             st->step_recv_msgs[k] * m->o + m->L + sync;
  return total;
}

/* Attaches patterns[r] to topos[r] (the array is freed, the patterns taken) and fills stats. */
static int attach_all(int nranks, NHOOD_Topo *topos, nhood_pattern_kind *kind, nhood_combine_pattern *patterns,
                      nhood_bsp_stats *st, const loggp_params *model, phase1_stats *stats) {
  int failed = 0;
  for (int r = 0; r < nranks; r++) {
    nhood_combine_pattern *p = malloc(sizeof *p);
    if (p) *p = patterns[r];
    if (!p || nhood_pattern_attach(topos[r], kind, p, NULL) != MPI_SUCCESS) {
      nhood_combine_pattern_free(&patterns[r]);
      free(p);
      failed = 1;
    }
  }
  free(patterns);
  stats->supersteps = st->supersteps;
  stats->msgs_max = st->msgs_max;
  stats->bytes_max = st->bytes_max;
  stats->pred_s = 1e-6 * phase1_project_us(st, model, nranks);
  nhood_bsp_stats_free(st);
  return failed;
}

int phase1_combine_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                       char *err, size_t errlen) {
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  nhood_combine_params_from_env(&params);
  params.theta = theta;
  /* The depth is chosen under the model the run is evaluated with (its rendezvous term as the
   * preset gives it; the rest, rdv_round and mpi_factor, are the defaults'). */
  loggp_to_cost(model, &params.cost);
  nhood_combine_pattern *patterns = calloc((size_t)nranks, sizeof *patterns);
  nhood_bsp_stats st;
  if (!patterns) {
    snprintf(err, errlen, "combine: out of memory for %d pattern%s", nranks, cli_plural(nranks));
    return 1;
  }
  if (nhood_combine_build_local(nranks, topos, &params, patterns, &st) != MPI_SUCCESS) {
    char msg[NHOOD_MAX_ERROR_STRING];
    NHOOD_Error_message(msg, NULL);
    snprintf(err, errlen, "combine Phase 1: %s", msg);
    free(patterns);
    return 1;
  }
  int failed = attach_all(nranks, topos, &nhood_combine_kind, patterns, &st, model, stats);
  if (failed) snprintf(err, errlen, "combine: out of memory attaching patterns");
  return failed;
}

static int node_run(int nranks, NHOOD_Topo *topos, int tree, const loggp_params *model, phase1_stats *stats, char *err,
                    size_t errlen) {
  nhood_pattern_kind *kind = tree ? &nhood_node_tree_kind : &nhood_node_kind;
  const char *name = kind->algorithm;
  nhood_nodes nodes;
  nhood_nodes_blocks(&nodes, nranks, model->ranks_per_node > 0 ? model->ranks_per_node : 1);
  nhood_combine_pattern *patterns = calloc((size_t)nranks + 1, sizeof *patterns);
  nhood_bsp_stats st;
  if (!patterns) {
    snprintf(err, errlen, "%s: out of memory for %d pattern%s", name, nranks, cli_plural(nranks));
    return 1;
  }
  if (nhood_node_build_local(nranks, topos, &nodes, tree, patterns, &st) != MPI_SUCCESS) {
    char msg[NHOOD_MAX_ERROR_STRING];
    NHOOD_Error_message(msg, NULL);
    snprintf(err, errlen, "%s Phase 1: %s", name, msg);
    free(patterns);
    return 1;
  }
  int failed = attach_all(nranks, topos, kind, patterns, &st, model, stats);
  if (failed) snprintf(err, errlen, "%s: out of memory attaching patterns", name);
  return failed;
}

int phase1_node_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats, char *err,
                    size_t errlen) {
  (void)theta;
  return node_run(nranks, topos, 0, model, stats, err, errlen);
}

int phase1_node_tree_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                         char *err, size_t errlen) {
  (void)theta;
  return node_run(nranks, topos, 1, model, stats, err, errlen);
}
