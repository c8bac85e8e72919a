#include "sim_exec.h"

#include "blockdata.h"
#include "cli.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "sim_mailbox.h"
#include "topology/topology.h"

/* Receive buffers start out with this byte everywhere: blocks of MPI_PROC_NULL sources must
 * keep it, and a block nobody wrote shows it. */
#define SENTINEL 0xA5

/* Everything the transport shares among the virtual ranks of one run. */
typedef struct exec_world {
  const sim_call *call;
  const nhood_sched *scheds;
  sim_mailbox mailbox;
  /* Data of messages that arrived before their receive was posted; mailbox items hold
   * offsets into it, so that it may grow. */
  unsigned char *parked;
  size_t parked_len, parked_capacity;
  int *pending;     /* per rank: posted receives still without a message */
  long long events; /* matches and round changes: a sweep that adds none is stuck */
  int sabotage;     /* 1 until the sabotage has flipped its bit */
  /* Per rank offsets into the three areas that hold every rank's buffers. */
  size_t *send_offset, *recv_offset, *scratch_offset;
  unsigned char *send_area, *recv_area, *scratch_area;
  int *seen; /* per rank: occurrences counted so far (kept all zero between uses) */
  void *const *send_bases, *const *scratch_bases; /* sim_exec_run: the caller's buffers */
  unsigned char *expected;                        /* the largest buffer of any rank, for reference contents */
  char *problem;                                  /* the first thing found wrong, for the user */
  size_t problemlen;
} exec_world;

/* The transport context of one virtual rank. */
typedef struct rank_port {
  exec_world *world;
  int rank;
} rank_port;

#if defined(__GNUC__)
static void report(exec_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

/* Keeps the first problem only: later ones are usually its consequences. */
static void report(exec_world *w, const char *fmt, ...) {
  if (w->problem[0] != '\0') return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->problem, w->problemlen, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------------------------------- */
/* The transport                                                                          */
/* ------------------------------------------------------------------------------------- */

static int check_peer(exec_world *w, int rank, int peer, const char *what) {
  if (peer >= 0 && peer < w->call->nranks) return MPI_SUCCESS;
  report(w, "rank %d %s rank %d, outside 0..%d", rank, what, peer, w->call->nranks - 1);
  return MPI_ERR_RANK;
}

static int deliver(exec_world *w, int source, int dest, int tag, void *buf, int capacity, const unsigned char *data,
                   int bytes) {
  if (bytes > capacity) {
    report(w, "rank %d received %d byte%s from rank %d (tag %d) into a receive of %d byte%s", dest, bytes,
           cli_plural(bytes), source, tag, capacity, cli_plural(capacity));
    return MPI_ERR_TRUNCATE;
  }
  if (bytes > 0) {
    memcpy(buf, data, (size_t)bytes);
    if (w->sabotage) {
      ((unsigned char *)buf)[0] ^= 1;
      w->sabotage = 0;
    }
  }
  w->events++;
  return MPI_SUCCESS;
}

static int park(exec_world *w, const void *data, int bytes) {
  if (w->parked_len + (size_t)bytes > w->parked_capacity) {
    size_t capacity = w->parked_capacity ? w->parked_capacity : 1 << 16;
    while (capacity < w->parked_len + (size_t)bytes) capacity *= 2;
    unsigned char *bigger = realloc(w->parked, capacity);
    if (bigger == NULL) {
      report(w, "out of memory buffering %zu bytes of unreceived messages", capacity);
      return MPI_ERR_NO_MEM;
    }
    w->parked = bigger;
    w->parked_capacity = capacity;
  }
  if (bytes > 0) memcpy(w->parked + w->parked_len, data, (size_t)bytes);
  w->parked_len += (size_t)bytes;
  return MPI_SUCCESS;
}

/* Sends complete at once (eager): the data goes into the waiting receive or is parked. */
static int port_send(void *ctx, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag) {
  rank_port *port = ctx;
  exec_world *w = port->world;
  (void)slot, (void)type;
  if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_peer(w, port->rank, peer, "sends to");
  if (rc != MPI_SUCCESS) return rc;
  /* Offered at the offset it will have if parked, so the mailbox is asked only once. */
  sim_item message = {w->parked_len, count}, receive;
  int matched;
  if (sim_mailbox_send(&w->mailbox, port->rank, peer, tag, message, &receive, &matched) != 0) {
    report(w, "out of memory queueing messages");
    return MPI_ERR_NO_MEM;
  }
  if (!matched) return park(w, buf, count);
  w->pending[peer]--;
  return deliver(w, port->rank, peer, tag, (void *)(uintptr_t)receive.word, receive.count, buf, count);
}

static int port_recv(void *ctx, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag) {
  rank_port *port = ctx;
  exec_world *w = port->world;
  (void)slot, (void)type;
  if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_peer(w, port->rank, peer, "receives from");
  if (rc != MPI_SUCCESS) return rc;
  sim_item receive = {(uintptr_t)buf, count}, message;
  int matched;
  if (sim_mailbox_recv(&w->mailbox, port->rank, peer, tag, receive, &message, &matched) != 0) {
    report(w, "out of memory queueing receives");
    return MPI_ERR_NO_MEM;
  }
  if (!matched) {
    w->pending[port->rank]++;
    return MPI_SUCCESS;
  }
  return deliver(w, peer, port->rank, tag, buf, count, w->parked + message.word, message.count);
}

/* Only receives can be outstanding, and the engine posts one round at a time. */
static int port_test(void *ctx, int nslots, int *done, int *failed) {
  rank_port *port = ctx;
  (void)nslots;
  *failed = -1;
  *done = port->world->pending[port->rank] == 0;
  return MPI_SUCCESS;
}

/* One process cannot block for the others: the driver only tests. */
static int port_wait(void *ctx, int nslots, int *failed) {
  int done;
  port_test(ctx, nslots, &done, failed);
  return done ? MPI_SUCCESS : MPI_ERR_PENDING;
}

static int port_copy(void *ctx, const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
                     MPI_Datatype dtype) {
  rank_port *port = ctx;
  (void)stype, (void)dtype;
  if (scount > dcount) {
    report(port->world, "rank %d copies %d byte%s into a region of %d byte%s", port->rank, scount, cli_plural(scount),
           dcount, cli_plural(dcount));
    return MPI_ERR_TRUNCATE;
  }
  if (scount > 0) memcpy(dst, src, (size_t)scount);
  return MPI_SUCCESS;
}

/* Neighborhood collectives move data without reducing it; a reduction in their schedules is
 * a bug worth stopping at. */
static int port_reduce(void *ctx, const void *src, void *dst, int count, MPI_Datatype type, MPI_Op op) {
  rank_port *port = ctx;
  (void)src, (void)dst, (void)count, (void)type, (void)op;
  report(port->world, "rank %d's schedule reduces, which nhood-sim does not simulate", port->rank);
  return MPI_ERR_OP;
}

static const nhood_transport in_process = {port_send, port_recv, port_wait, port_test, port_copy, port_reduce};

/* ------------------------------------------------------------------------------------- */
/* Buffer contents                                                                        */
/* ------------------------------------------------------------------------------------- */

static const struct nhood_topo *topo_of(const exec_world *w, int r) { return w->call->topos[r]; }

/* Which duplicate of list[k] among list[0..k] this is. Counts stay in w->seen until
 * forget_occurrences clears them, so a pass over a list is linear. */
static int next_occurrence(exec_world *w, int peer) { return peer == MPI_PROC_NULL ? 0 : w->seen[peer]++; }

static void forget_occurrences(exec_world *w, const int *list, int n) {
  for (int k = 0; k < n; k++)
    if (list[k] != MPI_PROC_NULL) w->seen[list[k]] = 0;
}

/* Rank r's send buffer: block j identifies (r, destinations[j], which duplicate). */
static void fill_send(exec_world *w, int r, unsigned char *dst) {
  const sim_call *call = w->call;
  const nhood_coll_args *a = &call->args[r];
  const struct nhood_topo *t = topo_of(w, r);
  if (call->kind == NHOOD_ALLGATHER || call->kind == NHOOD_ALLGATHERV) {
    blockdata_fill(dst, a->sendcount, sim_block_key(call, r, 0, 0));
    return;
  }
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    nhood_region block = nhood_send_block(a, j);
    uint64_t key = sim_block_key(call, r, q, next_occurrence(w, q));
    blockdata_fill(dst + block.offset, block.count, key);
  }
  forget_occurrences(w, t->destinations, t->outdegree);
}

/* What MPI-4.1 puts into rank r's receive buffer: block i holds the block that sources[i]
 * sent to r as the k-th of its duplicate edges to r, where i is the k-th occurrence of that
 * source in r's list; blocks of MPI_PROC_NULL keep the sentinel. */
static void expected_recv(exec_world *w, int r, unsigned char *dst) {
  const sim_call *call = w->call;
  const struct nhood_topo *t = topo_of(w, r);
  memset(dst, SENTINEL, call->recvlen[r]);
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    if (q == MPI_PROC_NULL) continue;
    nhood_region block = nhood_recv_block(&call->args[r], i);
    uint64_t key = sim_block_key(call, q, r, next_occurrence(w, q));
    blockdata_fill(dst + block.offset, block.count, key);
  }
  forget_occurrences(w, t->sources, t->indegree);
}

static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t len) {
  size_t k = 0;
  while (k < len && a[k] == b[k]) k++;
  return k;
}

/* Names the receive block that holds byte `at` of rank r's receive buffer. */
static void report_recv_difference(exec_world *w, int r, size_t at) {
  const struct nhood_topo *t = topo_of(w, r);
  const unsigned char *got = w->recv_area + w->recv_offset[r];
  for (int i = 0; i < t->indegree; i++) {
    nhood_region block = nhood_recv_block(&w->call->args[r], i);
    if (at < (size_t)block.offset || at >= (size_t)block.offset + (size_t)block.count) continue;
    int q = t->sources[i], duplicate = 0;
    for (int k = 0; k < i; k++) duplicate += t->sources[k] == q;
    if (q == MPI_PROC_NULL)
      report(w, "rank %d: receive block %d (from MPI_PROC_NULL) was written: byte %zu is 0x%02x", r, i,
             at - (size_t)block.offset, got[at]);
    else
      report(w,
             "rank %d: receive block %d (from rank %d, duplicate %d) byte %zu of %d: expected "
             "0x%02x, got 0x%02x",
             r, i, q, duplicate, at - (size_t)block.offset, block.count, w->expected[at], got[at]);
    return;
  }
}

static int check_rank(exec_world *w, int r) {
  const sim_call *call = w->call;
  expected_recv(w, r, w->expected);
  size_t at = first_difference(w->expected, w->recv_area + w->recv_offset[r], call->recvlen[r]);
  if (at < call->recvlen[r]) {
    report_recv_difference(w, r, at);
    return 1;
  }
  fill_send(w, r, w->expected);
  at = first_difference(w->expected, w->send_area + w->send_offset[r], call->sendlen[r]);
  if (at < call->sendlen[r]) {
    report(w, "rank %d: its send buffer changed at byte %zu", r, at);
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* The run                                                                                */
/* ------------------------------------------------------------------------------------- */

/* Offsets of per-rank buffers packed one after the other: offset[r] for r in 0..nranks (the
 * last is the total). */
static size_t *pack_offsets(int nranks, const size_t *sizes) {
  size_t *offset = malloc(((size_t)nranks + 1) * sizeof *offset);
  if (offset == NULL) return NULL;
  offset[0] = 0;
  for (int r = 0; r < nranks; r++) offset[r + 1] = offset[r] + sizes[r];
  return offset;
}

/* Allocates every buffer of the run; 1 when memory runs out. */
static int world_init(exec_world *w, const sim_call *call, const nhood_sched *scheds) {
  int n = call->nranks;
  w->call = call;
  w->scheds = scheds;
  w->send_offset = pack_offsets(n, call->sendlen);
  w->recv_offset = pack_offsets(n, call->recvlen);
  w->scratch_offset = malloc(((size_t)n + 1) * sizeof *w->scratch_offset);
  w->pending = calloc((size_t)n, sizeof *w->pending);
  w->seen = calloc((size_t)n, sizeof *w->seen);
  if (!w->send_offset || !w->recv_offset || !w->scratch_offset || !w->pending || !w->seen) return 1;
  size_t largest = 1;
  w->scratch_offset[0] = 0;
  for (int r = 0; r < n; r++) {
    largest = call->sendlen[r] > largest ? call->sendlen[r] : largest;
    largest = call->recvlen[r] > largest ? call->recvlen[r] : largest;
    w->scratch_offset[r + 1] = w->scratch_offset[r] + (size_t)scheds[r].scratch_bytes;
    w->pending[r] = scheds[r].nrecvs; /* borrowed as the mailbox's size hint, zeroed below */
  }
  w->send_area = malloc(w->send_offset[n] + 1);
  w->recv_area = malloc(w->recv_offset[n] + 1);
  w->scratch_area = malloc(w->scratch_offset[n] + 1);
  w->expected = malloc(largest);
  if (!w->send_area || !w->recv_area || !w->scratch_area || !w->expected) return 1;
  if (sim_mailbox_init(&w->mailbox, n, w->pending) != 0) return 1;
  memset(w->pending, 0, (size_t)n * sizeof *w->pending);
  for (int r = 0; r < n; r++) fill_send(w, r, w->send_area + w->send_offset[r]);
  memset(w->recv_area, SENTINEL, w->recv_offset[n]);
  return 0;
}

static void world_free(exec_world *w) {
  sim_mailbox_free(&w->mailbox);
  free(w->parked);
  free(w->pending);
  free(w->send_offset);
  free(w->recv_offset);
  free(w->scratch_offset);
  free(w->send_area);
  free(w->recv_area);
  free(w->scratch_area);
  free(w->seen);
  free(w->expected);
}

static void report_deadlock(exec_world *w, const nhood_exec *execs, const int *stuck, int nstuck) {
  int r = stuck[0], dest, source, tag;
  sim_item oldest;
  if (sim_mailbox_find_waiting(&w->mailbox, SIM_WAITING_RECEIVES, r, &dest, &source, &tag, &oldest) && dest == r)
    report(w,
           "deadlock: %d rank(s) cannot progress; rank %d waits in round %d of %d for a message "
           "from rank %d (tag %d)",
           nstuck, r, execs[r].round, execs[r].sched->nrounds, source, tag);
  else
    report(w, "deadlock: %d rank(s) cannot progress, rank %d in round %d of %d", nstuck, r, execs[r].round,
           execs[r].sched->nrounds);
}

/* Starts every rank, then tests the unfinished ones round-robin until all are done.
 * 0 when all completed; 1 on a deadlock or a transport error (reported). */
static int run_ranks(exec_world *w, nhood_exec *execs, rank_port *ports) {
  int n = w->call->nranks, nactive = 0, rc = 1;
  int *active = malloc((size_t)(n > 0 ? n : 1) * sizeof *active);
  if (active == NULL) {
    report(w, "out of memory for %d rank%s", n, cli_plural(n));
    goto cleanup;
  }
  for (int r = 0; r < n; r++) {
    ports[r] = (rank_port){w, r};
    if (w->send_bases) {
      nhood_exec_init(&execs[r], &w->scheds[r], &in_process, &ports[r], w->send_bases[r], NULL, w->scratch_bases[r]);
    } else {
      size_t off_s = w->send_offset[r], off_r = w->recv_offset[r], off_x = w->scratch_offset[r];
      nhood_exec_init(&execs[r], &w->scheds[r], &in_process, &ports[r], w->send_area + off_s, w->recv_area + off_r,
                      w->scratch_area + off_x);
    }
    if (nhood_exec_start(&execs[r], 0) != MPI_SUCCESS) {
      report(w, "rank %d: the engine failed starting its schedule", r);
      goto cleanup;
    }
    if (!nhood_exec_done(&execs[r])) active[nactive++] = r;
  }
  while (nactive > 0) {
    long long before = w->events;
    int kept = 0;
    for (int k = 0; k < nactive; k++) {
      int r = active[k], round = execs[r].round, done = 0;
      if (nhood_exec_test(&execs[r], &done) != MPI_SUCCESS) {
        report(w, "rank %d: the engine failed in round %d", r, execs[r].round);
        goto cleanup;
      }
      w->events += execs[r].round != round;
      if (!done) active[kept++] = r;
    }
    nactive = kept;
    if (nactive > 0 && w->events == before) {
      report_deadlock(w, execs, active, nactive);
      goto cleanup;
    }
  }
  rc = 0;
cleanup:
  free(active);
  return rc;
}

/* Reports a message nobody received; 1 if there is one. */
static int report_leftover(exec_world *w) {
  int dest, source, tag;
  sim_item left;
  if (w->mailbox.waiting_messages > 0 &&
      sim_mailbox_find_waiting(&w->mailbox, SIM_WAITING_MESSAGES, 0, &dest, &source, &tag, &left)) {
    report(w,
           "%lld message(s) never received, the first from rank %d to rank %d (tag %d, %d "
           "byte%s)",
           w->mailbox.waiting_messages, source, dest, tag, left.count, cli_plural(left.count));
    return 1;
  }
  return 0;
}

int sim_exec_run(int nranks, const nhood_sched *scheds, void *const send[], void *const scratch[], char *problem,
                 size_t problemlen) {
  int rc = 1;
  sim_call call = {.nranks = nranks};
  exec_world w = {.call = &call,
                  .scheds = scheds,
                  .problem = problem,
                  .problemlen = problemlen,
                  .send_bases = send,
                  .scratch_bases = scratch};
  size_t n = (size_t)(nranks > 0 ? nranks : 1);
  nhood_exec *execs = malloc(n * sizeof *execs);
  rank_port *ports = malloc(n * sizeof *ports);
  w.pending = calloc(n, sizeof *w.pending);
  problem[0] = '\0';
  if (!execs || !ports || !w.pending) {
    report(&w, "out of memory for %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++) w.pending[r] = scheds[r].nrecvs; /* the mailbox's size hint, zeroed below */
  if (sim_mailbox_init(&w.mailbox, nranks, w.pending) != 0) {
    report(&w, "out of memory for the mailbox of %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  memset(w.pending, 0, n * sizeof *w.pending);
  if (run_ranks(&w, execs, ports) == 0 && report_leftover(&w) == 0) rc = 0;
cleanup:
  sim_mailbox_free(&w.mailbox);
  free(w.parked);
  free(w.pending);
  free(execs);
  free(ports);
  return rc;
}

sim_verdict sim_exec_verify(const sim_call *call, const nhood_sched *scheds, int sabotage, char *problem,
                            size_t problemlen) {
  sim_verdict verdict = SIM_WRONG;
  exec_world w = {.sabotage = sabotage != 0, .problem = problem, .problemlen = problemlen};
  nhood_exec *execs = malloc((size_t)(call->nranks > 0 ? call->nranks : 1) * sizeof *execs);
  rank_port *ports = malloc((size_t)(call->nranks > 0 ? call->nranks : 1) * sizeof *ports);
  problem[0] = '\0';
  if (execs == NULL || ports == NULL || world_init(&w, call, scheds) != 0) {
    report(&w, "out of memory for the buffers of %d rank%s (try --no-verify)", call->nranks, cli_plural(call->nranks));
    verdict = SIM_CANNOT_RUN;
    goto cleanup;
  }
  if (run_ranks(&w, execs, ports) != 0) goto cleanup;
  if (report_leftover(&w) != 0) goto cleanup;
  for (int r = 0; r < call->nranks; r++)
    if (check_rank(&w, r) != 0) goto cleanup;
  verdict = SIM_VERIFIED;
cleanup:
  world_free(&w);
  free(execs);
  free(ports);
  return verdict;
}
