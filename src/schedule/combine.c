/*
 * The combine algorithm, Phase 2: the schedule of one allgather or alltoall call from the
 * cumulative combining pattern (pattern/combine.h). With s the bytes of one block:
 *
 *   one round per combining level   pack the blocks of the duties handed to the partner
 *                                   (allgather: each source's block once; alltoall: the
 *                                   block of every (source, target) pair), exchange them
 *   final round                     one message per duty, its blocks in source order; the
 *                                   combined messages announced to this process; the edges
 *                                   that stay direct
 *   unpack round                    blocks of combined messages and of the duty to oneself
 *                                   into the receive buffer
 *
 * Every block is found through a map from its key (allgather: source; alltoall: source and
 * target) to where it lies: the user's send buffer for one's own blocks, scratch for blocks
 * received in a level. Everything that crosses between processes for combining is packed
 * bytes (MPI_BYTE), which assumes the usual homogeneous data representation; user datatypes
 * are only used to pack and unpack locally and for direct messages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"

enum { TAG_DIRECT = 0, TAG_EXCHANGE = 1, TAG_COMBINED = 2, COMBINE_TAGS = 3 };

/* ---- where blocks lie: key -> region ---------------------------------------------------- */

typedef struct {
  uint64_t *keys;
  nhood_region *where;
  size_t mask;
} block_map;

#define NO_KEY UINT64_MAX

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static int map_init(block_map *m, size_t entries) {
  size_t capacity = 16;
  while (capacity < 2 * entries) capacity *= 2;
  m->mask = capacity - 1;
  m->keys = malloc(sizeof *m->keys * capacity);
  m->where = malloc(sizeof *m->where * capacity);
  if (!m->keys || !m->where) return nhood_error(MPI_ERR_NO_MEM, "combine: out of memory for a block map");
  for (size_t k = 0; k < capacity; k++) m->keys[k] = NO_KEY;
  return MPI_SUCCESS;
}

static void map_free(block_map *m) {
  free(m->keys);
  free(m->where);
}

static void map_put(block_map *m, uint64_t key, nhood_region where) {
  size_t k = mix(key) & m->mask;
  while (m->keys[k] != NO_KEY && m->keys[k] != key) k = (k + 1) & m->mask;
  m->keys[k] = key;
  m->where[k] = where;
}

static const nhood_region *map_get(const block_map *m, uint64_t key) {
  for (size_t k = mix(key) & m->mask; m->keys[k] != NO_KEY; k = (k + 1) & m->mask)
    if (m->keys[k] == key) return &m->where[k];
  return NULL;
}

static uint64_t block_key(int alltoall, int source, int target) {
  return alltoall ? ((uint64_t)(uint32_t)source << 32) | (uint32_t)target : (uint64_t)(uint32_t)source;
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* A rank and its index in a neighbor list. */
typedef struct {
  int rank, index;
} located;

static int by_rank(const void *a, const void *b) {
  const located *x = a, *y = b;
  if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->index > y->index) - (x->index < y->index);
}

/* The neighbors of a list that are combinable (listed once, not oneself or MPI_PROC_NULL),
 * sorted by rank; returns how many. */
static int combinable(const int *list, int n, int me, located *out) {
  int m = 0, kept = 0;
  for (int i = 0; i < n; i++) out[m++] = (located){list[i], i};
  qsort(out, (size_t)m, sizeof *out, by_rank);
  for (int i = 0, j; i < m; i = j) {
    for (j = i; j < m && out[j].rank == out[i].rank;) j++;
    if (nhood_combine_eligible(out[i].rank, me, j - i)) out[kept++] = out[i];
  }
  return kept;
}

static const located *find(const located *sorted, int n, int rank) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (sorted[mid].rank < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && sorted[lo].rank == rank ? &sorted[lo] : NULL;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The keys of the blocks a list of duties carries, in the order both partners use:
 * allgather: each source once, ascending; alltoall: (source, target) record by record. */
static int duty_blocks(const nhood_records *r, int alltoall, uint64_t *keys) {
  int n = 0;
  for (const int *x = r->words; x < NHOOD_RECORDS_END(*r); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++) keys[n++] = block_key(alltoall, x[2 + k], x[0]);
  if (alltoall || n == 0) return n;
  qsort(keys, (size_t)n, sizeof *keys, compare_u64);
  int unique = 1;
  for (int k = 1; k < n; k++)
    if (keys[k] != keys[unique - 1]) keys[unique++] = keys[k];
  return unique;
}

static nhood_region bytes_at(MPI_Aint offset, int count) {
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH};
}

/* Copies the blocks named by keys[n] into scratch at `at`, one after another. */
static int pack(nhood_sched *s, const block_map *map, const uint64_t *keys, int n, MPI_Aint at, int sb) {
  for (int k = 0; k < n; k++) {
    const nhood_region *from = map_get(map, keys[k]);
    if (!from)
      return nhood_error(MPI_ERR_INTERN, "combine: the pattern names a block (%llu) this process does not hold",
                         (unsigned long long)keys[k]);
    int rc = nhood_sched_copy(s, *from, bytes_at(at + (MPI_Aint)k * sb, sb));
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

/* Receive slot of a block from `source`, or an error naming the inconsistency. */
static int slot_of(const located *sources, int n, int source, int *slot) {
  const located *at = find(sources, n, source);
  if (!at)
    return nhood_error(MPI_ERR_TOPOLOGY,
                       "combine: a block from rank %d arrives, which this process does not list once as a source "
                       "(are the topologies of all processes consistent? NHOOD_CHECK=1 tells)",
                       source);
  *slot = at->index;
  return MPI_SUCCESS;
}

static long long max_listed(const nhood_combine_pattern *p) {
  long long most = p->duties.nwords + p->self.nwords + p->incoming.nwords;
  for (int l = 0; l < p->nlevels; l++) {
    long long n = p->levels[l].out.nwords > p->levels[l].in.nwords ? p->levels[l].out.nwords : p->levels[l].in.nwords;
    if (n > most) most = n;
  }
  return most;
}

int nhood_build_combine(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  const nhood_combine_pattern *p = t->pattern;
  /* These conditions are the same on every process (the pattern's depth is global, the
   * topology kind and the collective are too), so every process falls back alike. */
  if (p == NULL || t->nchannels != 1 || (a->kind != NHOOD_ALLGATHER && a->kind != NHOOD_ALLTOALL))
    return nhood_build_direct(t, a, me, s);
  if (p->nlevels == 0) {
    /* The cost model kept the direct exchange; it runs in the tag window of a combined call,
     * which every process must reserve alike. */
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
  int sb = (int)bytes, ndests = 0, nsources = 0;
  block_map map = {0};
  size_t entries = (size_t)t->outdegree + 1;
  for (int l = 0; l < p->nlevels; l++) entries += (size_t)p->levels[l].in.nwords;
  located *dests = malloc(sizeof *dests * (size_t)(t->outdegree + 1));
  located *sources = malloc(sizeof *sources * (size_t)(t->indegree + 1));
  uint64_t *keys = malloc(sizeof *keys * (size_t)(max_listed(p) + 1));
  if (!dests || !sources || !keys) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combine: out of memory building a schedule");
    goto cleanup;
  }
  NHOOD_TRY(map_init(&map, entries));
  ndests = combinable(t->destinations, t->outdegree, me, dests);
  nsources = combinable(t->sources, t->indegree, me, sources);
  NHOOD_TRY(nhood_sched_init(s, "combine", 2 * (t->indegree + t->outdegree) + 8 * p->nlevels, COMBINE_TAGS));

  /* One's own blocks, in the send buffer. */
  if (alltoall)
    for (int k = 0; k < ndests; k++) map_put(&map, block_key(1, me, dests[k].rank), nhood_send_block(a, dests[k].index));
  else
    map_put(&map, block_key(0, me, 0), nhood_send_block(a, 0));

  /* The levels. */
  MPI_Aint scratch = 0;
  for (int l = 0; l < p->nlevels; l++) {
    const nhood_combine_level *lv = &p->levels[l];
    if (lv->partner < 0) continue;
    int nout = duty_blocks(&lv->out, alltoall, keys);
    NHOOD_TRY(pack(s, &map, keys, nout, scratch, sb));
    if (nout) NHOOD_TRY(nhood_sched_send(s, lv->partner, TAG_EXCHANGE, bytes_at(scratch, nout * sb)));
    scratch += (MPI_Aint)nout * sb;
    int nin = duty_blocks(&lv->in, alltoall, keys);
    if (nin) NHOOD_TRY(nhood_sched_recv(s, lv->partner, TAG_EXCHANGE, bytes_at(scratch, nin * sb)));
    for (int k = 0; k < nin; k++) map_put(&map, keys[k], bytes_at(scratch + (MPI_Aint)k * sb, sb));
    scratch += (MPI_Aint)nin * sb;
    NHOOD_TRY(nhood_sched_fence(s));
  }

  /* The final round: one message per duty, the combined messages in, the direct edges. */
  for (const int *x = p->duties.words; x < NHOOD_RECORDS_END(p->duties); x += 2 + x[1]) {
    for (int k = 0; k < x[1]; k++) keys[k] = block_key(alltoall, x[2 + k], x[0]);
    NHOOD_TRY(pack(s, &map, keys, x[1], scratch, sb));
    NHOOD_TRY(nhood_sched_send(s, x[0], TAG_COMBINED, bytes_at(scratch, x[1] * sb)));
    scratch += (MPI_Aint)x[1] * sb;
  }
  MPI_Aint arrivals = scratch;
  for (const int *x = p->incoming.words; x < NHOOD_RECORDS_END(p->incoming); x += 2 + x[1]) {
    NHOOD_TRY(nhood_sched_recv(s, x[0], TAG_COMBINED, bytes_at(scratch, x[1] * sb)));
    scratch += (MPI_Aint)x[1] * sb;
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q != MPI_PROC_NULL && q != me && !find(dests, ndests, q))
      NHOOD_TRY(nhood_sched_send(s, q, TAG_DIRECT, nhood_send_block(a, j)));
  }
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q != MPI_PROC_NULL && q != me && !find(sources, nsources, q))
      NHOOD_TRY(nhood_sched_recv(s, q, TAG_DIRECT, nhood_recv_block(a, i)));
  }
  NHOOD_TRY(nhood_sched_add_self_copies(t, a, me, s));
  NHOOD_TRY(nhood_sched_fence(s));

  /* Unpack: the combined messages, then the blocks held for oneself. */
  MPI_Aint at = arrivals;
  for (const int *x = p->incoming.words; x < NHOOD_RECORDS_END(p->incoming); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++, at += sb) {
      int slot = 0;
      NHOOD_TRY(slot_of(sources, nsources, x[2 + k], &slot));
      NHOOD_TRY(nhood_sched_copy(s, bytes_at(at, sb), nhood_recv_block(a, slot)));
    }
  for (const int *x = p->self.words; x < NHOOD_RECORDS_END(p->self); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++) {
      int slot = 0;
      NHOOD_TRY(slot_of(sources, nsources, x[2 + k], &slot));
      const nhood_region *from = map_get(&map, block_key(alltoall, x[2 + k], me));
      if (!from) NHOOD_TRY(nhood_error(MPI_ERR_INTERN, "combine: a block for this process is missing"));
      NHOOD_TRY(nhood_sched_copy(s, *from, nhood_recv_block(a, slot)));
    }
  s->scratch_bytes = scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  map_free(&map);
  free(dests);
  free(sources);
  free(keys);
  return rc;
}
