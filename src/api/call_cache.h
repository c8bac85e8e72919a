/*
 * A one-entry cache, per topology object, of the schedule of the last blocking call.
 *
 * A halo exchange repeats the same blocking call with the same buffers; building its
 * schedule again each time is pure overhead (the persistent interface avoids it, this
 * gives blocking calls the same benefit). The key is everything a schedule depends on:
 * collective, buffers, counts, datatype handles and their extents and sizes, displacement
 * and count arrays (by content), the communicator context and the algorithm. A datatype
 * handle that was freed and reused for another type is harmless: the schedule only holds the
 * handle, and offsets derived from the extent and size that are part of the key.
 *
 * alltoallw (a datatype per block) is not cached. A topology used from several threads at
 * once falls back to building: the entry is taken with a lock-free flag.
 *
 * Each thread also remembers, per topology object, its last blocking call that ran from an
 * entry (a memo). A call that repeats one goes to the entry without checking the topology
 * handle, looking up the entry or comparing the key there, and where the entry runs MPI's own
 * collective, straight to it with the caller's arguments. With many processes per core every
 * cache line and page a call touches is cold again after each context switch (common/hot.h):
 * with many processes per core that lookup made nhood's route to MPI's own measurably slower
 * than MPI's own called directly. A memo stays valid while nhood_handles_generation
 * (common/handles.h) has not moved.
 */
#ifndef NHOOD_API_CALL_CACHE_H
#define NHOOD_API_CALL_CACHE_H

#include "api/request.h"
#include "common/handles.h"
#include "common/hot.h"
#include "selection/select.h"

typedef struct nhood_call_cache nhood_call_cache;

/* The topology's entry, held by the caller until nhood_call_cache_release; NULL when this
 * call is not cacheable or another thread holds the entry. */
nhood_call_cache *nhood_call_cache_acquire(NHOOD_Topo topo, const nhood_coll_args *a);
/* The cached request when this call repeats the cached one and needs no check at all: the
 * same communicator handle, still attached to the same context (a freed communicator's handle
 * may be reused), predefined datatypes (which never change), the same arguments. Makes no
 * MPI call. NULL otherwise. */
struct nhood_request *nhood_call_cache_repeat(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo,
                                              MPI_Comm comm);
/* The cached request when it was built for exactly this (validated) call, else NULL: with
 * alg, or (alg NULL) the request of the executions of `trial` (selection/trial.h), which runs
 * its candidates in turn. nhood_call_cache_repeat never returns the latter: a trial's
 * executions go through the selection, which says when it ended. */
struct nhood_request *nhood_call_cache_lookup(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo,
                                              const nhood_commctx *ctx, const nhood_algorithm *alg, const void *trial);
/* Empties the entry and returns its request storage, to build this call's request into;
 * then nhood_call_cache_store records the key (on failure the entry stays empty). */
struct nhood_request *nhood_call_cache_slot(nhood_call_cache *c);
int nhood_call_cache_store(nhood_call_cache *c, const nhood_coll_args *a, NHOOD_Topo topo, MPI_Comm comm,
                           const nhood_commctx *ctx, const nhood_algorithm *alg, const void *trial, MPI_Comm native);
/* What a thread remembers of one of its blocking calls (below). */
typedef struct nhood_call_memo nhood_call_memo;
/* What a memo compares of a call: nhood_coll_args's scalars (an entry point fills it in
 * without gathering the rest). */
typedef struct {
  nhood_coll_kind kind;
  int sendcount, recvcount;
  const void *sendbuf;
  void *recvbuf;
  MPI_Datatype sendtype, recvtype;
  MPI_Op op;
} nhood_call_key;
static inline nhood_call_key nhood_call_key_of(const nhood_coll_args *a) {
  return (nhood_call_key){.kind = a->kind,
                          .sendcount = a->sendcount,
                          .recvcount = a->recvcount,
                          .sendbuf = a->sendbuf,
                          .recvbuf = a->recvbuf,
                          .sendtype = a->sendtype,
                          .recvtype = a->recvtype,
                          .op = a->op};
}
/* Same arguments. */
NHOOD_HOT static inline int nhood_call_key_same(const nhood_call_key *x, const nhood_call_key *y) {
  return x->kind == y->kind && x->sendbuf == y->sendbuf && x->recvbuf == y->recvbuf && x->sendcount == y->sendcount &&
         x->recvcount == y->recvcount && x->sendtype == y->sendtype && x->recvtype == y->recvtype && x->op == y->op;
}
/* One of the calling thread's recent blocking calls that ran from an entry needing no check
 * (predefined datatypes): the arguments same_call compares, the topology, the communicator,
 * the entry, and what NHOOD_Last_algorithm and NHOOD_Selection_info say after it. Where the
 * entry's schedule is one round of communication only, the thread's flat round of it: owned by
 * the memo, kept while the memo is rewritten for the same call of the same build of the entry
 * (after the generation moved for something else), freed when the slot goes to another; for a
 * call with count arrays, with a copy of the arrays the flat round was made for. */
struct nhood_call_memo {
  _Alignas(64) unsigned generation; /* nhood_handles_generation when written; 0: empty */
  nhood_call_key key;
  NHOOD_Topo topo;
  MPI_Comm comm;
  nhood_call_cache *entry;
  MPI_Comm native;               /* the entry's */
  struct nhood_flat_round *flat; /* on the entry's context, which its request retains */
  char *arrays;                  /* with a flat round of a call with count arrays: their contents (owned) */
  unsigned build;                /* the entry's when written */
  const char *algorithm;
  char selection[NHOOD_SELECTION_TEXT_MAX]; /* read only by NHOOD_Selection_info */
};

/* The memo whose call the calling thread repeated last through nhood_call_cache_run_flat or
 * repeat_memo (api/collectives.c); NULL after a call that went another way. */
extern _Thread_local const nhood_call_memo *nhood_last_memo NHOOD_FAST_TLS;
/* The flat round of the memo of this call (without count arrays) where it repeats the thread's
 * last call exactly (nhood_last_memo's: the same topology, communicator and arguments, nothing
 * gone since); NULL otherwise. Inline in the entry point, so that the key, built there from the
 * arguments, is compared where they are: what a hand-written loop does not pay for is this and
 * the tag window. */
NHOOD_HOT static inline struct nhood_flat_round *nhood_call_cache_hot(const nhood_call_key *k, MPI_Comm comm,
                                                                      NHOOD_Topo topo) {
  const nhood_call_memo *m = nhood_last_memo;
  if (m && m->topo == topo && m->comm == comm && nhood_call_key_same(&m->key, k) &&
      m->generation == atomic_load_explicit(&nhood_handles_generation, memory_order_acquire))
    return m->flat;
  return NULL;
}
/* Where nhood_call_cache_hot returned a flat round for a call with count arrays (allgatherv:
 * sendcounts and sdispls NULL; alltoallv): whether the call's arrays have the contents of the
 * memo's, which the flat round was made for. */
int nhood_call_memo_arrays_are(const int *sendcounts, const int *sdispls, const int *recvcounts, const int *rdispls);
/* Runs f, the flat round nhood_call_cache_hot returned, checking the thread level. */
int nhood_call_cache_run_hot(struct nhood_flat_round *f);
/* Where this call (without count arrays) repeats one of the calling thread's memos whose entry
 * runs one round of communication and nothing else: runs the thread's own flat round of it
 * (engine/flat_round.h) and returns its result, with nhood_last_memo set. Returns -1 where the
 * call repeats no such memo. Reads nothing but the memo: the entry is neither held nor read. */
int nhood_call_cache_run_flat(const nhood_call_key *k, MPI_Comm comm, NHOOD_Topo topo);
/* The same for a call with count arrays (allgatherv: sendcounts and sdispls NULL): the memo's
 * flat round where its arrays have the call's contents. */
int nhood_call_cache_run_flat_arrays(const nhood_call_key *k, MPI_Comm comm, NHOOD_Topo topo, const int *sendcounts,
                                     const int *sdispls, const int *recvcounts, const int *rdispls);
/* When this call repeats one of the calling thread's memos (the same topology, communicator
 * and arguments, nothing gone since): that memo in *memo, the graph communicator in *native
 * where the entry runs MPI's own collective, and the entry, held, where it must be read
 * (another algorithm, or count arrays to compare); NULL, MPI_COMM_NULL and NULL otherwise. */
nhood_call_cache *nhood_call_cache_remembered(NHOOD_Topo topo, const nhood_coll_args *a, MPI_Comm comm,
                                              MPI_Comm *native, const nhood_call_memo **memo);
/* Runs the memo's flat round where it has one (its entry runs one round of communication and
 * nothing else) and returns its result; -1 where it has none. For a call with count arrays the
 * caller holds the entry, whose arrays nhood_call_cache_remembered compared with the call's. */
int nhood_call_memo_run_flat(const nhood_call_memo *m);
/* Writes a memo of this call, which ran from the held entry c (only where the entry needs no
 * check); it replaces the memo of whichever topology object shared its slot. */
void nhood_call_cache_remember(nhood_call_cache *c, NHOOD_Topo topo, const nhood_coll_args *a, MPI_Comm comm);
/* What NHOOD_Last_algorithm and NHOOD_Selection_info say after a repeat of the memo's call. */
const char *nhood_call_memo_algorithm(const nhood_call_memo *m);
const char *nhood_call_memo_selection(const nhood_call_memo *m);
/* The entry's request. */
struct nhood_request *nhood_call_cache_request(nhood_call_cache *c);
void nhood_call_cache_release(nhood_call_cache *c);
/* Frees an entry (and the request it holds): the destructor of its topology attribute. */
void nhood_call_cache_free(void *c);

#endif
