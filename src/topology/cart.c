/* Isomorphic (Cartesian) neighborhoods: offset generators, relative coordinates, and
 * topologies made of relative offsets. All local. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "topology/topology.h"

int nhood_cart_rank_of(int ndims, const int dims[], const int periods[], const int coords[]) {
  int rank = 0;
  for (int d = 0; d < ndims; d++) {
    int c = coords[d];
    if (c < 0 || c >= dims[d]) {
      if (!periods[d]) return MPI_PROC_NULL;
      c %= dims[d];
      if (c < 0) c += dims[d];
    }
    rank = rank * dims[d] + c;
  }
  return rank;
}

/* Enumerates all vectors in [-r, r]^ndims except 0 in lexicographic order and keeps those
 * within the given norm: Chebyshev (moore) keeps them all, Manhattan keeps sum |c| <= r. */
static int generate_offsets(int ndims, int radius, int manhattan, int maxoffsets, int *noffsets, int offsets[],
                            const char *fname) {
  if (ndims < 1) return nhood_error(MPI_ERR_ARG, "%s: ndims must be >= 1 (got %d)", fname, ndims);
  if (radius < 0) return nhood_error(MPI_ERR_ARG, "%s: radius must be >= 0 (got %d)", fname, radius);
  if (noffsets == NULL) return nhood_error(MPI_ERR_ARG, "%s: noffsets is NULL", fname);
  /* Count without enumerating, guarding against overflow: (2r+1)^ndims candidates. */
  long long side = 2LL * radius + 1, candidates = 1;
  for (int d = 0; d < ndims; d++) {
    candidates *= side;
    if (candidates > INT_MAX)
      return nhood_error(MPI_ERR_ARG, "%s: (2*%d+1)^%d offsets do not fit in an int", fname, radius, ndims);
  }
  int *c = malloc(sizeof(int) * (size_t)ndims);
  if (!c) return nhood_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
  for (int d = 0; d < ndims; d++) c[d] = -radius;
  int n = 0, rc = MPI_SUCCESS;
  for (long long k = 0; k < candidates; k++) {
    int norm = 0, zero = 1;
    for (int d = 0; d < ndims; d++) {
      norm += abs(c[d]);
      zero &= c[d] == 0;
    }
    if (!zero && (!manhattan || norm <= radius)) {
      if (offsets != NULL) {
        if (n >= maxoffsets) {
          rc = nhood_error(MPI_ERR_ARG, "%s: maxoffsets (%d) is too small", fname, maxoffsets);
          goto cleanup;
        }
        memcpy(offsets + (size_t)n * ndims, c, sizeof(int) * (size_t)ndims);
      }
      n++;
    }
    for (int d = ndims - 1; d >= 0; d--) { /* odometer: last dimension fastest */
      if (++c[d] <= radius) break;
      c[d] = -radius;
    }
  }
  *noffsets = n;
cleanup:
  free(c);
  return rc;
}

int NHOOD_Cart_moore_offsets(int ndims, int radius, int maxoffsets, int *noffsets, int offsets[]) {
  return generate_offsets(ndims, radius, 0, maxoffsets, noffsets, offsets, "NHOOD_Cart_moore_offsets");
}

int NHOOD_Cart_von_neumann_offsets(int ndims, int radius, int maxoffsets, int *noffsets, int offsets[]) {
  return generate_offsets(ndims, radius, 1, maxoffsets, noffsets, offsets, "NHOOD_Cart_von_neumann_offsets");
}

/* The grid of a Cartesian communicator, read with local queries. */
typedef struct {
  int ndims;
  int dims[64], periods[64], coords[64];
} cart_grid;

static int read_grid(MPI_Comm comm, cart_grid *g) {
  int rc = MPI_SUCCESS, status = MPI_UNDEFINED;
  if (comm == MPI_COMM_NULL) return nhood_error(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  NHOOD_MPI_CALL(MPI_Topo_test(comm, &status));
  if (status != MPI_CART) return nhood_error(MPI_ERR_TOPOLOGY, "comm is not a Cartesian communicator");
  NHOOD_MPI_CALL(MPI_Cartdim_get(comm, &g->ndims));
  if (g->ndims > 64) return nhood_error(MPI_ERR_TOPOLOGY, "comm has %d dimensions; at most 64 are supported", g->ndims);
  if (g->ndims > 0) NHOOD_MPI_CALL(MPI_Cart_get(comm, g->ndims, g->dims, g->periods, g->coords));
cleanup:
  return rc;
}

/* Rank at X + sign * offset. */
static int shifted_rank(const cart_grid *g, const int offset[], int sign) {
  int c[64];
  for (int d = 0; d < g->ndims; d++) c[d] = g->coords[d] + sign * offset[d];
  return nhood_cart_rank_of(g->ndims, g->dims, g->periods, c);
}

int NHOOD_Cart_relative_rank(MPI_Comm comm, const int offset[], int *rank) {
  cart_grid g;
  int rc = read_grid(comm, &g);
  if (rc != MPI_SUCCESS) return rc;
  if (rank == NULL) return nhood_error(MPI_ERR_ARG, "rank (output) is NULL");
  if (offset == NULL && g.ndims > 0) return nhood_error(MPI_ERR_ARG, "offset is NULL");
  *rank = shifted_rank(&g, offset, 1);
  return MPI_SUCCESS;
}

int NHOOD_Cart_relative_shift(MPI_Comm comm, const int offset[], int *source, int *dest) {
  cart_grid g;
  int rc = read_grid(comm, &g);
  if (rc != MPI_SUCCESS) return rc;
  if (source == NULL || dest == NULL)
    return nhood_error(MPI_ERR_ARG, "%s (output) is NULL", source ? "dest" : "source");
  if (offset == NULL && g.ndims > 0) return nhood_error(MPI_ERR_ARG, "offset is NULL");
  *dest = shifted_rank(&g, offset, 1);
  *source = shifted_rank(&g, offset, -1);
  return MPI_SUCCESS;
}

int NHOOD_Cart_relative_coords(MPI_Comm comm, int rank, int offset[]) {
  cart_grid g;
  int rc = read_grid(comm, &g), size = 0, other[64];
  if (rc != MPI_SUCCESS) return rc;
  if (offset == NULL && g.ndims > 0) return nhood_error(MPI_ERR_ARG, "offset (output) is NULL");
  NHOOD_MPI_CALL(MPI_Comm_size(comm, &size));
  if (rank < 0 || rank >= size) return nhood_error(MPI_ERR_RANK, "rank %d is not in comm (size %d)", rank, size);
  if (g.ndims > 0) NHOOD_MPI_CALL(MPI_Cart_coords(comm, rank, g.ndims, other));
  for (int d = 0; d < g.ndims; d++) {
    int delta = other[d] - g.coords[d];
    if (g.periods[d]) { /* shortest way around, ties towards the positive direction */
      int n = g.dims[d];
      delta = ((delta % n) + n) % n;
      if (delta > n / 2) delta -= n;
    }
    offset[d] = delta;
  }
cleanup:
  return rc;
}

int nhood_topo_from_cart_offsets(int ndims, const int dims[], const int periods[], const int coords[], int noffsets,
                                 const int offsets[], NHOOD_Topo *out) {
  NHOOD_Topo t = NULL;
  int rc = MPI_SUCCESS;
  if (noffsets < 0) return nhood_error(MPI_ERR_ARG, "noffsets is negative (%d)", noffsets);
  if (noffsets > 0 && offsets == NULL && ndims > 0)
    return nhood_error(MPI_ERR_ARG, "offsets is NULL but noffsets is %d", noffsets);
  if (ndims > 64) return nhood_error(MPI_ERR_DIMS, "%d dimensions; at most 64 are supported", ndims);
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_CART_OFFSETS, noffsets, noffsets, 0, 0, ndims, noffsets, &t));
  size_t nd = sizeof(int) * (size_t)ndims;
  if (nd) {
    memcpy(t->dims, dims, nd);
    memcpy(t->periods, periods, nd);
    memcpy(t->coords, coords, nd);
    memcpy(t->offsets, offsets, nd * (size_t)noffsets);
  }
  cart_grid g = {.ndims = ndims};
  if (nd) {
    memcpy(g.dims, dims, nd);
    memcpy(g.periods, periods, nd);
    memcpy(g.coords, coords, nd);
  }
  /* Every process has the same offsets, so the k-th duplicate receive from q and the k-th
   * duplicate send of q to us carry the same offset index: graph (order) pairing is exactly
   * offset pairing, and one channel suffices. */
  for (int i = 0; i < noffsets; i++) {
    const int *c = offsets ? offsets + (size_t)i * ndims : NULL;
    t->destinations[i] = c ? shifted_rank(&g, c, 1) : 0;
    t->sources[i] = c ? shifted_rank(&g, c, -1) : 0;
  }
  nhood_topo_finish(t);
  *out = t;
cleanup:
  return rc;
}

int nhood_topo_cart_grid(MPI_Comm comm, int *ndims, int dims[], int periods[], int coords[]) {
  cart_grid g;
  int rc = read_grid(comm, &g);
  if (rc != MPI_SUCCESS) return rc;
  *ndims = g.ndims;
  for (int d = 0; d < g.ndims; d++) dims[d] = g.dims[d], periods[d] = g.periods[d], coords[d] = g.coords[d];
  return MPI_SUCCESS;
}
