#include "common/handles.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/hot.h"

/*
 * Open addressing with linear probing; deleted slots become tombstones, dropped when the table
 * grows. Lookups, which every call makes, take no lock: a lock's code and word are two more
 * cold cache lines per call (common/hot.h). Registering and unregistering take the mutex and
 * publish with release stores: a slot's kind before its key, a larger table after its copy.
 * A table that was replaced stays allocated (the new one points to it), because a lookup in
 * another thread may still be reading it; tables double, so all the old ones together are
 * smaller than the current one.
 */
typedef struct {
  _Atomic uintptr_t key; /* 0: empty, 1: tombstone */
  atomic_int kind;
} slot;

typedef struct table {
  size_t capacity; /* a power of two; at most half the slots are used (live or tombstones) */
  struct table *replaced;
  slot slots[];
} table;

#define EMPTY ((uintptr_t)0)
#define TOMBSTONE ((uintptr_t)1)

atomic_uint nhood_handles_generation = 1; /* a memo written at 0 would never be valid */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(table *) current;
static size_t used; /* live entries and tombstones of the current table; under the lock */

static size_t hash_pointer(uintptr_t p) {
  uint64_t x = (uint64_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

/* The slot holding key, or NULL. */
NHOOD_HOT static slot *find(table *t, uintptr_t key) {
  if (t == NULL) return NULL;
  for (size_t i = hash_pointer(key) & (t->capacity - 1);; i = (i + 1) & (t->capacity - 1)) {
    uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
    if (k == key) return &t->slots[i];
    if (k == EMPTY) return NULL;
  }
}

/* Under the lock. */
static int grow(table *old) {
  size_t capacity = old ? old->capacity * 2 : 64, live = 0;
  table *fresh = calloc(1, sizeof *fresh + capacity * sizeof(slot));
  if (!fresh) return MPI_ERR_NO_MEM;
  fresh->capacity = capacity;
  fresh->replaced = old;
  for (size_t i = 0; old && i < old->capacity; i++) {
    uintptr_t key = atomic_load_explicit(&old->slots[i].key, memory_order_relaxed);
    if (key <= TOMBSTONE) continue;
    size_t j = hash_pointer(key) & (capacity - 1);
    while (atomic_load_explicit(&fresh->slots[j].key, memory_order_relaxed) != EMPTY) j = (j + 1) & (capacity - 1);
    atomic_store_explicit(&fresh->slots[j].kind, atomic_load_explicit(&old->slots[i].kind, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&fresh->slots[j].key, key, memory_order_relaxed);
    live++;
  }
  atomic_store_explicit(&current, fresh, memory_order_release);
  used = live;
  return MPI_SUCCESS;
}

int nhood_handle_register(const void *handle, nhood_handle_kind kind) {
  uintptr_t key = (uintptr_t)handle;
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&lock);
  table *t = atomic_load_explicit(&current, memory_order_relaxed);
  if (t == NULL || (used + 1) * 2 > t->capacity) {
    if ((rc = grow(t)) != MPI_SUCCESS) {
      rc = nhood_error(rc, "out of memory registering a handle");
      goto cleanup;
    }
    t = atomic_load_explicit(&current, memory_order_relaxed);
  }
  size_t i = hash_pointer(key) & (t->capacity - 1);
  while (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) > TOMBSTONE) i = (i + 1) & (t->capacity - 1);
  if (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) == EMPTY) used++;
  atomic_store_explicit(&t->slots[i].kind, (int)kind, memory_order_relaxed);
  atomic_store_explicit(&t->slots[i].key, key, memory_order_release);
cleanup:
  pthread_mutex_unlock(&lock);
  return rc;
}

void nhood_handle_unregister(const void *handle) {
  pthread_mutex_lock(&lock);
  slot *s = find(atomic_load_explicit(&current, memory_order_relaxed), (uintptr_t)handle);
  if (s) atomic_store_explicit(&s->key, TOMBSTONE, memory_order_release);
  pthread_mutex_unlock(&lock);
}

NHOOD_HOT int nhood_handle_is_live(const void *handle, nhood_handle_kind kind) {
  if (handle == NULL) return 0;
  slot *s = find(atomic_load_explicit(&current, memory_order_acquire), (uintptr_t)handle);
  return s != NULL && atomic_load_explicit(&s->kind, memory_order_relaxed) == (int)kind;
}

size_t nhood_handle_count(nhood_handle_kind kind) {
  size_t n = 0;
  pthread_mutex_lock(&lock);
  table *t = atomic_load_explicit(&current, memory_order_relaxed);
  for (size_t i = 0; t != NULL && i < t->capacity; i++)
    if (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) > TOMBSTONE &&
        atomic_load_explicit(&t->slots[i].kind, memory_order_relaxed) == (int)kind)
      n++;
  pthread_mutex_unlock(&lock);
  return n;
}
