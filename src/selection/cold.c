#include "selection/cold.h"

#include <limits.h>
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

/* This process's messages to other processes and the distinct processes they go to, each way. */
typedef struct {
  int sends, to, recvs, from;
} cold_counts;

static cold_counts counts_of(NHOOD_Topo topo, int me) {
  cold_counts n;
  remote(topo->destinations, topo->outdegree, me, &n.sends, &n.to);
  remote(topo->sources, topo->indegree, me, &n.recvs, &n.from);
  return n;
}

/* The largest gain of one call with blocks of b, gathered (an allgather's: sent once) or not. */
static double gain_at(const nhood_cost_params *p, const cold_counts *n, int gathers, double b) {
  double direct = one_round(p, n->sends, n->recvs, n->sends * b, n->recvs * b, b);
  /* The floor: blocks for the same neighbor merged into one message in one round, or, for
   * fewer messages than neighbors, forwarding, which takes two rounds of one message each way
   * at least. An allgather's block leaves once and arrives once per distinct source; every
   * block of the other collectives moves. */
  double out = gathers ? (n->sends > 0) * b : n->sends * b, in = (gathers ? n->from : n->recvs) * b;
  double merged = one_round(p, n->to, n->from, gathers ? n->to * b : out, in, b);
  double forwarded = 2 * one_round(p, n->sends > 0, n->recvs > 0, out, in, fmax(out, in));
  double floor = fmin(merged, n->to + n->from > 2 ? forwarded : merged);
  return fmax(0, p->mpi_factor * direct - floor);
}

void nhood_cold_estimate(NHOOD_Topo topo, int me, int size, const nhood_cost_params *p, nhood_coll_kind kind,
                         double block_bytes, double *setup, double *gain) {
  cold_counts n = counts_of(topo, me);
  double per = 0, fixed = 0;
  setup_terms(p, size, n.sends, n.recvs, &per, &fixed);
  *setup = p->setup * per + fixed;
  int gathers = kind == NHOOD_ALLGATHER || kind == NHOOD_ALLGATHERV || kind == NHOOD_REDUCE;
  *gain = gain_at(p, &n, gathers, block_bytes > 0 ? block_bytes : 0);
}

/* The last few answers of nhood_cold_any_gain, by counts and parameters: pricing every size
 * class is costly next to a short-lived communicator's life, and a program that creates
 * communicators of one shape asks the same question about each. */
#define ANY_GAINS 8
static struct {
  cold_counts n;
  nhood_cost_params params;
  double gain;
} any_gains[ANY_GAINS];
static int nany_gains;
static pthread_mutex_t any_gains_lock = PTHREAD_MUTEX_INITIALIZER;

double nhood_cold_any_gain(NHOOD_Topo topo, int me, const nhood_cost_params *p) {
  cold_counts n = counts_of(topo, me);
  /* Without duplicate neighbors merging changes nothing, and with at most one neighbor each
   * way nothing is forwarded: MPI's own is the floor of every call (at mpi_factor <= 1). */
  if (n.to == n.sends && n.from == n.recvs && n.to + n.from <= 2 && p->mpi_factor <= 1) return 0;
  pthread_mutex_lock(&any_gains_lock);
  for (int k = 0; k < nany_gains && k < ANY_GAINS; k++)
    if (memcmp(&any_gains[k].n, &n, sizeof n) == 0 && memcmp(&any_gains[k].params, p, sizeof *p) == 0) {
      double gain = any_gains[k].gain;
      pthread_mutex_unlock(&any_gains_lock);
      return gain;
    }
  pthread_mutex_unlock(&any_gains_lock);
  /* Else the gain at every other size class, gathered or not (the gain changes slowly with
   * size). */
  double best = 0;
  for (int gathers = 0; gathers < 2; gathers++)
    for (int cls = 0; cls < NHOOD_SIZE_CLASSES; cls += 2)
      best = fmax(best, gain_at(p, &n, gathers, nhood_size_class_bytes(cls)));
  pthread_mutex_lock(&any_gains_lock);
  int k = nany_gains++ % ANY_GAINS;
  any_gains[k].n = n;
  any_gains[k].params = *p;
  any_gains[k].gain = best;
  pthread_mutex_unlock(&any_gains_lock);
  return best;
}

int nhood_cold_known_idle(NHOOD_Topo topo, int me, int size) {
  if (size > 2) return 0;
  cold_counts n = counts_of(topo, me);
  return n.sends <= 1 && n.recvs <= 1;
}

void nhood_cold_verdict(double setup, double gain, double any_gain, long calls, long life, long *next, int *take_over) {
  if (!(gain > 0)) {
    *take_over = 0;
    *next = !(any_gain > 0) ? LONG_MAX : calls < 1 ? 4 : 4 * calls;
    return;
  }
  *take_over = 1;
  /* The last life of this shape forecasts the calls left: where they pay for the set-up,
   * nhood takes over now. */
  if (life > calls && (double)(life - calls) * gain >= setup) {
    *next = calls;
    return;
  }
  /* Else ski rental: the calls made so far forecast as many to come; nhood takes over once
   * they pay for the set-up. */
  double even = ceil(setup / gain);
  *next = even <= (double)calls ? calls : even < 1e15 ? (long)even : (long)1e15;
}

long nhood_cold_probe_window(long first_check) {
  return first_check < NHOOD_COLD_PROBE_WINDOW ? first_check : NHOOD_COLD_PROBE_WINDOW;
}

long nhood_cold_take_over_call(long asked, long next, long first_check) {
  long soonest = asked + nhood_cold_probe_window(first_check);
  return next < soonest ? soonest : next;
}

/* What nhood was measured at on communicators of a shape (nhood_cold_record), oldest
 * overwritten; a shape measured again keeps its latest outcome. */
#define OUTCOMES 32
typedef struct {
  int size, kind, size_class, messages;
} shape;
static struct {
  shape shape;
  double setup, gain; /* 0 and NaN where not measured */
  long life;          /* calls of the last communicator of the shape freed; 0: none */
} outcomes[OUTCOMES];
static int noutcomes;
static pthread_mutex_t outcomes_lock = PTHREAD_MUTEX_INITIALIZER;

static shape shape_of(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes) {
  int sends = 0, to = 0;
  remote(topo->destinations, topo->outdegree, me, &sends, &to);
  return (shape){.size = size, .kind = kind, .size_class = nhood_size_class(block_bytes), .messages = sends};
}

static int same_shape(const shape *a, const shape *b) {
  return a->size == b->size && a->kind == b->kind && a->size_class == b->size_class && a->messages == b->messages;
}

/* outcomes[] index of s, or -1; with outcomes_lock held. */
static int find_outcome(const shape *s) {
  for (int k = 0; k < noutcomes && k < OUTCOMES; k++)
    if (same_shape(&outcomes[k].shape, s)) return k;
  return -1;
}

/* The record of s, a new one (nothing measured) where there is none; with outcomes_lock held. */
static int outcome_of(const shape *s) {
  int k = find_outcome(s);
  if (k >= 0) return k;
  k = noutcomes++ % OUTCOMES;
  outcomes[k].shape = *s;
  outcomes[k].setup = 0;
  outcomes[k].gain = NAN;
  outcomes[k].life = 0;
  return k;
}

void nhood_cold_record(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, double setup,
                       double gain) {
  shape s = shape_of(topo, me, size, kind, block_bytes);
  pthread_mutex_lock(&outcomes_lock);
  int k = outcome_of(&s);
  outcomes[k].setup = setup;
  outcomes[k].gain = gain;
  pthread_mutex_unlock(&outcomes_lock);
}

void nhood_cold_record_life(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, long calls) {
  shape s = shape_of(topo, me, size, kind, block_bytes);
  pthread_mutex_lock(&outcomes_lock);
  outcomes[outcome_of(&s)].life = calls;
  pthread_mutex_unlock(&outcomes_lock);
}

int nhood_cold_recorded(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, double *setup,
                        double *gain, long *life) {
  shape s = shape_of(topo, me, size, kind, block_bytes);
  pthread_mutex_lock(&outcomes_lock);
  int k = find_outcome(&s);
  if (k >= 0) *setup = outcomes[k].setup, *gain = outcomes[k].gain, *life = outcomes[k].life;
  pthread_mutex_unlock(&outcomes_lock);
  return k >= 0;
}
