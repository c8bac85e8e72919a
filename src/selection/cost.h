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
 * Parameters come from the file or preset named by NHOOD_PARAMS (the format of
 * nhood_cost_params_read), else by the communicator's placement (nhood_cost_params_for:
 * nhood-calibrate --save's file for this node, or the presets). Reading the environment and
 * the files stays here, with "auto": the lower layers take their parameters from their
 * caller (the API layer hands combine's Phase 1 the ones below), so every decision of one
 * process uses the same numbers.
 */
#ifndef NHOOD_SELECTION_COST_H
#define NHOOD_SELECTION_COST_H

#include "common/commctx.h"
#include "common/cost_model.h"
#include "schedule/schedule.h"

/* The parameters NHOOD_PARAMS names, a file (read once) or a preset's name (ib-edr, shm),
 * else the defaults.
 * *source says which ("built-in (ib-edr)" or the file name). MPI_SUCCESS, or MPI_ERR_OTHER
 * with a message when the file cannot be read (the same answer on every later call). */
int nhood_cost_params_active(const nhood_cost_params **params, const char **source);

/* The parameters for a communicator of nprocs processes placed as `where` (NULL: unknown),
 * copied into *out: NHOOD_PARAMS's file where it is set; else, for
 * processes that share one node, the file nhood-calibrate --save wrote for this host, MPI
 * library and process count where there is one, else the node parameters of
 * common/cost_model.h (nhood_cost_params_node); processes on several nodes get the ib-edr
 * preset. Errors as nhood_cost_params_active. */
int nhood_cost_params_for(const nhood_placement *where, int nprocs, nhood_cost_params *out);
/* The file of nhood-calibrate --save for nprocs processes on this host under this MPI
 * library: <dir>/params-<host>-<nprocs>p-mpi<hash of the library version>.txt, where dir is
 * NHOOD_CACHE_DIR, else $XDG_CACHE_HOME/nhood, else $HOME/.cache/nhood. 0, or 1 where there
 * is none (NHOOD_CACHE_DIR=off, no home). */
int nhood_cost_cache_path(int nprocs, char *path, size_t len);

/* This process's predicted time (µs) in schedule s, every message and copy scaled by
 * `scale` bytes per schedule byte (schedules built for one-byte blocks predict any block
 * size). Counts of types other than MPI_BYTE are sized with MPI_Type_size. With nodes (not
 * NULL, more than one node), messages between processes of this process's node (rank me) are
 * priced with the on-node parameters, and nic (not NULL) receives what this process puts
 * through its node's network interface: messages and bytes it sends to other nodes in [0] and
 * [1], those it receives from them in [2] and [3]. */
double nhood_cost_predict(const nhood_sched *s, const nhood_cost_params *p, double scale, const nhood_nodes *nodes,
                          int me, double nic[4]);

/* The time (µs) a node's network interface takes for what its processes put through it (sums
 * of nhood_cost_predict's nic over the node), by nic_o and nic_G: injection and ejection run
 * side by side, so the larger of the two. */
static inline double nhood_cost_nic(const nhood_cost_params *p, const double nic[4]) {
  double out = p->nic_o * nic[0] + p->nic_G * nic[1], in = p->nic_o * nic[2] + p->nic_G * nic[3];
  return out > in ? out : in;
}

#endif
