/* "auto"'s prices (selection/select.h): each algorithm's family prices its rows
 * (selection/family.h); the schedule families through nhood_price_schedules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "selection/family.h"
#include "selection/select.h"

/* A call of `kind` with one-byte blocks (MPI_BYTE), the shape the model prices: every size
 * class scales it. The arrays need max(indegree, outdegree) entries. */
static nhood_coll_args unit_call(nhood_coll_kind kind, int isomorphic_sizes, int *ones, int *displs, MPI_Aint *bdispls,
                                 MPI_Datatype *types) {
  return (nhood_coll_args){.kind = kind,
                           .sendcount = 1,
                           .recvcount = 1,
                           .sendtype = MPI_BYTE,
                           .recvtype = MPI_BYTE,
                           .sendcounts = ones,
                           .recvcounts = ones,
                           .sdispls = displs,
                           .rdispls = displs,
                           .sdispls_bytes = bdispls,
                           .rdispls_bytes = bdispls,
                           .sendtypes = types,
                           .recvtypes = types,
                           .send_extent = 1,
                           .recv_extent = 1,
                           .send_type_size = 1,
                           .recv_type_size = 1,
                           .op = MPI_SUM,
                           .isomorphic_sizes = isomorphic_sizes};
}

void nhood_price_never(int k, const nhood_pricing *in) {
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
    in->costs[(size_t)k * NHOOD_SIZE_CLASSES + c] = INFINITY;
    if (in->persistent_costs) in->persistent_costs[(size_t)k * NHOOD_SIZE_CLASSES + c] = INFINITY;
  }
  if (in->nic) memset(in->nic + 4 * k, 0, 4 * sizeof *in->nic);
}

int nhood_price_schedules(const nhood_algorithm *alg, int k, const nhood_topo *on, const nhood_pricing *in) {
  int rc = MPI_SUCCESS;
  double fixed = 0; /* time that does not grow with the blocks: a size pass */
  nhood_sched s = {0};
  nhood_coll_args shape = *in->a;
  double *row = in->costs + (size_t)k * NHOOD_SIZE_CLASSES,
         *prow = in->persistent_costs ? in->persistent_costs + (size_t)k * NHOOD_SIZE_CLASSES : NULL;
  if (nhood_algorithm_needs_size_pass(alg, on, in->a)) {
    /* The pass, then the allgather or alltoall shape with the sizes known. */
    int *own_sizes = NULL;
    NHOOD_TRY(nhood_algorithm_size_pass(alg, on, in->a, in->me, &s, &own_sizes));
    free(own_sizes);
    fixed = nhood_cost_predict(&s, in->p, 1.0, in->nodes, in->me, NULL);
    nhood_sched_free(&s);
    shape.kind = in->a->kind == NHOOD_ALLGATHERV ? NHOOD_ALLGATHER : NHOOD_ALLTOALL;
  }
  NHOOD_TRY(nhood_algorithm_build(alg, on, &shape, in->me, NULL, &s));
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
    double data = nhood_cost_predict(&s, in->p, nhood_size_class_bytes(c), in->nodes, in->me, NULL);
    row[c] = fixed + data;
    if (prow) prow[c] = data;
  }
  /* one-byte blocks: messages, bytes per block */
  if (in->nic) nhood_cost_predict(&s, in->p, 1.0, in->nodes, in->me, in->nic + 4 * k);
  nhood_sched_free(&s);
cleanup:
  return rc;
}

int nhood_auto_costs(const nhood_topo *t, const nhood_topo *grid, nhood_coll_kind kind, int isomorphic_sizes, int me,
                     const nhood_cost_params *p, const nhood_nodes *nodes, double *costs, double *persistent_costs,
                     double *nic) {
  int rc = MPI_SUCCESS, n = t->indegree > t->outdegree ? t->indegree : t->outdegree;
  if (grid && grid->indegree > n) n = grid->indegree; /* a view has a block per offset */
  int *ones = malloc(((size_t)n + 1) * 2 * sizeof(int));
  MPI_Aint *bdispls = malloc(((size_t)n + 1) * sizeof(MPI_Aint));
  MPI_Datatype *types = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
  if (!ones || !bdispls || !types) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
    goto cleanup;
  }
  int *displs = ones + n + 1;
  for (int k = 0; k < n; k++) ones[k] = 1, displs[k] = k, bdispls[k] = k, types[k] = MPI_BYTE;
  nhood_coll_args a = unit_call(kind, isomorphic_sizes, ones, displs, bdispls, types);
  nhood_pricing in = {.t = t,
                      .grid = grid,
                      .a = &a,
                      .me = me,
                      .p = p,
                      .nodes = nodes,
                      .costs = costs,
                      .persistent_costs = persistent_costs,
                      .nic = nic};
  for (int k = 0; k < nhood_algorithm_count(); k++) {
    if (nic) memset(nic + 4 * k, 0, 4 * sizeof *nic);
    NHOOD_TRY(nhood_algorithm_price(nhood_algorithm_at(k), k, &in));
  }
cleanup:
  free(ones);
  free(bdispls);
  free(types);
  return rc;
}

void nhood_auto_add_nic(const nhood_cost_params *p, const double *nic, double *costs) {
  for (int k = 0; k < nhood_algorithm_count(); k++)
    for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
      double b = nhood_size_class_bytes(c),
             scaled[4] = {nic[4 * k], nic[4 * k + 1] * b, nic[4 * k + 2], nic[4 * k + 3] * b};
      double *cost = &costs[(size_t)k * NHOOD_SIZE_CLASSES + c], t = nhood_cost_nic(p, scaled);
      if (t > *cost) *cost = t;
    }
}
