/* Schedule builders, one per algorithm. Each turns (topology, call arguments, own rank)
 * into a finished schedule, or returns an error with the schedule freed. */
#ifndef NHOOD_SCHEDULE_ALGORITHMS_H
#define NHOOD_SCHEDULE_ALGORITHMS_H

#include "schedule/collargs.h"
#include "schedule/schedule.h"
#include "topology/topology.h"

typedef struct nhood_topo nhood_topo;

int nhood_build_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

#endif
