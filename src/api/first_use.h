/*
 * What a topology object learns collectively, at its first use on a communicator, and keeps
 * for later calls: the combining pattern (pattern/combine.h), the cost model's decision
 * table of "auto" per collective, whether MPI's own implementation can run each collective,
 * and the distributed-graph communicator it then runs on.
 *
 * Each step is one collective operation over the communicator's private duplicate, taken by
 * every process at the same call: the state it fills changes only at such calls, so every
 * process sees the same state and takes the same steps. This makes the first call of a
 * non-blocking or persistent collective that needs a step synchronizing, as MPI's own
 * topology constructors are. The state belongs to one communicator context; a call on
 * another one starts over.
 */
#ifndef NHOOD_API_FIRST_USE_H
#define NHOOD_API_FIRST_USE_H

#include "common/commctx.h"
#include "engine/native_mpi.h"
#include "selection/measured.h"
#include "pattern/kind.h"
#include "selection/select.h"
#include "topology/grid.h"
#include "topology/topology.h"

/* The forwarding pattern of a kind (pattern/kind.h) of topo on ctx (Phase 1, collectively,
 * the first time); NULL does nothing. */
int nhood_ensure_pattern(NHOOD_Topo topo, nhood_commctx *ctx, nhood_pattern_kind *kind);

/* Which processes of ctx share a node for topo: blocks of NHOOD_INFO_RANKS_PER_NODE ranks
 * where the topology was given it, else the communicator's map (nhood_commctx_nodes;
 * collective the first time). */
int nhood_nodes_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_nodes **nodes);

/* The grid under graph topology topo (topology/grid.h), searched collectively on ctx the
 * first time; *view NULL where there is none, for other kinds of topology, or with
 * NHOOD_GRID=off. The view lives as long as what topo learned on ctx. */
int nhood_grid_of(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_grid_view **view);

/* The topology alg's schedule is built on: the view of the grid under graph topo for the
 * isomorphic algorithms where there is one (a then maps the view's blocks to the graph's),
 * else topo. Searches collectively the first time, as nhood_grid_of. */
int nhood_grid_topo_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_algorithm *alg, nhood_coll_args *a,
                        NHOOD_Topo *on);

/* How "auto" came to its algorithm (NHOOD_Selection_info). */
typedef enum { NHOOD_CHOSEN_BY_RULE, NHOOD_CHOSEN_BY_MODEL, NHOOD_CHOSEN_BY_TRIAL } nhood_chosen_by;
typedef struct nhood_auto_how {
  nhood_chosen_by by;
  /* A blocking call that is an execution of its size class's trial: the trial, to record the
   * call's time in (nhood_auto_trial_record). A persistent request with a trial: &fresh, the
   * trial its task runs (selection/measured.h). NULL otherwise. */
  nhood_trial *trial;
  nhood_trial fresh;
  const nhood_trial *shown; /* chosen by a trial: that trial, running or decided */
} nhood_auto_how;

/* Resolves "auto" for call a into *alg: the rules of NHOOD_INFO_TUNE (info, then the
 * topology's) and NHOOD_TUNE first, then the cost model (selection/select.h, with its
 * margin). The first such call per collective (and isomorphic-sizes assertion) prices every
 * block size in one allreduce, under the parameters for the communicator's placement
 * (selection/cost.h). The v and w collectives without the assertion, and calls whose block
 * sizes differ between processes at that first call, keep the choice made then for the
 * largest block over processes: a choice by local size could differ between processes.
 *
 * Then measured selection (selection/measured.h), where the model's short list has more than
 * one entry and NHOOD_TRIAL is not off: a blocking call runs the candidate its size class's
 * trial names next (how->trial set while that trial runs); a persistent request gets a trial
 * of its own in how->trial (*alg is the model's choice). Non-blocking calls take the model's
 * choice. */
int nhood_auto_resolve(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, MPI_Info info, nhood_mode mode,
                       const nhood_algorithm **alg, nhood_auto_how *how);
/* Records a blocking trial execution's time; the call that completes the trial then agrees
 * on the winner (one MPI_Allreduce on ctx). */
int nhood_auto_trial_record(nhood_trial *trial, nhood_commctx *ctx, double seconds);

/* For "mpi": agrees over processes (the first time per collective) whether MPI's own
 * implementation can run the call; where it cannot (nor a persistent request, without
 * library support) *why_not says so, for the selection layer's fallback; else creates the
 * graph communicator (the first time) and returns it in *graph, borrowed (a request that
 * keeps it retains it). Does nothing for other algorithms. */
int nhood_native_prepare(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, int persistent,
                         const nhood_algorithm *alg, const char **why_not, nhood_native_graph **graph);

#endif
