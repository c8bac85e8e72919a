#include "sim_topos.h"

#include <stdio.h>
#include <string.h>

#include "api/topologies.h"
#include "topology/topology.h"

int sim_topos_create(const topospec *spec, int nranks, NHOOD_Topo *topos, sim_topos_stats *stats, char *err,
                     size_t errlen) {
  int rc = 1;
  topospec_rank lists = {0};
  memset(stats, 0, sizeof *stats);
  for (int r = 0; r < nranks; r++) {
    if (topospec_for_rank(spec, r, nranks, &lists, err, errlen) != 0) goto cleanup;
    int code, coords[TOPOSPEC_MAX_DIMS];
    if (lists.is_cart) {
      topospec_rank_coords(&lists, r, coords);
      code = nhood_topo_create_cart_offsets_on_grid(lists.ndims, lists.dims, lists.periods, coords, lists.noffsets,
                                                    lists.offsets, MPI_INFO_NULL, &topos[r]);
    } else {
      /* A halo (mtx:, rmat:) states its sizes as weights, as codes pass them to
       * MPI_Dist_graph_create_adjacent: node balances its node pairs by them, and
       * --per-entry sizes the v collectives' blocks by them. */
      code = NHOOD_Topo_create_adjacent(
          lists.indegree, lists.sources, lists.recv_elems ? lists.recv_elems : MPI_UNWEIGHTED, lists.outdegree,
          lists.destinations, lists.send_elems ? lists.send_elems : MPI_UNWEIGHTED, MPI_INFO_NULL, &topos[r]);
    }
    if (code != MPI_SUCCESS) {
      char message[NHOOD_MAX_ERROR_STRING];
      NHOOD_Error_message(message, NULL);
      snprintf(err, errlen, "rank %d: creating its topology object: %s", r, message);
      goto cleanup;
    }
    for (int j = 0; j < lists.outdegree; j++) stats->edges += lists.destinations[j] != MPI_PROC_NULL;
    stats->neighbors += lists.indegree + lists.outdegree;
    stats->max_in = lists.indegree > stats->max_in ? lists.indegree : stats->max_in;
    stats->max_out = lists.outdegree > stats->max_out ? lists.outdegree : stats->max_out;
    topospec_rank_free(&lists);
  }
  rc = 0;
cleanup:
  topospec_rank_free(&lists);
  return rc;
}
