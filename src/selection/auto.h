/*
 * "auto": the algorithm a call runs when none was asked for, in one place.
 *
 * 1. Rules first: NHOOD_INFO_TUNE in the call's info (persistent init), the topology's, then
 *    NHOOD_TUNE (selection/tune.h).
 * 2. The cost model (selection/select.h, selection/cost.h): the first call per collective
 *    (and isomorphic-sizes assertion) on a communicator prices every algorithm at every block
 *    size, under the parameters for the communicator's placement, and one allreduce (MAX)
 *    gives every process the same table: the agreement. The v and w collectives without the
 *    assertion, and calls whose block sizes differ between processes at that first call,
 *    keep the choice made then for the largest block over processes: a choice by local size
 *    could differ between processes.
 * 3. Measured selection (selection/trial.h), where the model's short list has more than one
 *    entry and NHOOD_TRIAL is not off: a blocking call runs the candidate its size class's
 *    trial names next, under that trial; a persistent request gets a trial of its own. Both
 *    run through the same trial task. Non-blocking calls take the model's choice: their
 *    executions overlap other work, which a time would measure.
 *
 * What "auto" learns about the topology on the way (patterns, nodes, the grid under a graph)
 * is selection/learned.h's.
 */
#ifndef NHOOD_SELECTION_AUTO_H
#define NHOOD_SELECTION_AUTO_H

#include "common/commctx.h"
#include "selection/select.h"
#include "selection/trial.h"
#include "topology/topology.h"

/* How "auto" came to its algorithm (NHOOD_Selection_info). */
typedef enum { NHOOD_CHOSEN_BY_RULE, NHOOD_CHOSEN_BY_MODEL, NHOOD_CHOSEN_BY_TRIAL } nhood_chosen_by;
typedef struct nhood_auto_how {
  nhood_chosen_by by;
  /* The trial the call runs under (nhood_trial_task_create), NULL for none: a blocking call
   * that is an execution of its size class's trial gets that trial (it lives on the
   * topology); a persistent request gets &fresh, which its task copies. */
  nhood_trial *trial;
  nhood_trial fresh;
  const nhood_trial *shown; /* chosen by a trial: that trial, running or decided */
} nhood_auto_how;

/* Resolves "auto" for call a into *alg (before its fallbacks: selection/learned.h), as the
 * steps above say; how says how, and carries the trial. */
int nhood_auto_resolve(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, MPI_Info info, nhood_mode mode,
                       const nhood_algorithm **alg, nhood_auto_how *how);

/* NHOOD_Selection_info's text for a call whose algorithm was chosen as `how` says, that runs
 * alg: "cost model: direct", "asked for: combine", or the trial's own description. */
void nhood_auto_describe(const nhood_auto_how *how, const nhood_algorithm *alg, char *text, size_t len);

#endif
