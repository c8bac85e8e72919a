/*
 * The combine algorithm, Phase 2: the schedule of one allgather or alltoall call from the
 * combining pattern (pattern/combine.h). With s the bytes of one block:
 *
 *   round 0  pack own block(s) into scratch; exchange with each partner (allgather: the own
 *            block; alltoall: the blocks for the partner's half of the common targets); all
 *            direct messages, sends and receives together (a send whose receive were posted
 *            a round later could deadlock under a rendezvous protocol)
 *   round 1  one combined message [own block, partner's block] per target of one's own half;
 *            receive the combined messages announced to this process
 *   round 2  unpack combined messages into the receive buffer
 *
 * Everything that crosses between processes for combining is packed bytes (MPI_BYTE), which
 * assumes the usual homogeneous data representation; user datatypes are only used to pack and
 * unpack locally and for direct messages.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"

enum { TAG_DIRECT = 0, TAG_EXCHANGE = 1, TAG_COMBINED = 2, COMBINE_TAGS = 3 };

/* A rank and where it sits (an index into some list, and which half or position). */
typedef struct {
  int rank, index, which;
} located;

static int by_rank(const void *a, const void *b) {
  const located *x = a, *y = b;
  if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->index > y->index) - (x->index < y->index);
}

static const located *find(const located *sorted, int n, int rank) {
  located key = {rank, -1, 0};
  int lo = 0, hi = n;
  while (lo < hi) { /* first entry with this rank */
    int mid = (lo + hi) / 2;
    if (by_rank(&sorted[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && sorted[lo].rank == rank ? &sorted[lo] : NULL;
}

static nhood_region bytes_at(MPI_Aint offset, int count) {
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH};
}

/* Scratch offsets of one pair: its combined messages and (alltoall) its exchange areas. */
typedef struct {
  MPI_Aint combined;  /* allgather: 2s; alltoall: 2s per target of mine */
  MPI_Aint outgoing;  /* alltoall: my blocks for the partner's half, s each */
  MPI_Aint incoming;  /* alltoall: the partner's blocks for my half, s each */
} pair_space;

int nhood_build_combine(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  const nhood_combine_pattern *p = t->pattern;
  /* These conditions are the same on every process (the pattern is built on all, the
   * topology kind and the collective are global), so every process falls back alike. */
  if (p == NULL || t->nchannels != 1 || (a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLTOALL))
    return nhood_build_direct(t, a, me, s);
  if (p->npairs == 0 && p->nincoming == 0) {
    /* Nothing combined here, but elsewhere: the direct schedule, with the tag window of a
     * combined call, which every process must reserve alike. */
    int rc = nhood_build_direct(t, a, me, s);
    if (rc == MPI_SUCCESS) s->ntags = COMBINE_TAGS;
    return rc;
  }
  int rc = MPI_SUCCESS, alltoall = a->kind == NHOOD_ALLTOALL;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  MPI_Aint bytes = (MPI_Aint)a->sendcount * a->send_type_size;
  if (bytes != (MPI_Aint)a->recvcount * a->recv_type_size || bytes > 1 << 30)
    return nhood_error(MPI_ERR_TRUNCATE,
                       "combine: a block is %lld bytes to send but %lld to receive (they must be equal, below 1 GiB)",
                       (long long)bytes, (long long)a->recvcount * a->recv_type_size);
  int sb = (int)bytes, ntargets = 0;
  located *targets = NULL, *dests = NULL, *arrivals = NULL;
  pair_space *space = calloc((size_t)(p->npairs ? p->npairs : 1), sizeof *space);
  for (int k = 0; k < p->npairs; k++) ntargets += p->pairs[k].nmine + p->pairs[k].ntheirs;
  targets = malloc(sizeof *targets * (size_t)(ntargets ? ntargets : 1));
  dests = malloc(sizeof *dests * (size_t)(t->outdegree ? t->outdegree : 1));
  arrivals = malloc(sizeof *arrivals * (size_t)(p->nincoming > 0 ? 2 * p->nincoming : 1));
  if (!space || !targets || !dests || !arrivals) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combine: out of memory building a schedule");
    goto cleanup;
  }
  /* Targets served by a pair (directly sent to no more), the destination index of each rank
   * (alltoall picks blocks by it), and which combined message brings each source. */
  for (int k = 0, n = 0; k < p->npairs; k++) {
    for (int i = 0; i < p->pairs[k].nmine; i++) targets[n++] = (located){p->pairs[k].mine[i], k, 0};
    for (int i = 0; i < p->pairs[k].ntheirs; i++) targets[n++] = (located){p->pairs[k].theirs[i], k, 1};
  }
  qsort(targets, (size_t)ntargets, sizeof *targets, by_rank);
  for (int j = 0; j < t->outdegree; j++) dests[j] = (located){t->destinations[j], j, 0};
  qsort(dests, (size_t)t->outdegree, sizeof *dests, by_rank);
  for (int m = 0; m < p->nincoming; m++) {
    arrivals[2 * m] = (located){p->incoming[m].agent, m, 0};
    arrivals[2 * m + 1] = (located){p->incoming[m].other, m, 1};
  }
  qsort(arrivals, (size_t)(2 * p->nincoming), sizeof *arrivals, by_rank);

  /* Scratch: per pair, then per incoming combined message (2s each). */
  MPI_Aint scratch = 0;
  for (int k = 0; k < p->npairs; k++) {
    const nhood_combine_pair *pair = &p->pairs[k];
    space[k].combined = scratch;
    scratch += alltoall ? 2 * (MPI_Aint)sb * pair->nmine : 2 * (MPI_Aint)sb;
    space[k].outgoing = scratch;
    scratch += alltoall ? (MPI_Aint)sb * pair->ntheirs : 0;
    space[k].incoming = scratch;
    scratch += alltoall ? (MPI_Aint)sb * pair->nmine : 0;
  }
  MPI_Aint arrived = scratch;
  scratch += 2 * (MPI_Aint)sb * p->nincoming;

  NHOOD_TRY(nhood_sched_init(s, "combine", 2 * (t->indegree + t->outdegree) + 4 * ntargets, COMBINE_TAGS));
  s->scratch_bytes = scratch;

  /* Round 0: pack, exchange, direct messages. */
  for (int k = 0; k < p->npairs; k++) {
    const nhood_combine_pair *pair = &p->pairs[k];
    if (!alltoall) {
      NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, 0), bytes_at(space[k].combined, sb)));
      NHOOD_TRY(nhood_sched_send(s, pair->partner, TAG_EXCHANGE, bytes_at(space[k].combined, sb)));
      NHOOD_TRY(nhood_sched_recv(s, pair->partner, TAG_EXCHANGE, bytes_at(space[k].combined + sb, sb)));
      continue;
    }
    for (int i = 0; i < pair->ntheirs; i++)
      NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, find(dests, t->outdegree, pair->theirs[i])->index),
                                 bytes_at(space[k].outgoing + (MPI_Aint)i * sb, sb)));
    for (int i = 0; i < pair->nmine; i++)
      NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, find(dests, t->outdegree, pair->mine[i])->index),
                                 bytes_at(space[k].combined + 2 * (MPI_Aint)i * sb, sb)));
    if (pair->ntheirs)
      NHOOD_TRY(nhood_sched_send(s, pair->partner, TAG_EXCHANGE, bytes_at(space[k].outgoing, sb * pair->ntheirs)));
    if (pair->nmine)
      NHOOD_TRY(nhood_sched_recv(s, pair->partner, TAG_EXCHANGE, bytes_at(space[k].incoming, sb * pair->nmine)));
  }
  NHOOD_TRY(nhood_sched_add_self_copies(t, a, me, s));
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q == MPI_PROC_NULL || q == me || find(arrivals, 2 * p->nincoming, q)) continue;
    NHOOD_TRY(nhood_sched_recv(s, q, TAG_DIRECT, nhood_recv_block(a, i)));
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q == MPI_PROC_NULL || q == me || find(targets, ntargets, q)) continue;
    NHOOD_TRY(nhood_sched_send(s, q, TAG_DIRECT, nhood_send_block(a, j)));
  }
  NHOOD_TRY(nhood_sched_fence(s));

  /* Round 1: combined messages out and in. */
  for (int k = 0; k < p->npairs; k++) {
    const nhood_combine_pair *pair = &p->pairs[k];
    for (int i = 0; i < pair->nmine; i++) {
      MPI_Aint at = alltoall ? space[k].combined + 2 * (MPI_Aint)i * sb : space[k].combined;
      if (alltoall)
        NHOOD_TRY(nhood_sched_copy(s, bytes_at(space[k].incoming + (MPI_Aint)i * sb, sb), bytes_at(at + sb, sb)));
      NHOOD_TRY(nhood_sched_send(s, pair->mine[i], TAG_COMBINED, bytes_at(at, 2 * sb)));
    }
  }
  for (int m = 0; m < p->nincoming; m++)
    NHOOD_TRY(nhood_sched_recv(s, p->incoming[m].agent, TAG_COMBINED, bytes_at(arrived + 2 * (MPI_Aint)m * sb, 2 * sb)));
  NHOOD_TRY(nhood_sched_fence(s));

  /* Round 2: unpack; receive block i of a source that came combined. */
  for (int i = 0; i < t->indegree; i++) {
    const located *via = t->sources[i] == MPI_PROC_NULL ? NULL : find(arrivals, 2 * p->nincoming, t->sources[i]);
    if (via)
      NHOOD_TRY(nhood_sched_copy(s, bytes_at(arrived + (2 * (MPI_Aint)via->index + via->which) * sb, sb),
                                 nhood_recv_block(a, i)));
  }
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  free(space);
  free(targets);
  free(dests);
  free(arrivals);
  return rc;
}
