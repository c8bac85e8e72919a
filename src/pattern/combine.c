/*
 * Phase 1 of common-neighborhood combining as a bulk-synchronous program (see combine.h).
 *
 * Every combining step is a fixed cycle of supersteps, the same on every rank:
 *   SAMPLE      apply the previous step's notifications; stop if that step paired nobody;
 *               each target sends each of its sources a sample of its other sources
 *   CANDIDATES  estimate overlaps from the samples; send the destination list to the best
 *   OVERLAP     intersect the lists received with one's own; reply with the common set
 *   MATCH x R   locally dominant matching over the exact common sets
 *   NOTIFY      pairs split their common set; each tells its half of the targets
 * All messages start with their kind. Ties are broken by rank everywhere, so the program is
 * deterministic and both drivers compute the same pattern.
 */
#include "pattern/combine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/bsp_drivers.h"
#include "topology/topology.h"

enum { MSG_SAMPLE = 1, MSG_LIST, MSG_OVERLAP, MSG_PROPOSE, MSG_TAKEN, MSG_NOTIFY };
enum { PHASE_SAMPLE, PHASE_CANDIDATES, PHASE_OVERLAP, PHASE_MATCH };

void nhood_combine_params_default(nhood_combine_params *p) {
  *p = (nhood_combine_params){.theta = 4, .sample_size = 16, .candidates = 4, .max_steps = 8,
                              .matching_rounds = 8, .seed = 0x6e686f6f64ULL};
}

/* A process with which this one shares an exactly known set of destinations. */
typedef struct {
  int partner;
  int ncommon;
  int *common; /* sorted */
} contact;

typedef struct {
  int rank;
  nhood_combine_params params;
  int *dests, ndests;     /* sorted; combinable edges still sent directly */
  int *sources, nsources; /* sorted; combinable edges still received directly */
  contact *contacts;
  int ncontacts, contacts_capacity;
  int proposed_to;        /* -1: none */
  int matched;            /* index into contacts, -1: none */
  int pairs_capacity, incoming_capacity;
  nhood_combine_pattern pattern;
} state;

static int cycle_length(const nhood_combine_params *p) { return PHASE_MATCH + p->matching_rounds + 1; }

/* ---- sorted int sets ------------------------------------------------------------------ */

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int intersect(const int *a, int na, const int *b, int nb, int *out) {
  int i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else out[n++] = a[i++], j++;
  }
  return n;
}

/* Removes from set (sorted) every element of drop (sorted); returns the new size. */
static int subtract(int *set, int n, const int *drop, int ndrop) {
  int kept = 0, j = 0;
  for (int i = 0; i < n; i++) {
    while (j < ndrop && drop[j] < set[i]) j++;
    if (j < ndrop && drop[j] == set[i]) continue;
    set[kept++] = set[i];
  }
  return kept;
}

static int remove_one(int *set, int n, int value) {
  const int *hit = bsearch(&value, set, (size_t)n, sizeof(int), compare_ints);
  if (!hit) return n;
  size_t at = (size_t)(hit - set);
  memmove(set + at, set + at + 1, sizeof(int) * ((size_t)n - at - 1));
  return n - 1;
}

/* Ranks listed exactly once, other than self and MPI_PROC_NULL, sorted. */
static int single_edges(const int *ranks, int n, int self, int **out, int *nout) {
  int *sorted = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!sorted) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for %d neighbors", n);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (ranks[i] != self && ranks[i] != MPI_PROC_NULL) sorted[m++] = ranks[i];
  qsort(sorted, (size_t)m, sizeof(int), compare_ints);
  int kept = 0;
  for (int i = 0; i < m;) {
    int j = i;
    while (j < m && sorted[j] == sorted[i]) j++;
    if (j - i == 1) sorted[kept++] = sorted[i];
    i = j;
  }
  *out = sorted;
  *nout = kept;
  return MPI_SUCCESS;
}

/* ---- state ------------------------------------------------------------------------------ */

static void clear_contacts(state *s) {
  for (int k = 0; k < s->ncontacts; k++) free(s->contacts[k].common);
  s->ncontacts = 0;
  s->proposed_to = -1;
  s->matched = -1;
}

static int add_contact(state *s, int partner, const int *common, int n) {
  for (int k = 0; k < s->ncontacts; k++)
    if (s->contacts[k].partner == partner) return MPI_SUCCESS; /* both asked each other */
  if (s->ncontacts == s->contacts_capacity) {
    int capacity = s->contacts_capacity ? 2 * s->contacts_capacity : 8;
    contact *bigger = realloc(s->contacts, sizeof *bigger * (size_t)capacity);
    if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for contacts");
    s->contacts = bigger;
    s->contacts_capacity = capacity;
  }
  int *copy = malloc(sizeof(int) * (size_t)n);
  if (!copy) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for a common set of %d", n);
  memcpy(copy, common, sizeof(int) * (size_t)n);
  s->contacts[s->ncontacts++] = (contact){partner, n, copy};
  return MPI_SUCCESS;
}

static int init_state(state *s, int rank, NHOOD_Topo topo, const nhood_combine_params *params) {
  memset(s, 0, sizeof *s);
  s->rank = rank;
  s->params = *params;
  s->proposed_to = s->matched = -1;
  int rc = single_edges(topo->destinations, topo->outdegree, rank, &s->dests, &s->ndests);
  if (rc == MPI_SUCCESS) rc = single_edges(topo->sources, topo->indegree, rank, &s->sources, &s->nsources);
  return rc;
}

static void free_state(state *s) {
  clear_contacts(s);
  free(s->contacts);
  free(s->dests);
  free(s->sources);
}

/* ---- the supersteps --------------------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

typedef struct {
  uint64_t key;
  int rank;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Applies the previous step's notifications; then, as a target, reports a sample of its
 * sources to each of them: sample_size consecutive ones (the receiver itself skipped) in an
 * order shuffled by a hash, from a start that depends on the receiver and the step. */
static int phase_sample(state *s, int step, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, *sample = NULL;
  keyed *order = NULL;
  for (int k = 0; k < in->nmessages; k++) {
    const nhood_bsp_message *m = &in->messages[k];
    if (m->data[0] != MSG_NOTIFY) continue;
    nhood_combine_pattern *p = &s->pattern;
    if (p->nincoming == s->incoming_capacity) {
      int capacity = s->incoming_capacity ? 2 * s->incoming_capacity : 8;
      nhood_combine_incoming *bigger = realloc(p->incoming, sizeof *bigger * (size_t)capacity);
      if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for notifications");
      p->incoming = bigger;
      s->incoming_capacity = capacity;
    }
    p->incoming[p->nincoming++] = (nhood_combine_incoming){m->source, m->data[1]};
    s->nsources = remove_one(s->sources, s->nsources, m->source);
    s->nsources = remove_one(s->sources, s->nsources, m->data[1]);
  }
  clear_contacts(s);
  if ((step > 0 && !in->any_vote) || step >= s->params.max_steps) {
    out->done = 1; /* the previous step paired nobody anywhere (or enough steps ran) */
    s->pattern.steps = step;
    return MPI_SUCCESS;
  }
  if (s->nsources < 2) return MPI_SUCCESS;
  int c = s->params.sample_size, n = s->nsources;
  order = malloc(sizeof *order * (size_t)n);
  if (!order) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory sampling %d sources", n);
  for (int i = 0; i < n; i++)
    order[i] = (keyed){mix(s->params.seed ^ mix(((uint64_t)(unsigned)step << 40) ^ ((uint64_t)(unsigned)s->rank << 20) ^
                                                (uint64_t)(unsigned)s->sources[i])),
                       s->sources[i]};
  qsort(order, (size_t)n, sizeof *order, by_key);
  sample = malloc(sizeof(int) * (size_t)(3 + c));
  if (!sample) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for samples");
    goto cleanup;
  }
  sample[0] = MSG_SAMPLE;
  sample[1] = n - 1; /* how many other sources the sample stands for */
  for (int i = 0; i < n; i++) {
    /* Each receiver gets its own window of the shuffled sources: the same sample for all
     * would give every process the same estimates, and all would ask the same few. */
    int receiver = s->sources[i], k = 0;
    int start = (int)(mix(s->params.seed ^ ((uint64_t)(unsigned)receiver << 20) ^ (uint64_t)(unsigned)step) %
                      (uint64_t)n);
    for (int j = 0; j < n && k < c; j++) {
      int q = order[(start + j) % n].rank;
      if (q != receiver) sample[3 + k++] = q;
    }
    sample[2] = k;
    NHOOD_TRY(nhood_bsp_send(out, receiver, sample, 3 + k));
  }
cleanup:
  free(order);
  free(sample);
  return rc;
}

typedef struct {
  int rank;
  double weight;
  uint64_t tiebreak; /* spreads equal estimates (dense or regular graphs) over candidates */
} estimate;


static int by_weight_desc(const void *a, const void *b) {
  const estimate *x = a, *y = b;
  if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
  if (x->tiebreak != y->tiebreak) return x->tiebreak < y->tiebreak ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A pseudo-random but reproducible order among equals, different per step and process. */
static uint64_t tiebreak(const state *s, int step, int other) {
  return mix(s->params.seed ^ mix(((uint64_t)(unsigned)step << 42) ^ ((uint64_t)(unsigned)s->rank << 21) ^
                                  (uint64_t)(unsigned)other));
}

/* Inserts weight for rank into an open-addressing table (capacity a power of two, keys -1
 * when free): linear in the number of samples, where sorting them dominated Phase 1. */
static void accumulate(estimate *table, size_t capacity, int rank, double weight) {
  size_t i = (size_t)mix((uint64_t)(unsigned)rank) & (capacity - 1);
  while (table[i].rank != -1 && table[i].rank != rank) i = (i + 1) & (capacity - 1);
  table[i].rank = rank;
  table[i].weight += weight;
}

/* Estimates, from its targets' samples, how many destinations each other process shares with
 * this one (each reported rank stands for others/reported ranks of that target's sources),
 * and sends its destination list to the best few. */
static int phase_candidates(state *s, int step, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, total = 0, F = s->params.candidates, nbest = 0;
  for (int k = 0; k < in->nmessages; k++) total += in->messages[k].data[0] == MSG_SAMPLE ? in->messages[k].data[2] : 0;
  size_t capacity = 16;
  while (capacity < 2 * (size_t)total) capacity *= 2;
  estimate *table = malloc(sizeof *table * capacity), *best = malloc(sizeof *best * (size_t)(F + 1));
  if (!table || !best) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for %d estimates", total);
    goto cleanup;
  }
  for (size_t i = 0; i < capacity; i++) table[i] = (estimate){-1, 0, 0};
  for (int k = 0; k < in->nmessages; k++) {
    const int *d = in->messages[k].data;
    if (d[0] != MSG_SAMPLE || d[2] == 0) continue;
    double weight = (double)d[1] / d[2];
    for (int j = 0; j < d[2]; j++)
      if (d[3 + j] != s->rank) accumulate(table, capacity, d[3 + j], weight);
  }
  /* The F best, kept sorted by insertion (F is small). */
  for (size_t i = 0; i < capacity; i++) {
    if (table[i].rank == -1) continue;
    estimate e = table[i];
    e.tiebreak = tiebreak(s, step, e.rank);
    int at = nbest < F ? nbest++ : F;
    while (at > 0 && by_weight_desc(&e, &best[at - 1]) < 0) {
      if (at < F) best[at] = best[at - 1];
      at--;
    }
    if (at < F) best[at] = e;
  }
  /* Estimates are noisy: ask anyone who may reach theta. */
  for (int i = 0; i < nbest && best[i].weight >= s->params.theta / 2.0; i++) {
    int *msg = nhood_bsp_send_reserve(out, best[i].rank, 3 + s->ndests);
    if (!msg) {
      rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for destination lists");
      break;
    }
    msg[0] = MSG_LIST;
    msg[1] = best[i].weight > 1e9 ? 1000000000 : (int)(best[i].weight + 0.5);
    msg[2] = s->ndests;
    memcpy(msg + 3, s->dests, sizeof(int) * (size_t)s->ndests);
  }
cleanup:
  free(table);
  free(best);
  return rc;
}

typedef struct {
  const nhood_bsp_message *m;
  uint64_t tiebreak;
} request_ref;

static int by_request_weight(const void *a, const void *b) {
  const request_ref *x = a, *y = b;
  if (x->m->data[1] != y->m->data[1]) return x->m->data[1] > y->m->data[1] ? -1 : 1;
  if (x->tiebreak != y->tiebreak) return x->tiebreak < y->tiebreak ? -1 : 1;
  return (x->m->source > y->m->source) - (x->m->source < y->m->source);
}

/* Intersects the destination lists received (the 2*candidates most promising) with its own;
 * pairs reaching theta become contacts on both sides: the common set goes back. */
static int phase_overlap(state *s, int step, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, nrequests = 0;
  request_ref *requests = malloc(sizeof *requests * (size_t)(in->nmessages ? in->nmessages : 1));
  int *common = malloc(sizeof(int) * (size_t)(s->ndests ? s->ndests : 1));
  if (!requests || !common) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory intersecting lists");
    goto cleanup;
  }
  for (int k = 0; k < in->nmessages; k++)
    if (in->messages[k].data[0] == MSG_LIST)
      requests[nrequests++] = (request_ref){&in->messages[k], tiebreak(s, step, in->messages[k].source)};
  qsort(requests, (size_t)nrequests, sizeof *requests, by_request_weight);
  for (int k = 0; k < nrequests && k < 2 * s->params.candidates; k++) {
    const nhood_bsp_message *m = requests[k].m;
    int n = intersect(m->data + 3, m->data[2], s->dests, s->ndests, common);
    if (n < s->params.theta) continue;
    NHOOD_TRY(add_contact(s, m->source, common, n));
    int *msg = nhood_bsp_send_reserve(out, m->source, 2 + n);
    if (!msg) {
      rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for common sets");
      goto cleanup;
    }
    msg[0] = MSG_OVERLAP;
    msg[1] = n;
    memcpy(msg + 2, common, sizeof(int) * (size_t)n);
  }
cleanup:
  free(requests);
  free(common);
  return rc;
}

/* Heavier common set first; equal ones in an order both ends of each pair compute alike (a
 * hash of the pair), random enough that matching converges in a few rounds even when all
 * weights are equal (dense or regular graphs). */
static uint64_t pair_key(const state *s, int partner) {
  uint64_t lo = (uint64_t)(unsigned)(partner < s->rank ? partner : s->rank);
  uint64_t hi = (uint64_t)(unsigned)(partner < s->rank ? s->rank : partner);
  return mix(s->params.seed ^ mix((lo << 32) | hi));
}

static int heavier(const state *s, const contact *a, const contact *b) {
  if (a->ncommon != b->ncommon) return a->ncommon > b->ncommon;
  uint64_t ka = pair_key(s, a->partner), kb = pair_key(s, b->partner);
  if (ka != kb) return ka < kb;
  return a->partner < b->partner;
}

/* One matching superstep: pair with the process proposed to if it proposed back; else drop
 * the contacts that were taken and propose to the heaviest remaining one. */
static int phase_match(state *s, int round, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS;
  for (int k = 0; k < in->nmessages; k++) { /* exact sets computed by the other side */
    const int *d = in->messages[k].data;
    if (d[0] == MSG_OVERLAP) NHOOD_TRY(add_contact(s, in->messages[k].source, d + 2, d[1]));
  }
  if (s->matched >= 0) return MPI_SUCCESS;
  for (int k = 0; k < in->nmessages && s->proposed_to >= 0; k++)
    if (in->messages[k].data[0] == MSG_PROPOSE && in->messages[k].source == s->proposed_to) {
      for (int c = 0; c < s->ncontacts; c++)
        if (s->contacts[c].partner == s->proposed_to) s->matched = c;
      for (int c = 0; c < s->ncontacts; c++) {
        int taken = MSG_TAKEN;
        if (c != s->matched) NHOOD_TRY(nhood_bsp_send(out, s->contacts[c].partner, &taken, 1));
      }
      return MPI_SUCCESS;
    }
  for (int k = 0; k < in->nmessages; k++) { /* those that paired elsewhere */
    if (in->messages[k].data[0] != MSG_TAKEN) continue;
    for (int c = 0; c < s->ncontacts; c++)
      if (s->contacts[c].partner == in->messages[k].source) s->contacts[c].ncommon = -1;
  }
  s->proposed_to = -1;
  if (round == s->params.matching_rounds - 1) return MPI_SUCCESS; /* the last one only answers */
  const contact *best = NULL;
  for (int c = 0; c < s->ncontacts; c++)
    if (s->contacts[c].ncommon >= s->params.theta && (!best || heavier(s, &s->contacts[c], best)))
      best = &s->contacts[c];
  if (best) {
    int propose = MSG_PROPOSE;
    s->proposed_to = best->partner;
    NHOOD_TRY(nhood_bsp_send(out, best->partner, &propose, 1));
  }
cleanup:
  return rc;
}

/* A pair splits its sorted common set (the lower rank serves the first half), tells its
 * targets, and stops sending to all of them directly. */
static int phase_notify(state *s, int step, nhood_bsp_outbox *out) {
  if (s->matched < 0) return MPI_SUCCESS;
  const contact *c = &s->contacts[s->matched];
  int half = (c->ncommon + 1) / 2, lower = s->rank < c->partner;
  nhood_combine_pattern *p = &s->pattern;
  if (p->npairs == s->pairs_capacity) {
    int capacity = s->pairs_capacity ? 2 * s->pairs_capacity : 4;
    nhood_combine_pair *bigger = realloc(p->pairs, sizeof *bigger * (size_t)capacity);
    if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for pairs");
    p->pairs = bigger;
    s->pairs_capacity = capacity;
  }
  nhood_combine_pair pair = {.partner = c->partner, .step = step};
  pair.nmine = lower ? half : c->ncommon - half;
  pair.ntheirs = c->ncommon - pair.nmine;
  pair.mine = malloc(sizeof(int) * (size_t)(c->ncommon ? c->ncommon : 1));
  if (!pair.mine) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for a pair");
  pair.theirs = pair.mine + pair.nmine;
  memcpy(pair.mine, c->common + (lower ? 0 : half), sizeof(int) * (size_t)pair.nmine);
  memcpy(pair.theirs, c->common + (lower ? half : 0), sizeof(int) * (size_t)pair.ntheirs);
  p->pairs[p->npairs++] = pair;
  for (int k = 0; k < pair.nmine; k++) {
    int msg[2] = {MSG_NOTIFY, c->partner};
    int rc = nhood_bsp_send(out, pair.mine[k], msg, 2);
    if (rc != MPI_SUCCESS) return rc;
  }
  s->ndests = subtract(s->dests, s->ndests, c->common, c->ncommon);
  out->vote = 1;
  return MPI_SUCCESS;
}

static int combine_step(void *st, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  state *s = st;
  int cycle = cycle_length(&s->params), step = in->superstep / cycle, phase = in->superstep % cycle;
  if (phase == PHASE_SAMPLE) return phase_sample(s, step, in, out);
  if (phase == PHASE_CANDIDATES) return phase_candidates(s, step, in, out);
  if (phase == PHASE_OVERLAP) return phase_overlap(s, step, in, out);
  if (phase < PHASE_MATCH + s->params.matching_rounds) return phase_match(s, phase - PHASE_MATCH, in, out);
  return phase_notify(s, step, out);
}

/* ---- drivers ---------------------------------------------------------------------------- */

void nhood_combine_pattern_free(nhood_combine_pattern *p) {
  for (int k = 0; k < p->npairs; k++) free(p->pairs[k].mine); /* theirs shares the block */
  free(p->pairs);
  free(p->incoming);
  memset(p, 0, sizeof *p);
}

static int max_supersteps(const nhood_combine_params *p) { return cycle_length(p) * (p->max_steps + 1) + 1; }

static int check_params(const nhood_combine_params *p) {
  if (p->theta < 1 || p->sample_size < 1 || p->candidates < 1 || p->max_steps < 0 || p->matching_rounds < 2)
    return nhood_error(MPI_ERR_ARG, "combining parameters out of range (theta %d, sample %d, candidates %d, steps %d, rounds %d)",
                       p->theta, p->sample_size, p->candidates, p->max_steps, p->matching_rounds);
  return MPI_SUCCESS;
}

int nhood_combine_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_combine_params *params,
                            nhood_combine_pattern *pattern, nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, rank = 0;
  state s;
  memset(&s, 0, sizeof s);
  NHOOD_TRY(check_params(params));
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
  NHOOD_TRY(init_state(&s, rank, topo, params));
  NHOOD_TRY(nhood_bsp_run_mpi(comm, tag, &s, combine_step, max_supersteps(params), stats));
  *pattern = s.pattern;
  memset(&s.pattern, 0, sizeof s.pattern);
cleanup:
  nhood_combine_pattern_free(&s.pattern);
  free_state(&s);
  return rc;
}

int nhood_combine_build_local(int nranks, const NHOOD_Topo topos[], const nhood_combine_params *params,
                              nhood_combine_pattern patterns[], nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, initialized = 0;
  state *states = calloc((size_t)nranks, sizeof *states);
  void **pointers = malloc(sizeof(void *) * (size_t)nranks);
  if (!states || !pointers) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for %d virtual ranks", nranks);
    goto cleanup;
  }
  NHOOD_TRY(check_params(params));
  for (; initialized < nranks; initialized++) {
    NHOOD_TRY(init_state(&states[initialized], initialized, topos[initialized], params));
    pointers[initialized] = &states[initialized];
  }
  NHOOD_TRY(nhood_bsp_run_local(nranks, pointers, combine_step, max_supersteps(params), stats));
  for (int r = 0; r < nranks; r++) {
    patterns[r] = states[r].pattern;
    memset(&states[r].pattern, 0, sizeof states[r].pattern);
  }
cleanup:
  for (int r = 0; r < initialized; r++) {
    nhood_combine_pattern_free(&states[r].pattern);
    free_state(&states[r]);
  }
  free(states);
  free(pointers);
  return rc;
}
