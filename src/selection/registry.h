/*
 * The algorithm registry: the one list of algorithms (registry.c), each entry an algorithm
 * of a family. The family (selection/family.h) says what its algorithms do, as ops: where
 * they apply, what they learn at first use, what they cost, and how they make a call's task;
 * the entry adds what is the algorithm's own (a builder, a kind of pattern). Tests,
 * nhood-bench, nhood-sim, nhood-info and the plots enumerate the table (`--algo all`).
 *
 * Adding an algorithm of an existing family: its own file (for a schedule, a builder in
 * schedule/, declared in schedule/algorithms.h), one entry in registry.c, one line in
 * tests/algorithms/CMakeLists.txt (and its name in the README's list, which
 * algorithm.registry checks). A new family: its ops in selection/families/ and its entries.
 * Nothing outside the families and the registry reads an entry's family or its data
 * (scripts/check_layers.sh); everything else goes through the functions below.
 */
#ifndef NHOOD_SELECTION_REGISTRY_H
#define NHOOD_SELECTION_REGISTRY_H

#include "common/commctx.h"
#include "engine/native_mpi.h"
#include "engine/task.h"
#include "pattern/kind.h"
#include "schedule/algorithms.h"
#include "topology/grid.h"

typedef struct nhood_family nhood_family;

typedef struct nhood_algorithm {
  const char *name;
  const char *description; /* one line (nhood-info --algorithms) */
  const nhood_family *family;
  const void *data;     /* the family's own data for this entry (selection/family.h) */
  const char *fallback; /* what runs where it does not apply; NULL: it always applies */
  /* One message per neighbor in one round, nothing copied (direct and MPI's own): every other
   * algorithm must be shown faster than these, by the model's margin (selection/select.h)
   * and by a trial's rounds (selection/trial.h). */
  int baseline;
} nhood_algorithm;

/* At least the table's length (registry.c checks). */
#define NHOOD_ALGORITHMS_MAX 32

/* NULL when no algorithm has that name ("auto" is not an algorithm but a request to pick). */
const nhood_algorithm *nhood_algorithm_by_name(const char *name);
/* "auto, direct, ..." for messages. */
const char *nhood_algorithm_names(void);
/* The table, by index: the index space of the cost vectors (selection/select.h). */
int nhood_algorithm_count(void);
const nhood_algorithm *nhood_algorithm_at(int k);
int nhood_algorithm_index(const nhood_algorithm *alg);
int nhood_algorithm_is_baseline(const nhood_algorithm *alg);

/* ---- what first use learns --------------------------------------------------------------
 *
 * The services an algorithm's learn op draws on. selection/learned.c provides them on a
 * communicator, collectively (every process asks at the same call); nhood-sim and nhood-info
 * over virtual ranks. */
typedef struct nhood_learner {
  /* The forwarding pattern of kind, attached to the topology (built the first time). */
  int (*pattern)(struct nhood_learner *self, nhood_pattern_kind *kind);
  /* Searches the grid under a graph topology (the first time) and sets view. */
  int (*grid)(struct nhood_learner *self);
  const nhood_grid_view *view; /* what grid found; NULL: none, or not searched */
  NHOOD_Topo topo;             /* on a communicator: the topology object and the context */
  nhood_commctx *ctx;
} nhood_learner;

/* What alg needs to know before it can say where it applies: its pattern, the grid. */
int nhood_algorithm_learn(const nhood_algorithm *alg, nhood_learner *l);

/* The topology alg's schedule is built on for a call on t: t, or for the isomorphic ones the
 * view of the grid under it where one was found (a, if not NULL, then maps the view's blocks
 * to the graph's). */
const nhood_topo *nhood_algorithm_on(const nhood_algorithm *alg, const nhood_topo *t, const nhood_grid_view *view,
                                     nhood_coll_args *a);

/* Why alg does not make its own task for this call (NULL: it does), from what it learned.
 * "mpi" answers for this process only (its agree op asks every process). */
const char *nhood_algorithm_unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a);

/* What a call runs on once its algorithm is ready (selection/learned.h). */
typedef struct nhood_ready {
  const nhood_topo *on;      /* nhood_algorithm_on */
  nhood_native_graph *graph; /* MPI's own: the communicator its collective runs on (borrowed) */
  const char *why_not;       /* where the processes agreed that it cannot run; NULL otherwise */
} nhood_ready;

/* What alg agrees over processes before a call, collectively the first time (MPI's own:
 * whether every process can run it, and its communicator); most agree nothing. */
int nhood_algorithm_agree(const nhood_algorithm *alg, nhood_learner *l, const nhood_coll_args *a, nhood_mode mode,
                          nhood_ready *r);
/* What "auto"'s prices, agreed over processes, tell alg: whether it runs on every process. */
int nhood_algorithm_priced(const nhood_algorithm *alg, nhood_learner *l, nhood_coll_kind kind, int everywhere);

/* alg's rows at table index k of "auto"'s prices (selection/family.h, nhood_pricing). */
struct nhood_pricing;
int nhood_algorithm_price(const nhood_algorithm *alg, int k, const struct nhood_pricing *in);

/* ---- schedules -------------------------------------------------------------------------- */

/* 1 where alg builds schedules (every algorithm but MPI's own). */
int nhood_algorithm_has_schedule(const nhood_algorithm *alg);
/* 1 when alg's schedule for this call waits for a size pass (schedule/algorithms.h): run
 * nhood_algorithm_size_pass's schedule first (own_sizes, which it allocates, is its send
 * buffer), then build the data schedule with nhood_algorithm_build from the pass's scratch. */
int nhood_algorithm_needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a);
int nhood_algorithm_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                              nhood_sched *s, int **own_sizes);
/* Builds alg's schedule for a call (reduce and scatter-reduce: its exchange plus the local
 * reduction, schedule/reduce.c); sizes: the size pass's scratch where it took one, else NULL. */
int nhood_algorithm_build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                          const void *sizes, nhood_sched *s);

/* The task that runs call a in mode over ctx's communicator: r from nhood_algorithm_ready. */
int nhood_algorithm_make_task(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo,
                              const nhood_coll_args *a, nhood_commctx *ctx, nhood_mode mode, nhood_task **task);

#endif
