/*
 * node-tree's routing (node.c, supersteps 3 to 6 + 2B): the records travel along a hypercube
 * of each node's processes, gathered to L(A, B), across the network, and scattered to their
 * targets, in log2 of the node's size rounds each way.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/node_program.h"

static int member_index(const nhood_node_state *s, int rank) {
  int lo = 0, hi = s->nmembers;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->members[mid] < rank)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->nmembers && s->members[lo] == rank ? lo : -1;
}

/* Whether a record for target moves to the partner across bit b: gathering, records for
 * other nodes travel to L(A, B)'s index; scattering, records for this node's processes to
 * their target's (less P2 where above it, the last hop being the unfold round). */
static int gather_moves(const nhood_node_state *s, int target, int b) {
  int node = nhood_node_of(s->nodes, target);
  if (node == s->mynode) return 0;
  const int *row = nhood_node_table_row(s, node);
  int key = row ? member_index(s, row[1]) : -1;
  return key >= 0 && ((key ^ s->index) >> b & 1);
}

static int scatter_moves(const nhood_node_state *s, int target, int b) {
  int key = member_index(s, target);
  if (key >= s->p2) key -= s->p2;
  return key >= 0 && ((key ^ s->index) >> b & 1);
}

/* Hands the held records that move across bit b to the partner there, in round; keeps the rest. */
static int hand_across(nhood_node_state *s, int round, int b, int (*moves)(const nhood_node_state *, int, int),
                       nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, cap_stay = 0, cap_move = 0;
  nhood_records stay = {0}, move = {0};
  if (s->index >= s->p2 || (1 << b) >= s->p2 || s->held.nrecords == 0) return MPI_SUCCESS;
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1]) {
    int moving = moves(s, x[0], b);
    NHOOD_TRY(nhood_records_append(moving ? &move : &stay, moving ? &cap_move : &cap_stay, x[0], x + 2, x[1], NULL, 0));
  }
  if (move.nrecords) NHOOD_TRY(nhood_node_hand(s, round, s->members[s->index ^ (1 << b)], &move, out));
  nhood_records_free(&s->held);
  s->held = stay;
  memset(&stay, 0, sizeof stay);
cleanup:
  nhood_records_free(&stay);
  nhood_records_free(&move);
  return rc;
}

static int by_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Superstep 3: every combinable destination as a record of this process's block; a process
 * outside the hypercube hands them all to its partner inside (round 0). */
static int tree_start(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, capacity = 0;
  int *targets = NULL;
  NHOOD_TRY(nhood_node_read_table(s, in));
  if (!(targets = malloc(sizeof(int) * (size_t)(s->nout + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "node-tree: out of memory for the records");
  for (int i = 0; i < s->nout; i++) targets[i] = s->out[i].rank;
  qsort(targets, (size_t)s->nout, sizeof *targets, by_int);
  for (int i = 0; i < s->nout; i++)
    NHOOD_TRY(nhood_records_append(&s->held, &capacity, targets[i], &s->me, 1, NULL, 0));
  if (s->index >= s->p2 && s->held.nrecords)
    NHOOD_TRY(nhood_node_hand(s, 0, s->members[s->index - s->p2], &s->held, out));
cleanup:
  free(targets);
  return rc;
}

/* The records of the previous superstep's exchanges (labelled round), merged into held. */
static int tree_take(nhood_node_state *s, int round, const nhood_bsp_inbox *in) {
  return nhood_node_take_exchanges(s, round, in, &s->held);
}

/* Superstep 4 + B: each L(A, B) sends R(B, A) the records for B's processes (round 1 + B). */
static int tree_network(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, n = 0, capacity = 0;
  nhood_records stay = {0};
  nhood_node_routed *r = NULL;
  NHOOD_TRY(tree_take(s, s->bits, in));
  if (!(r = malloc(sizeof *r * (size_t)(s->held.nrecords + 1))))
    return nhood_error(MPI_ERR_NO_MEM, "node-tree: out of memory");
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1]) {
    int node = nhood_node_of(s->nodes, x[0]);
    if (node != s->mynode)
      r[n++] = (nhood_node_routed){node, x[0], x};
    else
      NHOOD_TRY(nhood_records_append(&stay, &capacity, x[0], x + 2, x[1], NULL, 0));
  }
  NHOOD_TRY(nhood_node_hand_grouped(s, 1 + s->bits, 1, r, n, out));
  nhood_records_free(&s->held);
  s->held = stay;
  memset(&stay, 0, sizeof stay);
cleanup:
  free(r);
  nhood_records_free(&stay);
  return rc;
}

/* Superstep 5 + 2B: a record for a process at index >= P2 goes to it (round 2 + 2B). */
static int tree_unfold(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int rc = MPI_SUCCESS, capacity = 0;
  nhood_records stay = {0};
  NHOOD_TRY(tree_take(s, 1 + 2 * s->bits, in));
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1]) {
    if (member_index(s, x[0]) < s->p2) {
      NHOOD_TRY(nhood_records_append(&stay, &capacity, x[0], x + 2, x[1], NULL, 0));
      continue;
    }
    nhood_records one = {0};
    int cap_one = 0;
    rc = nhood_records_append(&one, &cap_one, x[0], x + 2, x[1], NULL, 0);
    if (rc == MPI_SUCCESS) rc = nhood_node_hand(s, 2 + 2 * s->bits, x[0], &one, out);
    nhood_records_free(&one);
    if (rc != MPI_SUCCESS) goto cleanup;
  }
  nhood_records_free(&s->held);
  s->held = stay;
  memset(&stay, 0, sizeof stay);
cleanup:
  nhood_records_free(&stay);
  return rc;
}

/* Superstep 6 + 2B: what is held is this process's own: the self record. */
int nhood_node_tree_finish(nhood_node_state *s, const nhood_bsp_inbox *in) {
  int rc = MPI_SUCCESS, capacity = 0;
  NHOOD_TRY(tree_take(s, 2 + 2 * s->bits, in));
  for (const int *x = s->held.words; x < NHOOD_RECORDS_END(s->held); x += 2 + x[1]) {
    if (x[0] != s->me)
      return nhood_error(MPI_ERR_INTERN, "node-tree: a record for rank %d ends at rank %d", x[0], s->me);
    NHOOD_TRY(nhood_records_append(&s->pattern.self, &capacity, x[0], x + 2, x[1], NULL, 0));
  }
cleanup:
  return rc;
}

int nhood_node_tree_step(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out) {
  int step = in->superstep, B = s->bits, rc = MPI_SUCCESS;
  if (step == 3) return tree_start(s, in, out);
  if (step < 4 + B) { /* gather, bit step - 4 */
    NHOOD_TRY(tree_take(s, step - 4, in));
    return hand_across(s, step - 3, step - 4, gather_moves, out);
  }
  if (step == 4 + B) return tree_network(s, in, out);
  if (step < 5 + 2 * B) { /* scatter, bit step - 5 - B */
    NHOOD_TRY(tree_take(s, step - 4, in));
    return hand_across(s, step - 3, step - 5 - B, scatter_moves, out);
  }
  return tree_unfold(s, in, out);
cleanup:
  return rc;
}
