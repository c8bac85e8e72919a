#include "engine/owned_args.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

static int copy_array(nhood_owned_args *o, int k, const void *src, size_t bytes, const void **dst) {
  *dst = NULL;
  if (src == NULL) return MPI_SUCCESS;
  if (!(o->arrays[k] = malloc(bytes ? bytes : 1)))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  memcpy(o->arrays[k], src, bytes);
  *dst = o->arrays[k];
  return MPI_SUCCESS;
}

/* Replaces *type by a duplicate o owns when it is a derived datatype. */
static int own_type(nhood_owned_args *o, MPI_Datatype *type, int capacity) {
  int rc = MPI_SUCCESS, nints, naddrs, ntypes, combiner;
  if (*type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Type_get_envelope(*type, &nints, &naddrs, &ntypes, &combiner));
  if (combiner == MPI_COMBINER_NAMED) return MPI_SUCCESS;
  if (!o->dups && !(o->dups = malloc(sizeof *o->dups * (size_t)capacity)))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for datatypes");
  NHOOD_MPI_CALL(MPI_Type_dup(*type, &o->dups[o->ndups]));
  *type = o->dups[o->ndups++];
cleanup:
  return rc;
}

int nhood_owned_args_init(nhood_owned_args *o, const nhood_coll_args *a, int indeg, int outdeg) {
  int rc = MPI_SUCCESS;
  size_t in = (size_t)indeg, out = (size_t)outdeg;
  nhood_coll_args *c = &o->args;
  *c = *a;
  NHOOD_TRY(copy_array(o, 0, a->sendcounts, sizeof(int) * out, (const void **)&c->sendcounts));
  NHOOD_TRY(copy_array(o, 1, a->sdispls, sizeof(int) * out, (const void **)&c->sdispls));
  NHOOD_TRY(copy_array(o, 2, a->sdispls_bytes, sizeof(MPI_Aint) * out, (const void **)&c->sdispls_bytes));
  NHOOD_TRY(copy_array(o, 3, a->recvcounts, sizeof(int) * in, (const void **)&c->recvcounts));
  NHOOD_TRY(copy_array(o, 4, a->rdispls, sizeof(int) * in, (const void **)&c->rdispls));
  NHOOD_TRY(copy_array(o, 5, a->rdispls_bytes, sizeof(MPI_Aint) * in, (const void **)&c->rdispls_bytes));
  /* The type arrays are copied with room to replace their derived entries. */
  if (a->sendtypes && !(c->sendtypes = o->sendtypes = malloc(sizeof *o->sendtypes * (out + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  if (a->recvtypes && !(c->recvtypes = o->recvtypes = malloc(sizeof *o->recvtypes * (in + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "out of memory copying arguments");
  int capacity = 2 + (o->sendtypes ? outdeg : 0) + (o->recvtypes ? indeg : 0);
  NHOOD_TRY(own_type(o, &c->sendtype, capacity));
  NHOOD_TRY(own_type(o, &c->recvtype, capacity));
  for (int j = 0; o->sendtypes && j < outdeg; j++) {
    o->sendtypes[j] = a->sendtypes[j];
    NHOOD_TRY(own_type(o, &o->sendtypes[j], capacity));
  }
  for (int i = 0; o->recvtypes && i < indeg; i++) {
    o->recvtypes[i] = a->recvtypes[i];
    NHOOD_TRY(own_type(o, &o->recvtypes[i], capacity));
  }
cleanup:
  return rc;
}

void nhood_owned_args_free(nhood_owned_args *o) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (int k = 0; k < o->ndups && !finalized; k++) MPI_Type_free(&o->dups[k]);
  free(o->dups);
  for (int k = 0; k < 6; k++) free(o->arrays[k]);
  free(o->sendtypes);
  free(o->recvtypes);
  memset(o, 0, sizeof *o);
}
