#include "sim_bound.h"

#include <stdio.h>
#include <stdlib.h>

#include "topology/topology.h"

static double min2(double a, double b) { return a < b ? a : b; }

int sim_bound_compute(const sim_call *call, const loggp_params *p, sim_bound *out, char *err, size_t errlen) {
  const int rpn = p->ranks_per_node, nranks = call->nranks;
  const int nnodes = rpn > 0 ? (nranks + rpn - 1) / rpn : 0;
  const int gather = call->kind == NHOOD_ALLGATHER || call->kind == NHOOD_ALLGATHERV;
  const double Gmin = rpn > 0 ? min2(p->G, p->node_G) : p->G;
  /* A message's fixed part at the cheaper level: its send and receive overheads, latency. */
  const double fixed = rpn > 0 ? 2 * min2(p->o, p->node_o) + min2(p->L, p->node_L) : 2 * p->o + p->L;
  long long *side = calloc((size_t)2 * (size_t)(nnodes > 0 ? nnodes : 1), sizeof *side); /* out, in per node */
  int *seen = malloc(sizeof *seen * (size_t)(nnodes > 0 ? nnodes : 1));                  /* allgather: last rank */
  if (side == NULL || seen == NULL) {
    free(side);
    free(seen);
    snprintf(err, errlen, "bound: out of memory");
    return 1;
  }
  for (int n = 0; n < nnodes; n++) seen[n] = -1;
  *out = (sim_bound){.rank = -1, .node = -1};
  out->valid = rpn > 0 ? min2(p->g, p->node_g) >= Gmin && min2(p->o, p->node_o) >= Gmin : p->g >= Gmin && p->o >= Gmin;
  for (int r = 0; r < nranks; r++) {
    const NHOOD_Topo t = call->topos[r];
    const nhood_coll_args *a = &call->args[r];
    const int mynode = rpn > 0 ? r / rpn : 0;
    long long own = 0;
    int leaves = 0, crosses = 0; /* allgather: its block is needed by another rank, on another node */
    for (int j = 0; j < t->outdegree; j++) {
      const int q = t->destinations[j];
      if (q < 0 || q == r) continue; /* MPI_PROC_NULL; a self loop is a local copy */
      const long long bytes = nhood_send_block(a, j).count;
      const int node = rpn > 0 ? q / rpn : 0;
      if (gather) {
        leaves = 1;
        if (rpn > 0 && node != mynode && seen[node] != r) { /* once per node that needs it */
          seen[node] = r;
          side[2 * node + 1] += bytes;
          crosses = 1;
        }
        continue;
      }
      own += bytes;
      if (rpn > 0 && node != mynode) {
        side[2 * mynode] += bytes;
        side[2 * node + 1] += bytes;
      }
    }
    if (gather) {
      const long long block = t->outdegree > 0 ? nhood_send_block(a, 0).count : 0;
      if (crosses) side[2 * mynode] += block; /* leaves its node once */
      own = leaves ? block : 0;
    }
    const double us = fixed + (double)(own - 1) * Gmin;
    if (own > 0 && (out->rank < 0 || us > out->rank_us)) {
      out->rank_us = us;
      out->rank = r;
      out->rank_bytes = own;
    }
  }
  for (int n = 0; n < nnodes; n++) {
    const long long most = side[2 * n] > side[2 * n + 1] ? side[2 * n] : side[2 * n + 1];
    const double us = most > 0 ? 2 * p->o + p->L + p->nic_o + (double)most * p->nic_G : 0;
    if (most > 0 && (out->node < 0 || us > out->nic_us)) {
      out->nic_us = us;
      out->node = n;
      out->node_out = side[2 * n];
      out->node_in = side[2 * n + 1];
    }
  }
  out->us = out->rank_us > out->nic_us ? out->rank_us : out->nic_us;
  free(side);
  free(seen);
  return 0;
}
