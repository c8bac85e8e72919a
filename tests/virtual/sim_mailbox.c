#include "sim_mailbox.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CAPACITY 8
/* Tables grow at 3/4 full: linear probing stays short. Any capacity works (no power of two),
 * so a table sized for its expected keys wastes nothing. */
#define GROW_NUMERATOR 3
#define GROW_DENOMINATOR 4

/* A full mix of (source, tag) (SplitMix64's finalizer): a plain multiplicative hash puts the
 * sources of one tag, which are all near each other, into clusters that linear probing pays
 * for dearly. Reduced to [0, capacity) by a multiply and shift instead of a division. */
static int slot_of(int source, int tag, int capacity) {
  uint64_t x = ((uint64_t)(uint32_t)source << 32) | (uint32_t)tag;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return (int)(((x >> 32) * (uint64_t)capacity) >> 32);
}

static int inbox_alloc(sim_inbox *box, int capacity) {
  box->slots = malloc((size_t)capacity * sizeof *box->slots);
  if (box->slots == NULL) return -1;
  for (int k = 0; k < capacity; k++) box->slots[k].source = -1;
  box->capacity = capacity;
  box->used = 0;
  return 0;
}

/* The slot of key (source, tag) in a table known to hold it or to have room for it. */
static sim_queue *probe(const sim_inbox *box, int source, int tag) {
  int k = slot_of(source, tag, box->capacity);
  while (box->slots[k].source >= 0 && (box->slots[k].source != source || box->slots[k].tag != tag))
    k = k + 1 < box->capacity ? k + 1 : 0;
  return &box->slots[k];
}

static int inbox_grow(sim_inbox *box) {
  sim_inbox bigger;
  if (box->capacity > INT_MAX / 2 || inbox_alloc(&bigger, 2 * box->capacity) != 0) return -1;
  for (int k = 0; k < box->capacity; k++)
    if (box->slots[k].source >= 0) *probe(&bigger, box->slots[k].source, box->slots[k].tag) = box->slots[k];
  bigger.used = box->used;
  free(box->slots);
  *box = bigger;
  return 0;
}

/* Room for `keys` keys below the growth threshold. */
static int capacity_for(long long keys) {
  long long capacity = keys * GROW_DENOMINATOR / GROW_NUMERATOR + 1;
  if (capacity < MIN_CAPACITY) return MIN_CAPACITY;
  return capacity > INT_MAX / 2 ? INT_MAX / 2 : (int)capacity;
}

/* The queue of (source, tag) at one destination, created empty on first use. */
static sim_queue *queue_of(sim_inbox *box, int source, int tag) {
  sim_queue *q = probe(box, source, tag);
  if (q->source >= 0) return q;
  if ((long long)(box->used + 1) * GROW_DENOMINATOR > (long long)box->capacity * GROW_NUMERATOR) {
    if (inbox_grow(box) != 0) return NULL;
    q = probe(box, source, tag);
  }
  *q = (sim_queue){source, tag, -1, -1, SIM_WAITING_NONE};
  box->used++;
  return q;
}

int sim_mailbox_init(sim_mailbox *mb, int nranks, const int *expected_keys) {
  memset(mb, 0, sizeof *mb);
  mb->free_entry = -1;
  mb->nranks = nranks;
  mb->inbox = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *mb->inbox);
  if (mb->inbox == NULL) return -1;
  for (int r = 0; r < nranks; r++) {
    long long keys = expected_keys != NULL ? expected_keys[r] : 0;
    if (inbox_alloc(&mb->inbox[r], capacity_for(keys)) != 0) {
      sim_mailbox_free(mb);
      return -1;
    }
  }
  return 0;
}

void sim_mailbox_free(sim_mailbox *mb) {
  for (int r = 0; mb->inbox != NULL && r < mb->nranks; r++) free(mb->inbox[r].slots);
  free(mb->inbox);
  free(mb->entries);
  memset(mb, 0, sizeof *mb);
}

static int entry_alloc(sim_mailbox *mb) {
  if (mb->free_entry >= 0) {
    int e = mb->free_entry;
    mb->free_entry = mb->entries[e].next;
    return e;
  }
  if (mb->nentries == mb->entries_capacity) {
    int capacity = mb->entries_capacity ? 2 * mb->entries_capacity : 1024;
    sim_entry *bigger = realloc(mb->entries, (size_t)capacity * sizeof *bigger);
    if (bigger == NULL) return -1;
    mb->entries = bigger;
    mb->entries_capacity = capacity;
  }
  return mb->nentries++;
}

static int push(sim_mailbox *mb, sim_queue *q, sim_waiting what, sim_item item) {
  int e = entry_alloc(mb);
  if (e < 0) return -1;
  mb->entries[e] = (sim_entry){item.word, item.count, -1};
  if (q->head < 0)
    q->head = e;
  else
    mb->entries[q->tail].next = e;
  q->tail = e;
  q->waiting = what;
  return 0;
}

static sim_item pop(sim_mailbox *mb, sim_queue *q) {
  int e = q->head;
  sim_item item = {mb->entries[e].word, mb->entries[e].count};
  q->head = mb->entries[e].next;
  if (q->head < 0) {
    q->tail = -1;
    q->waiting = SIM_WAITING_NONE;
  }
  mb->entries[e].next = mb->free_entry;
  mb->free_entry = e;
  return item;
}

int sim_mailbox_send(sim_mailbox *mb, int source, int dest, int tag, sim_item message, sim_item *receive,
                     int *matched) {
  sim_queue *q = queue_of(&mb->inbox[dest], source, tag);
  if (q == NULL) return -1;
  *matched = q->waiting == SIM_WAITING_RECEIVES;
  if (*matched) {
    *receive = pop(mb, q);
    return 0;
  }
  if (push(mb, q, SIM_WAITING_MESSAGES, message) != 0) return -1;
  mb->waiting_messages++;
  return 0;
}

int sim_mailbox_recv(sim_mailbox *mb, int dest, int source, int tag, sim_item receive, sim_item *message,
                     int *matched) {
  sim_queue *q = queue_of(&mb->inbox[dest], source, tag);
  if (q == NULL) return -1;
  *matched = q->waiting == SIM_WAITING_MESSAGES;
  if (*matched) {
    *message = pop(mb, q);
    mb->waiting_messages--;
    return 0;
  }
  return push(mb, q, SIM_WAITING_RECEIVES, receive);
}

int sim_mailbox_find_waiting(const sim_mailbox *mb, sim_waiting what, int first_dest, int *dest, int *source, int *tag,
                             sim_item *oldest) {
  for (int r = first_dest < 0 ? 0 : first_dest; r < mb->nranks; r++) {
    const sim_inbox *box = &mb->inbox[r];
    for (int k = 0; k < box->capacity; k++) {
      const sim_queue *q = &box->slots[k];
      if (q->source < 0 || q->waiting != (int)what) continue;
      *dest = r;
      *source = q->source;
      *tag = q->tag;
      *oldest = (sim_item){mb->entries[q->head].word, mb->entries[q->head].count};
      return 1;
    }
  }
  return 0;
}
