/* nhood-sim's Phase 1 hook for message combining (see sim_phase1.h). */
#ifndef NHOOD_SIM_PHASE1_COMBINE_H
#define NHOOD_SIM_PHASE1_COMBINE_H

#include "sim_phase1.h"

int phase1_combine_run(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                       char *err, size_t errlen);

#endif
