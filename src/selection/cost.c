#include "selection/cost.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "nhood.h"

/* Read once (the first call of any thread reads, the others wait for it): every process of
 * a job reads the same file, and later calls see the same answer. */
static nhood_cost_params active;
static char origin[300], failure[NHOOD_MAX_ERROR_STRING];
static int failed, named; /* named: NHOOD_PARAMS is set */

static void read_active(void) {
  nhood_cost_params_default(&active);
  const char *path = getenv("NHOOD_PARAMS");
  named = path != NULL && path[0] != '\0';
  if (named && nhood_cost_preset(path, &active) == 0) {
    snprintf(origin, sizeof origin, "preset %s (NHOOD_PARAMS)", path);
  } else if (named) {
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

/* ---- by placement ---------------------------------------------------------------------- */

int nhood_cost_cache_path(int nprocs, char *path, size_t len) {
  const char *dir = getenv("NHOOD_CACHE_DIR"), *base = NULL, *sub = "";
  if (dir && strcmp(dir, "off") == 0) return 1;
  if (dir && dir[0] != '\0') {
    base = dir;
  } else if ((base = getenv("XDG_CACHE_HOME")) && base[0] != '\0') {
    sub = "/nhood";
  } else if ((base = getenv("HOME")) && base[0] != '\0') {
    sub = "/.cache/nhood";
  } else {
    return 1;
  }
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) return 1;
  for (char *c = host; *c; c++)
    if (*c == '/' || *c == ' ') *c = '_';
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int vlen = 0;
  uint32_t h = 2166136261u; /* FNV-1a of the MPI library's version string */
  if (MPI_Get_library_version(version, &vlen) == MPI_SUCCESS)
    for (int k = 0; k < vlen && version[k]; k++) h = (h ^ (unsigned char)version[k]) * 16777619u;
  int n = snprintf(path, len, "%s%s/params-%s-%dp-mpi%08x.txt", base, sub, host, nprocs, (unsigned)h);
  return n < 0 || (size_t)n >= len;
}

int nhood_cost_params_for(const nhood_placement *where, int nprocs, nhood_cost_params *out) {
  const nhood_cost_params *explicit_params = NULL;
  int rc = nhood_cost_params_active(&explicit_params, NULL);
  if (rc != MPI_SUCCESS) return rc;
  if (named || where == NULL) {
    *out = *explicit_params;
    return MPI_SUCCESS;
  }
  if (!where->one_node) {
    nhood_cost_params_default(out);
    return MPI_SUCCESS;
  }
  char cache[512], err[256];
  if (nhood_cost_cache_path(nprocs, cache, sizeof cache) == 0 && access(cache, R_OK) == 0) {
    nhood_cost_params p;
    nhood_cost_params_node(1, &p);
    if (nhood_cost_params_read(cache, &p, err, sizeof err) == 0) {
      *out = p;
      return MPI_SUCCESS;
    }
  }
  nhood_cost_params_node((double)where->node_procs / (where->cpus > 0 ? where->cpus : 1), out);
  return MPI_SUCCESS;
}

/* ---- prediction ---------------------------------------------------------------------- */

static double op_bytes(const nhood_op *op) {
  if (op->count == 0) return 0;
  int size = 0;
  if (nhood_type_size(op->type, &size) != MPI_SUCCESS) return 0;
  return (double)op->count * size;
}

double nhood_cost_predict(const nhood_sched *s, const nhood_cost_params *p, double scale, const nhood_nodes *nodes,
                          int me, double nic[4]) {
  double total = 0;
  int two_levels = nodes != NULL && nodes->nnodes > 1;
  if (nic) nic[0] = nic[1] = nic[2] = nic[3] = 0;
  for (int r = 0, begin = 0; r < s->nrounds; begin = s->round_end[r++]) {
    nhood_cost_round_load load = {0};
    for (int k = begin; k < s->round_end[r]; k++) {
      const nhood_op *op = &s->ops[k];
      double bytes = op_bytes(op) * scale;
      switch (op->kind) {
        case NHOOD_OP_SEND:
        case NHOOD_OP_RECV: {
          int in = op->kind == NHOOD_OP_RECV, on_node = two_levels && nhood_same_node(nodes, op->peer, me);
          int *n = in ? (on_node ? &load.node_recvs : &load.recvs) : (on_node ? &load.node_sends : &load.sends);
          double *sum =
              in ? (on_node ? &load.node_received : &load.received) : (on_node ? &load.node_sent : &load.sent);
          (*n)++;
          *sum += bytes;
          *(in ? &load.recvs_rdv : &load.sends_rdv) += nhood_cost_is_rendezvous(p, bytes);
          if (nic && two_levels && !on_node && op->peer >= 0) { /* through the node's interface */
            nic[2 * in] += 1;
            nic[2 * in + 1] += bytes;
          }
          break;
        }
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
