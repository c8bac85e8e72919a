/*
 * One collective call's arguments in a form every algorithm reads the same way: the
 * location, count and type of send block j and receive block i, whatever the collective.
 */
#ifndef NHOOD_SCHEDULE_COLLARGS_H
#define NHOOD_SCHEDULE_COLLARGS_H

#include <mpi.h>

#include "schedule/schedule.h"

typedef enum {
  NHOOD_ALLGATHER,
  NHOOD_ALLGATHERV,
  NHOOD_ALLTOALL,
  NHOOD_ALLTOALLV,
  NHOOD_ALLTOALLW,
  /* Isomorphic reduce (allgather's send side) and scatter-reduce (alltoall's): every block
   * received is reduced with op into the one receive vector (schedule/reduce.c). */
  NHOOD_REDUCE,
  NHOOD_SCATTER_REDUCE,
  NHOOD_NCOLLS
} nhood_coll_kind;

static inline int nhood_coll_reduces(nhood_coll_kind kind) {
  return kind == NHOOD_REDUCE || kind == NHOOD_SCATTER_REDUCE;
}

typedef struct {
  nhood_coll_kind kind;
  const void *sendbuf;
  void *recvbuf;
  /* Send side: allgather(v) sends (sendcount, sendtype) from offset 0 to every destination;
   * alltoall block j at j*sendcount*extent; alltoallv at sdispls[j]*extent; alltoallw at
   * sdispls_bytes[j] with sendtypes[j]. */
  int sendcount;
  const int *sendcounts, *sdispls;
  const MPI_Aint *sdispls_bytes;
  MPI_Datatype sendtype;
  const MPI_Datatype *sendtypes;
  /* Receive side, the same way (allgatherv: recvcounts/rdispls). */
  int recvcount;
  const int *recvcounts, *rdispls;
  const MPI_Aint *rdispls_bytes;
  MPI_Datatype recvtype;
  const MPI_Datatype *recvtypes;
  /* Extents and sizes of sendtype / recvtype (not used by alltoallw). */
  MPI_Aint send_extent, recv_extent;
  int send_type_size, recv_type_size;
  /* Reduce and scatter-reduce: the operation (commutative); count and datatype are in
   * sendcount/sendtype and recvcount/recvtype alike. */
  MPI_Op op;
  /* NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES holds for this call. */
  int isomorphic_sizes;
  /* A graph run on the grid found under it (topology/grid.h): the schedule's topology is the
   * grid's view, whose block i is the graph's block send_slot[i] / recv_slot[i], -1 where
   * the neighbor is missing (such a block is never moved). NULL otherwise. */
  const int *send_slot, *recv_slot;
  /* A large-count call in this form (api/large_count.h): its arrays and datatypes live only
   * until the initiating call returns, so a task that reads them later keeps copies
   * (transient); a block of more than INT_MAX elements is one element of a derived datatype,
   * which only "direct" is trusted to move (huge). */
  int transient, huge;
} nhood_coll_args;

extern const char *const nhood_coll_names[NHOOD_NCOLLS];

/* A block the graph does not have (its neighbor is missing): only its size is ever read, by
 * algorithms that apply only where all blocks have one size (schedule/cart_internal.h). */
static inline nhood_region nhood_missing_block(const nhood_coll_args *a, int send) {
  int uniform = a->kind != NHOOD_ALLTOALLV && a->kind != NHOOD_ALLTOALLW && (send || a->kind != NHOOD_ALLGATHERV);
  return (nhood_region){0, uniform ? (send ? a->sendtype : a->recvtype) : MPI_BYTE,
                        uniform ? (send ? a->sendcount : a->recvcount) : 0, send ? NHOOD_BUF_SEND : NHOOD_BUF_RECV, 0};
}

static inline nhood_region nhood_send_block(const nhood_coll_args *a, int j) {
  if (a->send_slot && (j = a->send_slot[j]) < 0) return nhood_missing_block(a, 1);
  switch (a->kind) {
    case NHOOD_ALLGATHER:
    case NHOOD_ALLGATHERV:
    case NHOOD_REDUCE:
      return (nhood_region){0, a->sendtype, a->sendcount, NHOOD_BUF_SEND, j + 1};
    case NHOOD_ALLTOALL:
    case NHOOD_SCATTER_REDUCE:
      return (nhood_region){(MPI_Aint)j * a->sendcount * a->send_extent, a->sendtype, a->sendcount, NHOOD_BUF_SEND,
                            j + 1};
    case NHOOD_ALLTOALLV:
      return (nhood_region){(MPI_Aint)a->sdispls[j] * a->send_extent, a->sendtype, a->sendcounts[j], NHOOD_BUF_SEND,
                            j + 1};
    default:
      return (nhood_region){a->sdispls_bytes[j], a->sendtypes[j], a->sendcounts[j], NHOOD_BUF_SEND, j + 1};
  }
}

/* Reduce and scatter-reduce have one receive vector, the same for every source. */
static inline nhood_region nhood_recv_block(const nhood_coll_args *a, int i) {
  if (nhood_coll_reduces(a->kind)) return (nhood_region){0, a->recvtype, a->recvcount, NHOOD_BUF_RECV, 0};
  if (a->recv_slot && (i = a->recv_slot[i]) < 0) return nhood_missing_block(a, 0);
  switch (a->kind) {
    case NHOOD_ALLGATHER:
    case NHOOD_ALLTOALL:
      return (nhood_region){(MPI_Aint)i * a->recvcount * a->recv_extent, a->recvtype, a->recvcount, NHOOD_BUF_RECV,
                            i + 1};
    case NHOOD_ALLGATHERV:
    case NHOOD_ALLTOALLV:
      return (nhood_region){(MPI_Aint)a->rdispls[i] * a->recv_extent, a->recvtype, a->recvcounts[i], NHOOD_BUF_RECV,
                            i + 1};
    default:
      return (nhood_region){a->rdispls_bytes[i], a->recvtypes[i], a->recvcounts[i], NHOOD_BUF_RECV, i + 1};
  }
}

#endif
