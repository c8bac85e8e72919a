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
 *
 * Blocks of different sizes (allgatherv, alltoallv, alltoallw). A process that forwards a
 * block must know its size before the data moves, and only the block's sender and final
 * receiver know it. So these calls take two schedules (algorithms.h): the *size pass* runs
 * the levels alone with one int per block (its size in bytes), the same keys in the same
 * order as the data will take; the *data schedule* is then built with the sizes the size
 * pass left in its scratch. A final receiver needs no size pass: it knows its blocks' sizes
 * from its own counts and types. One builder serves all three modes, so the size pass and the
 * data schedule cannot disagree about which block comes where.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "pattern/combine.h"
#include "schedule/algorithms.h"

enum { TAG_DIRECT = 0, TAG_EXCHANGE = 1, TAG_COMBINED = 2, COMBINE_TAGS = 3 };

/* ---- where blocks lie: key -> region ---------------------------------------------------- */

typedef struct {
  uint64_t *keys;
  nhood_region *where;
  int *bytes; /* the block's size */
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
  m->bytes = malloc(sizeof *m->bytes * capacity);
  if (!m->keys || !m->where || !m->bytes) return nhood_error(MPI_ERR_NO_MEM, "combine: out of memory for a block map");
  for (size_t k = 0; k < capacity; k++) m->keys[k] = NO_KEY;
  return MPI_SUCCESS;
}

static void map_free(block_map *m) {
  free(m->keys);
  free(m->where);
  free(m->bytes);
}

static void map_put(block_map *m, uint64_t key, nhood_region where, int bytes) {
  size_t k = mix(key) & m->mask;
  while (m->keys[k] != NO_KEY && m->keys[k] != key) k = (k + 1) & m->mask;
  m->keys[k] = key;
  m->where[k] = where;
  m->bytes[k] = bytes;
}

/* The slot of key, or -1. */
static long map_find(const block_map *m, uint64_t key) {
  for (size_t k = mix(key) & m->mask; m->keys[k] != NO_KEY; k = (k + 1) & m->mask)
    if (m->keys[k] == key) return (long)k;
  return -1;
}

static uint64_t block_key(int alltoall, int source, int target) {
  return alltoall ? ((uint64_t)(uint32_t)source << 32) | (uint32_t)target : (uint64_t)(uint32_t)source;
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* The neighbors of a list that are combinable (listed once, not oneself or MPI_PROC_NULL),
 * sorted by rank; returns how many. */
static int combinable(const int *list, int n, int me, nhood_located *out) {
  int m = 0, kept = 0;
  for (int i = 0; i < n; i++) out[m++] = (nhood_located){list[i], i};
  qsort(out, (size_t)m, sizeof *out, nhood_located_cmp);
  for (int i = 0, j; i < m; i = j) {
    for (j = i; j < m && out[j].rank == out[i].rank;) j++;
    if (nhood_combine_eligible(out[i].rank, me, j - i)) out[kept++] = out[i];
  }
  return kept;
}

static const nhood_located *find(const nhood_located *sorted, int n, int rank) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (sorted[mid].rank < rank)
      lo = mid + 1;
    else
      hi = mid;
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
  return (nhood_region){offset, MPI_BYTE, count, NHOOD_BUF_SCRATCH, 0};
}

/* Receive slot of a block from `source`, or an error naming the inconsistency. */
static int slot_of(const nhood_located *sources, int n, int source, int *slot) {
  const nhood_located *at = find(sources, n, source);
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

/* ---- one builder, three modes --------------------------------------------------------- */

typedef enum {
  EQUAL_BLOCKS, /* allgather, alltoall: every block has the same size, known everywhere */
  SIZE_PASS,    /* the levels only, moving one int (a block's size) per block */
  SIZED_DATA    /* the data, block sizes from the size pass */
} build_mode;

typedef struct {
  const nhood_topo *t;
  const nhood_combine_pattern *p;
  const nhood_coll_args *a;
  int me, alltoall;
  build_mode mode;
  int sb;            /* EQUAL_BLOCKS: bytes of every block */
  const int *passed; /* SIZED_DATA: the size pass's scratch, read level by level */
  long passed_at;    /* ints of it read so far */
  nhood_sched *s;
  block_map map;
  uint64_t *keys;
  nhood_located *dests, *sources;
  int ndests, nsources;
  MPI_Aint scratch; /* bytes of scratch laid out so far */
} builder;

/* Bytes of a user block (send block j or receive block i). */
static int user_block_bytes(const builder *b, nhood_region r, int *bytes) {
  int size = 0;
  if (b->a->kind != NHOOD_ALLTOALLW)
    size = r.buf == NHOOD_BUF_SEND ? b->a->send_type_size : b->a->recv_type_size;
  else if (nhood_type_size(r.type, &size) != MPI_SUCCESS)
    return nhood_error(MPI_ERR_TYPE, "combine: MPI_Type_size failed on a block's datatype");
  long long n = (long long)size * r.count;
  if (n > INT32_MAX / 2)
    return nhood_error(MPI_ERR_COUNT, "combine: a block of %lld bytes is too large to combine (at most 1 GiB)", n);
  *bytes = (int)n;
  return MPI_SUCCESS;
}

/* This process's own blocks: in the size pass, ints in the caller's size array (which is the
 * size pass's send buffer, filled by nhood_build_combine_size_pass); else the user's send
 * blocks. */
static int put_own_block(builder *b, int dest_index, int target, int *own_sizes, int own_index) {
  nhood_region r = nhood_send_block(b->a, dest_index);
  int bytes = b->sb, rc = MPI_SUCCESS;
  if (b->mode != EQUAL_BLOCKS) NHOOD_TRY(user_block_bytes(b, r, &bytes));
  if (b->mode == SIZE_PASS) {
    own_sizes[own_index] = bytes;
    r = (nhood_region){(MPI_Aint)own_index * (MPI_Aint)sizeof(int), MPI_BYTE, (int)sizeof(int), NHOOD_BUF_SEND, 0};
    bytes = (int)sizeof(int);
  }
  map_put(&b->map, block_key(b->alltoall, b->me, target), r, bytes);
cleanup:
  return rc;
}

/* Copies the blocks named by keys[n] into scratch, one after another; *total: their bytes. */
static int pack(builder *b, const uint64_t *keys, int n, int *total) {
  long long at = 0;
  for (int k = 0; k < n; k++) {
    long slot = map_find(&b->map, keys[k]);
    if (slot < 0)
      return nhood_error(MPI_ERR_INTERN, "combine: the pattern names a block (%llu) this process does not hold",
                         (unsigned long long)keys[k]);
    int bytes = b->map.bytes[slot];
    int rc = nhood_sched_copy(b->s, b->map.where[slot], bytes_at(b->scratch + (MPI_Aint)at, bytes));
    if (rc != MPI_SUCCESS) return rc;
    at += bytes;
  }
  if (at > INT32_MAX / 2) return nhood_error(MPI_ERR_COUNT, "combine: a combined message would exceed 1 GiB");
  *total = (int)at;
  return MPI_SUCCESS;
}

/* Bytes of the block with keys[k] received in a level. */
static int level_block_bytes(builder *b, int k) {
  if (b->mode == EQUAL_BLOCKS) return b->sb;
  if (b->mode == SIZE_PASS) return (int)sizeof(int);
  return b->passed[b->passed_at + k];
}

/* One exchange: pack what goes to the partner, exchange, and remember where received blocks
 * lie. The size pass lays out its scratch exchange by exchange, out then in, as ints; the
 * sized data build walks the same layout to read the sizes (passed_at). The caller ends the
 * round. */
static int build_level(builder *b, const nhood_combine_level *lv) {
  int rc = MPI_SUCCESS, nout = duty_blocks(&lv->out, b->alltoall, b->keys), out_bytes = 0, in_bytes = 0;
  NHOOD_TRY(pack(b, b->keys, nout, &out_bytes));
  if (nout) NHOOD_TRY(nhood_sched_send(b->s, lv->partner, TAG_EXCHANGE, bytes_at(b->scratch, out_bytes)));
  b->scratch += out_bytes;
  b->passed_at += nout;
  int nin = duty_blocks(&lv->in, b->alltoall, b->keys);
  for (int k = 0; k < nin; k++) {
    int bytes = level_block_bytes(b, k);
    if (bytes < 0 || in_bytes + (long long)bytes > INT32_MAX / 2)
      return nhood_error(MPI_ERR_COUNT, "combine: a level's message would exceed 1 GiB (or a size is corrupt)");
    map_put(&b->map, b->keys[k], bytes_at(b->scratch + in_bytes, bytes), bytes);
    in_bytes += bytes;
  }
  if (nin) NHOOD_TRY(nhood_sched_recv(b->s, lv->partner, TAG_EXCHANGE, bytes_at(b->scratch, in_bytes)));
  b->scratch += in_bytes;
  b->passed_at += nin;
cleanup:
  return rc;
}

/* Bytes of the receive block for a block from `source`. */
static int incoming_block_bytes(const builder *b, int source, int *slot, int *bytes) {
  int rc = slot_of(b->sources, b->nsources, source, slot);
  if (rc != MPI_SUCCESS) return rc;
  if (b->mode == EQUAL_BLOCKS) {
    *bytes = b->sb;
    return MPI_SUCCESS;
  }
  return user_block_bytes(b, nhood_recv_block(b->a, *slot), bytes);
}

/* The final round (one message per duty, the combined messages in, the direct edges), then
 * the unpack round. */
static int build_final(builder *b) {
  const nhood_combine_pattern *p = b->p;
  const nhood_topo *t = b->t;
  int rc = MPI_SUCCESS, slot = 0, bytes = 0;
  for (const int *x = p->duties.words; x < NHOOD_RECORDS_END(p->duties); x += 2 + x[1]) {
    for (int k = 0; k < x[1]; k++) b->keys[k] = block_key(b->alltoall, x[2 + k], x[0]);
    int total = 0;
    NHOOD_TRY(pack(b, b->keys, x[1], &total));
    NHOOD_TRY(nhood_sched_send(b->s, x[0], TAG_COMBINED, bytes_at(b->scratch, total)));
    b->scratch += total;
  }
  MPI_Aint arrivals = b->scratch;
  for (const int *x = p->incoming.words; x < NHOOD_RECORDS_END(p->incoming); x += 2 + x[1]) {
    long long total = 0;
    for (int k = 0; k < x[1]; k++) {
      NHOOD_TRY(incoming_block_bytes(b, x[2 + k], &slot, &bytes));
      total += bytes;
    }
    if (total > INT32_MAX / 2) return nhood_error(MPI_ERR_COUNT, "combine: a combined message would exceed 1 GiB");
    NHOOD_TRY(nhood_sched_recv(b->s, x[0], TAG_COMBINED, bytes_at(b->scratch, (int)total)));
    b->scratch += (MPI_Aint)total;
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    if (q != MPI_PROC_NULL && q != b->me && !find(b->dests, b->ndests, q))
      NHOOD_TRY(nhood_sched_send(b->s, q, TAG_DIRECT, nhood_send_block(b->a, j)));
  }
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q != MPI_PROC_NULL && q != b->me && !find(b->sources, b->nsources, q))
      NHOOD_TRY(nhood_sched_recv(b->s, q, TAG_DIRECT, nhood_recv_block(b->a, i)));
  }
  NHOOD_TRY(nhood_sched_add_self_copies(t, b->a, b->me, b->s));
  NHOOD_TRY(nhood_sched_fence(b->s));

  /* Unpack: the combined messages, then the blocks held for oneself. */
  MPI_Aint at = arrivals;
  for (const int *x = p->incoming.words; x < NHOOD_RECORDS_END(p->incoming); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++, at += bytes) {
      NHOOD_TRY(incoming_block_bytes(b, x[2 + k], &slot, &bytes));
      NHOOD_TRY(nhood_sched_copy(b->s, bytes_at(at, bytes), nhood_recv_block(b->a, slot)));
    }
  for (const int *x = p->self.words; x < NHOOD_RECORDS_END(p->self); x += 2 + x[1])
    for (int k = 0; k < x[1]; k++) {
      NHOOD_TRY(slot_of(b->sources, b->nsources, x[2 + k], &slot));
      long held = map_find(&b->map, block_key(b->alltoall, x[2 + k], b->me));
      if (held < 0) NHOOD_TRY(nhood_error(MPI_ERR_INTERN, "combine: a block for this process is missing"));
      NHOOD_TRY(nhood_sched_copy(b->s, b->map.where[held], nhood_recv_block(b->a, slot)));
    }
cleanup:
  return rc;
}

static const char *schedule_name(const nhood_combine_pattern *p, build_mode mode) {
  const nhood_pattern_kind *kind = p->kind ? p->kind : &nhood_combine_kind;
  return mode == SIZE_PASS ? kind->size_pass : kind->algorithm;
}

/* Builds the schedule of one mode; own_sizes (SIZE_PASS) receives this process's block sizes. */
static int build(const nhood_topo *t, const nhood_combine_pattern *p, const nhood_coll_args *a, int me, build_mode mode,
                 const int *passed, int *own_sizes, nhood_sched *s) {
  int rc = MPI_SUCCESS;
  builder b = {.t = t, .p = p, .a = a, .me = me, .mode = mode, .passed = passed, .s = s};
  b.alltoall = a->kind == NHOOD_ALLTOALL || a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  if (mode == EQUAL_BLOCKS) {
    MPI_Aint bytes = (MPI_Aint)a->sendcount * a->send_type_size;
    if (bytes != (MPI_Aint)a->recvcount * a->recv_type_size || bytes > 1 << 30)
      return nhood_error(MPI_ERR_TRUNCATE,
                         "combine: a block is %lld bytes to send but %lld to receive (they must be equal, below 1 GiB)",
                         (long long)bytes, (long long)a->recvcount * a->recv_type_size);
    b.sb = (int)bytes;
  }
  size_t entries = (size_t)t->outdegree + 1;
  for (int l = 0; l < p->nlevels; l++) entries += (size_t)p->levels[l].in.nwords;
  b.dests = malloc(sizeof *b.dests * (size_t)(t->outdegree + 1));
  b.sources = malloc(sizeof *b.sources * (size_t)(t->indegree + 1));
  b.keys = malloc(sizeof *b.keys * (size_t)(max_listed(p) + 1));
  if (!b.dests || !b.sources || !b.keys) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combine: out of memory building a schedule");
    goto cleanup;
  }
  NHOOD_TRY(map_init(&b.map, entries));
  b.ndests = combinable(t->destinations, t->outdegree, me, b.dests);
  b.nsources = combinable(t->sources, t->indegree, me, b.sources);
  NHOOD_TRY(
      nhood_sched_init(s, schedule_name(p, mode), 2 * (t->indegree + t->outdegree) + 8 * p->nlevels, COMBINE_TAGS));
  if (b.alltoall)
    for (int k = 0; k < b.ndests; k++) NHOOD_TRY(put_own_block(&b, b.dests[k].index, b.dests[k].rank, own_sizes, k));
  else
    NHOOD_TRY(put_own_block(&b, 0, 0, own_sizes, 0));
  for (int l = 0, open = 0; l < p->nlevels; l++) {
    if (p->levels[l].partner >= 0) {
      NHOOD_TRY(build_level(&b, &p->levels[l]));
      open = 1;
    }
    if (open && (l + 1 == p->nlevels || p->levels[l + 1].round != p->levels[l].round)) {
      NHOOD_TRY(nhood_sched_fence(s)); /* the round's receives land before later rounds forward them */
      open = 0;
    }
  }
  if (mode != SIZE_PASS) NHOOD_TRY(build_final(&b));
  s->scratch_bytes = b.scratch;
  NHOOD_TRY(nhood_sched_finish(s));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  map_free(&b.map);
  free(b.dests);
  free(b.sources);
  free(b.keys);
  return rc;
}

/* ---- entry points ------------------------------------------------------------------------ */

static int equal_blocks(const nhood_coll_args *a) {
  return a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLTOALL || nhood_coll_reduces(a->kind);
}

/* Why the algorithm of a pattern kind does not apply: the conditions are the same on every
 * process (the pattern's rounds are global, the topology kind is too), so all fall back alike. */
const char *nhood_unfit_forwarding(nhood_pattern_kind *kind, const nhood_topo *t) {
  const nhood_combine_pattern *p = nhood_pattern_of(t, kind, NULL);
  if (t->nchannels != 1) return "Cartesian channels (a topology from a Cartesian communicator)";
  if (p == NULL) return kind->missing;
  if (p->nrounds == 0) return kind->empty;
  return NULL;
}

int nhood_forwarding_needs_size_pass(nhood_pattern_kind *kind, const nhood_topo *t, const nhood_coll_args *a) {
  return !nhood_unfit_forwarding(kind, t) && !equal_blocks(a);
}

int nhood_build_forwarding(nhood_pattern_kind *kind, const nhood_topo *t, const nhood_coll_args *a, int me,
                           nhood_sched *s) {
  if (nhood_unfit_forwarding(kind, t))
    return nhood_error(MPI_ERR_INTERN, "%s built for a topology it does not apply to", kind->algorithm);
  if (!equal_blocks(a))
    return nhood_error(MPI_ERR_INTERN, "%s: a %s takes a size pass first (nhood_build_combine_size_pass)",
                       kind->algorithm, nhood_coll_names[a->kind]);
  return build(t, nhood_pattern_of(t, kind, NULL), a, me, EQUAL_BLOCKS, NULL, NULL, s);
}

int nhood_build_combine_size_pass(const nhood_topo *t, const nhood_combine_pattern *p, const nhood_coll_args *a, int me,
                                  nhood_sched *s, int **own_sizes) {
  *own_sizes = malloc(sizeof(int) * (size_t)(t->outdegree + 1));
  if (!*own_sizes) return nhood_error(MPI_ERR_NO_MEM, "combine: out of memory for block sizes");
  int rc = build(t, p, a, me, SIZE_PASS, NULL, *own_sizes, s);
  if (rc != MPI_SUCCESS) {
    free(*own_sizes);
    *own_sizes = NULL;
  }
  return rc;
}

int nhood_build_combine_sized(const nhood_topo *t, const nhood_combine_pattern *p, const nhood_coll_args *a, int me,
                              const void *size_pass_scratch, nhood_sched *s) {
  return build(t, p, a, me, SIZED_DATA, size_pass_scratch, NULL, s);
}
