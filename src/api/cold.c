/* Cold communicators seen from outside (NHOOD_Topo_payback): selection/cold.h's estimates and
 * measured losses, their maxima agreed in one allreduce on the caller's communicator. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "api/topologies.h"
#include "common/errors.h"
#include "selection/cold.h"

/* The arguments both functions share: the collective's kind, topo valid, comm's rank and size. */
static int shape_args(NHOOD_Topo topo, MPI_Comm comm, const char *collective, nhood_coll_kind *kind, int *rank,
                      int *size) {
  int rc = MPI_SUCCESS, k = 0;
  while (k < NHOOD_NCOLLS && !(collective && strcmp(collective, nhood_coll_names[k]) == 0)) k++;
  if (k == NHOOD_NCOLLS)
    return nhood_error(MPI_ERR_ARG, "collective \"%s\" is not a neighborhood collective",
                       collective ? collective : "(NULL)");
  *kind = (nhood_coll_kind)k;
  NHOOD_TRY(nhood_topo_validate(topo, "topo"));
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, rank));
  NHOOD_MPI_CALL(MPI_Comm_size(comm, size));
cleanup:
  return rc;
}

int NHOOD_Topo_payback(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, long calls,
                       long *next, int *take_over, char *why, int len) {
  int rc = MPI_SUCCESS, rank = 0, size = 0;
  nhood_coll_kind kind;
  if (next == NULL || take_over == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL", next ? "take_over" : "next");
  if (calls < 0) return nhood_error(MPI_ERR_ARG, "calls = %ld is negative", calls);
  NHOOD_TRY(shape_args(topo, comm, collective, &kind, &rank, &size));
  nhood_cost_params p;
  /* A parameter file that cannot be read fails the call on this process only: the others
   * would wait in the allreduce, so it contributes no gain, and the error comes after it. */
  int local_rc = nhood_cold_params(size, &p);
  double v[4] = {0, 0, 0, 0}; /* set-up, this call's gain, a measured loss, any call's gain */
  if (local_rc == MPI_SUCCESS) {
    nhood_cold_estimate(topo, rank, size, &p, kind, block_bytes, &v[0], &v[1]);
    v[2] = nhood_cold_lost_before(topo, rank, size, kind, block_bytes);
    v[3] = nhood_cold_any_gain(topo, rank, &p);
  }
  NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, comm));
  /* Measured beats predicted: where nhood lost on a communicator of this shape, no gain. */
  nhood_cold_verdict(v[0], v[2] > 0 ? 0 : v[1], v[3], calls, next, take_over);
  if (why && len > 0 && *next == LONG_MAX)
    snprintf(why, (size_t)len, "after %ld call%s: set-up %.1f us, no call of any collective or size gains: MPI's own",
             calls, calls == 1 ? "" : "s", v[0]);
  else if (why && len > 0)
    snprintf(why, (size_t)len, "after %ld call%s: set-up %.1f us, largest gain %.3g us per %s of %.0f B%s: %s %ld",
             calls, calls == 1 ? "" : "s", v[0], v[1], collective, block_bytes,
             v[2] > 0 ? ", but nhood lost on this shape before" : "",
             *take_over ? "nhood takes over at call" : "no call gains, asks again at call", *next);
  NHOOD_TRY(local_rc);
cleanup:
  return rc;
}

int NHOOD_Topo_payback_lost(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes) {
  int rc = MPI_SUCCESS, rank = 0, size = 0;
  nhood_coll_kind kind;
  NHOOD_TRY(shape_args(topo, comm, collective, &kind, &rank, &size));
  nhood_cold_record_loss(topo, rank, size, kind, block_bytes);
cleanup:
  return rc;
}
