/* Schedule builders, one per algorithm. Each turns (topology, call arguments, own rank)
 * into a finished schedule, or returns an error with the schedule freed. */
#ifndef NHOOD_SCHEDULE_ALGORITHMS_H
#define NHOOD_SCHEDULE_ALGORITHMS_H

#include "schedule/collargs.h"
#include "schedule/schedule.h"
#include "topology/topology.h"

typedef struct nhood_topo nhood_topo;

int nhood_build_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

/* Message combining over common neighborhoods (Phase 2): needs the pattern attached to the
 * topology (pattern/combine.h). Allgather and alltoall are combined; where combining does not
 * apply (no pattern, Cartesian channels, the v and w collectives for now) it builds the direct
 * schedule, whose name then says so. */
int nhood_build_combine(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

/* The local copies of edges from this process to itself (shared by the builders). */
int nhood_sched_add_self_copies(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s);

#endif
