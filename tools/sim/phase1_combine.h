/* nhood-sim's Phase 1 hooks for message combining and node-aware aggregation (see
 * sim_phase1.h). */
#ifndef NHOOD_SIM_PHASE1_COMBINE_H
#define NHOOD_SIM_PHASE1_COMBINE_H

#include "pattern/bsp.h"
#include "sim_phase1.h"

/* The LogGP projection of a bulk-synchronous run (phase1_combine.c says what it charges),
 * shared by the hooks, in microseconds. */
double phase1_project_us(const nhood_bsp_stats *st, const loggp_params *m, int nranks);

int phase1_combine_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                       char *err, size_t errlen);

/* Node-aware aggregation (src/pattern/node.c) over nodes of model->ranks_per_node ranks
 * (each rank its own node where that is 0). */
int phase1_node_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats, char *err,
                    size_t errlen);
/* node-tree (the same program, its on-node steps along a hypercube), on the same nodes. */
int phase1_node_tree_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                         char *err, size_t errlen);

#endif
