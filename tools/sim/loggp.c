#include "loggp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/cost_model.h"
#include "sim_mailbox.h"

/* ------------------------------------------------------------------------------------- */
/* Evaluation                                                                             */
/* ------------------------------------------------------------------------------------- */

/* With one level (ranks_per_node 0) every message is priced at send time with L, o, g, G,
 * its arrival known at once. With two levels, a message within a node is priced so with
 * node_*, and a message between nodes becomes a
 * record that waits for its two NIC services (loggp.h); its arrival is known only once the
 * destination NIC has served it.
 *
 * A NIC's FIFO makes a message's arrival depend on every message that reached that NIC
 * before it, whichever rank sent it, so NIC services run as a discrete-event simulation: one
 * binary heap of events keyed by (time, sending rank, its send number, side), taken in that
 * order. Ranks still run ahead as far as their messages allow, as in one level; what keeps
 * the order right is that nothing done in answer to an event happens before it: a served
 * message arrives after its service started, a round that it completes ends after the
 * arrival, and the sends of the next round are handed to a NIC after that. So every event
 * is pushed at or after the time of the event being served, and the heap hands each NIC its
 * messages in the order of h (resp. h'). (An event pushed at that very time, possible only
 * where L, o and c are 0, is served after it whatever its tie-break: still one order.)
 *
 * A mailbox word is the message's arrival time, or, with NIC_BIT set, the index of its
 * record while a NIC still holds it: times are never negative, so their sign bit is free. */

/* The price of one message between two ranks, at the processes. */
typedef struct price {
  double L, o, g, G, O;
  int via_nic; /* between two nodes of a two-level model */
} price;

/* A receive's message: when its first byte arrives, and what it costs the receiver: o, the
 * gap g and the time of its bytes after the first, (m - 1) G, at its level. */
typedef struct arrival {
  double time, o, g, stream;
} arrival;

#define NIC_BIT (UINT64_C(1) << 63)
#define NO_SLOT SIZE_MAX

/* A message between nodes, from its send until it meets its receive with a known arrival. */
typedef struct nic_message {
  double done; /* last byte out of the sender's process; once injected, out of the source NIC;
                * once ejected, its arrival */
  size_t slot; /* its receive's entry in evaluation.arrival; NO_SLOT until a receive takes it */
  int dest;    /* receiving rank */
  int count;   /* bytes */
  int arrived; /* 1 once ejected (done is then its arrival) */
  int next_free;
} nic_message;

enum { NIC_INJECT, NIC_EJECT };

typedef struct nic_event {
  double time;  /* h for injection, h' for ejection */
  int src, seq; /* sending rank and its send number: the tie-break */
  int msg;      /* index in evaluation.msgs */
  int side;     /* NIC_INJECT or NIC_EJECT */
} nic_event;

/* Where one rank stands. */
typedef struct rank_clock {
  int round;        /* current round; the schedule's nrounds once finished */
  int pending;      /* receives of the current round still without their arrival */
  int waiting;      /* 1 while stopped in a round for messages */
  int nposted;      /* receives posted in the current round */
  int nsent;        /* sends so far, over all rounds: the NIC's tie-break */
  double cpu;       /* when the CPU is free next */
  double next_send; /* earliest start of the next injection: g + (m - 1) G after the last */
  double sends_out; /* when the last byte of the current round's sends has left */
  double next_recv; /* earliest start of taking the next message: g + (m - 1) G after the last */
  size_t arrivals;  /* where the current round's arrival times start in evaluation.arrival */
} rank_clock;

typedef struct evaluation {
  int nranks;
  const nhood_sched *scheds;
  const loggp_params *p;
  int per_node; /* ranks_per_node; 0: one level */
  rank_clock *clock;
  arrival *arrival; /* per rank, room for the receives of its largest round */
  sim_mailbox mailbox;
  int *ready; /* ranks whose waiting round got its last message */
  int nready;
  /* Two levels only: per node, when each side of its NIC is free next. */
  double *inject_free, *eject_free;
  nic_message *msgs; /* records of messages between nodes, reused through a free list */
  int nmsgs, msgs_capacity, free_msg;
  nic_event *heap; /* binary min-heap by event_before */
  size_t nheap, heap_capacity;
  char *err;
  size_t errlen;
} evaluation;

static uint64_t time_bits(double t) {
  uint64_t bits;
  memcpy(&bits, &t, sizeof bits);
  return bits;
}

static double bits_time(uint64_t bits) {
  double t;
  memcpy(&t, &bits, sizeof t);
  return t;
}

static double max_time(double a, double b) { return a > b ? a : b; }

/* By time, then o: the order in which the receiver's CPU takes its round's messages (o only
 * makes ties deterministic; their sum is the same in either order). */
static int compare_arrival(const void *a, const void *b) {
  const arrival *x = a, *y = b;
  if (x->time != y->time) return x->time > y->time ? 1 : -1;
  return (x->o > y->o) - (x->o < y->o);
}

static int out_of_memory(evaluation *ev) {
  snprintf(ev->err, ev->errlen, "out of memory matching messages");
  return 1;
}

static price price_of(const evaluation *ev, int from, int to) {
  const loggp_params *p = ev->p;
  /* A message to oneself crosses nothing but is an MPI message all the same: the CPU pays
   * oself at each end and the receiver Gself per byte, without a latency. On one node
   * nhood-calibrate measures them apart from o and G: its messages to oneself did not slow
   * down when messages between processes took twice as long. */
  if (from == to) return (price){0, p->oself, 0, p->Gself, 0, 0};
  if (ev->per_node > 0 && from / ev->per_node == to / ev->per_node)
    return (price){p->node_L, p->node_o, p->node_g, p->node_G, p->node_O, 0};
  return (price){p->L, p->o, p->g, p->G, p->O, ev->per_node > 0};
}

/* A message's price with its size: between two processes, ostep more at each end above step
 * bytes, and Lbyte per byte after the first on its latency (a message between nodes takes
 * its latency from the NICs' path, which has none). */
static price price_message(const evaluation *ev, int from, int to, int count) {
  price k = price_of(ev, from, to);
  if (from == to) return k;
  if (count > ev->p->step) k.o += ev->p->ostep;
  if (count > 1) k.L += (count - 1) * ev->p->Lbyte;
  return k;
}

/* ---- the event heap --------------------------------------------------------------------- */

static int event_before(const nic_event *a, const nic_event *b) {
  if (a->time != b->time) return a->time < b->time;
  if (a->src != b->src) return a->src < b->src;
  if (a->seq != b->seq) return a->seq < b->seq;
  return a->side < b->side;
}

static int heap_push(evaluation *ev, nic_event e) {
  if (ev->nheap == ev->heap_capacity) {
    size_t capacity = ev->heap_capacity ? 2 * ev->heap_capacity : 1024;
    nic_event *grown = realloc(ev->heap, capacity * sizeof *grown);
    if (grown == NULL) return out_of_memory(ev);
    ev->heap = grown;
    ev->heap_capacity = capacity;
  }
  size_t k = ev->nheap++;
  while (k > 0 && event_before(&e, &ev->heap[(k - 1) / 2])) {
    ev->heap[k] = ev->heap[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  ev->heap[k] = e;
  return 0;
}

static nic_event heap_pop(evaluation *ev) {
  nic_event top = ev->heap[0], last = ev->heap[--ev->nheap];
  size_t k = 0, n = ev->nheap;
  for (;;) {
    size_t child = 2 * k + 1;
    if (child >= n) break;
    if (child + 1 < n && event_before(&ev->heap[child + 1], &ev->heap[child])) child++;
    if (!event_before(&ev->heap[child], &last)) break;
    ev->heap[k] = ev->heap[child];
    k = child;
  }
  if (n > 0) ev->heap[k] = last;
  return top;
}

/* ---- messages between nodes --------------------------------------------------------------- */

/* A record for a message whose last byte leaves its process at out; -1 when out of memory. */
static int new_message(evaluation *ev, int dest, int count, double out) {
  if (ev->free_msg < 0) {
    if (ev->nmsgs == ev->msgs_capacity) {
      if (ev->msgs_capacity > INT_MAX / 2) return -1;
      int capacity = ev->msgs_capacity ? 2 * ev->msgs_capacity : 1024;
      nic_message *grown = realloc(ev->msgs, (size_t)capacity * sizeof *grown);
      if (grown == NULL) return -1;
      ev->msgs = grown;
      ev->msgs_capacity = capacity;
    }
    ev->msgs[ev->nmsgs].next_free = -1;
    ev->free_msg = ev->nmsgs++;
  }
  int m = ev->free_msg;
  ev->free_msg = ev->msgs[m].next_free;
  ev->msgs[m] = (nic_message){.done = out, .slot = NO_SLOT, .dest = dest, .count = count, .next_free = -1};
  return m;
}

static void free_message(evaluation *ev, int m) {
  ev->msgs[m].next_free = ev->free_msg;
  ev->free_msg = m;
}

/* A receive's message has arrived: the rank goes on once its round has all of them. */
static void arrived(evaluation *ev, int r, size_t slot, double time) {
  rank_clock *c = &ev->clock[r];
  ev->arrival[slot].time = time;
  if (--c->pending == 0 && c->waiting) {
    c->waiting = 0;
    ev->ready[ev->nready++] = r;
  }
}

/* Serves one event at its NIC (the formulas of loggp.h). */
static int serve(evaluation *ev, const nic_event *e) {
  const loggp_params *p = ev->p;
  nic_message *m = &ev->msgs[e->msg];
  double busy = p->nic_o + m->count * p->nic_G;
  if (e->side == NIC_INJECT) {
    double *free_at = &ev->inject_free[e->src / ev->per_node];
    double start = max_time(e->time, *free_at);
    *free_at = start + busy;
    m->done = max_time(m->done, start + busy);
    return heap_push(ev, (nic_event){start + p->L, e->src, e->seq, e->msg, NIC_EJECT});
  }
  double *free_at = &ev->eject_free[m->dest / ev->per_node];
  double start = max_time(e->time, *free_at);
  *free_at = start + busy;
  /* its last byte at the process, less the bytes the receiver pays: its first byte's arrival */
  m->done = max_time(m->done + p->L, start + busy) - (m->count > 0 ? m->count - 1 : 0) * p->G;
  if (m->slot == NO_SLOT) { /* its receive is not posted yet: post_recv takes the time */
    m->arrived = 1;
    return 0;
  }
  arrived(ev, m->dest, m->slot, m->done);
  free_message(ev, e->msg);
  return 0;
}

/* ---- ranks ------------------------------------------------------------------------------ */

static int check_peer(evaluation *ev, int rank, int peer) {
  if (peer >= 0 && peer < ev->nranks) return 0;
  snprintf(ev->err, ev->errlen, "rank %d's schedule names rank %d, outside 0..%d", rank, peer, ev->nranks - 1);
  return 1;
}

static int post_recv(evaluation *ev, int r, const nhood_op *op) {
  rank_clock *c = &ev->clock[r];
  size_t slot = c->arrivals + (size_t)c->nposted++;
  sim_item receive = {slot, op->count}, message;
  int matched;
  price k = price_message(ev, op->peer, r, op->count);
  ev->arrival[slot] = (arrival){0, k.o, k.g, (op->count > 0 ? op->count - 1 : 0) * k.G};
  if (sim_mailbox_recv(&ev->mailbox, r, op->peer, op->tag, receive, &message, &matched) != 0) return out_of_memory(ev);
  if (!matched) {
    c->pending++;
  } else if (message.word & NIC_BIT) {
    int m = (int)(message.word & ~NIC_BIT);
    if (ev->msgs[m].arrived) {
      ev->arrival[slot].time = ev->msgs[m].done;
      free_message(ev, m);
    } else { /* still at a NIC: serve() delivers it */
      ev->msgs[m].slot = slot;
      c->pending++;
    }
  } else {
    ev->arrival[slot].time = bits_time(message.word);
  }
  return 0;
}

static int post_send(evaluation *ev, int r, const nhood_op *op) {
  rank_clock *c = &ev->clock[r];
  price k = price_message(ev, r, op->peer, op->count);
  double after_first = op->count > 0 ? op->count - 1 : 0;
  double stream = after_first * k.G, copy = after_first * k.O; /* bytes after the first */
  double start = c->cpu > c->next_send ? c->cpu : c->next_send;
  c->cpu = start + k.o + copy;
  c->next_send = start + k.g + stream;
  double out = start + k.o + (stream > copy ? stream : copy);
  if (out > c->sends_out) c->sends_out = out;
  int seq = c->nsent++, m = -1;
  double first = start + k.o + copy + k.L; /* its first byte at the destination */
  uint64_t word = time_bits(first);
  if (k.via_nic) { /* handed to the NIC once the CPU has posted it: h = start + o + (m - 1) O */
    if ((m = new_message(ev, op->peer, op->count, out)) < 0) return out_of_memory(ev);
    if (heap_push(ev, (nic_event){start + k.o + copy, r, seq, m, NIC_INJECT}) != 0) return 1;
    word = NIC_BIT | (uint64_t)m;
  }
  sim_item message = {word, op->count}, receive;
  int matched;
  if (sim_mailbox_send(&ev->mailbox, r, op->peer, op->tag, message, &receive, &matched) != 0) return out_of_memory(ev);
  if (matched) {
    if (m >= 0)
      ev->msgs[m].slot = receive.word; /* the receive stays pending until serve() */
    else
      arrived(ev, op->peer, receive.word, first);
  }
  return 0;
}

/* All receives of rank r's round have their message: the CPU takes them in order of
 * arrival, then the round waits for its sends to be out. */
static void end_round(evaluation *ev, int r) {
  rank_clock *c = &ev->clock[r];
  arrival *a = ev->arrival + c->arrivals;
  qsort(a, (size_t)c->nposted, sizeof *a, compare_arrival);
  for (int k = 0; k < c->nposted; k++) {
    double start = max_time(max_time(c->cpu, a[k].time), c->next_recv);
    c->cpu = start + a[k].o + a[k].stream;
    c->next_recv = start + a[k].g + a[k].stream;
  }
  if (c->sends_out > c->cpu) c->cpu = c->sends_out;
  c->round++;
}

/* Rank r's delay in one round: the quantile of noise (of skew in round 0, where given) at a
 * probability drawn from (seed, rank, round) by a hash (SplitMix64's finalizer), so that
 * every seed is one reproducible run, less noise0 (not below 0). */
static double delay(const loggp_params *p, int r, int round) {
  if (p->seed == 0 || !loggp_has_noise(p)) return 0;
  const double *q = round == 0 && p->skew[LOGGP_NOISE_POINTS - 1] > 0 ? p->skew : p->noise;
  uint64_t z = (uint64_t)p->seed * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(unsigned)r << 32 ^ (unsigned)round;
  for (int k = 0; k < 2; k++) { /* twice: seeds, ranks and rounds are small numbers */
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
  }
  double u = (double)(z >> 11) * 0x1.0p-53; /* [0, 1) */
  int i = 0;
  while (i + 2 < LOGGP_NOISE_POINTS && u >= loggp_noise_p[i + 1]) i++;
  double t = (u - loggp_noise_p[i]) / (loggp_noise_p[i + 1] - loggp_noise_p[i]);
  double d = q[i] + t * (q[i + 1] - q[i]) - p->noise0; /* from the noise's zero */
  return d > 0 ? d : 0;
}

/* Runs rank r's rounds until one waits for a message or the schedule is done. 0, or 1 with
 * a message. */
static int run_rounds(evaluation *ev, int r) {
  const nhood_sched *s = &ev->scheds[r];
  rank_clock *c = &ev->clock[r];
  while (c->round < s->nrounds) {
    int begin = c->round ? s->round_end[c->round - 1] : 0;
    int comm = s->comm_begin[c->round], end = s->round_end[c->round];
    if (comm < end) c->cpu += ev->p->round + delay(ev->p, r, c->round);
    for (int k = begin; k < comm; k += 2) /* a local operation: source, then target entry */
      c->cpu += ev->p->ocopy + s->ops[k].count * ev->p->Gcopy;
    c->nposted = 0;
    c->sends_out = c->cpu;
    for (int k = comm; k < end; k++) {
      const nhood_op *op = &s->ops[k];
      if (op->peer == MPI_PROC_NULL) continue;
      if (check_peer(ev, r, op->peer) != 0) return 1;
      if ((op->kind == NHOOD_OP_RECV ? post_recv(ev, r, op) : post_send(ev, r, op)) != 0) return 1;
    }
    if (c->pending > 0) {
      c->waiting = 1;
      return 0;
    }
    end_round(ev, r);
  }
  return 0;
}

/* Room for each rank's largest round of receives, the mailbox sized for its keys, and the
 * NICs' clocks. */
static int evaluation_init(evaluation *ev) {
  int n = ev->nranks, rc = 1;
  int *keys = calloc((size_t)(n > 0 ? n : 1), sizeof *keys); /* calloc: else a GCC 12 -Wmaybe-uninitialized */
  ev->clock = calloc((size_t)(n > 0 ? n : 1), sizeof *ev->clock);
  ev->ready = malloc((size_t)(n > 0 ? n : 1) * sizeof *ev->ready);
  ev->free_msg = -1;
  if (keys == NULL || ev->clock == NULL || ev->ready == NULL) goto cleanup;
  if (ev->per_node > 0) {
    size_t nodes = (size_t)(n / ev->per_node) + 1;
    ev->inject_free = calloc(nodes, sizeof *ev->inject_free);
    ev->eject_free = calloc(nodes, sizeof *ev->eject_free);
    if (ev->inject_free == NULL || ev->eject_free == NULL) goto cleanup;
  }
  size_t total = 0;
  for (int r = 0; r < n; r++) {
    const nhood_sched *s = &ev->scheds[r];
    int largest = 0;
    for (int round = 0; round < s->nrounds; round++) {
      int nrecvs = 0;
      for (int k = s->comm_begin[round]; k < s->round_end[round]; k++) nrecvs += s->ops[k].kind == NHOOD_OP_RECV;
      largest = nrecvs > largest ? nrecvs : largest;
    }
    ev->clock[r].arrivals = total;
    total += (size_t)largest;
    keys[r] = s->nrecvs;
  }
  ev->arrival = malloc((total > 0 ? total : 1) * sizeof *ev->arrival);
  if (ev->arrival == NULL || sim_mailbox_init(&ev->mailbox, n, keys) != 0) goto cleanup;
  rc = 0;
cleanup:
  if (rc != 0) snprintf(ev->err, ev->errlen, "out of memory evaluating %d rank%s", n, cli_plural(n));
  free(keys);
  return rc;
}

/* Names what kept the schedules from completing. */
static void report_incomplete(evaluation *ev) {
  int dest, source, tag;
  sim_item item;
  for (int r = 0; r < ev->nranks; r++) {
    const rank_clock *c = &ev->clock[r];
    if (c->round >= ev->scheds[r].nrounds) continue;
    if (sim_mailbox_find_waiting(&ev->mailbox, SIM_WAITING_RECEIVES, r, &dest, &source, &tag, &item) && dest == r)
      snprintf(ev->err, ev->errlen,
               "the schedules deadlock: rank %d waits in round %d for a "
               "message from rank %d (tag %d)",
               r, c->round, source, tag);
    else
      snprintf(ev->err, ev->errlen, "the schedules deadlock: rank %d waits in round %d", r, c->round);
    return;
  }
  if (sim_mailbox_find_waiting(&ev->mailbox, SIM_WAITING_MESSAGES, 0, &dest, &source, &tag, &item))
    snprintf(ev->err, ev->errlen,
             "%lld message(s) are never received, the first from rank %d to "
             "rank %d (tag %d)",
             ev->mailbox.waiting_messages, source, dest, tag);
}

int loggp_predict(int nranks, const nhood_sched *scheds, const loggp_params *p, loggp_prediction *out, char *err,
                  size_t errlen) {
  int rc = 1;
  evaluation ev = {
      .nranks = nranks, .scheds = scheds, .p = p, .per_node = p->ranks_per_node, .err = err, .errlen = errlen};
  *out = (loggp_prediction){0, -1};
  if (p->ranks_per_node < 0) {
    snprintf(err, errlen, "ranks_per_node is %d; 0 (one level) or more expected", p->ranks_per_node);
    return 1;
  }
  if (evaluation_init(&ev) != 0) goto cleanup;
  /* Every rank runs as far as it can; then each rank whose last missing message arrived
   * finishes its round and goes on, until no rank is ready; then the NICs serve their next
   * event, which may make ranks ready again (with one level the heap stays empty). */
  for (int r = 0; r < nranks; r++)
    if (run_rounds(&ev, r) != 0) goto cleanup;
  for (;;) {
    while (ev.nready > 0) {
      int r = ev.ready[--ev.nready];
      end_round(&ev, r);
      if (run_rounds(&ev, r) != 0) goto cleanup;
    }
    if (ev.nheap == 0) break;
    nic_event e = heap_pop(&ev);
    if (serve(&ev, &e) != 0) goto cleanup;
  }
  int complete = ev.mailbox.waiting_messages == 0;
  for (int r = 0; r < nranks; r++) complete &= ev.clock[r].round >= scheds[r].nrounds;
  if (!complete) {
    report_incomplete(&ev);
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++)
    if (scheds[r].nrounds > 0 && (out->slowest_rank < 0 || ev.clock[r].cpu > out->time_us)) {
      out->time_us = ev.clock[r].cpu;
      out->slowest_rank = r;
    }
  rc = 0;
cleanup:
  sim_mailbox_free(&ev.mailbox);
  free(ev.clock);
  free(ev.arrival);
  free(ev.ready);
  free(ev.inject_free);
  free(ev.eject_free);
  free(ev.msgs);
  free(ev.heap);
  return rc;
}
