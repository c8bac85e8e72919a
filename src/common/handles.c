#include "common/handles.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/errors.h"

/* Open addressing with linear probing; deleted slots become tombstones, rebuilt on growth. */
typedef struct {
  uintptr_t key; /* 0: empty, 1: tombstone */
  int kind;
} slot;

#define EMPTY ((uintptr_t)0)
#define TOMBSTONE ((uintptr_t)1)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t capacity, used; /* used counts live entries and tombstones */

static size_t hash_pointer(uintptr_t p) {
  uint64_t x = (uint64_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

static slot *find(uintptr_t key) {
  if (capacity == 0) return NULL;
  for (size_t i = hash_pointer(key) & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
    if (slots[i].key == key) return &slots[i];
    if (slots[i].key == EMPTY) return NULL;
  }
}

static int grow(void) {
  size_t newcap = capacity ? capacity * 2 : 64;
  slot *fresh = calloc(newcap, sizeof *fresh);
  if (!fresh) return MPI_ERR_NO_MEM;
  size_t live = 0;
  for (size_t i = 0; i < capacity; i++) {
    if (slots[i].key <= TOMBSTONE) continue;
    size_t j = hash_pointer(slots[i].key) & (newcap - 1);
    while (fresh[j].key != EMPTY) j = (j + 1) & (newcap - 1);
    fresh[j] = slots[i];
    live++;
  }
  free(slots);
  slots = fresh;
  capacity = newcap;
  used = live;
  return MPI_SUCCESS;
}

int nhood_handle_register(const void *handle, nhood_handle_kind kind) {
  uintptr_t key = (uintptr_t)handle;
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&lock);
  if ((used + 1) * 2 > capacity && (rc = grow()) != MPI_SUCCESS) {
    rc = nhood_error(rc, "out of memory registering a handle");
    goto cleanup;
  }
  size_t i = hash_pointer(key) & (capacity - 1);
  while (slots[i].key > TOMBSTONE) i = (i + 1) & (capacity - 1);
  if (slots[i].key == EMPTY) used++;
  slots[i].key = key;
  slots[i].kind = (int)kind;
cleanup:
  pthread_mutex_unlock(&lock);
  return rc;
}

void nhood_handle_unregister(const void *handle) {
  pthread_mutex_lock(&lock);
  slot *s = find((uintptr_t)handle);
  if (s) s->key = TOMBSTONE;
  pthread_mutex_unlock(&lock);
}

int nhood_handle_is_live(const void *handle, nhood_handle_kind kind) {
  if (handle == NULL) return 0;
  pthread_mutex_lock(&lock);
  slot *s = find((uintptr_t)handle);
  int live = s != NULL && s->kind == (int)kind;
  pthread_mutex_unlock(&lock);
  return live;
}
