/*
 * Phase 1 of node-aware aggregation as a bulk-synchronous program (see node.h).
 *
 * Supersteps of node:
 *   0  every process: its combinable edges grouped by node; volumes to and from each other
 *      node to its leader; a vote where it has an edge to another node
 *   1  nobody voted: done, the pattern stays empty. Leaders: assign the node pairs to their
 *      processes by volume, tell each other node's leader who sends to it and who receives
 *      from it
 *   2  leaders: join both sides into the table (B, L(A,B), R(B,A), L(B,A), R(A,B)), check that
 *      the two sides agree, send it and the node's processes to every process of the node
 *   3  every process: its blocks for other nodes to L(A, B) (round 0), named as records
 *   4  L(A, B): what it gathered, merged by target, to R(B, A) (round 1)
 *   5  R(B, A): its final duties (what it received, and its own blocks for its node); tells
 *      each target what it will send it
 *   6  every process: what it will receive; checks it against its sources; done
 *
 * node-tree shares supersteps 0-2 (only the node's first P2 processes, P2 the largest power
 * of two not above its size, take node pairs) and then routes records along a hypercube of
 * the node's processes, B = log2 of the largest P2 of any node:
 *   3          a process at local index i >= P2 hands all its records to i - P2 (round 0)
 *   4 .. 3+B   bit b: records for other nodes whose L's index differs from i in bit b go to
 *              i ^ 2^b (round 1 + b), merged by target on arrival
 *   4+B        L(A, B) to R(B, A), as node's round 1 (round 1 + B)
 *   5+B..4+2B  bit b: records (what arrived, and the blocks for this node's processes, which
 *              waited here) whose target's index (less P2 where above it) differs in bit b go
 *              to i ^ 2^b (round 2 + B + b)
 *   5+2B       records for a target at index >= P2 go to it from index - P2 (round 2 + 2B)
 *   6+2B       every record held is for this process: its self record; checked; done
 *
 * This file runs the program and node's own supersteps; the leaders' supersteps 1 and 2 are in
 * node_pairs.c, node-tree's routing in node_tree.c (what they share: node_program.h).
 */
#include "pattern/node.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/bsp_drivers.h"
#include "pattern/node_program.h"
#include "pattern/records.h"
#include "topology/topology.h"

static int by_node_then_rank(const void *a, const void *b) {
  const nhood_node_edge *x = a, *y = b;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The combinable edges of one side (the rule of combine.h, on both ends alike), each with its
 * volume: 1 + its weight where the topology has weights. */
static int combinable_edges(const nhood_node_state *s, const int *list, const int *weights, int n,
                            nhood_node_edge **out, int *nout) {
  nhood_node_edge *e = malloc(sizeof *e * (size_t)(n + 1));
  if (!e) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for a neighbor list");
  for (int i = 0; i < n; i++)
    e[i] = (nhood_node_edge){list[i], list[i] >= 0 ? nhood_node_of(s->nodes, list[i]) : -1,
                             1 + (weights ? weights[i] : 0)};
  qsort(e, (size_t)n, sizeof *e, by_node_then_rank);
  int kept = 0;
  for (int i = 0, j; i < n; i = j) {
    for (j = i; j < n && e[j].rank == e[i].rank;) j++;
    if (nhood_combine_eligible(e[i].rank, s->me, j - i)) e[kept++] = e[i];
  }
  *out = e;
  *nout = kept;
  return MPI_SUCCESS;
}

/* Volumes per other node of a side, appended to w as (node, volume) pairs after a count. */
static int append_volumes(const nhood_node_state *s, const nhood_node_edge *e, int n, int *w) {
  int at = 1, groups = 0;
  for (int i = 0, j; i < n; i = j) {
    long long v = 0;
    for (j = i; j < n && e[j].node == e[i].node; j++) v += e[j].volume;
    if (e[i].node == s->mynode) continue;
    w[at++] = e[i].node;
    w[at++] = v > INT_MAX / 2 ? INT_MAX / 2 : (int)v;
    groups++;
  }
  w[0] = groups;
  return at;
}

static int step_volumes(nhood_node_state *s, nhood_bsp_outbox *out) {
  const struct nhood_topo *t = s->topo;
  int rc = MPI_SUCCESS;
  NHOOD_TRY(combinable_edges(s, t->destinations, t->destweights, t->outdegree, &s->out, &s->nout));
  NHOOD_TRY(combinable_edges(s, t->sources, t->sourceweights, t->indegree, &s->in, &s->nin));
  int *w = malloc(sizeof(int) * (size_t)(2 + 2 * (s->nout + s->nin)));
  if (!w) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for a message");
  int n = append_volumes(s, s->out, s->nout, w);
  n += append_volumes(s, s->in, s->nin, w + n);
  rc = nhood_bsp_send(out, s->leader, w, n);
  free(w);
  for (int i = 0; i < s->nout; i++) out->vote |= s->out[i].node != s->mynode;
cleanup:
  return rc;
}

/* The exchange with partner in round, made where missing. */
static int exchange_of(nhood_node_state *s, int round, int partner, nhood_combine_level **lv) {
  for (int k = s->nx - 1; k >= 0; k--)
    if (s->x[k].round == round && s->x[k].partner == partner) {
      *lv = &s->x[k];
      return MPI_SUCCESS;
    }
  if (s->nx == s->capx) {
    int cap = s->capx ? 2 * s->capx : 8;
    nhood_combine_level *bigger = realloc(s->x, sizeof *bigger * (size_t)cap);
    if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for exchanges");
    s->x = bigger;
    s->capx = cap;
  }
  *lv = &s->x[s->nx++];
  memset(*lv, 0, sizeof **lv);
  (*lv)->round = round;
  (*lv)->partner = partner;
  return MPI_SUCCESS;
}

/* Hands records to partner in round: a message now (the partner learns its part of the
 * pattern) and the exchange's out list. */
int nhood_node_hand(nhood_node_state *s, int round, int partner, nhood_records *r, nhood_bsp_outbox *out) {
  nhood_combine_level *lv = NULL;
  int rc = MPI_SUCCESS;
  NHOOD_TRY(exchange_of(s, round, partner, &lv));
  NHOOD_TRY(nhood_bsp_send(out, partner, r->words, r->nwords));
  lv->out = *r;
  memset(r, 0, sizeof *r);
cleanup:
  return rc;
}

static int by_key_then_target(const void *a, const void *b) {
  const nhood_node_routed *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->target > y->target) - (x->target < y->target);
}

/* Sends the routed records, grouped by key, to the key (L(A, B); the group for this process
 * itself, which is L, is kept as held, ascending by target) or, to_receiver, to the receiver
 * on the key's node. */
int nhood_node_hand_grouped(nhood_node_state *s, int round, int to_receiver, nhood_node_routed *r, int n,
                            nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS;
  qsort(r, (size_t)n, sizeof *r, by_key_then_target);
  for (int i = 0, j; i < n && rc == MPI_SUCCESS; i = j) {
    nhood_records list = {0};
    int capacity = 0;
    for (j = i; j < n && r[j].key == r[i].key && rc == MPI_SUCCESS; j++)
      rc = nhood_records_append(&list, &capacity, r[j].record[0], r[j].record + 2, r[j].record[1], NULL, 0);
    int partner = r[i].key;
    if (rc == MPI_SUCCESS && to_receiver) {
      const int *row = nhood_node_table_row(s, r[i].key);
      if (!row || row[2] < 0) rc = nhood_error(MPI_ERR_INTERN, "node-aware: no receiver on node %d", r[i].key);
      partner = row ? row[2] : -1;
    }
    if (rc == MPI_SUCCESS && partner == s->me) { /* to L only: node pairs join different nodes */
      s->held = list;
      continue;
    }
    if (rc == MPI_SUCCESS) rc = nhood_node_hand(s, round, partner, &list, out);
    nhood_records_free(&list);
  }
  return rc;
}

/* Round 0: this process's blocks for other nodes go to L(A, B), or stay here (held) when it
 * is L. */
static int step_gather(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = nhood_node_read_table(s, in), n = 0;
  if (rc != MPI_SUCCESS) return rc;
  int *records = malloc(sizeof(int) * 3 * (size_t)(s->nout + 1));
  nhood_node_routed *r = malloc(sizeof *r * (size_t)(s->nout + 1));
  if (!records || !r) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for the node table");
    goto cleanup;
  }
  for (int i = 0; i < s->nout; i++) {
    const nhood_node_edge *e = &s->out[i];
    if (e->node == s->mynode) continue;
    const int *row = nhood_node_table_row(s, e->node);
    if (!row || row[1] < 0) {
      rc = nhood_error(MPI_ERR_INTERN, "node-aware: no sender for node %d", e->node);
      goto cleanup;
    }
    int *rec = &records[3 * i];
    rec[0] = e->rank;
    rec[1] = 1;
    rec[2] = s->me;
    r[n++] = (nhood_node_routed){row[1], rec[0], rec};
  }
  rc = nhood_node_hand_grouped(s, 0, 0, r, n, out);
cleanup:
  free(records);
  free(r);
  return rc;
}

/* Records of a message, checked: well-formed, keys ascending. */
static int records_of(const nhood_bsp_message *m, nhood_records *r) {
  if (!nhood_records_valid(m->data, m->count))
    return nhood_error(MPI_ERR_INTERN, "node-aware: a malformed record list from rank %d", m->source);
  return nhood_records_from(r, m->data, m->count);
}

/* Merges the records of every message into *acc (keys ascending), and records each message as
 * the in list of the exchange with its source in round. */
int nhood_node_take_exchanges(nhood_node_state *s, int round, const nhood_bsp_inbox *in, nhood_records *acc) {
  int rc = MPI_SUCCESS;
  for (int k = 0; k < in->nmessages; k++) {
    nhood_combine_level *lv = NULL;
    nhood_records merged = {0};
    NHOOD_TRY(exchange_of(s, round, in->messages[k].source, &lv));
    NHOOD_TRY(records_of(&in->messages[k], &lv->in));
    NHOOD_TRY(nhood_records_merge(acc->words, acc->nwords, lv->in.words, lv->in.nwords, &merged));
    nhood_records_free(acc);
    *acc = merged;
  }
cleanup:
  return rc;
}

/* Round 1: L(A, B) sends R(B, A) everything the node sends to B's processes. */
static int step_forward(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, n = 0;
  NHOOD_TRY(nhood_node_take_exchanges(s, 0, in, &s->held));
  nhood_node_routed *r = malloc(sizeof *r * (size_t)(s->held.nrecords + 1));
  if (!r) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory");
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1])
    r[n++] = (nhood_node_routed){nhood_node_of(s->nodes, x[0]), x[0], x};
  rc = nhood_node_hand_grouped(s, 1, 1, r, n, out);
  free(r);
cleanup:
  return rc;
}

/* The final duties: what this process received for its node's processes, and its own blocks
 * for them; each target is told what it will get. */
static int step_duties(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, cap_local = 0, cap_duties = 0, cap_self = 0;
  nhood_records arrived = {0}, local = {0}, all = {0};
  NHOOD_TRY(nhood_node_take_exchanges(s, 1, in, &arrived));
  for (int i = 0; i < s->nout; i++) /* out ascends by rank within this node */
    if (s->out[i].node == s->mynode)
      NHOOD_TRY(nhood_records_append(&local, &cap_local, s->out[i].rank, &s->me, 1, NULL, 0));
  NHOOD_TRY(nhood_records_merge(arrived.words, arrived.nwords, local.words, local.nwords, &all));
  nhood_combine_pattern *p = &s->pattern;
  for (const int *x = all.words; x < NHOOD_RECORDS_END(all); x += 2 + x[1]) {
    if (x[0] == s->me) {
      NHOOD_TRY(nhood_records_append(&p->self, &cap_self, x[0], x + 2, x[1], NULL, 0));
      continue;
    }
    NHOOD_TRY(nhood_records_append(&p->duties, &cap_duties, x[0], x + 2, x[1], NULL, 0));
    NHOOD_TRY(nhood_bsp_send(out, x[0], x + 2, x[1]));
  }
cleanup:
  nhood_records_free(&arrived);
  nhood_records_free(&local);
  nhood_records_free(&all);
  return rc;
}

static int by_round_then_partner(const void *a, const void *b) {
  const nhood_combine_level *x = a, *y = b;
  if (x->round != y->round) return x->round - y->round;
  return (x->partner > y->partner) - (x->partner < y->partner);
}

static const nhood_pattern_kind *kind_of(const nhood_node_state *s) {
  return s->tree ? &nhood_node_tree_kind : &nhood_node_kind;
}

/* The exchanges into the pattern, ordered as the schedule runs them; the delivery checked. */
static int finish_pattern(nhood_node_state *s, int nrounds) {
  nhood_combine_pattern *p = &s->pattern;
  if (s->nx > 1) qsort(s->x, (size_t)s->nx, sizeof *s->x, by_round_then_partner);
  p->levels = s->x;
  p->nlevels = s->nx;
  p->nrounds = nrounds;
  p->kind = kind_of(s);
  s->x = NULL;
  s->nx = s->capx = 0;
  return nhood_pattern_check_delivery(s->topo, s->me, p);
}

static int step_incoming(nhood_node_state *s, const nhood_bsp_inbox *in) {
  int capacity = 0, rc = MPI_SUCCESS;
  nhood_combine_pattern *p = &s->pattern;
  for (int k = 0; k < in->nmessages && rc == MPI_SUCCESS; k++)
    rc = nhood_records_append(&p->incoming, &capacity, in->messages[k].source, in->messages[k].data,
                              in->messages[k].count, NULL, 0);
  if (rc != MPI_SUCCESS) return rc;
  return finish_pattern(s, 2);
}

static int node_step(void *st, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  nhood_node_state *s = st;
  int rc = MPI_SUCCESS, leads = s->me == s->leader;
  switch (in->superstep) {
    case 0:
      return step_volumes(s, out);
    case 1:
      if (!in->any_vote) { /* no edge between nodes anywhere: the pattern stays empty */
        s->pattern.kind = kind_of(s);
        out->done = 1;
        return MPI_SUCCESS;
      }
      return leads ? nhood_node_assign_pairs(s, in, out) : MPI_SUCCESS;
    case 2:
      return leads ? nhood_node_send_table(s, in, out) : MPI_SUCCESS;
    default:
      break;
  }
  if (s->tree) {
    if (in->superstep < 6 + 2 * s->bits) return nhood_node_tree_step(s, in, out);
    rc = nhood_node_tree_finish(s, in);
    if (rc == MPI_SUCCESS) rc = finish_pattern(s, 3 + 2 * s->bits);
    out->done = 1;
    return rc;
  }
  switch (in->superstep) {
    case 3:
      return step_gather(s, in, out);
    case 4:
      return step_forward(s, in, out);
    case 5:
      return step_duties(s, in, out);
    default:
      rc = step_incoming(s, in);
      out->done = 1;
      return rc;
  }
}

/* ---- drivers ---------------------------------------------------------------------------- */

static void free_state(nhood_node_state *s) {
  free(s->members);
  free(s->out);
  free(s->in);
  free(s->locals);
  free(s->assigned);
  free(s->table);
  nhood_records_free(&s->held);
  for (int k = 0; k < s->nx; k++) {
    nhood_records_free(&s->x[k].out);
    nhood_records_free(&s->x[k].in);
  }
  free(s->x);
  nhood_combine_pattern_free(&s->pattern);
}

/* B: log2 of the largest P2 of any node (the same on every process). */
static int hypercube_bits(const nhood_nodes *nodes, int *bits) {
  int largest = 0;
  if (nodes->per_node > 0) {
    largest = nodes->per_node < nodes->nranks ? nodes->per_node : nodes->nranks;
  } else {
    int *size = calloc((size_t)nodes->nnodes + 1, sizeof *size);
    if (!size) return nhood_error(MPI_ERR_NO_MEM, "node-tree: out of memory for node sizes");
    for (int r = 0; r < nodes->nranks; r++) size[nodes->node_of[r]]++;
    for (int n = 0; n < nodes->nnodes; n++) largest = size[n] > largest ? size[n] : largest;
    free(size);
  }
  *bits = 0;
  while ((2 << *bits) <= largest) ++*bits;
  return MPI_SUCCESS;
}

static int init_state(nhood_node_state *s, int me, int nranks, NHOOD_Topo topo, const nhood_nodes *nodes, int tree,
                      int bits) {
  memset(s, 0, sizeof *s);
  if (nodes->nranks != nranks)
    return nhood_error(MPI_ERR_INTERN, "node-aware: a node map of %d ranks for %d processes", nodes->nranks, nranks);
  s->me = me;
  s->topo = topo;
  s->nodes = nodes;
  s->mynode = nhood_node_of(nodes, me);
  s->leader = nhood_node_leader(nodes, s->mynode);
  s->tree = tree;
  s->bits = bits;
  return MPI_SUCCESS;
}

/* node: 7 supersteps; node-tree: 7 + 2B, B < 31. */
enum { MAX_SUPERSTEPS = 7 + 2 * 31 };

int nhood_node_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_nodes *nodes, int tree,
                         nhood_combine_pattern *pattern, nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, rank = 0, size = 1, bits = 0;
  nhood_node_state s;
  memset(&s, 0, sizeof s);
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
  NHOOD_MPI_CALL(MPI_Comm_size(comm, &size));
  NHOOD_TRY(hypercube_bits(nodes, &bits));
  NHOOD_TRY(init_state(&s, rank, size, topo, nodes, tree, bits));
  NHOOD_TRY(nhood_bsp_run_mpi(comm, tag, &s, node_step, MAX_SUPERSTEPS, stats));
  *pattern = s.pattern;
  memset(&s.pattern, 0, sizeof s.pattern);
cleanup:
  free_state(&s);
  return rc;
}

int nhood_node_build_local(int nranks, const NHOOD_Topo topos[], const nhood_nodes *nodes, int tree,
                           nhood_combine_pattern patterns[], nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, initialized = 0, bits = 0;
  nhood_node_state *states = calloc((size_t)nranks + 1, sizeof *states);
  void **pointers = calloc((size_t)nranks + 1, sizeof(void *));
  if (!states || !pointers) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for %d virtual ranks", nranks);
    goto cleanup;
  }
  NHOOD_TRY(hypercube_bits(nodes, &bits));
  for (; initialized < nranks; initialized++) {
    NHOOD_TRY(init_state(&states[initialized], initialized, nranks, topos[initialized], nodes, tree, bits));
    pointers[initialized] = &states[initialized];
  }
  NHOOD_TRY(nhood_bsp_run_local(nranks, pointers, node_step, MAX_SUPERSTEPS, stats));
  for (int r = 0; r < nranks; r++) {
    patterns[r] = states[r].pattern;
    memset(&states[r].pattern, 0, sizeof states[r].pattern);
  }
cleanup:
  for (int r = 0; states && r < nranks; r++) free_state(&states[r]);
  free(states);
  free(pointers);
  return rc;
}

/* ---- the kinds ------------------------------------------------------------------------- */

static int phase1_mpi(const nhood_pattern_kind *kind, const nhood_phase1_env *env, NHOOD_Topo topo,
                      nhood_combine_pattern *pattern) {
  if (env->nodes->nnodes <= 1) { /* the same map everywhere: node does not apply, no program to run */
    pattern->kind = kind;
    return MPI_SUCCESS;
  }
  return nhood_node_build_mpi(env->comm, env->tag, topo, env->nodes, kind == &nhood_node_tree_kind, pattern, NULL);
}

static int phase1_local(const nhood_pattern_kind *kind, const nhood_phase1_env *env, int nranks,
                        const NHOOD_Topo topos[], nhood_combine_pattern patterns[], nhood_bsp_stats *stats) {
  return nhood_node_build_local(nranks, topos, env->nodes, kind == &nhood_node_tree_kind, patterns, stats);
}

#define NODE_KIND(name)                                                                                \
  {                                                                                                    \
    .algorithm = name, .size_pass = name " (size pass)", .missing = "no node pattern on the topology", \
    .empty = "no process has a neighbor on another node",                                              \
    .key = NHOOD_TOPO_KEY(name " pattern", nhood_pattern_detach), .needs = NHOOD_PHASE1_NODES,         \
    .build_mpi = phase1_mpi, .build_local = phase1_local                                               \
  }
nhood_pattern_kind nhood_node_kind = NODE_KIND("node");
nhood_pattern_kind nhood_node_tree_kind = NODE_KIND("node-tree");
