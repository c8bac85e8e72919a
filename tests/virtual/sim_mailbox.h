/*
 * Point-to-point matching among virtual ranks in one process, as MPI matches messages: per
 * destination, first-in first-out queues keyed by (source, tag). Within one key the k-th
 * message sent meets the k-th receive posted, which is MPI's non-overtaking rule.
 *
 * What travels is opaque to the mailbox: an item is a 64-bit word and a count, which the
 * executor uses for data (where the bytes are, how many) and the LogGP evaluator for
 * arrival times. A queue holds either messages that arrived before their receive or
 * receives posted before their message, never both: a message first takes the oldest
 * waiting receive, a receive the oldest waiting message.
 *
 * Memory: one growable pool of 16-byte queue entries for everything in flight and, per
 * destination, an open-addressing table of the keys seen, so nothing is allocated per
 * message.
 */
#ifndef NHOOD_SIM_MAILBOX_H
#define NHOOD_SIM_MAILBOX_H

#include <stdint.h>

typedef struct sim_item {
  uint64_t word;
  int count;
} sim_item;

typedef enum { SIM_WAITING_NONE, SIM_WAITING_MESSAGES, SIM_WAITING_RECEIVES } sim_waiting;

/* The queue of one (source, tag) key at one destination. */
typedef struct sim_queue {
  int source, tag; /* source < 0 marks a free table slot: real sources are ranks >= 0 */
  int head, tail;  /* entry indices, -1 when empty */
  int waiting;     /* sim_waiting: what the entries are */
} sim_queue;

typedef struct sim_inbox {
  sim_queue *slots;
  int capacity, used;
} sim_inbox;

/* An item in a queue, flattened to 16 bytes. */
typedef struct sim_entry {
  uint64_t word;
  int count;
  int next; /* next entry in its queue, or in the free list */
} sim_entry;

typedef struct sim_mailbox {
  int nranks;
  sim_inbox *inbox; /* per destination */
  sim_entry *entries;
  int nentries, entries_capacity, free_entry;
  long long waiting_messages; /* queued messages that no receive has taken yet */
} sim_mailbox;

/* expected_keys: per rank, about how many (source, tag) keys it will receive on (tables
 * grow beyond that when needed); NULL for no hint. Returns 0, or -1 when out of memory. */
int sim_mailbox_init(sim_mailbox *mb, int nranks, const int *expected_keys);
void sim_mailbox_free(sim_mailbox *mb);

/* Delivers a message from source to dest. When a receive was waiting for it, *matched is 1
 * and *receive is that receive; otherwise the message is queued. 0, or -1 out of memory. */
int sim_mailbox_send(sim_mailbox *mb, int source, int dest, int tag, sim_item message, sim_item *receive, int *matched);

/* Posts a receive at dest for a message from source. When a message was waiting, *matched
 * is 1 and *message is that message; otherwise the receive is queued. 0, or -1 out of
 * memory. */
int sim_mailbox_recv(sim_mailbox *mb, int dest, int source, int tag, sim_item receive, sim_item *message, int *matched);

/* For reports: the first queue (lowest destination at or after first_dest, then table order)
 * holding entries of the given kind, with its oldest entry. 1 when found, else 0. */
int sim_mailbox_find_waiting(const sim_mailbox *mb, sim_waiting what, int first_dest, int *dest, int *source, int *tag,
                             sim_item *oldest);

#endif
