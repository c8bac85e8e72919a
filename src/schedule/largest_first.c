/*
 * The largest-first algorithm: direct's messages (one per edge, one round), each process
 * sending first to the destination it sends the most bytes to (all its blocks there), the
 * fewest last. Where blocks differ in size (an irregular halo's alltoallv) the long transfers
 * start first, and where they take MPI's rendezvous protocol their handshakes overlap the
 * short messages sent after them. Edges to one destination keep their order (MPI's pairing
 * within a channel). Where every block has one size the order is direct's, so it applies to
 * alltoallv and alltoallw only. Its gain is at the network interfaces, so auto prices it only
 * where processes span nodes.
 */
#include <stddef.h>

#include "common/mpi_util.h"
#include "schedule/algorithms.h"

static long long block_bytes(const nhood_coll_args *a, int j) {
  nhood_region r = nhood_send_block(a, j);
  int size = 0;
  if (nhood_type_size(r.type, &size) != MPI_SUCCESS) size = 0;
  return (long long)r.count * size;
}

/* The most bytes first: every edge to q carries the key of all of q's blocks. */
static long long most_bytes(const nhood_topo *t, const nhood_coll_args *a, int me, int q) {
  long long bytes = 0;
  (void)me;
  for (int j = 0; j < t->outdegree; j++)
    if (t->destinations[j] == q) bytes += block_bytes(a, j);
  return -bytes;
}

int nhood_build_largest_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_build_direct_ordered(t, a, me, "largest-first", most_bytes, s);
}

const char *nhood_unfit_largest_first(const nhood_topo *t, const nhood_coll_args *a) {
  (void)t;
  return a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW
             ? NULL
             : "its blocks have one size, so direct's order is the largest first";
}
