/* Datatype helpers for halo exchanges. */
#include <limits.h>
#include <stdlib.h>

#include "common/errors.h"
#include "nhood.h"

int NHOOD_Type_create_triangular(int count, int first_blocklength, int block_increment, int stride,
                                 int stride_increment, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  int rc = MPI_SUCCESS;
  int *lengths = NULL;
  MPI_Aint *displs = NULL, lb, extent;
  if (newtype == NULL) return nhood_error(MPI_ERR_ARG, "newtype (the output handle) is NULL");
  if (oldtype == MPI_DATATYPE_NULL) return nhood_error(MPI_ERR_TYPE, "oldtype is MPI_DATATYPE_NULL");
  if (count < 0) return nhood_error(MPI_ERR_COUNT, "count is negative (%d)", count);
  if (first_blocklength < 0) return nhood_error(MPI_ERR_ARG, "first_blocklength is negative (%d)", first_blocklength);
  long long last = (long long)first_blocklength + (long long)(count > 0 ? count - 1 : 0) * block_increment;
  if (last < 0 || last > INT_MAX)
    return nhood_error(MPI_ERR_ARG,
                       "block_increment %d makes block %d %lld elements long (block lengths must lie in 0..INT_MAX)",
                       block_increment, count - 1, last);
  NHOOD_MPI_CALL(MPI_Type_get_extent(oldtype, &lb, &extent));
  lengths = malloc(sizeof(int) * (size_t)(count + 1));
  displs = malloc(sizeof(MPI_Aint) * (size_t)(count + 1));
  if (!lengths || !displs) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for a triangular datatype of %d blocks", count);
    goto cleanup;
  }
  long long position = 0; /* in elements of oldtype */
  for (int i = 0; i < count; i++) {
    lengths[i] = first_blocklength + i * block_increment;
    displs[i] = (MPI_Aint)(position * extent);
    position += (long long)stride + (long long)i * stride_increment;
  }
  NHOOD_MPI_CALL(MPI_Type_create_hindexed(count, lengths, displs, oldtype, newtype));
cleanup:
  free(lengths);
  free(displs);
  return rc;
}
