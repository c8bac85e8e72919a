/*
 * The cost model behind "auto": a prediction of one process's time in a schedule, from the
 * schedule's operation arrays alone, under LogGP-like parameters. The parameters, their
 * presets and file, and the price of one round are common/cost_model.h's (combine's depth
 * choice prices its rounds with the same function); this layer walks a schedule's rounds and
 * chooses the parameters the library decides with.
 *
 * A schedule takes the sum of its rounds, each priced by nhood_cost_round from its sends,
 * receives, bytes, copies and messages above the eager limit. The library decides with the
 * maximum of this over processes (each process predicts its own schedule; an allreduce takes
 * the maximum), a critical-path estimate that ignores waiting between processes; nhood-sim's
 * LogGP evaluator (tools/sim/loggp.h) models that waiting and serves as the check on this
 * simpler model.
 *
 * Parameters come from the file named by NHOOD_PARAMS (the format of
 * nhood_cost_params_read) or from the built-in defaults (the "ib-edr" preset). Reading the
 * environment stays here, with "auto": the lower layers take their parameters from their
 * caller (the API layer hands combine's Phase 1 the ones below), so every decision of one
 * process uses the same numbers.
 */
#ifndef NHOOD_SELECTION_COST_H
#define NHOOD_SELECTION_COST_H

#include "common/cost_model.h"
#include "schedule/schedule.h"

/* The parameters the library decides with: NHOOD_PARAMS's file, read once, or the defaults.
 * *source says which ("built-in (ib-edr)" or the file name). MPI_SUCCESS, or MPI_ERR_OTHER
 * with a message when the file cannot be read (the same answer on every later call). */
int nhood_cost_params_active(const nhood_cost_params **params, const char **source);

/* This process's predicted time (µs) in schedule s, every message and copy scaled by
 * `scale` bytes per schedule byte (schedules built for one-byte blocks predict any block
 * size). Counts of types other than MPI_BYTE are sized with MPI_Type_size. */
double nhood_cost_predict(const nhood_sched *s, const nhood_cost_params *p, double scale);

#endif
