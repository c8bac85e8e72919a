#include "api/call_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/threads.h"
#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"
#include "engine/flat_round.h"
#include "engine/sched_task.h"
#include "topology/topology.h"

struct nhood_call_cache {
  atomic_flag busy;
  int valid;
  nhood_coll_args key;      /* array pointers cleared; their contents are in arrays */
  const nhood_commctx *ctx; /* retained by req, so the pointer cannot be reused */
  MPI_Comm comm;            /* the user's handle the entry was built for */
  int predefined_types;     /* sendtype and recvtype are predefined */
  const nhood_algorithm *alg;
  const void *trial; /* the trial whose candidates req runs (alg NULL), or NULL */
  MPI_Comm native;   /* the graph communicator where alg is MPI's own; MPI_COMM_NULL otherwise */
  unsigned build;    /* which request is built here: a number no other entry's had (a memo's flat round
                      * is of one build; an entry freed and another made at its address must differ) */
  char *arrays;
  size_t arrays_bytes, arrays_capacity;
  struct nhood_request req;
};

/* The per-block arrays of a call, by content. */
typedef struct {
  const void *ptr[4];
  size_t bytes[4];
  int n;
} block_arrays;

NHOOD_HOT static block_arrays arrays_of(const nhood_coll_args *a, NHOOD_Topo t) {
  block_arrays b = {.n = 0};
  size_t in = sizeof(int) * (size_t)t->indegree, out = sizeof(int) * (size_t)t->outdegree;
#define ADD(p, sz) (b.ptr[b.n] = (p), b.bytes[b.n++] = (sz))
  if (a->kind == NHOOD_ALLTOALLV) {
    ADD(a->sendcounts, out);
    ADD(a->sdispls, out);
  }
  if (a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLGATHERV) {
    ADD(a->recvcounts, in);
    ADD(a->rdispls, in);
  }
#undef ADD
  return b;
}

/* Same collective, buffers, counts and datatype handles. */
NHOOD_HOT static int same_call(const nhood_coll_args *x, const nhood_coll_args *y) {
  return x->kind == y->kind && x->sendbuf == y->sendbuf && x->recvbuf == y->recvbuf && x->sendcount == y->sendcount &&
         x->recvcount == y->recvcount && x->sendtype == y->sendtype && x->recvtype == y->recvtype && x->op == y->op;
}

/* Same extents and sizes (a derived datatype handle may have been freed and reused). */
static int same_layout(const nhood_coll_args *x, const nhood_coll_args *y) {
  return x->send_extent == y->send_extent && x->recv_extent == y->recv_extent &&
         x->send_type_size == y->send_type_size && x->recv_type_size == y->recv_type_size;
}

NHOOD_HOT NHOOD_NOINLINE static int same_arrays(const nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo) {
  block_arrays b = arrays_of(a, topo);
  size_t offset = 0;
  for (int k = 0; k < b.n; k++) {
    if (b.bytes[k] && memcmp(c->arrays + offset, b.ptr[k], b.bytes[k]) != 0) return 0;
    offset += b.bytes[k];
  }
  return 1;
}

/* The bytes of a call's count and displacement arrays, and a copy of them one after another,
 * as the entry and a memo keep them. */
static size_t arrays_size(const nhood_coll_args *a, NHOOD_Topo topo) {
  block_arrays b = arrays_of(a, topo);
  size_t total = 0;
  for (int k = 0; k < b.n; k++) total += b.bytes[k];
  return total;
}
static void copy_arrays(char *dst, const nhood_coll_args *a, NHOOD_Topo topo) {
  block_arrays b = arrays_of(a, topo);
  for (int k = 0; k < b.n; k++) {
    if (b.bytes[k]) memcpy(dst, b.ptr[k], b.bytes[k]);
    dst += b.bytes[k];
  }
}

static int is_predefined(MPI_Datatype type) {
  int nints, naddrs, ntypes, combiner = -1;
  return MPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

/* The cache lives on the topology object, freed with it. */
static nhood_topo_key cache_key = NHOOD_TOPO_KEY("blocking-call cache", nhood_call_cache_free);

NHOOD_HOT nhood_call_cache *nhood_call_cache_acquire(NHOOD_Topo topo, const nhood_coll_args *a) {
  if (a->kind == NHOOD_ALLTOALLW) return NULL;
  nhood_call_cache *c = nhood_topo_attr(topo, &cache_key);
  if (c == NULL) {
    nhood_call_cache *fresh = calloc(1, sizeof *fresh);
    if (!fresh) return NULL; /* caching is optional */
    atomic_flag_clear(&fresh->busy);
    void *current = NULL;
    int swapped = nhood_topo_attr_swap(topo, &cache_key, &current, fresh);
    if (swapped != 1) free(fresh); /* another thread won, or no slot: no cache */
    if (swapped == 0) c = current;
    if (swapped == 1) c = fresh;
    if (c == NULL) return NULL;
  }
  return atomic_flag_test_and_set(&c->busy) ? NULL : c;
}

NHOOD_HOT struct nhood_request *nhood_call_cache_repeat(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo,
                                                        MPI_Comm comm) {
  if (!c->valid || c->trial || !c->predefined_types || c->comm != comm || !atomic_load(&c->ctx->attached) ||
      !same_call(&c->key, a) || !same_arrays(c, a, topo))
    return NULL;
  return &c->req;
}

struct nhood_request *nhood_call_cache_lookup(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo,
                                              const nhood_commctx *ctx, const nhood_algorithm *alg, const void *trial) {
  if (!c->valid || c->ctx != ctx || c->alg != alg || c->trial != trial || !same_call(&c->key, a) ||
      !same_layout(&c->key, a) || !same_arrays(c, a, topo))
    return NULL;
  return &c->req;
}

struct nhood_request *nhood_call_cache_slot(nhood_call_cache *c) {
  static atomic_uint builds;
  nhood_handles_advance(); /* a thread's memo of the entry no longer describes it */
  c->build = atomic_fetch_add_explicit(&builds, 1, memory_order_relaxed) + 1;
  if (c->valid) nhood_request_release(&c->req);
  c->valid = 0;
  return &c->req;
}

int nhood_call_cache_store(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo, MPI_Comm comm,
                           const nhood_commctx *ctx, const nhood_algorithm *alg, const void *trial, MPI_Comm native) {
  size_t total = arrays_size(a, topo);
  if (total > c->arrays_capacity) {
    char *bigger = realloc(c->arrays, total);
    if (!bigger) {
      nhood_request_release(&c->req);
      return nhood_error(MPI_ERR_NO_MEM, "out of memory caching a schedule");
    }
    c->arrays = bigger;
    c->arrays_capacity = total;
  }
  copy_arrays(c->arrays, a, topo);
  c->arrays_bytes = total;
  c->key = *a;
  c->key.sendcounts = c->key.sdispls = c->key.recvcounts = c->key.rdispls = NULL;
  c->ctx = ctx;
  c->comm = comm;
  c->predefined_types = is_predefined(a->sendtype) && is_predefined(a->recvtype);
  c->alg = alg;
  c->trial = trial;
  c->native = native;
  c->valid = 1;
  return MPI_SUCCESS;
}

/* ---- the thread's memos --------------------------------------------------------------- */

/* A thread's memos, one per topology object: open addressing on the object's address in
 * MEMO_WAYS slots, so that a program alternating between communicators, and nhood-bench, which
 * alternates between 16 algorithms on objects of their own, keep each object's memo. (With a
 * slot per address and no probing, `auto`'s object shared its slot with another on some of 32
 * processes in almost every run, and the slowest process sets a collective's time.) A memo
 * that went stale (nhood_handles_generation moved) keeps its slot until another takes it; a
 * full table starts over. A call that repeats one reads the first two cache lines of its slot,
 * or of a few. On the heap from the thread's first memo (24 KiB), freed when the thread exits;
 * only the pointer is initial-exec TLS (common/hot.h). */
#define MEMO_WAYS 64
static _Thread_local nhood_call_memo *memos NHOOD_FAST_TLS;
static pthread_key_t memos_key;
static pthread_once_t memos_once = PTHREAD_ONCE_INIT;
/* Empties slots [0, n) of a table, freeing their flat rounds. */
static void memos_clear(nhood_call_memo *table, int n) {
  for (int i = 0; i < n; i++) {
    nhood_flat_round_free(table[i].flat);
    free(table[i].arrays);
  }
  memset(table, 0, (size_t)n * sizeof *table);
}
static void free_memos(void *table) {
  memos_clear(table, MEMO_WAYS);
  free(table);
}
static void make_memos_key(void) { (void)pthread_key_create(&memos_key, free_memos); }

NHOOD_HOT static unsigned memo_home(NHOOD_Topo topo) {
  uintptr_t p = (uintptr_t)topo;
  return (unsigned)((p >> 4) ^ (p >> 10)) % MEMO_WAYS;
}

/* The slot of topo's memo, or NULL. */
NHOOD_HOT static nhood_call_memo *memo_find(NHOOD_Topo topo) {
  for (unsigned i = memo_home(topo), n = 0; n < MEMO_WAYS; n++, i = (i + 1) % MEMO_WAYS) {
    if (memos[i].topo == topo) return &memos[i];
    if (memos[i].topo == NULL) return NULL;
  }
  return NULL;
}

/* The slot for a memo of topo: its own, else the first stale one on its probe path, else the
 * empty one that ends the path; the table starts over when it is full. */
static nhood_call_memo *memo_place(NHOOD_Topo topo, unsigned generation) {
  nhood_call_memo *stale = NULL;
  for (unsigned i = memo_home(topo), n = 0; n < MEMO_WAYS; n++, i = (i + 1) % MEMO_WAYS) {
    nhood_call_memo *m = &memos[i];
    if (m->topo == topo) return m;
    if (m->topo == NULL) return stale ? stale : m;
    if (stale == NULL && m->generation != generation) stale = m;
  }
  if (stale) return stale;
  memos_clear(memos, MEMO_WAYS);
  return &memos[memo_home(topo)];
}

_Thread_local const nhood_call_memo *nhood_last_memo NHOOD_FAST_TLS;

/* The memo of this call where it repeats one and nothing that memo names went away since (the
 * entry, its topology, the graph communicator); NULL otherwise. Most often the call repeats the
 * thread's last one, whose memo is looked at first. */
NHOOD_HOT static inline nhood_call_memo *memo_of(NHOOD_Topo topo, const nhood_call_key *k, MPI_Comm comm) {
  nhood_call_memo *m = (nhood_call_memo *)nhood_last_memo;
  if (m == NULL || m->topo != topo) m = memos ? memo_find(topo) : NULL;
  if (m == NULL || m->comm != comm || !nhood_call_key_same(&m->key, k)) return NULL;
  return m->generation == atomic_load_explicit(&nhood_handles_generation, memory_order_acquire) ? m : NULL;
}

/* A flat round's run where the thread-level check is more than a load (api/threads.h). */
NHOOD_NOINLINE static int run_flat_checked(nhood_call_memo *m) {
  int rc = nhood_thread_enter();
  if (rc != MPI_SUCCESS) return rc;
  nhood_last_memo = m;
  rc = nhood_flat_round_run(m->flat);
  nhood_thread_leave();
  return rc;
}

/* n ints equal; a loop, not memcmp: the arrays of a repeat are short and equal. */
NHOOD_HOT static inline int ints_are(const int *stored, const int *x, int n) {
  for (int i = 0; i < n; i++)
    if (stored[i] != x[i]) return 0;
  return 1;
}

/* The call's arrays have the contents of m's (allgatherv: sendcounts and sdispls NULL). */
NHOOD_HOT static int memo_arrays_are(const nhood_call_memo *m, const int *sendcounts, const int *sdispls,
                                     const int *recvcounts, const int *rdispls) {
  const int *stored = (const int *)m->arrays; /* as copy_arrays laid them out */
  int out = m->topo->outdegree, in = m->topo->indegree;
  if (sendcounts != NULL) {
    if (!ints_are(stored, sendcounts, out) || !ints_are(stored + out, sdispls, out)) return 0;
    stored += 2 * (size_t)out;
  }
  return ints_are(stored, recvcounts, in) && ints_are(stored + in, rdispls, in);
}

NHOOD_HOT int nhood_call_memo_arrays_are(const int *sendcounts, const int *sdispls, const int *recvcounts,
                                         const int *rdispls) {
  return memo_arrays_are(nhood_last_memo, sendcounts, sdispls, recvcounts, rdispls);
}

NHOOD_HOT int nhood_call_cache_run_hot(nhood_flat_round *f) {
  return nhood_thread_free() ? nhood_flat_round_run(f) : run_flat_checked((nhood_call_memo *)nhood_last_memo);
}

NHOOD_HOT int nhood_call_cache_run_flat(const nhood_call_key *k, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_memo *m = memo_of(topo, k, comm);
  if (m == NULL || m->flat == NULL) return -1;
  if (!nhood_thread_free()) return run_flat_checked(m);
  nhood_last_memo = m;
  return nhood_flat_round_run(m->flat);
}

NHOOD_HOT int nhood_call_cache_run_flat_arrays(const nhood_call_key *k, MPI_Comm comm, NHOOD_Topo topo,
                                               const int *sendcounts, const int *sdispls, const int *recvcounts,
                                               const int *rdispls) {
  nhood_call_memo *m = memo_of(topo, k, comm);
  if (m == NULL || m->flat == NULL || !memo_arrays_are(m, sendcounts, sdispls, recvcounts, rdispls)) return -1;
  if (!nhood_thread_free()) return run_flat_checked(m);
  nhood_last_memo = m;
  return nhood_flat_round_run(m->flat);
}

static int has_arrays(nhood_coll_kind kind) { return kind == NHOOD_ALLTOALLV || kind == NHOOD_ALLGATHERV; }

NHOOD_HOT nhood_call_cache *nhood_call_cache_remembered(NHOOD_Topo topo, const nhood_coll_args *a, MPI_Comm comm,
                                                        MPI_Comm *native, const nhood_call_memo **memo) {
  *native = MPI_COMM_NULL;
  *memo = NULL;
  nhood_call_key k = nhood_call_key_of(a);
  nhood_call_memo *m = memo_of(topo, &k, comm);
  if (m == NULL) return NULL;
  if (!has_arrays(a->kind) && m->native != MPI_COMM_NULL) { /* nothing of the entry's to read */
    *native = m->native;
    *memo = m;
    return NULL;
  }
  /* Checked again once the entry is held: another thread may have rebuilt it in between. */
  unsigned g = m->generation;
  nhood_call_cache *c = m->entry;
  if (atomic_flag_test_and_set(&c->busy)) return NULL;
  if (g != atomic_load_explicit(&nhood_handles_generation, memory_order_acquire) ||
      (has_arrays(a->kind) && !same_arrays(c, a, topo))) {
    atomic_flag_clear(&c->busy);
    return NULL;
  }
  *native = m->native;
  *memo = m;
  return c;
}

void nhood_call_cache_remember(nhood_call_cache *c, NHOOD_Topo topo, const nhood_coll_args *a, MPI_Comm comm) {
  if (!c->valid || !c->predefined_types || c->comm != comm) return;
  if (memos == NULL) { /* the thread's first: memory is optional, as for the cache */
    pthread_once(&memos_once, make_memos_key);
    if (!(memos = aligned_alloc(_Alignof(nhood_call_memo), MEMO_WAYS * sizeof *memos))) return;
    memset(memos, 0, MEMO_WAYS * sizeof *memos);
    (void)pthread_setspecific(memos_key, memos);
  }
  unsigned generation = atomic_load_explicit(&nhood_handles_generation, memory_order_acquire);
  nhood_call_memo *m = memo_place(topo, generation);
  nhood_call_key k = nhood_call_key_of(a);
  nhood_flat_round *flat = m->flat;
  if (flat && !(m->topo == topo && m->entry == c && m->build == c->build && m->comm == comm &&
                nhood_call_key_same(&m->key, &k))) {
    nhood_flat_round_free(flat);
    flat = NULL;
  }
  if (!flat && c->native == MPI_COMM_NULL) {
    char call[64];
    snprintf(call, sizeof call, "neighborhood %s (%s)", nhood_coll_names[a->kind],
             nhood_task_schedule(c->req.task)->algorithm);
    flat = nhood_sched_task_flatten(c->req.task, c->req.ctx, a->sendbuf, a->recvbuf, call);
  }
  /* A flat round of a call with count arrays is run only where the arrays are the same. */
  char *arrays = NULL;
  free(m->arrays);
  if (flat && has_arrays(a->kind)) {
    size_t bytes = arrays_size(a, topo);
    if ((arrays = malloc(bytes ? bytes : 1)) != NULL) {
      copy_arrays(arrays, a, topo);
    } else { /* memory is optional: the call runs from the entry */
      nhood_flat_round_free(flat);
      flat = NULL;
    }
  }
  *m = (nhood_call_memo){.generation = generation,
                         .key = k,
                         .topo = topo,
                         .comm = comm,
                         .entry = c,
                         .native = c->native,
                         .flat = flat,
                         .arrays = arrays,
                         .build = c->build,
                         .algorithm = nhood_task_schedule(c->req.task)->algorithm};
  memcpy(m->selection, c->req.selection, sizeof m->selection);
}

NHOOD_HOT int nhood_call_memo_run_flat(const nhood_call_memo *m) {
  return m->flat ? nhood_flat_round_run(m->flat) : -1;
}

NHOOD_HOT const char *nhood_call_memo_algorithm(const nhood_call_memo *m) { return m->algorithm; }
const char *nhood_call_memo_selection(const nhood_call_memo *m) { return m->selection; }

NHOOD_HOT struct nhood_request *nhood_call_cache_request(nhood_call_cache *c) { return &c->req; }

NHOOD_HOT void nhood_call_cache_release(nhood_call_cache *c) { atomic_flag_clear(&c->busy); }

void nhood_call_cache_free(void *p) {
  nhood_call_cache *c = p;
  if (!c) return;
  if (c->valid) nhood_request_release(&c->req);
  free(c->arrays);
  free(c);
}
