/* Topology objects of P virtual ranks from a SPEC, as an application would make them, with
 * no MPI call (nhood-sim, nhood-info). */
#ifndef NHOOD_SIM_TOPOS_H
#define NHOOD_SIM_TOPOS_H

#include <nhood.h>

#include <stddef.h>

#include "topospec.h"

typedef struct sim_topos_stats {
  long long edges;     /* destinations other than MPI_PROC_NULL, over all ranks */
  long long neighbors; /* indegree + outdegree, over all ranks */
  int max_in, max_out;
} sim_topos_stats;

/* topos[0..nranks) (all NHOOD_TOPO_NULL on entry): from the SPEC's lists
 * (NHOOD_Topo_create_adjacent), or for moore and vonneumann as relative offsets on the grid
 * (what NHOOD_Topo_create_cart_offsets makes on a Cartesian communicator), which the
 * isomorphic algorithms need and the others read as lists. 0, or 1 with a message (the
 * objects made so far stay in topos for the caller to free). */
int sim_topos_create(const topospec *spec, int nranks, NHOOD_Topo *topos, sim_topos_stats *stats, char *err,
                     size_t errlen);

#endif
