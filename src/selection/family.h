/*
 * Algorithm families: what the algorithms of one kind do, as a table of ops (PetscSF's
 * sf->ops, UCC's init -> task). Three families:
 *
 *   schedule    (families/schedule.c)   a builder computes the schedule locally: direct,
 *                                       staggered, far-first, the isomorphic cart-* ones
 *   forwarding  (families/forwarding.c) the shared Phase 2 over a pattern built
 *                                       collectively at first use: combine, node, node-tree;
 *                                       the v and w collectives take a size pass first
 *   native      (families/native.c)     MPI's own MPI_Neighbor_* on a graph communicator
 *
 * Only the families and the registry read an entry's data; the API and selection layers and
 * the tools call the ops through the functions of selection/registry.h.
 */
#ifndef NHOOD_SELECTION_FAMILY_H
#define NHOOD_SELECTION_FAMILY_H

#include "common/cost_model.h"
#include "common/nodes.h"
#include "selection/cost.h"
#include "selection/registry.h"

/* What pricing one algorithm reads and writes (selection/price.c). Rows are indexed by the
 * table index k and the size class: costs[k * NHOOD_SIZE_CLASSES + c]. */
typedef struct nhood_pricing {
  const nhood_topo *t, *grid; /* the topology; the grid view under it (NULL: none) */
  const nhood_coll_args *a;   /* the call, with one-byte blocks */
  int me;
  const nhood_cost_params *p;
  const nhood_nodes *nodes; /* NULL: one level */
  double *costs;            /* a call */
  double *persistent_costs; /* a persistent request's starts (NULL: not wanted) */
  double *nic;              /* per algorithm, 4 numbers (NULL: not wanted): selection/select.h */
} nhood_pricing;

struct nhood_family {
  const char *name;
  /* Why alg does not make its own task for the call (NULL: it does). */
  const char *(*unfit)(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a);
  /* What alg learns at first use (NULL: nothing). */
  int (*learn)(const nhood_algorithm *alg, nhood_learner *l);
  /* The topology alg is built on (NULL: the call's). */
  const nhood_topo *(*on)(const nhood_algorithm *alg, const nhood_topo *t, const nhood_grid_view *view,
                          nhood_coll_args *a);
  /* What alg agrees over processes before a call (NULL: nothing), and what agreed prices
   * tell it (NULL: nothing). */
  int (*agree)(const nhood_algorithm *alg, nhood_learner *l, const nhood_coll_args *a, nhood_mode mode, nhood_ready *r);
  int (*priced)(const nhood_algorithm *alg, nhood_learner *l, nhood_coll_kind kind, int everywhere);
  /* alg's rows at index k: INFINITY where "auto" must not pick it. Entries are priced in table
   * order, so one priced from another comes after it. */
  int (*price)(const nhood_algorithm *alg, int k, const nhood_pricing *in);
  /* Schedules (NULL where the family has none): the size pass (NULL: never), the schedule. */
  int (*needs_size_pass)(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a);
  int (*size_pass)(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s,
                   int **own_sizes);
  int (*build)(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me, const void *sizes,
               nhood_sched *s);
  /* The task of call a in mode. */
  int (*make_task)(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo, const nhood_coll_args *a,
                   nhood_commctx *ctx, nhood_mode mode, nhood_task **task);
};

extern const nhood_family nhood_family_schedule, nhood_family_forwarding, nhood_family_native;

/* The schedule family's data: an entry's builder and where it applies. */
typedef struct nhood_schedule_data {
  nhood_builder build;
  nhood_unfit unfit; /* NULL: applies everywhere */
  /* Isomorphic: on a graph topology it runs on the view of the grid found under it. */
  int on_grid;
  /* Its gain is at the network interfaces only (staggered, far-first): on one node it sends
   * what direct sends at direct's cost, so auto prices it only where processes span nodes. */
  int across_nodes;
} nhood_schedule_data;
/* The forwarding family's data: the kind of pattern (pattern/kind.h). The native family's:
 * the name of the algorithm whose messages it sends, which it is priced from. */

/* ---- shared by the families ------------------------------------------------------------ */

/* Prices alg's schedules built on `on` into its rows at k (a size pass, where the call takes
 * one, counted in a call's rows and not in a persistent start's). */
int nhood_price_schedules(const nhood_algorithm *alg, int k, const nhood_topo *on, const nhood_pricing *in);
/* Fills alg's rows at k with INFINITY (nic with zeros): auto does not pick it. */
void nhood_price_never(int k, const nhood_pricing *in);

/* A task of alg's schedule, built on r->on for call a. */
int nhood_schedule_task(const nhood_algorithm *alg, const nhood_ready *r, const nhood_coll_args *a, nhood_commctx *ctx,
                        nhood_mode mode, nhood_task **task);

#endif
