/*
 * The direct algorithm: one message per (non-null) edge in a single round, receives posted
 * before sends, as MPICH and Open MPI implement MPI_Neighbor_*. It is the baseline every
 * other algorithm is measured against, and the fallback that always applies.
 *
 * Edges to oneself become local copies. Zero-size messages are still sent, as MPI does:
 * skipping them would be safe for correct programs but turn a count mismatch (a user error
 * MPI tolerates) into a hang.
 */
#include "schedule/algorithms.h"

#include <stdlib.h>

#include "common/errors.h"

/* Pairs every receive from oneself with a send to oneself on the same channel, the k-th
 * such receive with the k-th such send (the MPI-4.1 order rule within a channel). One
 * forward-only cursor per channel keeps this linear in the degree. */
int nhood_sched_add_self_copies(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  int rc = MPI_SUCCESS;
  int *cursor = calloc((size_t)t->nchannels, sizeof(int));
  if (!cursor) return nhood_error(MPI_ERR_NO_MEM, "out of memory pairing self edges");
  for (int i = 0; i < t->indegree; i++) {
    if (t->sources[i] != me) continue;
    int channel = t->recv_channel ? t->recv_channel[i] : 0;
    int j = cursor[channel];
    while (j < t->outdegree && (t->destinations[j] != me || (t->send_channel && t->send_channel[j] != channel))) j++;
    if (j >= t->outdegree) {
      rc =
          nhood_error(MPI_ERR_TOPOLOGY,
                      "topo lists this process (rank %d) as its own source more often than as its own destination", me);
      goto cleanup;
    }
    NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, j), nhood_recv_block(a, i)));
    cursor[channel] = j + 1;
  }
cleanup:
  free(cursor);
  return rc;
}

typedef struct {
  long long key;
  int index;
} send_item;

static int by_key_then_index(const void *a, const void *b) {
  const send_item *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->index > y->index) - (x->index < y->index);
}

int nhood_build_direct_ordered(const nhood_topo *t, const nhood_coll_args *a, int me, const char *name,
                               nhood_send_key key, nhood_sched *s) {
  int rc = MPI_SUCCESS, n = 0;
  send_item *order = NULL;
  if (key && !(order = malloc(sizeof *order * (size_t)(t->outdegree + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "%s: out of memory for the send order", name);
  NHOOD_TRY(nhood_sched_init(s, name, t->indegree + t->outdegree, t->nchannels));
  NHOOD_TRY(nhood_sched_add_self_copies(t, a, me, s));
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q == MPI_PROC_NULL || q == me) continue;
    NHOOD_TRY(nhood_sched_recv(s, q, t->recv_channel ? t->recv_channel[i] : 0, nhood_recv_block(a, i)));
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q == MPI_PROC_NULL || q == me) continue;
    if (key)
      order[n++] = (send_item){key(t, a, me, q), j};
    else
      NHOOD_TRY(nhood_sched_send(s, q, t->send_channel ? t->send_channel[j] : 0, nhood_send_block(a, j)));
  }
  if (key) qsort(order, (size_t)n, sizeof *order, by_key_then_index);
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

int nhood_build_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_build_direct_ordered(t, a, me, "direct", NULL, s);
}
