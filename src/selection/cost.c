#include "selection/cost.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "nhood.h"

/* Read once (the first call of any thread reads, the others wait for it): every process of
 * a job reads the same file, and later calls see the same answer. */
static nhood_cost_params active;
static char origin[300], failure[NHOOD_MAX_ERROR_STRING];
static int failed;

static void read_active(void) {
  nhood_cost_params_default(&active);
  const char *path = getenv("NHOOD_PARAMS");
  if (path != NULL && path[0] != '\0') {
    char err[NHOOD_MAX_ERROR_STRING - 32];
    nhood_cost_params p = active;
    if (nhood_cost_params_read(path, &p, err, sizeof err) != 0) {
      snprintf(failure, sizeof failure, "NHOOD_PARAMS: %s", err);
      failed = 1;
    } else {
      active = p;
      snprintf(origin, sizeof origin, "%s", path);
    }
  } else {
    snprintf(origin, sizeof origin, "built-in (ib-edr)");
  }
}

int nhood_cost_params_active(const nhood_cost_params **params, const char **source) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_active);
  if (failed) return nhood_error(MPI_ERR_OTHER, "%s", failure);
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
