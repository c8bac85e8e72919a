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

#include "common/errors.h"
#include "schedule/algorithms.h"

typedef struct {
  int distance, index;
} far_item;

/* Farthest first; an equal distance keeps list order. */
static int farthest_then_index(const void *a, const void *b) {
  const far_item *x = a, *y = b;
  if (x->distance != y->distance) return (x->distance < y->distance) - (x->distance > y->distance);
  return (x->index > y->index) - (x->index < y->index);
}

int nhood_build_far_first(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  int rc = MPI_SUCCESS, n = 0;
  far_item *order = malloc(sizeof *order * (size_t)(t->outdegree + 1));
  if (!order) return nhood_error(MPI_ERR_NO_MEM, "far-first: out of memory for the send order");
  NHOOD_TRY(nhood_sched_init(s, "far-first", t->indegree + t->outdegree, t->nchannels));
  NHOOD_TRY(nhood_sched_add_self_copies(t, a, me, s));
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q == MPI_PROC_NULL || q == me) continue;
    NHOOD_TRY(nhood_sched_recv(s, q, t->recv_channel ? t->recv_channel[i] : 0, nhood_recv_block(a, i)));
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q == MPI_PROC_NULL || q == me) continue;
    order[n++] = (far_item){abs(q - me), j};
  }
  qsort(order, (size_t)n, sizeof *order, farthest_then_index);
  for (int k = 0; k < n; k++) {
    int j = order[k].index;
    NHOOD_TRY(
        nhood_sched_send(s, t->destinations[j], t->send_channel ? t->send_channel[j] : 0, nhood_send_block(a, j)));
  }
  NHOOD_TRY(nhood_sched_finish(s));
  free(order);
  return MPI_SUCCESS;
cleanup:
  free(order);
  nhood_sched_free(s);
  return rc;
}
