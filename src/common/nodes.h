/*
 * Which processes of a communicator share a node: the map the node-aware algorithms and the
 * two-level cost model read. Pure data, no MPI call: the API layer fills it (from
 * MPI_Comm_split_type, or NHOOD_RANKS_PER_NODE / the topology's info key to emulate a cluster
 * on one machine), nhood-sim and nhood-info from --ranks-per-node.
 *
 * Nodes are numbered 0.. in the order of their lowest rank, and a node's leader is its lowest
 * rank, so the map reads the same on every process.
 */
#ifndef NHOOD_COMMON_NODES_H
#define NHOOD_COMMON_NODES_H

typedef struct nhood_nodes {
  int nranks, nnodes;
  int per_node; /* > 0: rank r is on node r / per_node (the last node may be smaller); else the arrays */
  int *node_of; /* nranks entries (per_node == 0) */
  int *leader;  /* nnodes entries (per_node == 0): the lowest rank of each node */
} nhood_nodes;

/* Blocks of k consecutive ranks (k >= 1). */
void nhood_nodes_blocks(nhood_nodes *n, int nranks, int k);
/* From each rank's node label (any ints; equal labels share a node): copies what it needs.
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int nhood_nodes_from_labels(nhood_nodes *n, int nranks, const int *label);
void nhood_nodes_free(nhood_nodes *n);

static inline int nhood_node_of(const nhood_nodes *n, int rank) {
  return n->per_node > 0 ? rank / n->per_node : n->node_of[rank];
}
static inline int nhood_node_leader(const nhood_nodes *n, int node) {
  return n->per_node > 0 ? node * n->per_node : n->leader[node];
}
/* Whether two ranks share a node (MPI_PROC_NULL shares none). */
static inline int nhood_same_node(const nhood_nodes *n, int a, int b) {
  return a >= 0 && b >= 0 && nhood_node_of(n, a) == nhood_node_of(n, b);
}

#endif
