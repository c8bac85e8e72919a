/*
 * node-aware aggregation's Phase 1, supersteps 1 and 2 (node.c): each node's leader assigns
 * the node pairs to its processes by volume and sends the node's table, both sides checked,
 * to every process of the node.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/node_program.h"

typedef struct {
  long long volume;
  int node, receiving;
} role;

int nhood_node_largest_power_of_two(int n) {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

static int by_volume(const void *a, const void *b) {
  const role *x = a, *y = b;
  if (x->volume != y->volume) return x->volume < y->volume ? 1 : -1;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return x->receiving - y->receiving;
}

/* Leader: who of the node sends to and receives from each other node. */
int nhood_node_assign_pairs(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
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
  /* node-tree's hypercube has the node's first P2 processes; the others hand everything on. */
  int eligible = s->tree ? nhood_node_largest_power_of_two(s->nlocals) : s->nlocals;
  for (int r = 0; r < nroles; r++) {
    int least = 0;
    for (int l = 1; l < eligible; l++)
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
int nhood_node_send_table(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
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
  /* The message: rows, the table, the node's processes (ascending: the driver delivers by
   * source rank). */
  int words = 2 + TABLE_WIDTH * rows + s->nlocals;
  for (int l = 0; l < s->nlocals && rc == MPI_SUCCESS; l++) {
    int *m = nhood_bsp_send_reserve(out, s->locals[l], words);
    if (!m) {
      rc = nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for the node table");
      break;
    }
    m[0] = rows;
    memcpy(m + 1, table, sizeof(int) * TABLE_WIDTH * (size_t)rows);
    m[1 + TABLE_WIDTH * rows] = s->nlocals;
    memcpy(m + 2 + TABLE_WIDTH * rows, s->locals, sizeof(int) * (size_t)s->nlocals);
  }
  free(table);
  return rc;
}

/* The leader's table message: the table, the node's processes, this process's index among them. */
int nhood_node_read_table(nhood_node_state *s, const nhood_bsp_inbox *in) {
  const nhood_bsp_message *m = in->nmessages == 1 ? &in->messages[0] : NULL;
  if (!m || m->source != s->leader || m->count < 2 || m->data[0] < 0 || m->data[0] > (m->count - 2) / TABLE_WIDTH)
    return nhood_error(MPI_ERR_INTERN, "node-aware: no node table from the leader");
  int rows = m->data[0], nmembers = m->data[1 + TABLE_WIDTH * rows];
  if (nmembers != m->count - 2 - TABLE_WIDTH * rows)
    return nhood_error(MPI_ERR_INTERN, "node-aware: a malformed node table message");
  s->ntable = rows;
  s->nmembers = nmembers;
  s->table = malloc(sizeof(int) * (size_t)(TABLE_WIDTH * rows + 1));
  s->members = malloc(sizeof(int) * (size_t)(nmembers + 1));
  if (!s->table || !s->members) return nhood_error(MPI_ERR_NO_MEM, "node-aware: out of memory for the node table");
  memcpy(s->table, m->data + 1, sizeof(int) * TABLE_WIDTH * (size_t)rows);
  memcpy(s->members, m->data + 2 + TABLE_WIDTH * rows, sizeof(int) * (size_t)nmembers);
  s->index = -1;
  for (int l = 0; l < nmembers; l++)
    if (s->members[l] == s->me) s->index = l;
  if (s->index < 0) return nhood_error(MPI_ERR_INTERN, "node-aware: the leader's table does not list this process");
  s->p2 = nhood_node_largest_power_of_two(nmembers);
  return MPI_SUCCESS;
}

const int *nhood_node_table_row(const nhood_node_state *s, int node) {
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
