#include "api/topologies.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/handles.h"
#include "selection/select.h"

int nhood_info_algorithm(MPI_Info info, char *name) {
  int rc = MPI_SUCCESS, flag = 0;
  char value[MPI_MAX_INFO_VAL + 1];
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Info_get(info, NHOOD_INFO_ALGORITHM, MPI_MAX_INFO_VAL, value, &flag));
  if (!flag) return MPI_SUCCESS;
  if (strcmp(value, "auto") != 0 && nhood_algorithm_by_name(value) == NULL) {
    rc = nhood_error(MPI_ERR_INFO, "info key %s has unknown algorithm \"%s\" (known: %s)", NHOOD_INFO_ALGORITHM, value,
                     nhood_algorithm_names());
    goto cleanup;
  }
  strcpy(name, value); /* known names are shorter than NHOOD_ALGORITHM_NAME_MAX */
cleanup:
  return rc;
}

int nhood_info_bool(MPI_Info info, const char *key, int *value) {
  int rc = MPI_SUCCESS, flag = 0;
  char text[MPI_MAX_INFO_VAL + 1];
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, text, &flag));
  if (!flag) return MPI_SUCCESS;
  if (strcmp(text, "true") == 0)
    *value = 1;
  else if (strcmp(text, "false") == 0)
    *value = 0;
  else
    rc = nhood_error(MPI_ERR_INFO, "info key %s is \"%s\" (expected \"true\" or \"false\")", key, text);
cleanup:
  return rc;
}

int nhood_info_positive(MPI_Info info, const char *key, int *value) {
  int rc = MPI_SUCCESS, flag = 0;
  char text[MPI_MAX_INFO_VAL + 1], *end;
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, text, &flag));
  if (!flag) return MPI_SUCCESS;
  long v = strtol(text, &end, 10);
  if (text[0] == '\0' || *end != '\0' || v < 1 || v > 1 << 30)
    rc = nhood_error(MPI_ERR_INFO, "info key %s is \"%s\" (expected a positive integer)", key, text);
  else
    *value = (int)v;
cleanup:
  return rc;
}

/* ---- constructors ---------------------------------------------------------------------- */

int nhood_topo_publish(NHOOD_Topo t, MPI_Info info, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS;
  NHOOD_TRY(nhood_info_algorithm(info, t->algorithm));
  NHOOD_TRY(nhood_info_bool(info, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, &t->isomorphic_sizes));
  NHOOD_TRY(nhood_info_positive(info, NHOOD_INFO_RANKS_PER_NODE, &t->ranks_per_node));
  NHOOD_TRY(nhood_tune_attach(t, info));
  NHOOD_TRY(nhood_handle_register(t, NHOOD_HANDLE_TOPO));
  *out = t;
  return MPI_SUCCESS;
cleanup:
  nhood_topo_destroy(t);
  return rc;
}

int NHOOD_Topo_create_adjacent(int indegree, const int sources[], const int *sourceweights, int outdegree,
                               const int destinations[], const int *destweights, MPI_Info info, NHOOD_Topo *topo) {
  NHOOD_Topo t = NULL;
  if (topo == NULL) return nhood_error(MPI_ERR_ARG, "topo (the output handle) is NULL");
  int rc = nhood_topo_from_lists(indegree, sources, sourceweights, outdegree, destinations, destweights, &t);
  return rc == MPI_SUCCESS ? nhood_topo_publish(t, info, topo) : rc;
}

int NHOOD_Topo_create_from_comm(MPI_Comm comm, MPI_Info info, NHOOD_Topo *topo) {
  NHOOD_Topo t = NULL;
  if (topo == NULL) return nhood_error(MPI_ERR_ARG, "topo (the output handle) is NULL");
  int rc = nhood_topo_from_comm(comm, &t);
  return rc == MPI_SUCCESS ? nhood_topo_publish(t, info, topo) : rc;
}

int nhood_topo_create_cart_offsets_on_grid(int ndims, const int dims[], const int periods[], const int coords[],
                                           int noffsets, const int offsets[], MPI_Info info, NHOOD_Topo *topo) {
  NHOOD_Topo t = NULL;
  if (topo == NULL) return nhood_error(MPI_ERR_ARG, "topo (the output handle) is NULL");
  int rc = nhood_topo_from_cart_offsets(ndims, dims, periods, coords, noffsets, offsets, &t);
  return rc == MPI_SUCCESS ? nhood_topo_publish(t, info, topo) : rc;
}

int NHOOD_Topo_create_cart_offsets(MPI_Comm comm, int noffsets, const int offsets[], MPI_Info info, NHOOD_Topo *topo) {
  int ndims = 0, dims[64], periods[64], coords[64];
  if (topo == NULL) return nhood_error(MPI_ERR_ARG, "topo (the output handle) is NULL");
  int rc = nhood_topo_cart_grid(comm, &ndims, dims, periods, coords);
  if (rc != MPI_SUCCESS) return rc;
  return nhood_topo_create_cart_offsets_on_grid(ndims, dims, periods, coords, noffsets, offsets, info, topo);
}

int NHOOD_Topo_reverse(NHOOD_Topo topo, NHOOD_Topo *reverse) {
  NHOOD_Topo r = NULL;
  int rc = nhood_topo_validate(topo, "topo");
  if (rc != MPI_SUCCESS) return rc;
  if (reverse == NULL) return nhood_error(MPI_ERR_ARG, "reverse (the output handle) is NULL");
  rc = nhood_topo_reversed(topo, &r);
  return rc == MPI_SUCCESS ? nhood_topo_publish(r, MPI_INFO_NULL, reverse) : rc;
}

int NHOOD_Topo_split(NHOOD_Topo topo, MPI_Comm comm, int nparts, int by, MPI_Info info, NHOOD_Topo parts[]) {
  int rc = nhood_topo_validate(topo, "topo"), me = 0, made = 0;
  if (rc != MPI_SUCCESS) return rc;
  if (nparts < 1) return nhood_error(MPI_ERR_ARG, "nparts is %d (at least 1)", nparts);
  if (by != NHOOD_SPLIT_BY_SOURCE && by != NHOOD_SPLIT_BY_DESTINATION)
    return nhood_error(MPI_ERR_ARG, "by is %d (NHOOD_SPLIT_BY_SOURCE or NHOOD_SPLIT_BY_DESTINATION)", by);
  if (parts == NULL) return nhood_error(MPI_ERR_ARG, "parts (the output array) is NULL");
  if (comm == MPI_COMM_NULL) return nhood_error(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &me));
  for (; made < nparts; made++) {
    NHOOD_Topo t = NULL;
    NHOOD_TRY(nhood_topo_part(topo, me, nparts, by == NHOOD_SPLIT_BY_SOURCE, made, &t));
    NHOOD_TRY(nhood_topo_publish(t, info, &parts[made]));
  }
  return MPI_SUCCESS;
cleanup:
  while (made > 0) NHOOD_Topo_free(&parts[--made]);
  return rc;
}

int NHOOD_Topo_free(NHOOD_Topo *topo) {
  if (topo == NULL) return nhood_error(MPI_ERR_ARG, "topo (the handle pointer) is NULL");
  int rc = nhood_topo_validate(*topo, "*topo");
  if (rc != MPI_SUCCESS) return rc;
  nhood_handle_unregister(*topo);
  nhood_topo_destroy(*topo); /* with what the layers above attached: caches, pattern, state */
  *topo = NHOOD_TOPO_NULL;
  return MPI_SUCCESS;
}
