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
#include "selection/select.h"
#include "topology/grid.h"
#include "topology/topology.h"

/* The combining pattern of topo on ctx (Phase 1, collectively, the first time). */
int nhood_ensure_pattern(NHOOD_Topo topo, nhood_commctx *ctx);

/* The grid under graph topology topo (topology/grid.h), searched collectively on ctx the
 * first time; *view NULL where there is none, for other kinds of topology, or with
 * NHOOD_GRID=off. The view lives as long as what topo learned on ctx. */
int nhood_grid_of(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_grid_view **view);

/* The topology alg's schedule is built on: the view of the grid under graph topo for the
 * isomorphic algorithms where there is one (a then maps the view's blocks to the graph's),
 * else topo. Searches collectively the first time, as nhood_grid_of. */
int nhood_grid_topo_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_algorithm *alg, nhood_coll_args *a,
                        NHOOD_Topo *on);

/* Resolves "auto" for call a into *alg: the rules of NHOOD_INFO_TUNE (info, then the
 * topology's) and NHOOD_TUNE first, then the cost model's choice for the call's block size.
 * The first such call per collective (and isomorphic-sizes assertion) decides for every
 * block size in one allreduce. The v and w collectives without the assertion, and calls
 * whose block sizes differ between processes at that first call, keep the choice made then
 * for the largest block over processes: a choice by local size could differ between
 * processes. */
int nhood_auto_resolve(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, MPI_Info info, int persistent,
                       const nhood_algorithm **alg);

/* For "mpi": agrees over processes (the first time per collective) whether MPI's own
 * implementation can run the call; where it cannot (nor a persistent request, without
 * library support) *why_not says so, for the selection layer's fallback; else creates the
 * graph communicator (the first time) and returns it in *graph, borrowed (a request that
 * keeps it retains it). Does nothing for other algorithms. */
int nhood_native_prepare(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, int persistent,
                         const nhood_algorithm *alg, const char **why_not, nhood_native_graph **graph);

#endif
