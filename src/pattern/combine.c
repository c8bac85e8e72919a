/*
 * Phase 1 of cumulative message combining as a bulk-synchronous program (see combine.h).
 *
 * Supersteps, the same sequence on every rank (P2 the largest power of two <= P, D = log2 P2,
 * nlevels = D plus one fold level when P > P2):
 *   0 .. nlevels-1   send this level's duty list to the partner; from 1 on, first merge the
 *                    previous level's (so superstep k completes level k-1)
 *   nlevels          complete the last level; every rank now has its cost estimate per depth
 *   + 1 .. D + 2     maximum of the estimates over ranks: fold in, D hypercube exchanges,
 *                    fold out
 *   + D + 3          choose the depth, replay the levels up to it, tell every target what
 *                    it will receive
 *   + D + 4          record what this rank receives; done
 * Every message is a list of records or of doubles; a superstep receives one kind only.
 */
#include "pattern/combine.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/bsp_drivers.h"
#include "pattern/records.h"
#include "topology/topology.h"

void nhood_combine_params_default(nhood_combine_params *p) {
  *p = (nhood_combine_params){.theta = 1, .max_levels = -1, .force_levels = -1, .block_bytes = 8};
  nhood_cost_params_default(&p->cost);
}

void nhood_combine_params_from_env(nhood_combine_params *p) {
  const char *theta = getenv("NHOOD_COMBINE_THETA"), *levels = getenv("NHOOD_COMBINE_LEVELS");
  if (theta && atoi(theta) > 0) p->theta = atoi(theta);
  if (levels && levels[0] >= '0' && levels[0] <= '9') p->force_levels = atoi(levels);
}

static int common_keys(const int *a, int na, const int *b, int nb) {
  int n = 0;
  const int *x = a, *y = b;
  while (x < a + na && y < b + nb) {
    if (x[0] < y[0])
      x += 2 + x[1];
    else if (y[0] < x[0])
      y += 2 + y[1];
    else
      n++, x += 2 + x[1], y += 2 + y[1];
  }
  return n;
}

static long long total_listed(const nhood_records *r) { return r->nwords - 2LL * r->nrecords; }

/* ---- state ---------------------------------------------------------------------------- */

typedef struct {
  int me, P, P2, D, extras, nlevels;
  nhood_combine_params params;
  NHOOD_Topo topo;
  nhood_records duties; /* current, targets ascending */
  int ndirect_send, ndirect_recv;
  nhood_combine_level *levels; /* nlevels, as they ran */
  double exchanged_us;         /* model cost of the exchanges so far */
  double *cost;                /* nlevels + 1: estimate of a call stopped after k levels */
  nhood_combine_pattern pattern;
} state;

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Counts the edges that stay direct and (duties != NULL) builds the initial duties. */
static int initial_duties(state *s, nhood_records *duties) {
  const struct nhood_topo *t = s->topo;
  int n = t->outdegree > t->indegree ? t->outdegree : t->indegree, capacity = 0, rc = MPI_SUCCESS;
  int *sorted = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!sorted) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for a neighbor list");
  memset(duties, 0, sizeof *duties);
  for (int side = 0; side < 2 && rc == MPI_SUCCESS; side++) {
    int count = side ? t->indegree : t->outdegree, direct = 0;
    memcpy(sorted, side ? t->sources : t->destinations, sizeof(int) * (size_t)count);
    qsort(sorted, (size_t)count, sizeof(int), compare_ints);
    for (int i = 0, j; i < count && rc == MPI_SUCCESS; i = j) {
      for (j = i; j < count && sorted[j] == sorted[i];) j++;
      if (nhood_combine_eligible(sorted[i], s->me, j - i)) {
        if (!side) rc = nhood_records_append(duties, &capacity, sorted[i], &s->me, 1, NULL, 0);
      } else if (sorted[i] != MPI_PROC_NULL && sorted[i] != s->me) {
        direct += j - i;
      }
    }
    if (side)
      s->ndirect_recv = direct;
    else
      s->ndirect_send = direct;
  }
  free(sorted);
  if (rc != MPI_SUCCESS) nhood_records_free(duties);
  return rc;
}

/* The bytes of n reference blocks. */
static double reference_bytes(const state *s, long long n) { return (double)n * s->params.block_bytes; }

/* The model's time of the rounds that end a call which sends the current duties (the schedule
 * of schedule/combine.c, priced as "auto" prices it): the final round, one message per duty
 * other than oneself's and one per edge that stays direct, and, when levels ran (`packed`),
 * the duties' blocks packed before it and the blocks received and held for oneself unpacked
 * after it. Without levels the call is the direct exchange, which copies nothing. */
static double final_cost(const state *s, int packed) {
  const nhood_cost_params *p = &s->params.cost;
  double one = reference_bytes(s, 1), combined = 0, held = 0;
  int direct_rdv = nhood_cost_is_rendezvous(p, one), nsend = 0, nsend_rdv = 0;
  for (const int *x = s->duties.words; x < NHOOD_RECORDS_END(s->duties); x += 2 + x[1]) {
    double bytes = reference_bytes(s, x[1]);
    if (x[0] == s->me) {
      held += bytes;
      continue;
    }
    nsend++;
    nsend_rdv += nhood_cost_is_rendezvous(p, bytes);
    combined += bytes;
  }
  /* Which combined messages arrive is not known here; a process receives about as many
   * messages and bytes as it sends. */
  nhood_cost_round_load final = {.sends = nsend + s->ndirect_send,
                                 .recvs = nsend + s->ndirect_recv,
                                 .sent = combined + one * s->ndirect_send,
                                 .received = combined + one * s->ndirect_recv,
                                 .copied = packed ? combined : 0,
                                 .sends_rdv = nsend_rdv + direct_rdv * s->ndirect_send,
                                 .recvs_rdv = nsend_rdv + direct_rdv * s->ndirect_recv};
  nhood_cost_round_load unpack = {.copied = packed ? combined + held : 0};
  return nhood_cost_round(p, &final) + nhood_cost_round(p, &unpack);
}

/* The model's time of a level's round: pack the blocks handed to the partner, send them,
 * receive the partner's (out and in: blocks listed each way). */
static double exchange_cost(const state *s, long long out, long long in) {
  const nhood_cost_params *p = &s->params.cost;
  double sent = reference_bytes(s, out), received = reference_bytes(s, in);
  nhood_cost_round_load level = {.sends = out > 0,
                                 .recvs = in > 0,
                                 .sent = sent,
                                 .received = received,
                                 .copied = sent,
                                 .sends_rdv = nhood_cost_is_rendezvous(p, sent),
                                 .recvs_rdv = nhood_cost_is_rendezvous(p, received)};
  return nhood_cost_round(p, &level);
}

static int level_is_fold(const state *s, int level) { return s->extras > 0 && level == 0; }

/* The partner of this rank in a level, or -1. */
static int level_partner(const state *s, int level) {
  if (level_is_fold(s, level)) {
    if (s->me >= s->P2) return s->me - s->P2;
    return s->me < s->extras ? s->me + s->P2 : -1;
  }
  int h = level - (s->extras > 0);
  return s->me < s->P2 ? s->me ^ (1 << h) : -1;
}

static int send_records(nhood_bsp_outbox *out, int dest, const nhood_records *r) {
  int *w = nhood_bsp_send_reserve(out, dest, 1 + r->nwords);
  if (!w) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for a message");
  w[0] = r->nrecords;
  if (r->nwords) memcpy(w + 1, r->words, sizeof(int) * (size_t)r->nwords);
  return MPI_SUCCESS;
}

static int send_level(state *s, int level, nhood_bsp_outbox *out) {
  int partner = level_partner(s, level);
  if (partner < 0 || (level_is_fold(s, level) && s->me < s->P2)) return MPI_SUCCESS; /* fold: only extras send */
  return send_records(out, partner, &s->duties);
}

/* The records a partner sent in this superstep (NULL words and 0 when none arrived). */
static int partner_records(const nhood_bsp_inbox *in, int partner, const int **words, int *nwords) {
  *words = NULL;
  *nwords = 0;
  for (int k = 0; k < in->nmessages; k++) {
    const nhood_bsp_message *msg = &in->messages[k];
    if (msg->source != partner) continue;
    if (msg->count < 1 || !nhood_records_valid(msg->data + 1, msg->count - 1))
      return nhood_error(MPI_ERR_INTERN, "combining: malformed duty list from rank %d", partner);
    *words = msg->data + 1;
    *nwords = msg->count - 1;
  }
  return MPI_SUCCESS;
}

/* Applies a recorded level to s->duties: an extra rank of the fold level gives everything
 * away; otherwise the duties whose target bit differs from one's own leave (hypercube
 * levels only) and the partner's join. Used when a level runs and when it is replayed. */
static int apply_level(state *s, int level, const nhood_combine_level *lv) {
  int rc = MPI_SUCCESS;
  nhood_records kept, gone, merged;
  if (lv->partner < 0) return MPI_SUCCESS;
  if (level_is_fold(s, level) && s->me >= s->P2) {
    nhood_records_free(&s->duties);
    return MPI_SUCCESS;
  }
  if (!level_is_fold(s, level)) {
    int h = level - (s->extras > 0);
    NHOOD_TRY(nhood_records_split(&s->duties, h, (s->me >> h) & 1, &kept, &gone));
    nhood_records_free(&gone);
    nhood_records_free(&s->duties);
    s->duties = kept;
  }
  NHOOD_TRY(nhood_records_merge(s->duties.words, s->duties.nwords, lv->in.words, lv->in.nwords, &merged));
  nhood_records_free(&s->duties);
  s->duties = merged;
cleanup:
  return rc;
}

/* Runs level `level` given what the partner holds (theirs): decides whether the partners
 * merge, records what moves in lv, and applies it. */
static int merge_level(state *s, int level, const int *theirs, int ntheirs, nhood_combine_level *lv) {
  int rc = MPI_SUCCESS, partner = level_partner(s, level);
  lv->partner = -1;
  if (partner < 0) return MPI_SUCCESS;
  if (level_is_fold(s, level)) {
    if (s->me >= s->P2)
      NHOOD_TRY(nhood_records_from(&lv->out, s->duties.words, s->duties.nwords));
    else
      NHOOD_TRY(nhood_records_from(&lv->in, theirs, ntheirs));
  } else {
    if (common_keys(s->duties.words, s->duties.nwords, theirs, ntheirs) < s->params.theta) return MPI_SUCCESS;
    int h = level - (s->extras > 0), mine = (s->me >> h) & 1;
    nhood_records partner_all = {0, ntheirs, (int *)theirs}, kept, rest;
    NHOOD_TRY(nhood_records_split(&s->duties, h, mine, &kept, &lv->out));
    nhood_records_free(&kept);
    NHOOD_TRY(nhood_records_split(&partner_all, h, mine, &lv->in, &rest));
    nhood_records_free(&rest);
  }
  lv->partner = partner;
  NHOOD_TRY(apply_level(s, level, lv));
cleanup:
  return rc;
}

/* Completes a level from the inbox and updates the cost estimates. */
static int complete_level(state *s, int level, const nhood_bsp_inbox *in) {
  const int *theirs;
  int ntheirs, rc = MPI_SUCCESS;
  nhood_combine_level *lv = &s->levels[level];
  int partner = level_partner(s, level);
  NHOOD_TRY(partner_records(in, partner, &theirs, &ntheirs));
  NHOOD_TRY(merge_level(s, level, theirs, ntheirs, lv));
  if (lv->partner >= 0) s->exchanged_us += exchange_cost(s, total_listed(&lv->out), total_listed(&lv->in));
  s->cost[level + 1] = s->exchanged_us + final_cost(s, 1);
cleanup:
  return rc;
}

/* ---- the reduction of cost estimates (maximum over ranks) ------------------------------ */

/* Estimates travel in BSP messages of ints, two per double. */
_Static_assert(sizeof(double) == 2 * sizeof(int), "a cost estimate is sent as two ints");

static int send_costs(state *s, nhood_bsp_outbox *out, int dest) {
  int n = 2 * (s->nlevels + 1);
  int *w = nhood_bsp_send_reserve(out, dest, n);
  if (!w) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for a message");
  memcpy(w, s->cost, sizeof(double) * (size_t)(s->nlevels + 1));
  return MPI_SUCCESS;
}

static int take_costs(state *s, const nhood_bsp_inbox *in, int from) {
  for (int k = 0; k < in->nmessages; k++) {
    const nhood_bsp_message *msg = &in->messages[k];
    if (msg->source != from) continue;
    if (msg->count != 2 * (s->nlevels + 1))
      return nhood_error(MPI_ERR_INTERN, "combining: rank %d sent %d cost words, expected %d", from, msg->count,
                         2 * (s->nlevels + 1));
    double theirs[64];
    memcpy(theirs, msg->data, sizeof(double) * (size_t)(s->nlevels + 1));
    for (int j = 0; j <= s->nlevels; j++)
      if (theirs[j] > s->cost[j]) s->cost[j] = theirs[j];
  }
  return MPI_SUCCESS;
}

/* ---- the end: choose, replay, notify --------------------------------------------------- */

static int chosen_depth(const state *s) {
  const nhood_combine_params *p = &s->params;
  if (p->force_levels >= 0) return p->force_levels < s->nlevels ? p->force_levels : s->nlevels;
  /* The cheapest depth, if it saves at least a tenth: the estimate of receives is rough
   * (see final_cost), and a marginal gain may be none (nhood-sim found such cases). */
  int best = 1;
  for (int k = 2; k <= s->nlevels; k++)
    if (s->cost[k] < s->cost[best]) best = k;
  return s->nlevels > 0 && s->cost[best] <= 0.9 * s->cost[0] ? best : 0;
}

static int finish(state *s, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, depth = chosen_depth(s);
  nhood_combine_pattern *p = &s->pattern;
  p->predicted_us[0] = s->cost[0];
  p->predicted_us[1] = s->cost[depth];
  /* Replay the levels up to the depth from their records. */
  nhood_records_free(&s->duties);
  NHOOD_TRY(initial_duties(s, &s->duties));
  for (int level = 0; level < depth; level++) NHOOD_TRY(apply_level(s, level, &s->levels[level]));
  for (int level = depth; level < s->nlevels; level++) {
    nhood_records_free(&s->levels[level].out);
    nhood_records_free(&s->levels[level].in);
  }
  for (int level = 0; level < depth; level++) s->levels[level].round = level;
  p->nlevels = depth;
  p->nrounds = depth;
  p->kind = &nhood_combine_kind;
  p->levels = s->levels;
  s->levels = NULL;
  /* Split off the duty to oneself; tell every other target what it will receive. At depth 0
   * the pattern stays empty (the direct exchange needs none), but the targets are still told,
   * so that they can check their sources (nhood_pattern_check_delivery). */
  int cap_duties = 0, cap_self = 0;
  for (const int *x = s->duties.words; x < NHOOD_RECORDS_END(s->duties); x += 2 + x[1]) {
    if (x[0] == s->me) {
      NHOOD_TRY(nhood_records_append(&p->self, &cap_self, x[0], x + 2, x[1], NULL, 0));
      continue;
    }
    if (depth > 0) NHOOD_TRY(nhood_records_append(&p->duties, &cap_duties, x[0], x + 2, x[1], NULL, 0));
    NHOOD_TRY(nhood_bsp_send(out, x[0], x + 2, x[1]));
  }
cleanup:
  return rc;
}

static int take_incoming(state *s, const nhood_bsp_inbox *in) {
  int capacity = 0, rc = MPI_SUCCESS;
  for (int k = 0; k < in->nmessages && rc == MPI_SUCCESS; k++)
    rc = nhood_records_append(&s->pattern.incoming, &capacity, in->messages[k].source, in->messages[k].data,
                              in->messages[k].count, NULL, 0);
  if (rc == MPI_SUCCESS) rc = nhood_pattern_check_delivery(s->topo, s->me, &s->pattern);
  if (s->pattern.nlevels == 0) nhood_records_free(&s->pattern.incoming); /* depth 0: direct, no pattern */
  return rc;
}

/* ---- the program ------------------------------------------------------------------------ */

static int combine_step(void *st, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  state *s = st;
  int k = in->superstep, rc = MPI_SUCCESS;
  if (k == 0) {
    NHOOD_TRY(initial_duties(s, &s->duties));
    s->cost[0] = final_cost(s, 0);
  } else if (k <= s->nlevels) {
    NHOOD_TRY(complete_level(s, k - 1, in));
  }
  if (k < s->nlevels) return send_level(s, k, out);
  int i = k - s->nlevels; /* reduction step */
  if (i == 0) {
    if (s->me >= s->P2) NHOOD_TRY(send_costs(s, out, s->me - s->P2));
  } else if (i <= s->D + 1) {
    int from = i == 1 ? (s->me < s->extras ? s->me + s->P2 : -1) : (s->me < s->P2 ? s->me ^ (1 << (i - 2)) : -1);
    if (from >= 0) NHOOD_TRY(take_costs(s, in, from));
    if (s->me < s->P2) {
      if (i <= s->D)
        NHOOD_TRY(send_costs(s, out, s->me ^ (1 << (i - 1))));
      else if (s->me < s->extras)
        NHOOD_TRY(send_costs(s, out, s->me + s->P2));
    }
  } else if (i == s->D + 2) {
    if (s->me >= s->P2) {
      for (int j = 0; j <= s->nlevels; j++) s->cost[j] = 0; /* the result replaces the own estimate */
      NHOOD_TRY(take_costs(s, in, s->me - s->P2));
    }
    NHOOD_TRY(finish(s, out));
  } else {
    NHOOD_TRY(take_incoming(s, in));
    out->done = 1;
  }
cleanup:
  return rc;
}

/* ---- drivers ---------------------------------------------------------------------------- */

static void free_state(state *s) {
  nhood_combine_levels_free(s->levels, s->nlevels);
  nhood_records_free(&s->duties);
  free(s->cost);
  nhood_combine_pattern_free(&s->pattern);
}

static int init_state(state *s, int me, int nranks, NHOOD_Topo topo, const nhood_combine_params *params) {
  memset(s, 0, sizeof *s);
  s->me = me;
  s->P = nranks;
  s->params = *params;
  s->topo = topo;
  for (s->P2 = 1; 2 * s->P2 <= nranks;) s->P2 *= 2, s->D++;
  s->extras = nranks - s->P2;
  s->nlevels = s->D + (s->extras > 0);
  if (params->max_levels >= 0 && params->max_levels < s->nlevels) s->nlevels = params->max_levels;
  s->levels = calloc((size_t)(s->nlevels ? s->nlevels : 1), sizeof *s->levels);
  s->cost = calloc((size_t)s->nlevels + 1, sizeof *s->cost);
  if (!s->levels || !s->cost) return nhood_error(MPI_ERR_NO_MEM, "combining: out of memory for %d levels", s->nlevels);
  return MPI_SUCCESS;
}

/* nlevels + D + 5 supersteps, with nlevels <= D + 1 <= 32. */
static int max_supersteps(void) { return 2 * 32 + 8; }

static int check_params(const nhood_combine_params *p) {
  if (p->theta < 1 || p->block_bytes < 0 || !nhood_cost_params_valid(&p->cost))
    return nhood_error(MPI_ERR_ARG, "combining parameters out of range (theta %d, block bytes %d)", p->theta,
                       p->block_bytes);
  return MPI_SUCCESS;
}

int nhood_combine_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_combine_params *params,
                            nhood_combine_pattern *pattern, nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, rank = 0, size = 1;
  state s;
  memset(&s, 0, sizeof s);
  NHOOD_TRY(check_params(params));
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
  NHOOD_MPI_CALL(MPI_Comm_size(comm, &size));
  NHOOD_TRY(init_state(&s, rank, size, topo, params));
  NHOOD_TRY(nhood_bsp_run_mpi(comm, tag, &s, combine_step, max_supersteps(), stats));
  *pattern = s.pattern;
  memset(&s.pattern, 0, sizeof s.pattern);
cleanup:
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
    NHOOD_TRY(init_state(&states[initialized], initialized, nranks, topos[initialized], params));
    pointers[initialized] = &states[initialized];
  }
  NHOOD_TRY(nhood_bsp_run_local(nranks, pointers, combine_step, max_supersteps(), stats));
  for (int r = 0; r < nranks; r++) {
    patterns[r] = states[r].pattern;
    memset(&states[r].pattern, 0, sizeof states[r].pattern);
  }
cleanup:
  for (int r = 0; r < initialized; r++) free_state(&states[r]);
  if (initialized < nranks && states) free_state(&states[initialized]);
  free(states);
  free(pointers);
  return rc;
}

/* ---- the kind ------------------------------------------------------------------------- */

/* The parameters of a run: the defaults, NHOOD_COMBINE_*, the caller's threshold, and the
 * depth chosen under the parameters "auto" prices with. */
static nhood_combine_params params_for(const nhood_phase1_env *env) {
  nhood_combine_params params;
  nhood_combine_params_default(&params);
  nhood_combine_params_from_env(&params);
  if (env->theta > 0) params.theta = env->theta;
  params.cost = *env->cost;
  return params;
}

static int phase1_mpi(const nhood_pattern_kind *kind, const nhood_phase1_env *env, NHOOD_Topo topo,
                      nhood_combine_pattern *pattern) {
  (void)kind;
  nhood_combine_params params = params_for(env);
  return nhood_combine_build_mpi(env->comm, env->tag, topo, &params, pattern, NULL);
}

static int phase1_local(const nhood_pattern_kind *kind, const nhood_phase1_env *env, int nranks,
                        const NHOOD_Topo topos[], nhood_combine_pattern patterns[], nhood_bsp_stats *stats) {
  (void)kind;
  nhood_combine_params params = params_for(env);
  return nhood_combine_build_local(nranks, topos, &params, patterns, stats);
}

nhood_pattern_kind nhood_combine_kind = {.algorithm = "combine",
                                         .size_pass = "combine (size pass)",
                                         .missing = "no combining pattern on the topology",
                                         .empty = "the cost model chose no combining level (depth 0)",
                                         .key = NHOOD_TOPO_KEY("combining pattern", nhood_pattern_detach),
                                         .needs = NHOOD_PHASE1_COST,
                                         .build_mpi = phase1_mpi,
                                         .build_local = phase1_local};
