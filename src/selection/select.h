/*
 * Choosing among the registry's algorithms (selection/registry.h) for one call.
 *
 * Only the selection layer decides what runs. An algorithm asked for (info key, NHOOD_TUNE)
 * that does not apply to a call falls back along its `fallback` chain in one place,
 * nhood_select_fallback; the request's schedule then names what ran, and NHOOD_FALLBACK=error
 * makes the fallback an error (print: a line on stderr). "auto" prices every algorithm
 * through its family (selection/price.c) and picks among those that apply.
 */
#ifndef NHOOD_SELECTION_SELECT_H
#define NHOOD_SELECTION_SELECT_H

#include "common/nodes.h"
#include "schedule/algorithms.h"
#include "selection/cost.h"
#include "selection/registry.h"

/* The first of alg's fallbacks that applies (alg itself when why_not is NULL and it applies);
 * NULL when none does. No message, no error mode: for queries. */
const nhood_algorithm *nhood_algorithm_resolve(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                                               const nhood_coll_args *a);

/* What runs a call for which alg was chosen: alg where it applies, else the first of its
 * fallbacks that does. why_not, if not NULL, is a reason known already (the API layer's
 * collective agreement for "mpi"). MPI_ERR_ARG instead of a fallback under
 * NHOOD_FALLBACK=error, naming the algorithm and the reason. The one place an algorithm is
 * replaced. */
int nhood_select_fallback(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                          const nhood_coll_args *a, const nhood_algorithm **ran);

/* ---- "auto": the cost model's choice (selection/cost.h) -------------------------------
 *
 * Each process predicts every algorithm's time on its own schedule for every size class
 * (blocks of about 2^(c-1) bytes; class 0 is empty blocks), from schedules built once for
 * one-byte blocks; the API layer takes the maximum over processes (one allreduce, at the
 * first "auto" call of a collective on a topology object and communicator) and every process
 * then picks from the same vector, so all pick alike. nhood-info does the same for virtual
 * ranks. */
#define NHOOD_SIZE_CLASSES 33
int nhood_size_class(double bytes);
/* The block size class c stands for (its geometric middle). */
double nhood_size_class_bytes(int cls);
/* The block size "auto" decides by: the bytes of one send block (alltoallv/w: the mean over
 * this process's destinations). Local: other processes may see other sizes. */
double nhood_call_block_bytes(const nhood_coll_args *a, const nhood_topo *t);

/* This process's predicted time of every algorithm at every size class:
 * costs[k * NHOOD_SIZE_CLASSES + c] for table entry k, INFINITY where k cannot run. Needs the
 * patterns on t (else combine and node are predicted as direct, which they then build). grid,
 * where not NULL, is the view of the grid found under graph t: the needs_grid algorithms are
 * priced on it. nodes (NULL: one level) tells on-node messages from network ones
 * (nhood_cost_predict); then nic (NULL: not wanted) receives, per algorithm k, what this
 * process puts through its node's network interface per call, nic[4k..4k+3]: messages and
 * bytes per one-byte block sent, then received (the size pass's messages not counted).
 * persistent_costs (NULL: not wanted) receives the same table for a persistent request's
 * starts: a v collective's size pass runs once, at init, so it is left out there. */
int nhood_auto_costs(const nhood_topo *t, const nhood_topo *grid, nhood_coll_kind kind, int isomorphic_sizes, int me,
                     const nhood_cost_params *p, const nhood_nodes *nodes, double *costs, double *persistent_costs,
                     double *nic);
/* The two levels' last term: each algorithm's time at each class is at least what its node's
 * network interface takes for the node's traffic, nic summed over the node's processes. */
void nhood_auto_add_nic(const nhood_cost_params *p, const double *nic, double *costs);

/* The cheapest algorithm at class cls in costs (the maximum over processes; for a persistent
 * request's starts, the persistent table, which prices "mpi" only where it can run them),
 * ties going to the earlier table entry. A margin: an algorithm with more rounds or copies than one message per
 * neighbor (anything but direct and "mpi") is chosen only where it is predicted faster than the cheaper of those two by
 * more than `margin` (relative: 0.25 = 25%); else that one. The margin is the error the model is known to make
 * (common/cost_model.h). */
const nhood_algorithm *nhood_auto_choose(const double *costs, int cls, double margin);

/* The candidates measured selection tries (selection/trial.h), best first: the choice
 * above; then direct and "mpi" (where it can run), cheaper first: they send the same messages,
 * but MPI's own implementation and nhood's differ measurably, and MPI's own is the one "auto"
 * must not lose to; then the next cheapest others while they are predicted within
 * NHOOD_SHORTLIST_SPREAD times the choice. Returns how many (1 to NHOOD_SHORTLIST_MAX) are in
 * list. */
#define NHOOD_SHORTLIST_MAX 3
#define NHOOD_SHORTLIST_SPREAD 2.0
int nhood_auto_shortlist(const double *costs, int cls, double margin, const nhood_algorithm *list[NHOOD_SHORTLIST_MAX]);

/* The algorithm named `requested` (not "auto", which selection/auto.h resolves), after its
 * fallbacks (nhood_select_fallback); MPI_ERR_INFO for an unknown name. */
int nhood_select(const char *requested, const nhood_topo *t, const nhood_coll_args *a, const nhood_algorithm **chosen);

#endif
