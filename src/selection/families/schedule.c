/* The schedule family (selection/family.h): a builder computes each process's schedule
 * locally; the isomorphic ones run on the grid under a graph topology where one is found. */
#include <math.h>

#include "common/errors.h"
#include "engine/sched_task.h"
#include "selection/family.h"

static const nhood_schedule_data *data_of(const nhood_algorithm *alg) { return alg->data; }

static const char *unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return data_of(alg)->unfit ? data_of(alg)->unfit(t, a) : NULL;
}

static int learn(const nhood_algorithm *alg, nhood_learner *l) {
  return data_of(alg)->on_grid ? l->grid(l) : MPI_SUCCESS;
}

static const nhood_topo *on(const nhood_algorithm *alg, const nhood_topo *t, const nhood_grid_view *view,
                            nhood_coll_args *a) {
  if (!data_of(alg)->on_grid || view == NULL) return t;
  if (a) {
    a->send_slot = view->send_slot;
    a->recv_slot = view->recv_slot;
  }
  return view->topo;
}

/* auto prices only what applies, and what gains at the interfaces only on several nodes. */
static int price(const nhood_algorithm *alg, int k, const nhood_pricing *in) {
  const nhood_topo *t = data_of(alg)->on_grid && in->grid ? in->grid : in->t;
  if (unfit(alg, t, in->a) != NULL || (data_of(alg)->across_nodes && (!in->nodes || in->nodes->nnodes < 2))) {
    nhood_price_never(k, in);
    return MPI_SUCCESS;
  }
  return nhood_price_schedules(alg, k, t, in);
}

static int build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me, const void *sizes,
                 nhood_sched *s) {
  (void)sizes;
  return data_of(alg)->build(t, a, me, s);
}

int nhood_schedule_task(const nhood_algorithm *alg, const nhood_ready *r, const nhood_coll_args *a, nhood_commctx *ctx,
                        nhood_mode mode, nhood_task **task) {
  int rc = MPI_SUCCESS;
  nhood_sched s = {0};
  NHOOD_TRY(nhood_algorithm_build(alg, r->on, a, ctx->rank, NULL, &s));
  /* Later rounds and later starts use the datatypes after the call returned, when the
   * caller may already have freed them. */
  if (mode == NHOOD_PERSISTENT || s.comm_rounds > 1 || (mode != NHOOD_BLOCKING && a->transient))
    NHOOD_TRY(nhood_sched_own_types(&s));
  return nhood_sched_task_create(&s, ctx->comm, a->sendbuf, a->recvbuf, task);
cleanup:
  nhood_sched_free(&s);
  return rc;
}

static int make_task(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo, const nhood_coll_args *a,
                     nhood_commctx *ctx, nhood_mode mode, nhood_task **task) {
  (void)topo;
  return nhood_schedule_task(alg, r, a, ctx, mode, task);
}

const nhood_family nhood_family_schedule = {
    .name = "schedule",
    .unfit = unfit,
    .learn = learn,
    .on = on,
    .price = price,
    .build = build,
    .make_task = make_task,
};
