/*
 * Where MPI's own neighborhood collective may run a cold communicator's call: only where it is
 * known to give the MPI-4.1 result. What each MPI gets wrong is data (known_wrong below); what
 * a communicator has is read from its topology with local queries, at its first neighborhood
 * collective. Collectives that MPI's own would get wrong on it run nhood's `direct` instead,
 * from the first call (control.c).
 *
 * The verdict must be the same on every process: a process running nhood's direct and a
 * neighbor running MPI's own would never match each other's messages. A Cartesian layout and a
 * graph communicator's whole graph are the same everywhere; a distributed graph's lists are
 * not. Where MPI_PROC_NULL is this MPI's only fault with lists (Open MPI), each process hides
 * its own MPI_PROC_NULL entries from MPI (proc_null.c) and no process needs to hear of
 * another's; elsewhere, where this MPI gets a list property wrong, the processes agree on it
 * with one allreduce, posted at the graph's creation or made at its first call.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"

#define BIT(coll) (1u << (coll))
#define ALLTOALLS (BIT(IP_ALLTOALL) | BIT(IP_ALLTOALLV) | BIT(IP_ALLTOALLW))
#define EVERY (ALLTOALLS | BIT(IP_ALLGATHER) | BIT(IP_ALLGATHERV))

/* The collectives (bits by ip_coll) that an MPI's own gets wrong where a topology has: */
typedef struct {
  unsigned cart_pair;       /* a periodic dimension of size 1 or 2 (MPI-4.1 pairs block i with i^1) */
  unsigned duplicates;      /* a rank twice in a neighbor list (the k-th receive takes the k-th send) */
  unsigned proc_null;       /* MPI_PROC_NULL in a distributed graph's list */
  unsigned unequal_degrees; /* indegree != outdegree */
} known_wrong;

/* Found with the tests of tests/interpose (test_conformance.c) and tests/mpi (corpus.c):
 * - Open MPI 4.1 and 5.0 pair the blocks of a periodic dimension of size 1 or 2 by order in
 *   their non-blocking and persistent alltoall, and crash on MPI_PROC_NULL in a distributed
 *   graph (coll/basic hands it to the PML);
 * - MPICH before 5 pairs the duplicate edges of its alltoall(v) in reverse order where the
 *   messages have arrived before their receives were posted (so a test may pass by timing) and
 *   ignores the Cartesian pairing; before 4.1 its alltoallw swaps indegree and outdegree
 *   (pmodels/mpich#6233); MPICH 5 gets them right;
 * - Intel MPI 2021 pairs the two blocks of a periodic ring of 2 by order; its graph cases are
 *   not known, so they are taken as MPICH 4's;
 * - any other MPI: nothing is taken as known right.
 * The MPI is told by the library that runs, not by the header nhood was built with: one build
 * against the MPI-5 standard ABI runs on MPICH 5 and Intel MPI alike, and a build against MPICH
 * 4.0's header may run on a later MPICH 4. */
static known_wrong this_mpi(void) {
  nhood_library l = nhood_library_running();
  switch (l.kind) {
    case NHOOD_LIBRARY_OPEN_MPI:
      return (known_wrong){ALLTOALLS, 0, EVERY, 0};
    case NHOOD_LIBRARY_INTEL:
      return (known_wrong){ALLTOALLS, ALLTOALLS, 0, BIT(IP_ALLTOALLW)};
    case NHOOD_LIBRARY_MPICH:
      if (l.major >= 5) return (known_wrong){0, 0, 0, 0};
      if (l.major == 4 && l.minor >= 1) return (known_wrong){ALLTOALLS, ALLTOALLS, 0, 0};
      return (known_wrong){ALLTOALLS, ALLTOALLS, 0, BIT(IP_ALLTOALLW)};
    default:
      return (known_wrong){EVERY, EVERY, EVERY, EVERY};
  }
}

enum { HAS_DUPLICATES = 1, HAS_PROC_NULL = 2, HAS_UNEQUAL_DEGREES = 4 };

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Whether list[0..n) names a rank twice (MPI_PROC_NULL aside), and whether it has
 * MPI_PROC_NULL. Sorts a copy: scratch has room for n. */
static int list_properties(const int *list, int n, int *scratch) {
  int found = 0;
  memcpy(scratch, list, sizeof(int) * (size_t)n);
  qsort(scratch, (size_t)n, sizeof(int), compare_ints);
  for (int k = 0; k < n; k++) {
    if (scratch[k] == MPI_PROC_NULL)
      found |= HAS_PROC_NULL;
    else if (k > 0 && scratch[k] == scratch[k - 1])
      found |= HAS_DUPLICATES;
  }
  return found;
}

/* A distributed graph's properties on this process (its degrees in *in, *out). */
static int dist_graph_properties(MPI_Comm comm, int *in, int *out, int *found) {
  int weighted = 0, rc = PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
  if (rc != MPI_SUCCESS) return rc;
  size_t n = (size_t)*in + (size_t)*out;
  int *lists = malloc(sizeof(int) * (2 * n + 2 * (weighted ? n : 0) + 1));
  if (lists == NULL) return MPI_ERR_NO_MEM;
  int *sources = lists, *destinations = lists + *in, *scratch = lists + n, *weights = scratch + n;
  rc = PMPI_Dist_graph_neighbors(comm, *in, sources, weighted ? weights : MPI_UNWEIGHTED, *out, destinations,
                                 weighted ? weights + *in : MPI_UNWEIGHTED);
  if (rc == MPI_SUCCESS)
    *found = list_properties(sources, *in, scratch) | list_properties(destinations, *out, scratch) |
             (*in != *out ? HAS_UNEQUAL_DEGREES : 0);
  free(lists);
  return rc;
}

/* ---- the agreement, made while MPI creates the graph ------------------------------------ */

/* A distributed graph made through MPI_Dist_graph_create_adjacent carries, as an attribute,
 * what its processes' lists have (HAS_*, OR-ed over them, plus AGREED): the allreduce that
 * settles it was posted before MPI's own creation and ran alongside that creation's own
 * collectives, so a graph's first call need not pay one (a program that makes many graphs and
 * calls each a few times, as DOLFINx's scatterers do, paid for it heavily). A duplicate
 * keeps the attribute: it has the same lists. */
#define AGREED 8
static int agreed_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t agreed_once = PTHREAD_ONCE_INIT;
static void agreed_keyval_create(void) {
  PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &agreed_keyval, NULL);
}

void ip_own_right_finalize(void) {
  if (agreed_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&agreed_keyval);
}

/* What comm's attribute says (AGREED set), or 0 where it has none. */
static int agreed_properties(MPI_Comm comm) {
  void *value = NULL;
  int flag = 0;
  if (agreed_keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, agreed_keyval, &value, &flag) != MPI_SUCCESS ||
      !flag)
    return 0;
  return (int)(intptr_t)value;
}

/* Where MPI_PROC_NULL is this MPI's only fault with lists, and MPI has no large-count forms
 * (whose lowering may change a call's family, which proc_null.c's rewriting must not). */
static int strip_instead(known_wrong k) {
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_C)
  (void)k;
  return 0;
#else
  return k.proc_null && !k.duplicates && !k.unequal_degrees;
#endif
}

/* Under both names: MPI's own Fortran bindings (Open MPI's) call the PMPI one. */
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph) {
  known_wrong k = this_mpi();
  if (!(k.duplicates | k.proc_null | k.unequal_degrees) || !ip_cold_path_on())
    return ip_mpi_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                             destweights, info, reorder, comm_dist_graph);
  if (strip_instead(k))
    return ip_stripped_create(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
                              reorder, comm_dist_graph);
  int inter = 1, found = 0, agreed = 0;
  int *scratch = NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  /* Only on arguments MPI will take. */
  if (comm_old != MPI_COMM_NULL && indegree >= 0 && outdegree >= 0 && (sources || indegree == 0) &&
      (destinations || outdegree == 0) && PMPI_Comm_test_inter(comm_old, &inter) == MPI_SUCCESS && !inter &&
      (scratch = malloc(sizeof(int) * ((size_t)(indegree > outdegree ? indegree : outdegree) + 1)))) {
    found = list_properties(sources, indegree, scratch) | list_properties(destinations, outdegree, scratch) |
            (indegree != outdegree ? HAS_UNEQUAL_DEGREES : 0);
    if (PMPI_Iallreduce(&found, &agreed, 1, MPI_INT, MPI_BOR, comm_old, &request) != MPI_SUCCESS)
      request = MPI_REQUEST_NULL;
  }
  free(scratch);
  int rc = ip_mpi_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                             destweights, info, reorder, comm_dist_graph);
  if (request != MPI_REQUEST_NULL && PMPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && rc == MPI_SUCCESS &&
      *comm_dist_graph != MPI_COMM_NULL) {
    pthread_once(&agreed_once, agreed_keyval_create);
    if (agreed_keyval != MPI_KEYVAL_INVALID)
      PMPI_Comm_set_attr(*comm_dist_graph, agreed_keyval, (void *)(intptr_t)(agreed | AGREED));
  }
  return rc;
}
int PMPI_Dist_graph_create_adjacent(MPI_Comm, int, const int[], const int[], int, const int[], const int[], MPI_Info,
                                    int, MPI_Comm *) __attribute__((alias("MPI_Dist_graph_create_adjacent")));

/* A graph made from edges: where graphs are stripped, it is marked as one whose lists MPI has
 * as given, so that its first call agrees on them (its MPI_PROC_NULL entries may be anyone's). */
typedef int dist_graph_create_fn(MPI_Comm, int, const int[], const int[], const int[], const int[], MPI_Info, int,
                                 MPI_Comm *);
int ip_mpi_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info, int reorder,
                             MPI_Comm *comm_dist_graph) {
  static dist_graph_create_fn *_Atomic mpi_own;
  dist_graph_create_fn *f = mpi_own;
  if (f == NULL)
    mpi_own = f = (dist_graph_create_fn *)ip_mpi_own("PMPI_Dist_graph_create", (ip_any_fn *)PMPI_Dist_graph_create);
  return f(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph) {
  int rc =
      ip_mpi_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph);
  if (rc == MPI_SUCCESS && strip_instead(this_mpi()) && ip_cold_path_on() && *comm_dist_graph != MPI_COMM_NULL)
    rc = ip_stripped_mark_unknown(*comm_dist_graph);
  return rc;
}
int PMPI_Dist_graph_create(MPI_Comm, int, const int[], const int[], const int[], const int[], MPI_Info, int, MPI_Comm *)
    __attribute__((alias("MPI_Dist_graph_create")));

/* A graph communicator's: every process has the whole graph, so every process finds the same. */
static int graph_properties(MPI_Comm comm, int *degree, int *found) {
  int rank = 0, nnodes = 0, nedges = 0, rc = PMPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Graphdims_get(comm, &nnodes, &nedges);
  if (rc == MPI_SUCCESS) rc = PMPI_Graph_neighbors_count(comm, rank, degree);
  if (rc != MPI_SUCCESS) return rc;
  int *index = malloc(sizeof(int) * ((size_t)nnodes + 2 * (size_t)nedges + 1));
  if (index == NULL) return MPI_ERR_NO_MEM;
  int *edges = index + nnodes, *scratch = edges + nedges;
  rc = PMPI_Graph_get(comm, nnodes, nedges, index, edges);
  for (int node = 0; rc == MPI_SUCCESS && node < nnodes && !*found; node++) {
    int from = node == 0 ? 0 : index[node - 1];
    *found |= list_properties(edges + from, index[node] - from, scratch) & HAS_DUPLICATES;
  }
  free(index);
  return rc;
}

/* A Cartesian communicator's: a periodic dimension of size 1 or 2 (the same everywhere). */
static int cart_properties(MPI_Comm comm, int *degree, int *pairs) {
  int ndims = 0, rc = PMPI_Cartdim_get(comm, &ndims);
  if (rc != MPI_SUCCESS) return rc;
  int *grid = malloc(sizeof(int) * (3 * (size_t)ndims + 1));
  if (grid == NULL) return MPI_ERR_NO_MEM;
  rc = PMPI_Cart_get(comm, ndims, grid, grid + ndims, grid + 2 * ndims);
  for (int d = 0; rc == MPI_SUCCESS && d < ndims; d++)
    if (grid[ndims + d] && grid[d] <= 2) *pairs = 1;
  free(grid);
  *degree = 2 * ndims;
  return rc;
}

int ip_own_right(MPI_Comm comm, int kind, ip_comm *c) {
  known_wrong k = this_mpi();
  int in = 0, out = 0, found = 0, pairs = 0, rc;
  if (kind == MPI_CART) {
    rc = cart_properties(comm, &in, &pairs);
    out = in;
  } else if (kind == MPI_GRAPH) {
    rc = graph_properties(comm, &in, &found);
    out = in;
  } else {
    rc = dist_graph_properties(comm, &in, &out, &found);
    /* Where this MPI gets some list property wrong, every process must hear of it: agreed at
     * the graph's creation where it went through this library, else now. A graph made here
     * where MPI_PROC_NULL is the only fault has none left in MPI's lists (the lists read above
     * are the ones given, proc_null.c). */
    int agreed = strip_instead(k) ? 0 : agreed_properties(comm);
    if (strip_instead(k) && ip_stripped_lists_known(comm)) {
      found &= ~HAS_PROC_NULL;
      c->stripped = ip_stripped_of(comm);
    } else if (agreed)
      found = agreed & ~AGREED;
    else if (rc == MPI_SUCCESS && (k.duplicates | k.proc_null | k.unequal_degrees))
      rc = PMPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_BOR, comm);
  }
  if (rc != MPI_SUCCESS) return rc;
  c->indegree = in;
  c->outdegree = out;
  c->own_wrong = (pairs ? k.cart_pair : 0) | (found & HAS_DUPLICATES ? k.duplicates : 0) |
                 (found & HAS_PROC_NULL ? k.proc_null : 0) | (found & HAS_UNEQUAL_DEGREES ? k.unequal_degrees : 0);
  return MPI_SUCCESS;
}
