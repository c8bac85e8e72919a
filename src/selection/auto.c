#include "selection/auto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "selection/learned.h"
#include "selection/tune.h"

/* The cost model's verdict for one collective: predicted times, maximum over processes. */
typedef struct decision {
  int fixed_class;                         /* >= 0: every call uses this class (see nhood_auto_resolve) */
  double fixed_bytes;                      /* the block size that class came from, for the tuning rules */
  nhood_trial *trials[NHOOD_SIZE_CLASSES]; /* of blocking calls, per class; NULL: none yet */
  double costs[];                          /* nhood_algorithm_count() x NHOOD_SIZE_CLASSES for calls, then as many for a
                                              persistent request's starts (a v collective's size pass left out) */
} decision;

/* The entries of one table of a decision's costs. */
static size_t table_entries(void) { return (size_t)nhood_algorithm_count() * NHOOD_SIZE_CLASSES; }

static void free_decision(decision *d) {
  if (d == NULL) return;
  for (int c = 0; c < NHOOD_SIZE_CLASSES; c++) free(d->trials[c]);
  free(d);
}

/* What "auto" keeps per topology, for one communicator context: a decision per collective
 * and isomorphic-sizes assertion. A call on another context starts over. */
typedef struct auto_state {
  nhood_commctx *owner;                 /* retained (first: nhood_ctx_state) */
  decision *decisions[NHOOD_NCOLLS][2]; /* [kind][isomorphic_sizes] */
} auto_state;

static void drop_decisions(void *value) {
  auto_state *state = value;
  for (int k = 0; k < NHOOD_NCOLLS; k++)
    for (int iso = 0; iso < 2; iso++) {
      free_decision(state->decisions[k][iso]);
      state->decisions[k][iso] = NULL;
    }
}

static void free_state(void *value) { nhood_ctx_state_free(value, drop_decisions); }

static nhood_topo_key state_key = NHOOD_TOPO_KEY("auto's decisions", free_state);

static int state_of(NHOOD_Topo topo, nhood_commctx *ctx, auto_state **out) {
  void *s = NULL;
  int rc = nhood_ctx_state(topo, &state_key, sizeof **out, ctx, drop_decisions, &s);
  *out = s;
  return rc;
}

/* The decision for a's collective: predicted locally, maximised over processes in one
 * allreduce that also carries the block-size class (as max and -min), the largest block and
 * a failure flag, so that a process that cannot predict fails the call everywhere. */
static int decide(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, decision **out) {
  int rc = MPI_SUCCESS, local_rc = MPI_SUCCESS;
  size_t ntable = table_entries(), ncosts = 2 * ntable, n = ncosts + 4;
  const nhood_cost_params *params = NULL;
  decision *d = NULL;
  double *v = calloc(n, sizeof *v);
  if (!v) return nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
  const nhood_grid_view *grid = NULL;
  const nhood_nodes *nodes = NULL;
  double *nic = NULL;
  MPI_Comm node_comm = MPI_COMM_NULL;
  nhood_learner l = nhood_learner_on(topo, ctx);
  for (int k = 0; k < nhood_algorithm_count(); k++) /* what auto prices on, in the registry's order */
    NHOOD_TRY(nhood_algorithm_learn(nhood_algorithm_at(k), &l));
  NHOOD_TRY(nhood_nodes_for(topo, ctx, &nodes));
  NHOOD_TRY(nhood_grid_of(topo, ctx, &grid));
  local_rc = nhood_cost_params_of(ctx, &params);
  if (params == NULL) NHOOD_TRY(local_rc); /* the placement could not be found */
  /* Two levels where the processes span nodes and their interfaces have a cost: each node's
   * interface load, summed over its processes, bounds every algorithm's time there. */
  int nic_bound = nodes->nnodes > 1 && (params->nic_o > 0 || params->nic_G > 0);
  if (nic_bound && !(nic = calloc(4 * (size_t)nhood_algorithm_count(), sizeof *nic))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for the cost model");
    goto cleanup;
  }
  if (local_rc == MPI_SUCCESS)
    local_rc = nhood_auto_costs(topo, grid ? grid->topo : NULL, a->kind, a->isomorphic_sizes, ctx->rank, params, nodes,
                                v, v + ntable, nic);
  if (nic_bound) {
    NHOOD_MPI_CALL(MPI_Comm_split(ctx->comm, nhood_node_of(nodes, ctx->rank), ctx->rank, &node_comm));
    NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, nic, 4 * nhood_algorithm_count(), MPI_DOUBLE, MPI_SUM, node_comm));
    if (local_rc == MPI_SUCCESS) {
      nhood_auto_add_nic(params, nic, v);
      nhood_auto_add_nic(params, nic, v + ntable);
    }
  }
  double bytes = nhood_call_block_bytes(a, topo);
  int cls = nhood_size_class(bytes);
  v[ncosts] = cls;
  v[ncosts + 1] = -cls;
  v[ncosts + 2] = bytes;
  v[ncosts + 3] = local_rc != MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, ctx->comm));
  if (local_rc != MPI_SUCCESS) {
    rc = local_rc; /* its message is already recorded */
    goto cleanup;
  }
  if (v[ncosts + 3] > 0) {
    rc = nhood_error(MPI_ERR_OTHER, "another process could not predict the algorithms' costs (see its error)");
    goto cleanup;
  }
  if (!(d = calloc(1, sizeof *d + ncosts * sizeof(double)))) {
    rc = nhood_error(MPI_ERR_NO_MEM, "out of memory for a decision table");
    goto cleanup;
  }
  int varies =
      (a->kind == NHOOD_ALLTOALLV || a->kind == NHOOD_ALLTOALLW || a->kind == NHOOD_ALLGATHERV) && !a->isomorphic_sizes;
  d->fixed_class = varies || v[ncosts] != -v[ncosts + 1] ? (int)v[ncosts] : -1;
  d->fixed_bytes = v[ncosts + 2];
  memcpy(d->costs, v, ncosts * sizeof(double));
  *out = d;
cleanup:
  if (node_comm != MPI_COMM_NULL) MPI_Comm_free(&node_comm);
  free(nic);
  free(v);
  return rc;
}

/* The first tuning rule that names an algorithm for this call: the call's info, the
 * topology's, then NHOOD_TUNE. "" when none does. The call's info is parsed here (it comes
 * with persistent init); the topology's rules were parsed at its creation, and NHOOD_TUNE's
 * are parsed again only when the variable changes. */
static int tuned_algorithm(NHOOD_Topo topo, MPI_Info info, nhood_coll_kind kind, double bytes, char *name) {
  int rc = MPI_SUCCESS, flag = 0;
  name[0] = '\0';
  if (info != MPI_INFO_NULL) {
    char rules[MPI_MAX_INFO_VAL + 1];
    NHOOD_MPI_CALL(MPI_Info_get(info, NHOOD_INFO_TUNE, MPI_MAX_INFO_VAL, rules, &flag));
    if (flag) NHOOD_TRY(nhood_tune_lookup(rules, "info key " NHOOD_INFO_TUNE, kind, bytes, name));
  }
  const char *algo = name[0] == '\0' ? nhood_tune_match(nhood_tune_rules_of(topo), kind, bytes) : NULL;
  if (algo) snprintf(name, NHOOD_ALGORITHM_NAME_MAX, "%s", algo);
  if (name[0] == '\0') NHOOD_TRY(nhood_tune_env_match(kind, bytes, name));
  if (strcmp(name, "auto") == 0) name[0] = '\0';
cleanup:
  return rc;
}

int nhood_auto_resolve(NHOOD_Topo topo, nhood_commctx *ctx, const nhood_coll_args *a, MPI_Info info, nhood_mode mode,
                       const nhood_algorithm **alg, nhood_auto_how *how) {
  int rc = MPI_SUCCESS;
  auto_state *s = NULL;
  char name[NHOOD_ALGORITHM_NAME_MAX];
  const nhood_algorithm *list[NHOOD_SHORTLIST_MAX];
  int persistent = mode == NHOOD_PERSISTENT;
  how->trial = NULL;
  how->by = NHOOD_CHOSEN_BY_MODEL;
  NHOOD_TRY(state_of(topo, ctx, &s));
  decision **d = &s->decisions[a->kind][a->isomorphic_sizes != 0];
  if (*d == NULL) {
    NHOOD_TRY(decide(topo, ctx, a, d));
    /* An agreed cost is finite where the algorithm runs on every process. */
    nhood_learner l = nhood_learner_on(topo, ctx);
    for (int k = 0; k < nhood_algorithm_count(); k++)
      NHOOD_TRY(nhood_algorithm_priced(nhood_algorithm_at(k), &l, a->kind,
                                       isfinite((*d)->costs[(size_t)k * NHOOD_SIZE_CLASSES])));
  }
  double bytes = (*d)->fixed_class >= 0 ? (*d)->fixed_bytes : nhood_call_block_bytes(a, topo);
  int cls = (*d)->fixed_class >= 0 ? (*d)->fixed_class : nhood_size_class(bytes);
  NHOOD_TRY(tuned_algorithm(topo, info, a->kind, bytes, name));
  if (name[0]) {
    *alg = nhood_algorithm_by_name(name);
    how->by = NHOOD_CHOSEN_BY_RULE;
    return MPI_SUCCESS;
  }
  /* The margin of the parameters the table was priced with (decide chose them on ctx). */
  const double *costs = (*d)->costs + (persistent ? table_entries() : 0);
  int n = nhood_auto_shortlist(costs, cls, ctx->params.margin, list);
  *alg = list[0];
  if (mode == NHOOD_NONBLOCKING || n == 1 || nhood_trial_rounds() == 0) return MPI_SUCCESS;
  if (persistent) { /* the request's own trial, which its task copies */
    nhood_trial_init(&how->fresh, list, n, nhood_trial_rounds());
    how->trial = &how->fresh;
    how->shown = &how->fresh;
    how->by = NHOOD_CHOSEN_BY_TRIAL;
    return MPI_SUCCESS;
  }
  nhood_trial **tr = &(*d)->trials[cls];
  if (*tr == NULL) {
    if (!(*tr = malloc(sizeof **tr))) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a trial");
    nhood_trial_init(*tr, list, n, nhood_trial_rounds());
  }
  *alg = (*tr)->cand[nhood_trial_next(*tr)];
  how->by = NHOOD_CHOSEN_BY_TRIAL;
  if ((*tr)->winner < 0) how->trial = *tr;
  how->shown = *tr;
cleanup:
  return rc;
}

void nhood_auto_describe(const nhood_auto_how *how, const nhood_algorithm *alg, char *text, size_t len) {
  if (how->by == NHOOD_CHOSEN_BY_TRIAL)
    nhood_trial_describe(how->shown, text, len);
  else
    snprintf(text, len, "%s: %s", how->by == NHOOD_CHOSEN_BY_MODEL ? "cost model" : "asked for", alg->name);
}
