#include "selection/cost.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "nhood.h"

/* Read once: every process of a job reads the same file, and later calls see the same
 * answer (a benign race between threads reads the file twice and stores equal results). */
int nhood_cost_params_active(const nhood_cost_params **params, const char **source) {
  static nhood_cost_params active;
  static char origin[300], failure[NHOOD_MAX_ERROR_STRING];
  static int state = 0; /* 0: not read, 1: ready, 2: failed */
  if (state == 0) {
    nhood_cost_params p;
    nhood_cost_params_default(&p);
    const char *path = getenv("NHOOD_PARAMS");
    if (path != NULL && path[0] != '\0') {
      char err[NHOOD_MAX_ERROR_STRING - 32];
      if (nhood_cost_params_read(path, &p, err, sizeof err) != 0) {
        snprintf(failure, sizeof failure, "NHOOD_PARAMS: %s", err);
        state = 2;
      } else {
        snprintf(origin, sizeof origin, "%s", path);
      }
    } else {
      snprintf(origin, sizeof origin, "built-in (ib-edr)");
    }
    if (state == 0) {
      active = p;
      state = 1;
    }
  }
  if (state == 2) return nhood_error(MPI_ERR_OTHER, "%s", failure);
  *params = &active;
  if (source) *source = origin;
  return MPI_SUCCESS;
}

/* ---- prediction ---------------------------------------------------------------------- */

static double op_bytes(const nhood_op *op) {
  if (op->count == 0) return 0;
  int size = 0;
  if (nhood_type_size(op->type, &size) != MPI_SUCCESS) return 0;
  return (double)op->count * size;
}

double nhood_cost_predict(const nhood_sched *s, const nhood_cost_params *p, double scale) {
  double total = 0;
  for (int r = 0, begin = 0; r < s->nrounds; begin = s->round_end[r++]) {
    nhood_cost_round_load load = {0};
    for (int k = begin; k < s->round_end[r]; k++) {
      const nhood_op *op = &s->ops[k];
      double bytes = op_bytes(op) * scale;
      switch (op->kind) {
        case NHOOD_OP_SEND:
          load.sends++;
          load.sent += bytes;
          load.sends_rdv += nhood_cost_is_rendezvous(p, bytes);
          break;
        case NHOOD_OP_RECV:
          load.recvs++;
          load.received += bytes;
          load.recvs_rdv += nhood_cost_is_rendezvous(p, bytes);
          break;
        case NHOOD_OP_COPY:
        case NHOOD_OP_REDUCE:
          load.copied += bytes;
          break;
        default: /* NHOOD_OP_TARGET: the second half of a copy */
          break;
      }
    }
    total += nhood_cost_round(p, &load);
  }
  return total;
}
