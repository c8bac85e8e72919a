#include "common/nodes.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

void nhood_nodes_blocks(nhood_nodes *n, int nranks, int k) {
  memset(n, 0, sizeof *n);
  n->nranks = nranks;
  n->per_node = k > 0 ? k : 1;
  n->nnodes = nranks > 0 ? (nranks + n->per_node - 1) / n->per_node : 0;
}

int nhood_nodes_from_labels(nhood_nodes *n, int nranks, const int *label) {
  memset(n, 0, sizeof *n);
  n->nranks = nranks;
  n->node_of = malloc(sizeof(int) * (size_t)(nranks + 1));
  n->leader = malloc(sizeof(int) * (size_t)(nranks + 1));
  if (!n->node_of || !n->leader) {
    nhood_nodes_free(n);
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for the node map of %d processes", nranks);
  }
  /* Quadratic in the number of nodes only where labels are new: a rank's label is searched
   * among the leaders found so far, newest first (consecutive ranks usually share a node). */
  for (int r = 0; r < nranks; r++) {
    int node = n->nnodes - 1;
    while (node >= 0 && label[n->leader[node]] != label[r]) node--;
    if (node < 0) {
      node = n->nnodes++;
      n->leader[node] = r;
    }
    n->node_of[r] = node;
  }
  return MPI_SUCCESS;
}

void nhood_nodes_free(nhood_nodes *n) {
  free(n->node_of);
  free(n->leader);
  n->node_of = n->leader = NULL;
}
