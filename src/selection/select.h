/* The algorithm table and the choice among its entries for one call. */
#ifndef NHOOD_SELECTION_SELECT_H
#define NHOOD_SELECTION_SELECT_H

#include "schedule/algorithms.h"

typedef struct nhood_algorithm {
  const char *name;
  /* 1 when the algorithm can run this call on this topology. */
  int (*applies)(const nhood_topo *t, const nhood_coll_args *a);
  nhood_builder build;  /* through nhood_algorithm_build, which adds the reductions */
  /* 1 when the builder needs the topology's combining pattern (built collectively, once per
   * topology object and communicator, by the API layer). */
  int needs_pattern;
} nhood_algorithm;

/* NULL when no algorithm has that name ("auto" is not an algorithm but a request to pick). */
const nhood_algorithm *nhood_algorithm_by_name(const char *name);
/* "direct, ..." for messages. */
const char *nhood_algorithm_names(void);

/* 1 when the algorithm's schedule for this call waits for a size pass (schedule/algorithms.h):
 * the library then makes a two-stage request and nhood-sim runs the pass first. */
int nhood_algorithm_needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a);

/* Builds the algorithm's schedule for a call (reduce and scatter-reduce: its exchange plus
 * the local reduction, schedule/reduce.c). */
int nhood_algorithm_build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                          nhood_sched *s);

/* Picks the algorithm for a call: the requested one ("auto" or a name) if it applies,
 * else MPI_ERR_ARG naming why. */
int nhood_select(const char *requested, const nhood_topo *t, const nhood_coll_args *a,
                 const nhood_algorithm **chosen);

#endif
