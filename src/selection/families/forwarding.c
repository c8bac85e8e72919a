/* The forwarding family (selection/family.h): the shared Phase 2 (schedule/combine.c) over a
 * forwarding pattern of the entry's kind (pattern/kind.h), built collectively at first use.
 * The v and w collectives take a size pass first: here, and in two_stage.c for a request,
 * is the one place that knows it. */
#include <stdlib.h>

#include "common/errors.h"
#include "selection/families/two_stage.h"
#include "selection/family.h"

static nhood_pattern_kind *kind_of(const nhood_algorithm *alg) { return (nhood_pattern_kind *)alg->data; }

static const char *unfit(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  (void)a;
  return nhood_unfit_forwarding(kind_of(alg), t);
}

static int learn(const nhood_algorithm *alg, nhood_learner *l) { return l->pattern(l, kind_of(alg)); }

static int needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return nhood_forwarding_needs_size_pass(kind_of(alg), t, a);
}

static int size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s,
                     int **own_sizes) {
  return nhood_build_combine_size_pass(t, nhood_pattern_of(t, kind_of(alg), NULL), a, me, s, own_sizes);
}

static int build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me, const void *sizes,
                 nhood_sched *s) {
  return sizes ? nhood_build_combine_sized(t, nhood_pattern_of(t, kind_of(alg), NULL), a, me, sizes, s)
               : nhood_build_forwarding(kind_of(alg), t, a, me, s);
}

static int price(const nhood_algorithm *alg, int k, const nhood_pricing *in) {
  if (unfit(alg, in->t, in->a) != NULL) {
    nhood_price_never(k, in);
    return MPI_SUCCESS;
  }
  return nhood_price_schedules(alg, k, in->t, in);
}

static int make_task(const nhood_algorithm *alg, const nhood_ready *r, NHOOD_Topo topo, const nhood_coll_args *a,
                     nhood_commctx *ctx, nhood_mode mode, nhood_task **task) {
  if (needs_size_pass(alg, topo, a)) return nhood_two_stage_create(topo, kind_of(alg), a, ctx, mode, task);
  return nhood_schedule_task(alg, r, a, ctx, mode, task);
}

const nhood_family nhood_family_forwarding = {
    .name = "forwarding",
    .unfit = unfit,
    .learn = learn,
    .price = price,
    .needs_size_pass = needs_size_pass,
    .size_pass = size_pass,
    .build = build,
    .make_task = make_task,
};
