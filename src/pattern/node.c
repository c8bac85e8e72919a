/*
 * Phase 1 of node-aware aggregation as a bulk-synchronous program (see node.h).
 *
 * Supersteps:
 *   0  every process: its combinable edges grouped by node; volumes to and from each other
 *      node to its leader; a vote where it has an edge to another node
 *   1  nobody voted: done, the pattern stays empty. Leaders: assign the node pairs to their
 *      processes by volume, tell each other node's leader who sends to it and who receives
 *      from it
 *   2  leaders: join both sides into the table (B, L(A,B), R(B,A), L(B,A), R(A,B)), check that
 *      the two sides agree, send it to every process of the node
 *   3  every process: its blocks for other nodes to L(A, B) (round 0), named as records
 *   4  L(A, B): what it gathered, merged by target, to R(B, A) (round 1)
 *   5  R(B, A): its final duties (what it received, and its own blocks for its node); tells
 *      each target what it will send it
 *   6  every process: what it will receive; checks it against its sources; done
 */
#include "pattern/node.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/bsp_drivers.h"
#include "pattern/records.h"
#include "topology/topology.h"

enum { TABLE_WIDTH = 5 }; /* B, L(A,B), R(B,A), L(B,A), R(A,B) */

typedef struct {
  int rank, node;
  long long volume;
} edge;

typedef struct {
  int me, mynode, leader;
  NHOOD_Topo topo;
  const nhood_nodes *nodes;
  edge *out, *in; /* combinable edges, by (node, rank) */
  int nout, nin;
  int *locals, nlocals;     /* leader: the processes of its node, ascending */
  int *assigned, nassigned; /* leader: (B, L(A,B), R(A,B)) by B */
  int *table, ntable;       /* TABLE_WIDTH ints per node this node exchanges with, by B */
  nhood_records held;       /* as L(A, B): own blocks for other nodes' processes, by target */
  nhood_combine_level *x;   /* exchanges so far */
  int nx, capx;
  nhood_combine_pattern pattern;
} state;

static int by_node_then_rank(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The combinable edges of one side (the rule of combine.h, on both ends alike), each with its
 * volume: 1 + its weight where the topology has weights. */
static int combinable_edges(const state *s, const int *list, const int *weights, int n, edge **out, int *nout) {
  edge *e = malloc(sizeof *e * (size_t)(n + 1));
  if (!e) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for a neighbor list");
  for (int i = 0; i < n; i++)
    e[i] = (edge){list[i], list[i] >= 0 ? nhood_node_of(s->nodes, list[i]) : -1, 1 + (weights ? weights[i] : 0)};
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
static int append_volumes(const state *s, const edge *e, int n, int *w) {
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

static int step_volumes(state *s, nhood_bsp_outbox *out) {
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

typedef struct {
  long long volume;
  int node, receiving;
} role;

static int by_volume(const void *a, const void *b) {
  const role *x = a, *y = b;
  if (x->volume != y->volume) return x->volume < y->volume ? 1 : -1;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return x->receiving - y->receiving;
}

/* Leader: who of the node sends to and receives from each other node. */
static int step_assign(state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, nnodes = s->nodes->nnodes, nroles = 0;
  long long *volume = calloc((size_t)2 * (size_t)nnodes + 1, sizeof *volume), *load = NULL;
  role *roles = NULL;
  s->locals = malloc(sizeof(int) * (size_t)(in->nmessages + 1));
  if (!volume || !s->locals) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for a node's volumes");
    goto cleanup;
  }
  for (int k = 0; k < in->nmessages; k++) {
    const nhood_bsp_message *m = &in->messages[k];
    s->locals[s->nlocals++] = m->source;
    for (int side = 0, at = 0; side < 2; side++) {
      if (at >= m->count) goto corrupt;
      int groups = m->data[at++];
      if (groups < 0 || groups > (m->count - at) / 2) goto corrupt;
      for (int g = 0; g < groups; g++, at += 2) {
        int node = m->data[at];
        if (node < 0 || node >= nnodes || m->data[at + 1] < 0) goto corrupt;
        volume[2 * node + side] += m->data[at + 1];
      }
    }
  }
  roles = malloc(sizeof *roles * (size_t)(2 * nnodes + 1));
  load = calloc((size_t)s->nlocals + 1, sizeof *load);
  s->assigned = malloc(sizeof(int) * 3 * (size_t)(nnodes + 1));
  if (!roles || !load || !s->assigned) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory assigning node pairs");
    goto cleanup;
  }
  for (int b = 0; b < nnodes; b++)
    for (int side = 0; side < 2; side++)
      if (volume[2 * b + side] > 0) roles[nroles++] = (role){volume[2 * b + side], b, side};
  qsort(roles, (size_t)nroles, sizeof *roles, by_volume);
  /* Largest first, to the least loaded process (the lowest rank among equals). */
  int *who = malloc(sizeof(int) * 2 * (size_t)(nnodes + 1));
  if (!who) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory assigning node pairs");
    goto cleanup;
  }
  for (int b = 0; b < 2 * nnodes; b++) who[b] = -1;
  for (int r = 0; r < nroles; r++) {
    int least = 0;
    for (int l = 1; l < s->nlocals; l++)
      if (load[l] < load[least]) least = l;
    load[least] += roles[r].volume;
    who[2 * roles[r].node + roles[r].receiving] = s->locals[least];
  }
  for (int b = 0; b < nnodes; b++) {
    if (who[2 * b] < 0 && who[2 * b + 1] < 0) continue;
    int *a = &s->assigned[3 * s->nassigned++];
    a[0] = b;
    a[1] = who[2 * b];
    a[2] = who[2 * b + 1];
    int msg[3] = {s->mynode, a[1], a[2]};
    if ((rc = nhood_bsp_send(out, nhood_node_leader(s->nodes, b), msg, 3)) != MPI_SUCCESS) break;
  }
  free(who);
  goto cleanup;
corrupt:
  rc = nhood_error(MPI_ERR_INTERN, "node-aware: a malformed volume message");
cleanup:
  free(volume);
  free(load);
  free(roles);
  return rc;
}

/* Leader: the table from both sides of every node pair, checked, to every process of the node. */
static int step_table(state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, n = s->nassigned + in->nmessages, rows = 0;
  int *table = malloc(sizeof(int) * TABLE_WIDTH * (size_t)(n + 1));
  if (!table) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for the node table");
  /* Both lists ascend by node: leaders are numbered by their lowest rank, and the driver
   * delivers by source rank. */
  int i = 0, k = 0;
  while (i < s->nassigned || k < in->nmessages) {
    const int *mine = i < s->nassigned ? &s->assigned[3 * i] : NULL;
    const int *theirs = NULL;
    if (k < in->nmessages) {
      if (in->messages[k].count != 3) {
        free(table);
        return nhood_error(MPI_ERR_INTERN, "node-aware: a malformed node table message");
      }
      theirs = in->messages[k].data;
    }
    int node = mine && (!theirs || mine[0] <= theirs[0]) ? mine[0] : theirs[0];
    if (mine && mine[0] != node) mine = NULL;
    if (theirs && theirs[0] != node) theirs = NULL;
    int *row = &table[TABLE_WIDTH * rows++];
    row[0] = node;
    row[1] = mine ? mine[1] : -1;     /* L(A, B) */
    row[2] = theirs ? theirs[2] : -1; /* R(B, A) */
    row[3] = theirs ? theirs[1] : -1; /* L(B, A) */
    row[4] = mine ? mine[2] : -1;     /* R(A, B) */
    if ((row[1] >= 0) != (row[2] >= 0) || (row[3] >= 0) != (row[4] >= 0)) {
      int from_here = (row[1] >= 0) != (row[2] >= 0);
      free(table);
      return nhood_error(MPI_ERR_TOPOLOGY,
                         "inconsistent topology: processes of node %d list processes of node %d as %s, which do not "
                         "list them back once (NHOOD_CHECK=1 names every disagreement)",
                         s->mynode, node, from_here ? "destinations" : "sources");
    }
    i += mine != NULL;
    k += theirs != NULL;
  }
  for (int l = 0; l < s->nlocals && rc == MPI_SUCCESS; l++)
    rc = nhood_bsp_send(out, s->locals[l], table, TABLE_WIDTH * rows);
  free(table);
  return rc;
}

static const int *table_row(const state *s, int node) {
  int lo = 0, hi = s->ntable;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->table[TABLE_WIDTH * mid] < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->ntable && s->table[TABLE_WIDTH * lo] == node ? &s->table[TABLE_WIDTH * lo] : NULL;
}

/* The exchange with partner in round, made where missing. */
static int exchange_of(state *s, int round, int partner, nhood_combine_level **lv) {
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
static int hand(state *s, int round, int partner, nhood_records *r, nhood_bsp_outbox *out) {
  nhood_combine_level *lv = NULL;
  int rc = MPI_SUCCESS;
  NHOOD_TRY(exchange_of(s, round, partner, &lv));
  NHOOD_TRY(nhood_bsp_send(out, partner, r->words, r->nwords));
  lv->out = *r;
  memset(r, 0, sizeof *r);
cleanup:
  return rc;
}

typedef struct {
  int key, target; /* key: L (round 0) or the target's node (round 1) */
  const int *record;
} routed;

static int by_key_then_target(const void *a, const void *b) {
  const routed *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->target > y->target) - (x->target < y->target);
}

/* Sends the routed records, grouped by key, to the key (round 0: L(A, B); the group for this
 * process itself, which is L, is kept as held, ascending by target) or, round 1, to the
 * receiver on the key's node. */
static int hand_grouped(state *s, int round, routed *r, int n, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS;
  qsort(r, (size_t)n, sizeof *r, by_key_then_target);
  for (int i = 0, j; i < n && rc == MPI_SUCCESS; i = j) {
    nhood_records list = {0};
    int capacity = 0;
    for (j = i; j < n && r[j].key == r[i].key && rc == MPI_SUCCESS; j++)
      rc = nhood_records_append(&list, &capacity, r[j].record[0], r[j].record + 2, r[j].record[1], NULL, 0);
    int partner = r[i].key;
    if (rc == MPI_SUCCESS && round == 1) {
      const int *row = table_row(s, r[i].key);
      if (!row || row[2] < 0) rc = nhood_error(MPI_ERR_INTERN, "node-aware: no receiver on node %d", r[i].key);
      partner = row ? row[2] : -1;
    }
    if (rc == MPI_SUCCESS && partner == s->me) { /* round 0 only: node pairs join different nodes */
      s->held = list;
      continue;
    }
    if (rc == MPI_SUCCESS) rc = hand(s, round, partner, &list, out);
    nhood_records_free(&list);
  }
  return rc;
}

/* Round 0: this process's blocks for other nodes go to L(A, B), or stay here (held) when it
 * is L. */
static int step_gather(state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, n = 0;
  if (in->nmessages != 1 || in->messages[0].source != s->leader || in->messages[0].count % TABLE_WIDTH)
    return nhood_error(MPI_ERR_INTERN, "node-aware: no node table from the leader");
  s->ntable = in->messages[0].count / TABLE_WIDTH;
  s->table = malloc(sizeof(int) * (size_t)(in->messages[0].count + 1));
  int *records = malloc(sizeof(int) * 3 * (size_t)(s->nout + 1));
  routed *r = malloc(sizeof *r * (size_t)(s->nout + 1));
  if (!s->table || !records || !r) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for the node table");
    goto cleanup;
  }
  memcpy(s->table, in->messages[0].data, sizeof(int) * (size_t)in->messages[0].count);
  for (int i = 0; i < s->nout; i++) {
    const edge *e = &s->out[i];
    if (e->node == s->mynode) continue;
    const int *row = table_row(s, e->node);
    if (!row || row[1] < 0) {
      rc = nhood_error(MPI_ERR_INTERN, "node-aware: no sender for node %d", e->node);
      goto cleanup;
    }
    int *rec = &records[3 * i];
    rec[0] = e->rank;
    rec[1] = 1;
    rec[2] = s->me;
    r[n++] = (routed){row[1], rec[0], rec};
  }
  rc = hand_grouped(s, 0, r, n, out);
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
static int take_exchanges(state *s, int round, const nhood_bsp_inbox *in, nhood_records *acc) {
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
static int step_forward(state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, n = 0;
  NHOOD_TRY(take_exchanges(s, 0, in, &s->held));
  routed *r = malloc(sizeof *r * (size_t)(s->held.nrecords + 1));
  if (!r) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory");
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1])
    r[n++] = (routed){nhood_node_of(s->nodes, x[0]), x[0], x};
  rc = hand_grouped(s, 1, r, n, out);
  free(r);
cleanup:
  return rc;
}

/* The final duties: what this process received for its node's processes, and its own blocks
 * for them; each target is told what it will get. */
static int step_duties(state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, cap_local = 0, cap_duties = 0, cap_self = 0;
  nhood_records arrived = {0}, local = {0}, all = {0};
  NHOOD_TRY(take_exchanges(s, 1, in, &arrived));
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

static int step_incoming(state *s, const nhood_bsp_inbox *in) {
  int capacity = 0, rc = MPI_SUCCESS;
  nhood_combine_pattern *p = &s->pattern;
  for (int k = 0; k < in->nmessages && rc == MPI_SUCCESS; k++)
    rc = nhood_records_append(&p->incoming, &capacity, in->messages[k].source, in->messages[k].data,
                              in->messages[k].count, NULL, 0);
  if (rc != MPI_SUCCESS) return rc;
  if (s->nx > 1) qsort(s->x, (size_t)s->nx, sizeof *s->x, by_round_then_partner);
  p->levels = s->x;
  p->nlevels = s->nx;
  p->nrounds = 2;
  p->name = "node";
  s->x = NULL;
  s->nx = s->capx = 0;
  return nhood_pattern_check_delivery(s->topo, s->me, p);
}

static int node_step(void *st, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  state *s = st;
  int rc = MPI_SUCCESS, leads = s->me == s->leader;
  switch (in->superstep) {
    case 0:
      return step_volumes(s, out);
    case 1:
      if (!in->any_vote) { /* no edge between nodes anywhere: the pattern stays empty */
        s->pattern.name = "node";
        out->done = 1;
        return MPI_SUCCESS;
      }
      return leads ? step_assign(s, in, out) : MPI_SUCCESS;
    case 2:
      return leads ? step_table(s, in, out) : MPI_SUCCESS;
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

static void free_state(state *s) {
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

static int init_state(state *s, int me, int nranks, NHOOD_Topo topo, const nhood_nodes *nodes) {
  memset(s, 0, sizeof *s);
  if (nodes->nranks != nranks)
    return nhood_error(MPI_ERR_INTERN, "node-aware: a node map of %d ranks for %d processes", nodes->nranks, nranks);
  s->me = me;
  s->topo = topo;
  s->nodes = nodes;
  s->mynode = nhood_node_of(nodes, me);
  s->leader = nhood_node_leader(nodes, s->mynode);
  return MPI_SUCCESS;
}

enum { MAX_SUPERSTEPS = 8 };

int nhood_node_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_nodes *nodes,
                         nhood_combine_pattern *pattern, nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, rank = 0, size = 1;
  state s;
  memset(&s, 0, sizeof s);
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
  NHOOD_MPI_CALL(MPI_Comm_size(comm, &size));
  NHOOD_TRY(init_state(&s, rank, size, topo, nodes));
  NHOOD_TRY(nhood_bsp_run_mpi(comm, tag, &s, node_step, MAX_SUPERSTEPS, stats));
  *pattern = s.pattern;
  memset(&s.pattern, 0, sizeof s.pattern);
cleanup:
  free_state(&s);
  return rc;
}

int nhood_node_build_local(int nranks, const NHOOD_Topo topos[], const nhood_nodes *nodes,
                           nhood_combine_pattern patterns[], nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, initialized = 0;
  state *states = calloc((size_t)nranks + 1, sizeof *states);
  void **pointers = calloc((size_t)nranks + 1, sizeof(void *));
  if (!states || !pointers) {
    rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for %d virtual ranks", nranks);
    goto cleanup;
  }
  for (; initialized < nranks; initialized++) {
    NHOOD_TRY(init_state(&states[initialized], initialized, nranks, topos[initialized], nodes));
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
