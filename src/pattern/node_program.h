/*
 * What the three files of node-aware aggregation's Phase 1 share (node.c says what each
 * superstep does): node.c runs the program and its supersteps 0 and 3-6, node_pairs.c the
 * leaders' supersteps 1 and 2 (which process carries which node pair, and the node's table),
 * node_tree.c node-tree's routing along a hypercube of each node's processes. Private to them.
 */
#ifndef NHOOD_PATTERN_NODE_PROGRAM_H
#define NHOOD_PATTERN_NODE_PROGRAM_H

#include "pattern/bsp.h"
#include "pattern/node.h"
#include "pattern/records.h"

enum { TABLE_WIDTH = 5 }; /* B, L(A,B), R(B,A), L(B,A), R(A,B) */

typedef struct {
  int rank, node;
  long long volume;
} nhood_node_edge;

typedef struct {
  int me, mynode, leader;
  NHOOD_Topo topo;
  const nhood_nodes *nodes;
  nhood_node_edge *out, *in; /* combinable edges, by (node, rank) */
  int nout, nin;
  int *locals, nlocals;     /* leader: the processes of its node, ascending */
  int *assigned, nassigned; /* leader: (B, L(A,B), R(A,B)) by B */
  int *table, ntable;       /* TABLE_WIDTH ints per node this node exchanges with, by B */
  int *members, nmembers;   /* the node's processes, ascending (from the leader's table message) */
  int tree;                 /* node-tree: records travel along a hypercube of the node's processes */
  int index, p2, bits;      /* node-tree: this process's index among members; P2; B (see the top) */
  nhood_records held;       /* node: as L(A, B), own blocks for other nodes' processes, by target;
                               node-tree: every record this process holds, by target */
  nhood_combine_level *x;   /* exchanges so far */
  int nx, capx;
  nhood_combine_pattern pattern;
} nhood_node_state;

typedef struct {
  int key, target; /* key: L (round 0) or the target's node (round 1) */
  const int *record;
} nhood_node_routed;

/* node_pairs.c */
int nhood_node_largest_power_of_two(int n);
/* Superstep 1, a leader: who of the node sends to and receives from each other node. */
int nhood_node_assign_pairs(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out);
/* Superstep 2, a leader: the table from both sides of every node pair, checked, to every
 * process of the node. */
int nhood_node_send_table(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out);
/* Superstep 3: the leader's table message read (the table, the node's processes, this
 * process's index among them). */
int nhood_node_read_table(nhood_node_state *s, const nhood_bsp_inbox *in);
/* The table's row for a node, or NULL. */
const int *nhood_node_table_row(const nhood_node_state *s, int node);

/* node.c */
/* Hands records to partner in round: a message now and the exchange's out list. */
int nhood_node_hand(nhood_node_state *s, int round, int partner, nhood_records *r, nhood_bsp_outbox *out);
/* Hands the routed records, grouped by key, to L(A, B) (round 0) or R(B, A) (to_receiver). */
int nhood_node_hand_grouped(nhood_node_state *s, int round, int to_receiver, nhood_node_routed *r, int n,
                            nhood_bsp_outbox *out);
/* The records of the previous superstep's exchanges (labelled round), merged into acc. */
int nhood_node_take_exchanges(nhood_node_state *s, int round, const nhood_bsp_inbox *in, nhood_records *acc);

/* node_tree.c */
/* node-tree's supersteps 3 to 5 + 2B, and 6 + 2B (the self record). */
int nhood_node_tree_step(nhood_node_state *s, const nhood_bsp_inbox *in, nhood_bsp_outbox *out);
int nhood_node_tree_finish(nhood_node_state *s, const nhood_bsp_inbox *in);

#endif
