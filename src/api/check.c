/* Collective consistency check of topology objects across a communicator: plain MPI would
 * deadlock on an inconsistent topology; this names the ranks that disagree instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/threads.h"
#include "common/commctx.h"
#include "common/errors.h"
#include "topology/topology.h"

/* What one process reports about its first disagreement. */
typedef struct {
  int mismatches; /* number of peers that disagree with this process */
  int peer;       /* first such peer */
  int as_source;  /* times this process lists peer as a source */
  int as_dest;    /* times peer lists this process as a destination */
} disagreement;

static int topo_check(NHOOD_Topo topo, MPI_Comm comm) {
  int rc = MPI_SUCCESS, local_ok, all_ok = 0;
  int *listed_as_dest = NULL, *dest_counts = NULL, *source_counts = NULL;
  disagreement mine = {0, -1, 0, 0}, *all = NULL;
  nhood_commctx *ctx = NULL;
  NHOOD_TRY(nhood_commctx_get(comm, &ctx));
  /* Every process must take part in the collective steps below even if its own topology is
   * unusable, or the others would hang: agree on usability first. */
  int topo_rc = nhood_topo_validate(topo, "topo");
  if (topo_rc == MPI_SUCCESS) topo_rc = nhood_topo_check_ranks(topo, ctx->size);
  local_ok = topo_rc == MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_LAND, ctx->comm));
  if (!local_ok) return topo_rc; /* keeps this process's own message */
  if (!all_ok) {
    rc = nhood_error(MPI_ERR_TOPOLOGY, "topology check: another process passed an invalid topology");
    goto cleanup;
  }
  int p = ctx->size;
  dest_counts = calloc((size_t)p, sizeof(int));
  source_counts = calloc((size_t)p, sizeof(int));
  listed_as_dest = calloc((size_t)p, sizeof(int));
  all = malloc(sizeof *all * (size_t)p);
  if (!dest_counts || !source_counts || !listed_as_dest || !all) {
    rc = nhood_error(MPI_ERR_NO_MEM, "topology check: out of memory for %d processes", p);
    goto cleanup;
  }
  for (int j = 0; j < topo->outdegree; j++)
    if (topo->destinations[j] != MPI_PROC_NULL) dest_counts[topo->destinations[j]]++;
  for (int i = 0; i < topo->indegree; i++)
    if (topo->sources[i] != MPI_PROC_NULL) source_counts[topo->sources[i]]++;
  /* listed_as_dest[q] = how often q lists this process as a destination. */
  NHOOD_MPI_CALL(MPI_Alltoall(dest_counts, 1, MPI_INT, listed_as_dest, 1, MPI_INT, ctx->comm));
  for (int q = 0; q < p; q++) {
    if (listed_as_dest[q] == source_counts[q]) continue;
    if (mine.mismatches++ == 0) {
      mine.peer = q;
      mine.as_source = source_counts[q];
      mine.as_dest = listed_as_dest[q];
    }
  }
  NHOOD_MPI_CALL(MPI_Allgather(&mine, 4, MPI_INT, all, 4, MPI_INT, ctx->comm));
  char msg[NHOOD_MAX_ERROR_STRING] = "";
  size_t len = 0;
  int disagreeing = 0;
  for (int r = 0; r < p; r++) {
    if (all[r].mismatches == 0) continue;
    if (disagreeing++ < 3 && len < sizeof msg)
      len += (size_t)snprintf(
          msg + len, sizeof msg - len,
          "%srank %d lists rank %d as a destination %d time(s) but rank %d lists rank %d as a source %d time(s)",
          disagreeing > 1 ? "; " : "", all[r].peer, r, all[r].as_dest, r, all[r].peer, all[r].as_source);
  }
  if (disagreeing > 0)
    rc = nhood_error(MPI_ERR_TOPOLOGY, "inconsistent topology on %d process(es): %s%s", disagreeing, msg,
                     disagreeing > 3 ? "; ..." : "");
cleanup:
  free(dest_counts);
  free(source_counts);
  free(listed_as_dest);
  free(all);
  return rc;
}

int NHOOD_Topo_check(NHOOD_Topo topo, MPI_Comm comm) { NHOOD_THREAD_GUARDED(topo_check(topo, comm)); }
