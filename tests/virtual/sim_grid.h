/* The library's search for the grid under a graph topology (topology/grid.h) over virtual
 * ranks: each step on every rank, then the reduction the API layer does with MPI_Allreduce.
 * No MPI call. */
#ifndef NHOOD_SIM_GRID_H
#define NHOOD_SIM_GRID_H

#include <nhood.h>

#include <stddef.h>

#include "schedule/collargs.h"
#include "topology/grid.h"

/* *views: per rank, the view of the grid found (all NULL where none is, or where the topologies
 * are not graphs); free with sim_grid_free. 0, or 1 with a message. */
int sim_grid_find(int nranks, NHOOD_Topo *topos, nhood_grid_view ***views, char *err, size_t errlen);
void sim_grid_free(int nranks, nhood_grid_view **views);

/* The topology alg's schedule is built on at rank r (as the API layer's prepare): the view for
 * the isomorphic algorithms where a grid was found, with a mapping the graph's blocks. */
const struct nhood_topo *sim_grid_topo_for(const char *algo, NHOOD_Topo topo, nhood_grid_view *const *views, int r,
                                           nhood_coll_args *a);

#endif
