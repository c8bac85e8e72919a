/* The registry seen from outside (NHOOD_Algorithm_*), and where an algorithm applies. */
#include <string.h>

#include "api/topologies.h"
#include "common/errors.h"
#include "selection/learned.h"
#include "selection/select.h"

int NHOOD_Algorithm_count(int *count) {
  if (count == NULL) return nhood_error(MPI_ERR_ARG, "count is NULL");
  *count = nhood_algorithm_count();
  return MPI_SUCCESS;
}

int NHOOD_Algorithm_get(int k, const char **name, const char **description) {
  if (k < 0 || k >= nhood_algorithm_count())
    return nhood_error(MPI_ERR_ARG, "k = %d is not in [0, %d)", k, nhood_algorithm_count());
  if (name) *name = nhood_algorithm_at(k)->name;
  if (description) *description = nhood_algorithm_at(k)->description;
  return MPI_SUCCESS;
}

int NHOOD_Topo_algorithm_applies(NHOOD_Topo topo, MPI_Comm comm, const char *algorithm, const char *collective,
                                 MPI_Info info, int *applies, const char **runs) {
  int rc = MPI_SUCCESS, kind = -1;
  nhood_commctx *ctx = NULL;
  if (applies == NULL || runs == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL", applies ? "runs" : "applies");
  if (collective == NULL) return nhood_error(MPI_ERR_ARG, "collective is NULL");
  for (int k = 0; k < NHOOD_NCOLLS; k++)
    if (strcmp(collective, nhood_coll_names[k]) == 0) kind = k;
  if (kind < 0) return nhood_error(MPI_ERR_ARG, "collective \"%s\" is not a neighborhood collective", collective);
  const nhood_algorithm *alg = algorithm ? nhood_algorithm_by_name(algorithm) : NULL;
  if (alg == NULL)
    return nhood_error(MPI_ERR_INFO, "unknown algorithm \"%s\" (known: %s)", algorithm ? algorithm : "(NULL)",
                       nhood_algorithm_names());
  NHOOD_TRY(nhood_topo_validate(topo, "topo"));
  NHOOD_TRY(nhood_commctx_get(comm, &ctx));
  /* What the registry's reasons read: the collective and the isomorphic-sizes assertion. */
  nhood_coll_args a = {.kind = (nhood_coll_kind)kind, .isomorphic_sizes = topo->isomorphic_sizes};
  NHOOD_TRY(nhood_info_bool(info, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, &a.isomorphic_sizes));
  nhood_ready r; /* on a graph, r.on is the grid found under it, where there is one */
  NHOOD_TRY(nhood_algorithm_prepare(topo, ctx, &a, NHOOD_BLOCKING, alg, &r));
  const nhood_algorithm *ran = nhood_algorithm_resolve(alg, r.why_not, r.on, &a);
  if (ran == NULL) return nhood_error(MPI_ERR_INTERN, "no algorithm applies after \"%s\"'s fallbacks", alg->name);
  *applies = ran == alg;
  *runs = ran->name;
cleanup:
  return rc;
}
