/* nhood-bench's neighborhoods, the buffers and expected data of one call, and the agreement
 * on failures (bench.h). */
#include "bench.h"
#include "blockdata.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* MPI_UNWEIGHTED. Open MPI defines it as the constant (int *)2, and GCC 12 then warns that
 * MPI_Dist_graph_create_adjacent reads weights from it (-Wstringop-overread); read through a
 * volatile object, the constant is hidden from the optimizer. */
int *unweighted(void) {
  int *volatile weights = MPI_UNWEIGHTED;
  return weights;
}

/* The allocators of bench.h: out of memory aborts every rank. */
void *xrealloc(void *p, size_t size) {
  p = realloc(p, size > 0 ? size : 1);
  if (p == NULL) {
    fprintf(stderr, "nhood-bench: out of memory (%zu bytes)\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

void *xmalloc(size_t size) { return xrealloc(NULL, size); }

void *xcalloc(size_t count, size_t size) {
  void *p = xmalloc(count * size);
  memset(p, 0, count * size);
  return p;
}

/* ------------------------------------------------------------------------------------- */
/* Deterministic data                                                                     */
/* ------------------------------------------------------------------------------------- */

/* Which of the duplicate edges to the same rank this list entry is: MPI-4.1 pairs the k-th
 * occurrence of q among my destinations with the k-th occurrence of me among q's sources,
 * so (sender, receiver, occurrence) names one block on both ends. */
static int occurrence(const int *list, int index) {
  int count = 0;
  for (int i = 0; i < index; i++) count += list[i] == list[index];
  return count;
}

/* ------------------------------------------------------------------------------------- */
/* Neighborhoods                                                                          */
/* ------------------------------------------------------------------------------------- */

/* The MPI library's distributed-graph communicator of the lists, on MPI_COMM_WORLD's ranks. */
int graph_comm_create(const topospec_rank *lists, MPI_Comm *comm) {
  return MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, lists->indegree, lists->sources, unweighted(), lists->outdegree,
                                        lists->destinations, unweighted(), MPI_INFO_NULL, 0, comm);
}

/* A stencil's Cartesian communicator without reordering: its ranks are MPI_COMM_WORLD's, where
 * the calls run. */
int stencil_cart_create(const topospec_rank *lists, MPI_Comm *cart) {
  return MPI_Cart_create(MPI_COMM_WORLD, lists->ndims, lists->dims, lists->periods, 0, cart);
}

/* nhood's topology object of the lists: NHOOD_Topo_create_cart_offsets of a stencil's offsets
 * on *cart, or without a cart (NULL) NHOOD_Topo_create_adjacent. */
int nhood_topo_create(const topospec_rank *lists, const MPI_Comm *cart, MPI_Info info, NHOOD_Topo *topo) {
  if (cart != NULL) return NHOOD_Topo_create_cart_offsets(*cart, lists->noffsets, lists->offsets, info, topo);
  return NHOOD_Topo_create_adjacent(lists->indegree, lists->sources, unweighted(), lists->outdegree,
                                    lists->destinations, unweighted(), info, topo);
}

/* ------------------------------------------------------------------------------------- */
/* One collective call's buffers                                                          */
/* ------------------------------------------------------------------------------------- */

void exchange_free(exchange *x) {
  free(x->sendcounts);
  free(x->sdispls);
  free(x->recvcounts);
  free(x->rdispls);
  free(x->sdispls_bytes);
  free(x->rdispls_bytes);
  free(x->types);
  free(x->sendbuf);
  free(x->recvbuf);
  free(x->expected);
  memset(x, 0, sizeof *x);
}

/* Lays out blocks of the given counts one after the other; 1 if that exceeds an int. */
static int pack_displacements(int n, const int *counts, int *displs, MPI_Aint *displs_bytes, size_t *total) {
  long long offset = 0;
  for (int i = 0; i < n; i++) {
    if (offset > INT_MAX) return 1;
    displs[i] = (int)offset;
    displs_bytes[i] = (MPI_Aint)offset;
    offset += counts[i];
  }
  *total = (size_t)offset;
  return offset > INT_MAX;
}

/* The key of receive block i: who sent it, and which of its blocks it is. */
static uint64_t recv_block_key(const exchange *x, const topospec_rank *lists, int rank, int i) {
  int source = lists->sources[i];
  if (x->coll == COLL_ALLGATHER || x->coll == COLL_ALLGATHERV) return blockdata_rank_key(source);
  return blockdata_edge_key(source, rank, occurrence(lists->sources, i));
}

/* What MPI-4.1 says the receive buffer holds: each real source's block, and the sentinel
 * (untouched) in the blocks of MPI_PROC_NULL sources. */
static void expected_receive(exchange *x, const topospec_rank *lists, int rank) {
  memset(x->expected, SENTINEL, x->recvlen);
  for (int i = 0; i < lists->indegree; i++)
    if (lists->sources[i] != MPI_PROC_NULL)
      blockdata_fill(x->expected + x->rdispls[i], x->recvcounts[i], recv_block_key(x, lists, rank, i));
}

/* Buffers, counts, send data and expected receive data of one collective at one size.
 * Returns 0, or 1 when a buffer would exceed what an int displacement addresses. */
int exchange_init(exchange *x, coll_kind coll, int bytes, const neighborhood *nb, int rank) {
  const topospec_rank *lists = &nb->lists;
  int in = lists->indegree, out = lists->outdegree;
  int maxdeg = in > out ? in : out;
  memset(x, 0, sizeof *x);
  x->coll = coll;
  x->bytes = bytes;
  x->sendcounts = xmalloc((size_t)out * sizeof(int));
  x->sdispls = xmalloc((size_t)out * sizeof(int));
  x->recvcounts = xmalloc((size_t)in * sizeof(int));
  x->rdispls = xmalloc((size_t)in * sizeof(int));
  x->sdispls_bytes = xmalloc((size_t)out * sizeof(MPI_Aint));
  x->rdispls_bytes = xmalloc((size_t)in * sizeof(MPI_Aint));
  x->types = xmalloc((size_t)maxdeg * sizeof(MPI_Datatype));
  for (int k = 0; k < maxdeg; k++) x->types[k] = MPI_BYTE;

  for (int i = 0; i < in; i++) {
    int source = lists->sources[i];
    switch (coll) {
      case COLL_ALLGATHERV:
        x->recvcounts[i] = blockdata_rank_bytes(source, bytes);
        break;
      case COLL_ALLTOALLV:
      case COLL_ALLTOALLW:
        x->recvcounts[i] = blockdata_edge_bytes(source, rank, bytes);
        break;
      default:
        x->recvcounts[i] = bytes;
    }
  }
  for (int j = 0; j < out; j++) {
    int dest = lists->destinations[j];
    x->sendcounts[j] =
        coll == COLL_ALLTOALLV || coll == COLL_ALLTOALLW ? blockdata_edge_bytes(rank, dest, bytes) : bytes;
  }
  x->sendcount = coll == COLL_ALLGATHERV ? blockdata_rank_bytes(rank, bytes) : bytes;
  if (pack_displacements(in, x->recvcounts, x->rdispls, x->rdispls_bytes, &x->recvlen) != 0 ||
      pack_displacements(out, x->sendcounts, x->sdispls, x->sdispls_bytes, &x->sendlen) != 0)
    return 1;
  if (coll == COLL_ALLGATHER || coll == COLL_ALLGATHERV) x->sendlen = (size_t)x->sendcount;

  x->sendbuf = xmalloc(x->sendlen);
  x->recvbuf = xmalloc(x->recvlen);
  x->expected = xmalloc(x->recvlen);
  expected_receive(x, lists, rank);
  if (coll == COLL_ALLGATHER || coll == COLL_ALLGATHERV) {
    blockdata_fill(x->sendbuf, x->sendcount, blockdata_rank_key(rank));
  } else {
    for (int j = 0; j < out; j++)
      blockdata_fill(x->sendbuf + x->sdispls[j], x->sendcounts[j],
                     blockdata_edge_key(rank, lists->destinations[j], occurrence(lists->destinations, j)));
  }
  return 0;
}

/*
 * Agrees over all ranks whether a step failed on any of them. Returns 1 if so; rank 0's
 * message is then the one of the lowest failing rank, so a failure elsewhere is reported.
 */
int agree_on_failure(const bench *b, int failed, char *message) {
  int mine = failed ? b->rank : b->size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == b->size) return 0;
  if (first != 0) {
    if (b->rank == first) MPI_Send(message, ERROR_LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    if (b->rank == 0) {
      char remote[ERROR_LEN];
      MPI_Recv(remote, ERROR_LEN, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      snprintf(message, ERROR_LEN, "rank %d: %.*s", first, NHOOD_MAX_ERROR_STRING, remote);
    }
  }
  return 1;
}

/* The message of a failed nhood call: the call, the error class, nhood's explanation. */
void nhood_failure(char *message, const char *what, int rc) {
  char detail[NHOOD_MAX_ERROR_STRING] = "", class_name[MPI_MAX_ERROR_STRING] = "";
  int len;
  NHOOD_Error_message(detail, NULL);
  MPI_Error_string(rc, class_name, &len);
  snprintf(message, ERROR_LEN, "%s failed (%.*s): %s", what, (int)strcspn(class_name, ":"), class_name, detail);
}

/* agree_on_failure for an nhood call that returned rc, with nhood_failure's message. */
int agree_on_nhood_failure(const bench *b, int rc, const char *what, char *message) {
  if (rc != MPI_SUCCESS) nhood_failure(message, what, rc);
  return agree_on_failure(b, rc != MPI_SUCCESS, message);
}

int max_over_ranks(int value) {
  int result;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}
