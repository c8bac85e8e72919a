#include "selection/cold.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selection/cost.h"
#include "selection/select.h" /* nhood_size_class */

/* The parameters of the last few communicator sizes: finding them reads files (the CPU count,
 * nhood-calibrate's file), tens of microseconds that a communicator's first asking should not
 * pay again. */
#define CACHED_SIZES 8
static struct {
  int size;
  nhood_cost_params params;
} cached[CACHED_SIZES];
static int ncached;
static long cpus;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

int nhood_cold_params(int size, nhood_cost_params *out) {
  int rc = MPI_SUCCESS, found = 0;
  pthread_mutex_lock(&cache_lock);
  for (int k = 0; k < ncached && !found; k++)
    if (cached[k].size == size) *out = cached[k].params, found = 1;
  if (!found) {
    if (cpus == 0) cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* One node holding `size` processes: its own calibration where there is one, else the
     * rules for f processes per CPU. The verdict depends on a ratio of the two estimates,
     * which the placement scales alike. */
    nhood_placement one_node = {.known = 1, .one_node = 1, .node_procs = size, .cpus = cpus > 0 ? (int)cpus : 1};
    rc = nhood_cost_params_for(&one_node, size, out);
    if (rc == MPI_SUCCESS) {
      int k = ncached < CACHED_SIZES ? ncached++ : size % CACHED_SIZES;
      cached[k].size = size;
      cached[k].params = *out;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  return rc;
}

/* Messages to other processes among n listed neighbors (self and MPI_PROC_NULL cost none),
 * and how many distinct processes they go to. */
static void remote(const int *ranks, int n, int me, int *messages, int *distinct) {
  *messages = *distinct = 0;
  for (int j = 0; j < n; j++) {
    if (ranks[j] == me || ranks[j] < 0) continue;
    int seen = 0;
    for (int i = 0; i < j && !seen; i++) seen = ranks[i] == ranks[j];
    *messages += 1;
    *distinct += !seen;
  }
}

static double one_round(const nhood_cost_params *p, int sends, int recvs, double sent, double received, double bytes) {
  int rdv = nhood_cost_is_rendezvous(p, bytes);
  nhood_cost_round_load load = {.sends = sends,
                                .recvs = recvs,
                                .sent = sent,
                                .received = received,
                                .sends_rdv = rdv ? sends : 0,
                                .recvs_rdv = rdv ? recvs : 0};
  return nhood_cost_round(p, &load);
}

/* The set-up is p->setup allreduces (*per each) and Phase 1's neighbor rounds (*fixed). */
static void setup_terms(const nhood_cost_params *p, int size, int sends, int recvs, double *per, double *fixed) {
  int levels = 0;
  while ((1 << levels) < size) levels++;
  *per = levels * one_round(p, 1, 1, 16, 16, 16);
  *fixed = 4 * one_round(p, sends, recvs, 16.0 * sends, 16.0 * recvs, 16);
}

double nhood_cold_setup_allreduces(const nhood_cost_params *p, int size, int sends, int recvs, double measured_us) {
  double per = 0, fixed = 0;
  setup_terms(p, size, sends, recvs, &per, &fixed);
  return per > 0 ? fmax(1, (measured_us - fixed) / per) : 1;
}

void nhood_cold_estimate(NHOOD_Topo topo, int me, int size, const nhood_cost_params *p, nhood_coll_kind kind,
                         double block_bytes, double *setup, double *gain) {
  int sends = 0, to = 0, recvs = 0, from = 0;
  double per = 0, fixed = 0;
  remote(topo->destinations, topo->outdegree, me, &sends, &to);
  remote(topo->sources, topo->indegree, me, &recvs, &from);
  setup_terms(p, size, sends, recvs, &per, &fixed);
  double b = block_bytes > 0 ? block_bytes : 0;
  *setup = p->setup * per + fixed;
  double direct = one_round(p, sends, recvs, sends * b, recvs * b, b);
  /* The floor: blocks for the same neighbor merged into one message in one round, or, for
   * fewer messages than neighbors, forwarding, which takes two rounds of one message each way
   * at least. An allgather's block leaves once and arrives once per distinct source; every
   * block of the other collectives moves. */
  int gathers = kind == NHOOD_ALLGATHER || kind == NHOOD_ALLGATHERV || kind == NHOOD_REDUCE;
  double out = gathers ? (sends > 0) * b : sends * b, in = (gathers ? from : recvs) * b;
  double merged = one_round(p, to, from, gathers ? to * b : out, in, b);
  double forwarded = 2 * one_round(p, sends > 0, recvs > 0, out, in, fmax(out, in));
  double floor = fmin(merged, to + from > 2 ? forwarded : merged);
  *gain = fmax(0, p->mpi_factor * direct - floor);
}

void nhood_cold_verdict(double setup, double gain, long calls, long *next, int *take_over) {
  if (!(gain > 0)) {
    *take_over = 0;
    *next = calls < 1 ? 4 : 4 * calls;
    return;
  }
  /* Ski rental: the calls made so far forecast as many to come; nhood takes over once they
   * pay for the set-up. */
  double even = ceil(setup / gain);
  *take_over = 1;
  *next = even <= (double)calls ? calls : even < 1e15 ? (long)even : (long)1e15;
}

long nhood_cold_take_over_call(long asked, long next, long first_check) {
  long window = first_check < NHOOD_COLD_PROBE_WINDOW ? first_check : NHOOD_COLD_PROBE_WINDOW;
  return next < asked + window ? asked + window : next;
}

/* The shapes where nhood was measured losing (nhood_cold_record_loss), oldest overwritten. */
#define LOSSES 32
typedef struct {
  int size, kind, size_class, messages;
} shape;
static shape losses[LOSSES];
static int nlosses;
static pthread_mutex_t losses_lock = PTHREAD_MUTEX_INITIALIZER;

static shape shape_of(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes) {
  int sends = 0, to = 0;
  remote(topo->destinations, topo->outdegree, me, &sends, &to);
  return (shape){.size = size, .kind = kind, .size_class = nhood_size_class(block_bytes), .messages = sends};
}

void nhood_cold_record_loss(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes) {
  shape s = shape_of(topo, me, size, kind, block_bytes);
  pthread_mutex_lock(&losses_lock);
  losses[nlosses++ % LOSSES] = s;
  pthread_mutex_unlock(&losses_lock);
}

int nhood_cold_lost_before(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes) {
  shape s = shape_of(topo, me, size, kind, block_bytes);
  int found = 0;
  pthread_mutex_lock(&losses_lock);
  for (int k = 0; k < nlosses && k < LOSSES && !found; k++)
    found = losses[k].size == s.size && losses[k].kind == s.kind && losses[k].size_class == s.size_class &&
            losses[k].messages == s.messages;
  pthread_mutex_unlock(&losses_lock);
  return found;
}
