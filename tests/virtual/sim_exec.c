#include "sim_exec.h"

#include "blockdata.h"
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "sim_net.h"
#include "topology/topology.h"

/* Receive buffers start out with this byte everywhere: blocks of MPI_PROC_NULL sources must
 * keep it, and a block nobody wrote shows it. */
#define SENTINEL 0xA5

/* One run of the exact-delivery check: the transport and every rank's buffers. */
typedef struct exec_world {
  const sim_call *call;
  const nhood_sched *scheds;
  sim_net net;
  /* Per rank offsets into the three areas that hold every rank's buffers. */
  size_t *send_offset, *recv_offset, *scratch_offset;
  unsigned char *send_area, *recv_area, *scratch_area;
  int *seen;               /* per rank: occurrences counted so far (kept all zero between uses) */
  unsigned char *expected; /* the largest buffer of any rank, for reference contents */
} exec_world;

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
      sim_net_report(&w->net, "rank %d: receive block %d (from MPI_PROC_NULL) was written: byte %zu is 0x%02x", r, i,
                     at - (size_t)block.offset, got[at]);
    else
      sim_net_report(&w->net,
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
    sim_net_report(&w->net, "rank %d: its send buffer changed at byte %zu", r, at);
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

/* Allocates every buffer of the run and the transport; 1 when memory runs out. */
static int world_init(exec_world *w, const sim_call *call, const nhood_sched *scheds, char *problem,
                      size_t problemlen) {
  int n = call->nranks;
  w->call = call;
  w->scheds = scheds;
  if (sim_net_init(&w->net, n, scheds, problem, problemlen) != 0) return 1;
  w->send_offset = pack_offsets(n, call->sendlen);
  w->recv_offset = pack_offsets(n, call->recvlen);
  w->scratch_offset = malloc(((size_t)n + 1) * sizeof *w->scratch_offset);
  w->seen = calloc((size_t)n, sizeof *w->seen);
  if (!w->send_offset || !w->recv_offset || !w->scratch_offset || !w->seen) return 1;
  size_t largest = 1;
  w->scratch_offset[0] = 0;
  for (int r = 0; r < n; r++) {
    largest = call->sendlen[r] > largest ? call->sendlen[r] : largest;
    largest = call->recvlen[r] > largest ? call->recvlen[r] : largest;
    w->scratch_offset[r + 1] = w->scratch_offset[r] + (size_t)scheds[r].scratch_bytes;
  }
  w->send_area = malloc(w->send_offset[n] + 1);
  w->recv_area = malloc(w->recv_offset[n] + 1);
  w->scratch_area = malloc(w->scratch_offset[n] + 1);
  w->expected = malloc(largest);
  if (!w->send_area || !w->recv_area || !w->scratch_area || !w->expected) return 1;
  for (int r = 0; r < n; r++) fill_send(w, r, w->send_area + w->send_offset[r]);
  memset(w->recv_area, SENTINEL, w->recv_offset[n]);
  return 0;
}

static void world_free(exec_world *w) {
  sim_net_free(&w->net);
  free(w->send_offset);
  free(w->recv_offset);
  free(w->scratch_offset);
  free(w->send_area);
  free(w->recv_area);
  free(w->scratch_area);
  free(w->seen);
  free(w->expected);
}

int sim_exec_run(int nranks, const nhood_sched *scheds, void *const send[], void *const scratch[], char *problem,
                 size_t problemlen) {
  int rc = 1;
  sim_net net;
  size_t n = (size_t)(nranks > 0 ? nranks : 1);
  nhood_exec *execs = malloc(n * sizeof *execs);
  sim_port *ports = malloc(n * sizeof *ports);
  if (sim_net_init(&net, nranks, scheds, problem, problemlen) != 0) {
    sim_net_report(&net, "out of memory for the mailbox of %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  if (!execs || !ports) {
    sim_net_report(&net, "out of memory for %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++) {
    ports[r] = (sim_port){&net, r};
    nhood_exec_init(&execs[r], &scheds[r], &sim_net_transport, &ports[r], send[r], NULL, scratch[r]);
  }
  if (sim_net_run(&net, execs, 0) == 0 && sim_net_report_leftover(&net) == 0) rc = 0;
cleanup:
  sim_net_free(&net);
  free(execs);
  free(ports);
  return rc;
}

sim_verdict sim_exec_verify(const sim_call *call, const nhood_sched *scheds, int sabotage, char *problem,
                            size_t problemlen) {
  sim_verdict verdict = SIM_WRONG;
  exec_world w = {0};
  size_t n = (size_t)(call->nranks > 0 ? call->nranks : 1);
  nhood_exec *execs = malloc(n * sizeof *execs);
  sim_port *ports = malloc(n * sizeof *ports);
  if (world_init(&w, call, scheds, problem, problemlen) != 0 || execs == NULL || ports == NULL) {
    sim_net_report(&w.net, "out of memory for the buffers of %d rank%s (try --no-verify)", call->nranks,
                   cli_plural(call->nranks));
    verdict = SIM_CANNOT_RUN;
    goto cleanup;
  }
  w.net.sabotage = sabotage != 0;
  for (int r = 0; r < call->nranks; r++) {
    ports[r] = (sim_port){&w.net, r};
    nhood_exec_init(&execs[r], &scheds[r], &sim_net_transport, &ports[r], w.send_area + w.send_offset[r],
                    w.recv_area + w.recv_offset[r], w.scratch_area + w.scratch_offset[r]);
  }
  if (sim_net_run(&w.net, execs, 0) != 0 || sim_net_report_leftover(&w.net) != 0) goto cleanup;
  for (int r = 0; r < call->nranks; r++)
    if (check_rank(&w, r) != 0) goto cleanup;
  verdict = SIM_VERIFIED;
cleanup:
  world_free(&w);
  free(execs);
  free(ports);
  return verdict;
}
