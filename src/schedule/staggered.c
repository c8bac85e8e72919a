/*
 * The staggered algorithm: direct's messages (one per edge, one round), but each process sends
 * first to the ranks just after its own, in rank order, wrapping around (r + 1, r + 2, ...,
 * then 0, 1, ..., r - 1), as pairwise all-to-all exchanges do. With direct, every process
 * sends in the order of its list, usually by rank: all of them start with the lowest ranks,
 * whose node's network interface then takes everyone's first messages while the others wait
 * (incast). Staggered, the first messages head for as many processes and nodes as there are
 * senders. Edges to one destination keep their order (MPI's pairing within a channel).
 */
#include "schedule/algorithms.h"

#include <stdlib.h>

#include "common/errors.h"

typedef struct {
  long long key; /* distance after me, cyclically over the listed ranks */
  int index;
} order_item;

static int by_key_then_index(const void *a, const void *b) {
  const order_item *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->index > y->index) - (x->index < y->index);
}

int nhood_build_staggered(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  int rc = MPI_SUCCESS;
  order_item *order = malloc(sizeof *order * (size_t)(t->outdegree + 1));
  if (!order) return nhood_error(MPI_ERR_NO_MEM, "staggered: out of memory for the send order");
  NHOOD_TRY(nhood_sched_init(s, "staggered", t->indegree + t->outdegree, t->nchannels));
  NHOOD_TRY(nhood_sched_add_self_copies(t, a, me, s));
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q == MPI_PROC_NULL || q == me) continue;
    NHOOD_TRY(nhood_sched_recv(s, q, t->recv_channel ? t->recv_channel[i] : 0, nhood_recv_block(a, i)));
  }
  /* Ranks above me come first, by distance; then those below, from rank 0 up. */
  const long long wrap = (long long)(t->max_rank > me ? t->max_rank : me) + 1;
  int n = 0;
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q == MPI_PROC_NULL || q == me) continue;
    order[n++] = (order_item){q > me ? q - me : q + wrap - me, j};
  }
  qsort(order, (size_t)n, sizeof *order, by_key_then_index);
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
