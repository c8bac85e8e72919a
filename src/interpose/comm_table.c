/*
 * The interposition library's states of communicators, by handle (interpose.h, ip_table_*): an
 * open-addressing table with linear probing under one lock. A communicator's state is found
 * here on a call that misses the thread's memo, and removed where the communicator is freed
 * (control.c). It replaces an MPI attribute, whose hash table Open MPI builds and tears down
 * per communicator, a measurable part of a communicator called once (docs/ARCHITECTURE.md,
 * "The drop-in library").
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"

typedef struct {
  uint64_t key;   /* the handle's bits */
  ip_comm *state; /* NULL: an empty slot */
} slot;

static slot *slots;
static size_t capacity; /* a power of two, or 0 before the first insertion */
static size_t used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
atomic_size_t ip_table_size;

static uint64_t key_of(MPI_Comm comm) {
  uint64_t key = 0; /* a pointer (Open MPI) or an int (MPICH) */
  memcpy(&key, &comm, sizeof comm < sizeof key ? sizeof comm : sizeof key);
  return key;
}

static size_t home(uint64_t key) {
  key ^= key >> 33; /* a 64-bit mix: pointers differ in their middle bits, handles in their low ones */
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key & (capacity - 1);
}

/* The slot holding key, or the empty slot where it would go. Needs capacity > used. */
static size_t probe(uint64_t key) {
  size_t k = home(key);
  while (slots[k].state != NULL && slots[k].key != key) k = (k + 1) & (capacity - 1);
  return k;
}

static int grow(void) {
  size_t old_capacity = capacity, new_capacity = capacity ? 2 * capacity : 16;
  slot *old = slots, *fresh = calloc(new_capacity, sizeof *fresh);
  if (fresh == NULL) return MPI_ERR_NO_MEM;
  slots = fresh;
  capacity = new_capacity;
  for (size_t k = 0; k < old_capacity; k++)
    if (old[k].state != NULL) slots[probe(old[k].key)] = old[k];
  free(old);
  return MPI_SUCCESS;
}

ip_comm *ip_table_find(MPI_Comm comm) {
  /* Without the lock where the table is empty: no other thread adds comm meanwhile (a
   * communicator's collectives are not called concurrently). */
  if (atomic_load_explicit(&ip_table_size, memory_order_acquire) == 0) return NULL;
  ip_comm *state = NULL;
  pthread_mutex_lock(&lock);
  if (used > 0) state = slots[probe(key_of(comm))].state;
  pthread_mutex_unlock(&lock);
  return state;
}

int ip_table_add(MPI_Comm comm, ip_comm *state) {
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&lock);
  if (2 * (used + 1) > capacity) rc = grow(); /* at most half full: probes stay short */
  if (rc == MPI_SUCCESS) {
    size_t k = probe(key_of(comm));
    if (slots[k].state == NULL) used++;
    slots[k] = (slot){.key = key_of(comm), .state = state};
    atomic_store_explicit(&ip_table_size, used, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

/* Empties slot k and moves back the entries after it that probing would no longer reach. */
static void vacate(size_t k) {
  size_t hole = k;
  slots[hole].state = NULL;
  for (size_t j = (hole + 1) & (capacity - 1); slots[j].state != NULL; j = (j + 1) & (capacity - 1)) {
    size_t h = home(slots[j].key);
    /* j's entry stays where its home lies cyclically in (hole, j]; else it moves into the hole. */
    int stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    slots[hole] = slots[j];
    slots[j].state = NULL;
    hole = j;
  }
  used--;
  atomic_store_explicit(&ip_table_size, used, memory_order_release);
}

ip_comm *ip_table_remove(MPI_Comm comm) {
  ip_comm *state = NULL;
  pthread_mutex_lock(&lock);
  if (used > 0) {
    size_t k = probe(key_of(comm));
    state = slots[k].state;
    if (state != NULL) vacate(k);
  }
  pthread_mutex_unlock(&lock);
  return state;
}

ip_comm *ip_table_remove_any(MPI_Comm *comm) {
  ip_comm *state = NULL;
  pthread_mutex_lock(&lock);
  for (size_t k = 0; used > 0 && k < capacity && state == NULL; k++)
    if (slots[k].state != NULL) {
      state = slots[k].state;
      memcpy(comm, &slots[k].key, sizeof *comm);
      vacate(k);
    }
  if (used == 0) { /* the last one: MPI_Finalize's, and LeakSanitizer's, view of it */
    free(slots);
    slots = NULL;
    capacity = 0;
  }
  pthread_mutex_unlock(&lock);
  return state;
}
