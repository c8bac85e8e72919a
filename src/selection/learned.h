/*
 * What a topology object learns about itself on a communicator, collectively, the first time
 * a call needs it, and keeps for later calls: its forwarding patterns (pattern/kind.h), which
 * processes share a node, the grid under a graph, whether MPI's own implementation can run
 * each collective, and the distributed-graph communicator that one then runs on. Then the
 * one step every call takes before its schedule is built: getting the chosen algorithm ready
 * (nhood_algorithm_ready).
 *
 * Each thing learned is one collective operation over the communicator's private duplicate,
 * taken by every process at the same call: what is learned changes only at such calls, so
 * every process sees the same and takes the same steps. This makes the first call of a
 * non-blocking or persistent collective that needs a step synchronizing, as MPI's own
 * topology constructors are. What is learned belongs to one communicator context; a call on
 * another one starts over.
 */
#ifndef NHOOD_SELECTION_LEARNED_H
#define NHOOD_SELECTION_LEARNED_H

#include "common/commctx.h"
#include "engine/native_mpi.h"
#include "engine/task.h"
#include "pattern/kind.h"
#include "selection/select.h"
#include "topology/grid.h"
#include "topology/topology.h"

/* State a selection module keeps on topo for one communicator context, under its key: `size`
 * bytes whose first member is the owning context (nhood_commctx *, retained), zeroed when
 * first made. On another context, reset(state) first drops what it held for the old one: a
 * call on another context starts over. nhood_ctx_state_free (for the key's destructor) resets,
 * releases the owner and frees. */
int nhood_ctx_state(NHOOD_Topo topo, nhood_topo_key *key, size_t size, nhood_commctx *ctx, void (*reset)(void *),
                    void **out);
void nhood_ctx_state_free(void *state, void (*reset)(void *));

/* The forwarding pattern of a kind (pattern/kind.h) of topo on ctx (Phase 1, collectively,
 * the first time); NULL does nothing. */
int nhood_ensure_pattern(NHOOD_Topo topo, nhood_commctx *ctx, nhood_pattern_kind *kind);

/* The parameters "auto" and combine's depth choice use on ctx (selection/cost.h), chosen once
 * per communicator (tried again after a failure): the placement the first time
 * (collectively), then the files. On an error *out stays NULL where the placement failed,
 * else points at the defaults. */
int nhood_cost_params_of(nhood_commctx *ctx, const nhood_cost_params **out);

/* Which processes of ctx share a node for topo: blocks of NHOOD_INFO_RANKS_PER_NODE ranks
 * where the topology was given it, else the communicator's map (nhood_commctx_nodes;
 * collective the first time). */
int nhood_nodes_for(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_nodes **nodes);

/* The grid under graph topology topo (topology/grid.h), searched collectively on ctx the
 * first time; *view NULL where there is none, for other kinds of topology, or with
 * NHOOD_GRID=off. The view lives as long as what topo learned on ctx. */
int nhood_grid_of(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_grid_view **view);

/* Records whether MPI's own implementation can run collective `kind` on every process, where
 * another collective step already told (the cost model's prices: selection/auto.c). */
int nhood_native_known(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_kind kind, int ok);

/* For MPI's own ("mpi", selection/families/native.c): agrees over processes, the first time
 * per collective, whether it can run the call; where it cannot (nor a persistent request,
 * without library support) *why_not says so, for the fallback; else creates the graph
 * communicator (the first time) and returns it in *graph. */
int nhood_native_agree(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, int persistent,
                       const char **why_not, nhood_native_graph **graph);

/* The learner (selection/registry.h) of topo on ctx: its services learn collectively. */
nhood_learner nhood_learner_on(NHOOD_Topo topo, nhood_commctx *ctx);

/* What alg learns for call a in mode (collectively the first time), where its schedule is
 * built (r->on, mapping a's blocks to a grid view's) and what it agrees (r->why_not,
 * r->graph); no fallback yet. */
int nhood_algorithm_prepare(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_args *a, nhood_mode mode,
                            const nhood_algorithm *alg, nhood_ready *r);

/* Gets *alg ready for call a in mode: what it learns collectively comes first (where it
 * applies may depend on it: the pattern's depth, whether every process can run MPI's own),
 * then what it agrees, then its fallback (selection/select.h) where it does not apply, so
 * *alg is what runs; r says on what (selection/registry.h). */
int nhood_algorithm_ready(NHOOD_Topo topo, nhood_commctx *ctx, nhood_coll_args *a, nhood_mode mode,
                          const nhood_algorithm **alg, nhood_ready *r);

#endif
