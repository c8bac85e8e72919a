/*
 * Algorithms whose schedules need a pattern computed over all ranks first (message combining)
 * plug their Phase 1 into nhood-sim through a hook of this type, listed in nhood_sim.c's
 * phase1_hooks table.
 *
 * The hook runs the algorithm's Phase 1 for all virtual ranks in this process and leaves each
 * rank's result where the algorithm's builder finds it: attached to topos[r], freed with it.
 * nhood-sim calls it once per topology, before the first schedule of the algorithm is built;
 * the schedules of every collective and size are then built from the same result.
 */
#ifndef NHOOD_SIM_PHASE1_H
#define NHOOD_SIM_PHASE1_H

#include <nhood.h>

#include <stddef.h>

#include "loggp.h"

/* What Phase 1 cost (reported in the JSON rows as phase1_*; all 0 without a Phase 1). */
typedef struct phase1_stats {
  int supersteps;
  long long msgs_max, bytes_max; /* the most messages and bytes one rank sends in all of it */
  double pred_s;                 /* LogGP prediction of the whole Phase 1, in seconds */
  double wall_s;                 /* wall time of the run; nhood-sim measures it around the hook */
} phase1_stats;

/* Returns 0, or 1 with a message in err. theta is --theta, model the --model parameters. */
typedef int (*phase1_run_fn)(int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model, phase1_stats *stats,
                             char *err, size_t errlen);

typedef struct phase1_hook {
  const char *algorithm;
  phase1_run_fn run;
} phase1_hook;

#endif
