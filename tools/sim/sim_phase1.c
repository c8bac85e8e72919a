/*
 * Phase 1 on virtual ranks, for nhood-sim and nhood-info: the library's pattern construction of
 * an algorithm's kind (pattern/kind.h: combine, node, node-tree) for all virtual ranks with the
 * in-process driver, each rank's pattern attached to its topology object, where the builder
 * finds it.
 *
 * The LogGP projection charges every superstep, on the critical path, with: the slowest
 * rank's step computation (measured here), injecting its messages (o + g each, bytes at G),
 * receiving them (o each), one latency L, and the driver's synchronization (non-blocking
 * barrier and a small allreduce: 2 * ceil(log2 P) * (L + 2o)).
 */
#include "sim_phase1.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "common/nodes.h"
#include "pattern/combine.h"
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

int sim_phase1_run(nhood_pattern_kind *kind, int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model,
                   phase1_stats *stats, char *err, size_t errlen) {
  /* A combining depth is chosen under the model the run is evaluated with (its rendezvous term
   * as the preset gives it; the rest, rdv_round and mpi_factor, are the defaults'). Nodes are
   * blocks of model->ranks_per_node ranks (each rank its own node where that is 0). */
  nhood_cost_params cost;
  nhood_cost_params_default(&cost);
  loggp_to_cost(model, &cost);
  nhood_nodes nodes;
  nhood_nodes_blocks(&nodes, nranks, model->ranks_per_node > 0 ? model->ranks_per_node : 1);
  nhood_phase1_env env = {.comm = MPI_COMM_NULL, .cost = &cost, .nodes = &nodes, .theta = theta};
  nhood_combine_pattern *patterns = calloc((size_t)nranks + 1, sizeof *patterns);
  nhood_bsp_stats st;
  if (!patterns) {
    snprintf(err, errlen, "%s: out of memory for %d pattern%s", kind->algorithm, nranks, cli_plural(nranks));
    return 1;
  }
  if (kind->build_local(kind, &env, nranks, topos, patterns, &st) != MPI_SUCCESS) {
    char msg[NHOOD_MAX_ERROR_STRING];
    NHOOD_Error_message(msg, NULL);
    snprintf(err, errlen, "%s Phase 1: %s", kind->algorithm, msg);
    free(patterns);
    return 1;
  }
  int failed = attach_all(nranks, topos, kind, patterns, &st, model, stats);
  if (failed) snprintf(err, errlen, "%s: out of memory attaching patterns", kind->algorithm);
  return failed;
}
