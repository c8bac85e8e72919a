/*
 * The far-first algorithm: direct's messages (one per edge, one round), but each process sends
 * first to the ranks farthest from its own (by |rank difference|), nearest last. Where ranks are
 * placed in blocks per node, the far ranks are on other nodes: the messages that take longest,
 * through the network, start first, and the on-node ones, copies in shared memory, follow
 * while those travel. Edges to one destination keep their order (MPI's pairing within a
 * channel). On one node it sends what direct sends at direct's cost, so auto prices it only
 * where processes span nodes.
 */
#include <stdlib.h>

#include "schedule/algorithms.h"

/* Farthest first. */
static long long farthest(const nhood_topo *t, const nhood_coll_args *a, int me, int q) {
  (void)t, (void)a;
  return -(long long)abs(q - me);
}

int nhood_build_far_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_build_direct_ordered(t, a, me, "far-first", farthest, s);
}
