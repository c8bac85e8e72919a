/* The two drivers of bulk-synchronous programs (see bsp.h). */
#ifndef NHOOD_PATTERN_BSP_DRIVERS_H
#define NHOOD_PATTERN_BSP_DRIVERS_H

#include <mpi.h>

#include "pattern/bsp.h"

/* Runs a program for nranks virtual ranks in this process; states[r] is rank r's state.
 * stats (optional) receives the cost, with per-superstep maxima. MPI_ERR_OTHER when the
 * program has not ended after max_supersteps. Makes no MPI call. */
int nhood_bsp_run_local(int nranks, void *const states[], nhood_bsp_step_fn step, int max_supersteps,
                        nhood_bsp_stats *stats);

/* Runs a program with this process as rank `rank of comm`, collectively over comm, using tag
 * for its messages (comm should be private to the library). stats (optional) receives the
 * cost, reduced over ranks. */
int nhood_bsp_run_mpi(MPI_Comm comm, int tag, void *state, nhood_bsp_step_fn step, int max_supersteps,
                      nhood_bsp_stats *stats);

#endif
