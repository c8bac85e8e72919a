#include "sim_grid.h"

#include <stdio.h>
#include <stdlib.h>

#include "selection/select.h"
#include "topology/topology.h"

void sim_grid_free(int nranks, nhood_grid_view **views) {
  for (int r = 0; views && r < nranks; r++) nhood_grid_view_free(views[r]);
  free(views);
}

/* v[k] = max(v[k], mine[k]) over n ints (MPI_MAX); BAND for the last step is done inline. */
static void max_into(int *v, const int *mine, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (mine[k] > v[k]) v[k] = mine[k];
}

int sim_grid_find(int nranks, NHOOD_Topo *topos, nhood_grid_view ***views_out, char *err, size_t errlen) {
  int rc = 1;
  uint64_t all = ~(uint64_t)0;
  int *v = NULL, *mine = NULL, *h = NULL;
  nhood_grid_search s = {0};
  nhood_grid_view **views = calloc((size_t)nranks + 1, sizeof *views);
  *views_out = NULL;
  if (!views) goto oom;
  for (int r = 0; r < nranks; r++)
    if (topos[r]->kind != NHOOD_TOPO_ADJACENT) { /* the API layer searches under graphs only */
      *views_out = views;
      return 0;
    }
  if (nhood_grid_search_init(nranks, 0, NULL, &s) != MPI_SUCCESS) goto oom;
  size_t n = nhood_grid_screen_len(&s);
  if (!(v = calloc(n, sizeof *v)) || !(mine = malloc(n * sizeof *mine))) goto oom;
  for (int r = 0; r < nranks; r++) {
    nhood_grid_screen(topos[r], r, &s, mine);
    max_into(v, mine, n);
  }
  if ((n = nhood_grid_plan(&s, v)) == 0) goto done;
  free(mine);
  if (!(h = calloc(n, sizeof *h)) || !(mine = malloc(n * sizeof *mine))) goto oom;
  for (int r = 0; r < nranks; r++) {
    for (size_t k = 0; k < n; k++) mine[k] = 0;
    nhood_grid_histogram(topos[r], r, &s, mine);
    max_into(h, mine, n);
  }
  for (int r = 0; r < nranks && all != 0; r++) all &= nhood_grid_verify(topos[r], r, &s, h);
  for (int r = 0; r < nranks && all != 0; r++)
    if (nhood_grid_view_create(topos[r], r, &s, h, all, &views[r]) != MPI_SUCCESS) {
      char message[NHOOD_MAX_ERROR_STRING];
      NHOOD_Error_message(message, NULL);
      snprintf(err, errlen, "rank %d: the view of its grid: %s", r, message);
      goto cleanup;
    }
done:
  *views_out = views;
  views = NULL;
  rc = 0;
  goto cleanup;
oom:
  snprintf(err, errlen, "out of memory searching for the grid of %d rank%s", nranks, nranks == 1 ? "" : "s");
cleanup:
  sim_grid_free(nranks, views);
  nhood_grid_search_free(&s);
  free(v);
  free(mine);
  free(h);
  return rc;
}

const struct nhood_topo *sim_grid_topo_for(const char *algo, NHOOD_Topo topo, nhood_grid_view *const *views, int r,
                                           nhood_coll_args *a) {
  const nhood_algorithm *alg = nhood_algorithm_by_name(algo);
  return alg ? nhood_algorithm_on(alg, topo, views ? views[r] : NULL, a) : topo;
}
