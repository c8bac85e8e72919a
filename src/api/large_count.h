/*
 * Large-count calls (MPI_Count counts, MPI_Aint displacements: NHOOD_Neighbor_*_c and the
 * interposition library's MPI_Neighbor_*_c) lowered to the int form every algorithm reads.
 *
 * nhood's schedules keep a block's count in an int (a schedule entry stays 32 bytes), so a
 * large-count call is rewritten, not carried wide through every layer:
 *   - counts and displacements that all fit in an int: the same collective with int arrays;
 *   - a displacement beyond INT_MAX: the equivalent alltoallw, whose byte displacements are
 *     MPI_Aint (allgather and alltoall blocks, v blocks, w blocks alike);
 *   - a block of more than INT_MAX elements: in that alltoallw, one element of a derived
 *     datatype made of the block's (contiguous pieces of 2^30 elements and the rest), run by
 *     "direct" (huge).
 * The lowered arrays and datatypes live until nhood_lowered_free, after the call returned:
 * tasks that read them later keep copies (nhood_coll_args.transient).
 */
#ifndef NHOOD_API_LARGE_COUNT_H
#define NHOOD_API_LARGE_COUNT_H

#include <mpi.h>

#include "schedule/collargs.h"

/* A large-count call: v and w displacements are in sdispls / rdispls (in extents for v, in
 * bytes for w); the rest as in nhood_coll_args. */
typedef struct {
  nhood_coll_kind kind;
  const void *sendbuf;
  void *recvbuf;
  MPI_Count sendcount, recvcount;
  const MPI_Count *sendcounts, *recvcounts;
  const MPI_Aint *sdispls, *rdispls;
  MPI_Datatype sendtype, recvtype;
  const MPI_Datatype *sendtypes, *recvtypes;
} nhood_coll_args_c;

typedef struct {
  nhood_coll_args args; /* the call in int form, pointing into what follows */
  void *arrays;         /* one allocation for every lowered array */
  MPI_Datatype *made;   /* the derived datatypes made for blocks beyond INT_MAX elements */
  int nmade;
} nhood_lowered;

/* Lowers `c`, a process with indegree receive blocks and outdegree send blocks, into *l,
 * zeroed by the caller. Negative counts are reported here (MPI_ERR_COUNT, with the value); a
 * NULL array stays NULL, for nhood's checks to report. On failure *l holds what was made so
 * far: free it. */
int nhood_coll_lower(const nhood_coll_args_c *c, int indegree, int outdegree, nhood_lowered *l);
void nhood_lowered_free(nhood_lowered *l);

#endif
