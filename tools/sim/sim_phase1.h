/*
 * Algorithms whose schedules need a pattern computed over all ranks first (those whose registry
 * entry names a kind of pattern, pattern/kind.h) run their Phase 1 in nhood-sim and nhood-info
 * through sim_phase1_run: for all virtual ranks in this process, each rank's result left where
 * the algorithm's builder finds it, attached to topos[r] and freed with it. nhood-sim runs it
 * once per topology, before the first schedule of the algorithm is built; the schedules of
 * every collective and size are then built from the same result.
 */
#ifndef NHOOD_SIM_PHASE1_H
#define NHOOD_SIM_PHASE1_H

#include <nhood.h>

#include <stddef.h>

#include "loggp.h"
#include "pattern/bsp.h"
#include "pattern/kind.h"

/* What Phase 1 cost (reported in the JSON rows as phase1_*; all 0 without a Phase 1). */
typedef struct phase1_stats {
  int supersteps;
  long long msgs_max, bytes_max; /* the most messages and bytes one rank sends in all of it */
  double pred_s;                 /* LogGP prediction of the whole Phase 1, in seconds */
  double wall_s;                 /* wall time of the run; nhood-sim measures it around the hook */
} phase1_stats;

/* The LogGP projection of a bulk-synchronous run (sim_phase1.c says what it charges), in
 * microseconds. */
double phase1_project_us(const nhood_bsp_stats *st, const loggp_params *m, int nranks);

/* Runs kind's Phase 1 over nranks virtual ranks and attaches rank r's pattern to topos[r];
 * returns 0, or 1 with a message in err. theta is --theta, model the --model parameters (and
 * ranks per node). */
int sim_phase1_run(nhood_pattern_kind *kind, int nranks, NHOOD_Topo *topos, int theta, const loggp_params *model,
                   phase1_stats *stats, char *err, size_t errlen);

#endif
