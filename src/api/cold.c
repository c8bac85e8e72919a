/* Cold communicators seen from outside (nhood_topo_payback): selection/cold.h's estimates and
 * measured outcomes, agreed in one allreduce on the caller's communicator. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/payback.h"
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

int nhood_payback_begin(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, nhood_payback *p,
                        MPI_Request *request) {
  int rc = MPI_SUCCESS, rank = 0, size = 0;
  nhood_coll_kind kind;
  NHOOD_TRY(shape_args(topo, comm, collective, &kind, &rank, &size));
  p->collective = nhood_coll_names[kind];
  p->block_bytes = block_bytes;
  nhood_cost_params params;
  /* A parameter file that cannot be read fails the call on this process only: the others
   * would wait in the allreduce, so it contributes no gain, and the error comes after it. */
  p->local_rc = nhood_cold_params(size, &params);
  /* The estimated set-up and gain of this call, whether a gain was measured on this shape,
   * any call's gain, the measured gain negated (so that the maximum gives the smallest gain
   * among the processes that have one), the measured set-up and the last life. */
  double *v = p->v, measured_setup = 0, measured_gain = 0;
  long life = 0;
  v[0] = v[1] = v[2] = v[3] = v[5] = v[6] = 0;
  v[4] = -DBL_MAX;
  if (request) *request = MPI_REQUEST_NULL;
  if (nhood_cold_known_idle(topo, rank, size)) { /* every process knows no call gains: no allreduce */
    if (p->local_rc == MPI_SUCCESS) nhood_cold_estimate(topo, rank, size, &params, kind, block_bytes, &v[0], &v[1]);
    v[1] = 0;
    return MPI_SUCCESS;
  }
  if (p->local_rc == MPI_SUCCESS) {
    nhood_cold_estimate(topo, rank, size, &params, kind, block_bytes, &v[0], &v[1]);
    if (nhood_cold_recorded(topo, rank, size, kind, block_bytes, &measured_setup, &measured_gain, &life)) {
      v[5] = measured_setup;
      if (!isnan(measured_gain)) v[2] = 1, v[4] = -measured_gain;
      v[6] = (double)life;
    }
    v[3] = nhood_cold_any_gain(topo, rank, &params);
  }
  if (request)
    NHOOD_MPI_CALL(MPI_Iallreduce(MPI_IN_PLACE, v, 7, MPI_DOUBLE, MPI_MAX, comm, request));
  else
    NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, 7, MPI_DOUBLE, MPI_MAX, comm));
cleanup:
  return rc;
}

int nhood_payback_idle_comm(MPI_Comm comm) {
  int size = 0, rank = 0, kind = MPI_UNDEFINED, in = 0, out = 0, weighted = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || size > 2 || MPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
  if (kind == MPI_DIST_GRAPH) {
    if (MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS) return 0;
  } else if (kind == MPI_GRAPH) {
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Graph_neighbors_count(comm, rank, &in) != MPI_SUCCESS)
      return 0;
    out = in;
  } else {
    return 0;
  }
  /* At most one neighbor each way here: at most one message each way to the other process. */
  return in <= 1 && out <= 1;
}

int nhood_payback_end(const nhood_payback *p, long calls, long *next, int *take_over, char *why, int len) {
  const double *v = p->v;
  long life = (long)v[6]; /* the longest last life among the processes' records */
  /* Measured beats predicted: the larger set-up, and the gain measured on a communicator of
   * this shape (none where nhood lost there). */
  int measured = v[2] > 0, setup_measured = v[5] > v[0];
  double setup = setup_measured ? v[5] : v[0], gain = measured ? fmax(0, -v[4]) : v[1];
  nhood_cold_verdict(setup, gain, v[3], calls, life, next, take_over);
  if (why && len > 0 && *next == LONG_MAX)
    snprintf(why, (size_t)len, "after %ld call%s: set-up %.1f us, no call of any collective or size gains: MPI's own",
             calls, calls == 1 ? "" : "s", setup);
  else if (why && len > 0) {
    char lived[64] = "";
    if (life > 0) snprintf(lived, sizeof lived, ", the last of this shape lived %ld calls", life);
    snprintf(why, (size_t)len, "after %ld call%s: set-up %.1f us%s, %s %.3g us per %s of %.0f B%s%s: %s %ld", calls,
             calls == 1 ? "" : "s", setup, setup_measured ? " (measured)" : "", measured ? "gain" : "largest gain",
             measured ? gain : v[1], p->collective, p->block_bytes,
             !measured  ? ""
             : gain > 0 ? ", as measured on this shape before"
                        : ", but nhood lost on this shape before",
             lived, *take_over ? "nhood takes over at call" : "no call gains, asks again at call", *next);
  }
  return p->local_rc;
}

int nhood_topo_payback(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, long calls,
                       long *next, int *take_over, char *why, int len) {
  int rc = MPI_SUCCESS;
  nhood_payback p;
  if (next == NULL || take_over == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL", next ? "take_over" : "next");
  if (calls < 0) return nhood_error(MPI_ERR_ARG, "calls = %ld is negative", calls);
  NHOOD_TRY(nhood_payback_begin(topo, comm, collective, block_bytes, &p, NULL));
  NHOOD_TRY(nhood_payback_end(&p, calls, next, take_over, why, len));
cleanup:
  return rc;
}

int nhood_topo_payback_measured(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes,
                                double setup_us, double gain_us) {
  int rc = MPI_SUCCESS, rank = 0, size = 0;
  nhood_coll_kind kind;
  if (!(setup_us >= 0) || isinf(setup_us))
    return nhood_error(MPI_ERR_ARG, "setup_us = %g is not a finite time of 0 or more", setup_us);
  if (isinf(gain_us)) return nhood_error(MPI_ERR_ARG, "gain_us = %g is not finite (NaN: not measured)", gain_us);
  NHOOD_TRY(shape_args(topo, comm, collective, &kind, &rank, &size));
  nhood_cold_record(topo, rank, size, kind, block_bytes, setup_us, gain_us);
cleanup:
  return rc;
}

int nhood_topo_payback_life(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, long calls) {
  int rc = MPI_SUCCESS, rank = 0, size = 0;
  nhood_coll_kind kind;
  if (calls < 0) return nhood_error(MPI_ERR_ARG, "calls = %ld is negative", calls);
  NHOOD_TRY(shape_args(topo, comm, collective, &kind, &rank, &size));
  nhood_cold_record_life(topo, rank, size, kind, block_bytes, calls);
cleanup:
  return rc;
}

int nhood_topo_payback_lost(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes) {
  return nhood_topo_payback_measured(topo, comm, collective, block_bytes, 0, 0);
}
