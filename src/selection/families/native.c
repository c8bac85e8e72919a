/* The native family (selection/family.h): MPI's own MPI_Neighbor_* on a distributed-graph
 * communicator made at first use (engine/native_mpi.h). It builds no schedule; it sends the
 * messages of the entry named in its data, and is priced from that entry's rows. */
#include <math.h>
#include <string.h>

#include "common/errors.h"
#include "engine/native_task.h"
#include "selection/family.h"
#include "selection/learned.h"
#include "selection/select.h"

static const char *unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  (void)alg;
  return nhood_native_applies_locally(t, a->kind)
             ? NULL
             : "MPI's own cannot give MPI-4.1's result here (MPI_PROC_NULL neighbors, Cartesian channels, a "
               "reduction, or a known bug of this MPI)";
}

static int agree(const nhood_algorithm *alg, nhood_learner *l, const nhood_coll_args *a, nhood_mode mode,
                 nhood_ready *r) {
  (void)alg;
  return nhood_native_agree(l->topo, l->ctx, a, mode == NHOOD_PERSISTENT, &r->why_not, &r->graph);
}

static int priced(const nhood_algorithm *alg, nhood_learner *l, nhood_coll_kind kind, int everywhere) {
  (void)alg;
  return nhood_native_known(l->topo, l->ctx, kind, everywhere);
}

/* The rows of the entry whose messages it sends, times the MPI's factor; a persistent start
 * only where this MPI has persistent neighborhood collectives. */
static int price(const nhood_algorithm *alg, int k, const nhood_pricing *in) {
  const nhood_algorithm *same = nhood_algorithm_by_name(alg->data);
  int from = same ? nhood_algorithm_index(same) : -1;
  if (from < 0 || from >= k || unfit(alg, in->t, in->a) != NULL) {
    nhood_price_never(k, in);
    return MPI_SUCCESS;
  }
  int persistent = nhood_native_persistent_supported();
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) {
    size_t at = (size_t)k * NHOOD_SIZE_CLASSES + c, src = (size_t)from * NHOOD_SIZE_CLASSES + c;
    in->costs[at] = in->p->mpi_factor * in->costs[src];
    if (in->persistent_costs)
      in->persistent_costs[at] = persistent ? in->p->mpi_factor * in->persistent_costs[src] : INFINITY;
  }
  if (in->nic) memcpy(in->nic + 4 * k, in->nic + 4 * from, 4 * sizeof *in->nic); /* the same messages */
  return MPI_SUCCESS;
}

static int make_task(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo, const nhood_coll_args *a,
                     nhood_commctx *ctx, nhood_mode mode, nhood_task **task) {
  (void)alg;
  (void)ctx;
  return nhood_native_task_create(a, topo, r->graph, mode, task);
}

const nhood_family nhood_family_native = {
    .name = "native",
    .unfit = unfit,
    .agree = agree,
    .priced = priced,
    .price = price,
    .make_task = make_task,
};
