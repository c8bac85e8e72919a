#include "selection/select.h"

#include <string.h>

#include "common/errors.h"

static int always(const nhood_topo *t, const nhood_coll_args *a) {
  (void)t, (void)a;
  return 1;
}

/* Every algorithm the library has. Until the cost model (selection by predicted latency)
 * arrives, "auto" takes the first: direct, which needs no collective set-up. */
static const nhood_algorithm algorithms[] = {
    {"direct", always, nhood_build_direct, 0},
    {"combine", always, nhood_build_combine, 1},
    {"cart-direct", always, nhood_build_cart_direct, 0},
    {"cart-dim", always, nhood_build_cart_dim, 0},
    {"cart-dim-batch", always, nhood_build_cart_dim_batch, 0},
    {"cart-bruck", always, nhood_build_cart_bruck, 0},
};
#define NALGORITHMS (sizeof algorithms / sizeof algorithms[0])

const nhood_algorithm *nhood_algorithm_by_name(const char *name) {
  for (size_t k = 0; k < NALGORITHMS; k++)
    if (strcmp(algorithms[k].name, name) == 0) return &algorithms[k];
  return NULL;
}

const char *nhood_algorithm_names(void) {
  /* Built from the table so it cannot drift; the table is constant, so a race between
   * threads writes the same bytes. */
  static char names[256];
  if (names[0] == '\0') {
    char list[256] = "auto";
    for (size_t k = 0; k < NALGORITHMS; k++) {
      strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, algorithms[k].name, sizeof list - strlen(list) - 1);
    }
    memcpy(names, list, sizeof names);
  }
  return names;
}

int nhood_algorithm_needs_size_pass(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a) {
  return alg->build == nhood_build_combine && nhood_combine_needs_size_pass(t, a);
}

int nhood_algorithm_build(const nhood_algorithm *alg, const nhood_topo *t, const nhood_coll_args *a, int me,
                          nhood_sched *s) {
  return nhood_coll_reduces(a->kind) ? nhood_build_reduce(alg->build, t, a, me, s) : alg->build(t, a, me, s);
}

int nhood_select(const char *requested, const nhood_topo *t, const nhood_coll_args *a,
                 const nhood_algorithm **chosen) {
  if (strcmp(requested, "auto") == 0) {
    for (size_t k = 0; k < NALGORITHMS; k++)
      if (algorithms[k].applies(t, a)) {
        *chosen = &algorithms[k];
        return MPI_SUCCESS;
      }
    return nhood_error(MPI_ERR_INTERN, "no algorithm applies to this %s", nhood_coll_names[a->kind]);
  }
  const nhood_algorithm *alg = nhood_algorithm_by_name(requested);
  if (alg == NULL)
    return nhood_error(MPI_ERR_INFO, "unknown algorithm \"%s\" (known: %s)", requested, nhood_algorithm_names());
  if (!alg->applies(t, a))
    return nhood_error(MPI_ERR_ARG, "algorithm \"%s\" does not apply to this %s on this topology", requested,
                       nhood_coll_names[a->kind]);
  *chosen = alg;
  return MPI_SUCCESS;
}
