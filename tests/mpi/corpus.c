#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "topospec.h"

/* ------------------------------------------------------------------------------------- */
/* Deterministic randomness: every process derives the same global graph from one seed.   */
/* ------------------------------------------------------------------------------------- */

typedef struct {
  unsigned long long state;
} rng;

static unsigned long long rng_next(rng *g) { /* splitmix64 */
  unsigned long long z = (g->state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double rng_uniform(rng *g) { return (double)(rng_next(g) >> 11) / 9007199254740992.0; }

/* Shuffles list (and weights, when not NULL) with the same permutation. */
static void shuffle(int *list, int *weights, int n, rng *g) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(rng_next(g) % (unsigned long long)(i + 1));
    int t = list[i];
    list[i] = list[j];
    list[j] = t;
    if (weights) {
      t = weights[i];
      weights[i] = weights[j];
      weights[j] = t;
    }
  }
}

/* Elements p sends to q in the v/w cases: depends only on the pair, so any pairing of
 * duplicate edges agrees on it, and is 0 for about a quarter of the pairs. MPI_PROC_NULL
 * blocks get a non-zero count: their receive regions must stay untouched. */
static int pair_elems(int source, int dest) {
  if (source == MPI_PROC_NULL || dest == MPI_PROC_NULL) return 2;
  return (3 * source + 5 * dest + 1) % 4;
}

/* ------------------------------------------------------------------------------------- */
/* Entries                                                                                */
/* ------------------------------------------------------------------------------------- */

/* filter: NULL (everything) or a comma-separated list of parts of names. */
static int name_selected(const char *name, const char *filter) {
  if (filter == NULL) return 1;
  char part[128];
  for (const char *p = filter; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n < sizeof part) {
      memcpy(part, p, n);
      part[n] = '\0';
      if (strstr(name, part) != NULL) return 1;
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static corpus_entry *corpus_new_entry(corpus *c, const char *name) {
  if (c->nentries == c->capacity) {
    c->capacity = c->capacity ? 2 * c->capacity : 32;
    corpus_entry *grown = realloc(c->entries, sizeof *grown * (size_t)c->capacity);
    if (grown == NULL) test_fatal(__FILE__, __LINE__, "realloc", MPI_ERR_NO_MEM);
    c->entries = grown;
  }
  corpus_entry *e = &c->entries[c->nentries++];
  memset(e, 0, sizeof *e);
  e->topo = test_calloc((size_t)c->nalgorithms, sizeof *e->topo);
  snprintf(e->name, sizeof e->name, "%s", name);
  e->nhood_comm = MPI_COMM_NULL;
  e->ref_comm = MPI_COMM_NULL;
  return e;
}

static void corpus_failure(corpus *c, const char *entry, const char *what) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "rank %d: CORPUS FAILURE in %s: %s\n", rank, entry, what);
  c->nfailures++;
}

static int has_repeated_rank(const int *ranks, int n) {
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (ranks[a] == ranks[b] && ranks[a] != MPI_PROC_NULL) return 1;
  return 0;
}

/* MPICH before 4.1 mixes up indegree and outdegree when it converts the counts of
 * MPI_Neighbor_alltoallw (pmodels/mpich#6233): some blocks are not received unless both
 * degrees are equal. MPI_PROC_NULL entries, which MPICH handles, even them out. */
static int alltoallw_needs_equal_degrees(void) {
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  return 1;
#else
  return 0;
#endif
}

/* The alltoallw block maps of e and its flags (see corpus.h), from e's lists. */
static void entry_map_alltoallw_blocks(corpus_entry *e) {
  int capacity = e->indegree > e->outdegree ? e->indegree : e->outdegree;
  e->alltoallw_recv_block = test_malloc(sizeof(int) * (size_t)capacity);
  e->alltoallw_send_block = test_malloc(sizeof(int) * (size_t)capacity);
  int in = 0, out = 0;
  for (int i = 0; i < e->indegree; i++) {
    if (e->sources[i] != MPI_PROC_NULL) e->alltoallw_recv_block[in++] = i;
  }
  for (int j = 0; j < e->outdegree; j++) {
    int block = e->kind == MPI_CART ? j ^ 1 : j; /* Cartesian pairing (corpus.h); even degree */
    if (e->destinations[block] != MPI_PROC_NULL) e->alltoallw_send_block[out++] = block;
  }
  int local[2] = {in < e->indegree || out < e->outdegree,
                  has_repeated_rank(e->sources, e->indegree) || has_repeated_rank(e->destinations, e->outdegree)};
  int global[2];
  TEST_CHECK(MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, e->ref_comm));
  e->has_proc_null = global[0];
  e->has_duplicates = global[1];
  while (alltoallw_needs_equal_degrees() && in < out) e->alltoallw_recv_block[in++] = -1;
  while (alltoallw_needs_equal_degrees() && out < in) e->alltoallw_send_block[out++] = -1;
  e->alltoallw_indegree = in;
  e->alltoallw_outdegree = out;
}

/* Reads the neighborhood of e->ref_comm the way MPI defines the buffer layout of its
 * neighborhood collectives, and derives the per-block element counts. */
static void entry_read_reference(corpus_entry *e, const int *send_elems, const int *recv_elems) {
  int rank;
  TEST_CHECK(MPI_Comm_rank(e->ref_comm, &rank));
  TEST_CHECK(MPI_Topo_test(e->ref_comm, &e->kind));
  if (e->kind == MPI_DIST_GRAPH) {
    int weighted;
    TEST_CHECK(MPI_Dist_graph_neighbors_count(e->ref_comm, &e->indegree, &e->outdegree, &weighted));
    e->sources = test_malloc(sizeof(int) * (size_t)e->indegree);
    e->destinations = test_malloc(sizeof(int) * (size_t)e->outdegree);
    int *sourceweights = test_malloc(sizeof(int) * (size_t)e->indegree);
    int *destweights = test_malloc(sizeof(int) * (size_t)e->outdegree);
    TEST_CHECK(MPI_Dist_graph_neighbors(e->ref_comm, e->indegree, e->sources, sourceweights, e->outdegree,
                                        e->destinations, destweights));
    free(sourceweights);
    free(destweights);
  } else if (e->kind == MPI_GRAPH) {
    TEST_CHECK(MPI_Graph_neighbors_count(e->ref_comm, rank, &e->indegree));
    e->outdegree = e->indegree;
    e->sources = test_malloc(sizeof(int) * (size_t)e->indegree);
    e->destinations = test_malloc(sizeof(int) * (size_t)e->outdegree);
    TEST_CHECK(MPI_Graph_neighbors(e->ref_comm, rank, e->indegree, e->sources));
    memcpy(e->destinations, e->sources, sizeof(int) * (size_t)e->indegree);
  } else if (e->kind == MPI_CART) {
    /* Per dimension: the source, then the destination of a shift by +1, for both sides. */
    int ndims;
    TEST_CHECK(MPI_Cartdim_get(e->ref_comm, &ndims));
    e->indegree = e->outdegree = 2 * ndims;
    e->sources = test_malloc(sizeof(int) * (size_t)e->indegree);
    e->destinations = test_malloc(sizeof(int) * (size_t)e->outdegree);
    for (int d = 0; d < ndims; d++)
      TEST_CHECK(MPI_Cart_shift(e->ref_comm, d, 1, &e->sources[2 * d], &e->sources[2 * d + 1]));
    memcpy(e->destinations, e->sources, sizeof(int) * (size_t)e->indegree);
  } else {
    test_fatal(__FILE__, __LINE__, "reference communicator without topology", MPI_ERR_TOPOLOGY);
  }
  e->send_elems = test_malloc(sizeof(int) * (size_t)e->outdegree);
  e->recv_elems = test_malloc(sizeof(int) * (size_t)e->indegree);
  for (int j = 0; j < e->outdegree; j++)
    e->send_elems[j] = send_elems ? send_elems[j] : pair_elems(rank, e->destinations[j]);
  for (int i = 0; i < e->indegree; i++) e->recv_elems[i] = recv_elems ? recv_elems[i] : pair_elems(e->sources[i], rank);
  entry_map_alltoallw_blocks(e);
}

/* An adjacency-list entry: nhood topology from the lists, reference from the same lists
 * through MPI_Dist_graph_create_adjacent. Optional element counts override pair_elems. */
static void add_adjacent(corpus *c, const MPI_Info infos[], const char *name, int indegree, const int sources[],
                         const int sourceweights[], int outdegree, const int destinations[], const int destweights[],
                         const int send_elems[], const int recv_elems[]) {
  corpus_entry *e = corpus_new_entry(c, name);
  e->nhood_comm = c->plain_comm;
  TEST_CHECK(MPI_Dist_graph_create_adjacent(c->plain_comm, indegree, sources, sourceweights, outdegree, destinations,
                                            destweights, MPI_INFO_NULL, 0, &e->ref_comm));
  for (int a = 0; a < c->nalgorithms; a++)
    TEST_CHECK(NHOOD_Topo_create_adjacent(indegree, sources, sourceweights, outdegree, destinations, destweights,
                                          infos[a], &e->topo[a]));
  entry_read_reference(e, send_elems, recv_elems);
}

/* An entry for a communicator that carries an MPI topology: nhood reads it from the
 * communicator, MPI_Neighbor_* on the communicator itself is the reference. Takes comm. */
static void add_from_comm(corpus *c, const MPI_Info infos[], const char *name, MPI_Comm comm) {
  corpus_entry *e = corpus_new_entry(c, name);
  e->nhood_comm = comm;
  e->ref_comm = comm;
  for (int a = 0; a < c->nalgorithms; a++) TEST_CHECK(NHOOD_Topo_create_from_comm(comm, infos[a], &e->topo[a]));
  entry_read_reference(e, NULL, NULL);
}

/* ------------------------------------------------------------------------------------- */
/* Random multigraphs                                                                     */
/* ------------------------------------------------------------------------------------- */

typedef struct random_graph_spec {
  const char *name;
  double density; /* probability of an edge p -> q, self loops included */
  int weighted;
  int isolate_last_rank;   /* the last rank has no edges at all (when there are >= 3) */
  int rank0_receives_only; /* rank 0 has no outgoing edges (when there are >= 2) */
  int proc_nulls;          /* add MPI_PROC_NULL entries to the lists */
  int also_reversed;       /* the corpus also holds NHOOD_Topo_reverse of it */
  unsigned long long seed;
} random_graph_spec;

static const random_graph_spec random_graphs[] = {
    {"random-d0", 0.0, 0, 0, 0, 0, 0, 11},
    {"random-d0.2-weighted", 0.2, 1, 1, 0, 0, 0, 12},
    {"random-d0.5-procnull", 0.5, 0, 0, 1, 1, 1, 13},
    {"random-d1.0-weighted", 1.0, 1, 0, 0, 0, 1, 14},
};

typedef struct adjacency {
  int indegree, outdegree;
  int *sources, *sourceweights, *destinations, *destweights; /* weights NULL: unweighted */
} adjacency;

static void adjacency_free(adjacency *adj) {
  free(adj->sources);
  free(adj->sourceweights);
  free(adj->destinations);
  free(adj->destweights);
  memset(adj, 0, sizeof *adj);
}

static const int *weights_or_unweighted(const int *weights) { return weights ? weights : test_unweighted(); }

/* This process's lists of the multigraph spec on size processes: every process draws the
 * same multiplicity matrix (up to 3 parallel edges), then shuffles its own lists. */
static void random_graph_lists(const random_graph_spec *spec, int rank, int size, adjacency *adj) {
  int *multiplicity = test_calloc((size_t)size * (size_t)size, sizeof(int));
  rng global = {spec->seed};
  for (int p = 0; p < size; p++)
    for (int q = 0; q < size; q++)
      if (rng_uniform(&global) < spec->density) multiplicity[p * size + q] = 1 + (int)(rng_next(&global) % 3);
  if (spec->isolate_last_rank && size >= 3)
    for (int q = 0; q < size; q++) multiplicity[(size - 1) * size + q] = multiplicity[q * size + size - 1] = 0;
  if (spec->rank0_receives_only && size >= 2)
    for (int q = 0; q < size; q++) multiplicity[q] = 0;

  int nulls_in = spec->proc_nulls ? 2 : 0, nulls_out = spec->proc_nulls ? 1 : 0;
  int max_degree = 3 * size + 2;
  memset(adj, 0, sizeof *adj);
  adj->sources = test_malloc(sizeof(int) * (size_t)max_degree);
  adj->destinations = test_malloc(sizeof(int) * (size_t)max_degree);
  if (spec->weighted) {
    adj->sourceweights = test_malloc(sizeof(int) * (size_t)max_degree);
    adj->destweights = test_malloc(sizeof(int) * (size_t)max_degree);
  }
  for (int q = 0; q < size; q++) {
    for (int k = 0; k < multiplicity[q * size + rank]; k++) {
      if (spec->weighted) adj->sourceweights[adj->indegree] = (7 * q + k) % 5; /* 0 included */
      adj->sources[adj->indegree++] = q;
    }
    for (int k = 0; k < multiplicity[rank * size + q]; k++) {
      if (spec->weighted) adj->destweights[adj->outdegree] = (3 * q + k) % 4;
      adj->destinations[adj->outdegree++] = q;
    }
  }
  for (int k = 0; k < nulls_in; k++) {
    if (spec->weighted) adj->sourceweights[adj->indegree] = 1;
    adj->sources[adj->indegree++] = MPI_PROC_NULL;
  }
  for (int k = 0; k < nulls_out; k++) {
    if (spec->weighted) adj->destweights[adj->outdegree] = 1;
    adj->destinations[adj->outdegree++] = MPI_PROC_NULL;
  }
  rng local = {spec->seed * 1000003ULL + (unsigned long long)rank};
  shuffle(adj->sources, adj->sourceweights, adj->indegree, &local);
  shuffle(adj->destinations, adj->destweights, adj->outdegree, &local);
  free(multiplicity);
}

static void add_random_graphs(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size) {
  for (size_t s = 0; s < sizeof random_graphs / sizeof random_graphs[0]; s++) {
    const random_graph_spec *spec = &random_graphs[s];
    if (!name_selected(spec->name, filter)) continue;
    adjacency adj;
    random_graph_lists(spec, rank, size, &adj);
    add_adjacent(c, infos, spec->name, adj.indegree, adj.sources, weights_or_unweighted(adj.sourceweights),
                 adj.outdegree, adj.destinations, weights_or_unweighted(adj.destweights), NULL, NULL);
    adjacency_free(&adj);
  }
}

/* NHOOD_Topo_reverse of a random multigraph; the reference swaps the lists. */
static void add_reverse_graphs(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size) {
  for (size_t s = 0; s < sizeof random_graphs / sizeof random_graphs[0]; s++) {
    const random_graph_spec *spec = &random_graphs[s];
    if (!spec->also_reversed) continue;
    char name[64];
    snprintf(name, sizeof name, "reverse-%s", spec->name);
    if (!name_selected(name, filter)) continue;
    adjacency adj;
    random_graph_lists(spec, rank, size, &adj);
    const int *sw = weights_or_unweighted(adj.sourceweights), *dw = weights_or_unweighted(adj.destweights);
    corpus_entry *e = corpus_new_entry(c, name);
    e->nhood_comm = c->plain_comm;
    TEST_CHECK(MPI_Dist_graph_create_adjacent(c->plain_comm, adj.outdegree, adj.destinations, dw, adj.indegree,
                                              adj.sources, sw, MPI_INFO_NULL, 0, &e->ref_comm));
    for (int a = 0; a < c->nalgorithms; a++) {
      NHOOD_Topo forward;
      TEST_CHECK(NHOOD_Topo_create_adjacent(adj.indegree, adj.sources, sw, adj.outdegree, adj.destinations, dw,
                                            infos[a], &forward));
      TEST_CHECK(NHOOD_Topo_reverse(forward, &e->topo[a]));
      TEST_CHECK(NHOOD_Topo_free(&forward)); /* the reverse must not depend on it */
    }
    entry_read_reference(e, NULL, NULL);
    adjacency_free(&adj);
  }
}

/* ------------------------------------------------------------------------------------- */
/* Cartesian, graph and distributed graph communicators                                   */
/* ------------------------------------------------------------------------------------- */

#define DIM_ALL (-1)  /* the number of processes */
#define DIM_HALF (-2) /* half of it (shape used only for an even number) */

static const struct cart_shape {
  int ndims, dims[3], periods[3];
} cart_shapes[] = {
    {1, {DIM_ALL}, {1}},
    {1, {DIM_ALL}, {0}},
    {2, {DIM_ALL, 1}, {1, 1}},
    {2, {1, DIM_ALL}, {0, 1}},
    {2, {2, DIM_HALF}, {1, 0}},
    {2, {2, DIM_HALF}, {0, 1}},
    {3, {DIM_ALL, 1, 1}, {1, 1, 0}},
    {3, {1, 2, DIM_HALF}, {1, 1, 1}},
};

/* "cart-2x4-p10": the dimensions and, per dimension, periodic (1) or not (0). */
static void cart_name(char *name, size_t len, const char *prefix, int ndims, const int dims[], const int periods[]) {
  size_t n = (size_t)snprintf(name, len, "%s", prefix);
  for (int d = 0; d < ndims && n < len; d++) n += (size_t)snprintf(name + n, len - n, "%s%d", d ? "x" : "-", dims[d]);
  if (n < len) n += (size_t)snprintf(name + n, len - n, "-p");
  for (int d = 0; d < ndims && n < len; d++) n += (size_t)snprintf(name + n, len - n, "%d", periods[d] ? 1 : 0);
}

static void add_cartesian(corpus *c, const MPI_Info infos[], const char *filter, int size) {
  for (size_t s = 0; s < sizeof cart_shapes / sizeof cart_shapes[0]; s++) {
    const struct cart_shape *shape = &cart_shapes[s];
    int dims[3];
    int usable = 1;
    for (int d = 0; d < shape->ndims; d++) {
      dims[d] = shape->dims[d] == DIM_ALL ? size : shape->dims[d] == DIM_HALF ? size / 2 : shape->dims[d];
      if (shape->dims[d] == DIM_HALF && size % 2 != 0) usable = 0;
    }
    char name[64];
    cart_name(name, sizeof name, "cart", shape->ndims, dims, shape->periods);
    if (!usable || !name_selected(name, filter)) continue;
    MPI_Comm cart;
    TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, shape->ndims, dims, shape->periods, 0, &cart));
    add_from_comm(c, infos, name, cart);
  }
}

/* A graph communicator: a ring plus chords, a duplicate edge and a self loop, in shuffled
 * order. MPI requires a symmetric adjacency for neighborhood collectives on graph
 * communicators, so every undirected edge {u, v} is listed by both ends. */
static void add_graph_comm(corpus *c, const MPI_Info infos[], const char *filter, int size) {
  const char *name = "graph-ring-chords";
  if (!name_selected(name, filter)) return;
  int max_edges = 2 * (2 * size + 2);
  int *pairs = test_malloc(sizeof(int) * (size_t)max_edges); /* undirected edges u, v */
  int npairs = 0;
  for (int i = 0; i < size && size >= 2; i++) {
    pairs[2 * npairs] = i;
    pairs[2 * npairs++ + 1] = (i + 1) % size;
  }
  for (int i = 0; i < size / 2 && size >= 4; i++) {
    pairs[2 * npairs] = i;
    pairs[2 * npairs++ + 1] = i + size / 2;
  }
  if (size >= 3) { /* a second 0-1 edge; with 2 processes the ring already doubles it */
    pairs[2 * npairs] = 0;
    pairs[2 * npairs++ + 1] = 1;
  }
  pairs[2 * npairs] = pairs[2 * npairs + 1] = size - 1; /* self loop, listed once */
  npairs++;

  int *degree = test_calloc((size_t)size, sizeof(int));
  for (int k = 0; k < npairs; k++) {
    degree[pairs[2 * k]]++;
    if (pairs[2 * k] != pairs[2 * k + 1]) degree[pairs[2 * k + 1]]++;
  }
  int *index = test_malloc(sizeof(int) * (size_t)size);
  int *edges = test_malloc(sizeof(int) * (size_t)(2 * npairs));
  int *fill = test_calloc((size_t)size, sizeof(int));
  for (int v = 0, total = 0; v < size; v++) index[v] = total += degree[v];
  for (int k = 0; k < npairs; k++) {
    int u = pairs[2 * k], v = pairs[2 * k + 1];
    edges[index[u] - degree[u] + fill[u]++] = v;
    if (u != v) edges[index[v] - degree[v] + fill[v]++] = u;
  }
  rng g = {21};
  for (int v = 0; v < size; v++) shuffle(&edges[index[v] - degree[v]], NULL, degree[v], &g);
  MPI_Comm graph;
  TEST_CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  add_from_comm(c, infos, name, graph);
  free(pairs);
  free(degree);
  free(index);
  free(edges);
  free(fill);
}

/* A distributed graph given with the non-adjacent MPI_Dist_graph_create: every process
 * contributes edges that start elsewhere, so MPI has to redistribute them. On few processes
 * the edges become self loops and duplicates. */
static void add_dist_graph_comm(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size) {
  const char *name = "distgraph-nonadjacent";
  if (!name_selected(name, filter)) return;
  int sources[2] = {rank, (rank + 2) % size};
  int degrees[2] = {2, 1};
  int destinations[3] = {(rank + 1) % size, (rank + 3) % size, rank};
  int weights[3] = {1, 2, 3};
  MPI_Comm dist;
  TEST_CHECK(
      MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, destinations, weights, MPI_INFO_NULL, 0, &dist));
  add_from_comm(c, infos, name, dist);
}

/* ------------------------------------------------------------------------------------- */
/* Isomorphic neighborhoods                                                               */
/* ------------------------------------------------------------------------------------- */

/* The test's own enumeration of the offsets, independent of nhood's helpers:
 * lexicographic, first dimension slowest, zero excluded. Returns the count. */
static int expected_offsets(int moore, int ndims, int radius, int *out) {
  int vec[3], count = 0;
  for (int d = 0; d < ndims; d++) vec[d] = -radius;
  for (;;) {
    int manhattan = 0; /* every vector of the loop is within Chebyshev radius */
    for (int d = 0; d < ndims; d++) manhattan += abs(vec[d]);
    if (manhattan > 0 && (moore || manhattan <= radius)) {
      memcpy(&out[count * ndims], vec, sizeof(int) * (size_t)ndims);
      count++;
    }
    int d = ndims - 1;
    while (d >= 0 && vec[d] == radius) vec[d--] = -radius;
    if (d < 0) return count;
    vec[d]++;
  }
}

/* Coordinate x on a dimension of size dim: wrapped if it is periodic, else -1 when outside. */
static int coordinate_on(int x, int dim, int periodic) {
  if (periodic) return ((x % dim) + dim) % dim;
  return x < 0 || x >= dim ? -1 : x;
}

/* Rank at coords + sign * offset, computed with MPI only (not with nhood's helpers). */
static int cart_rank_at(MPI_Comm cart, int ndims, const int dims[], const int periods[], const int coords[],
                        const int offset[], int sign) {
  int target[3];
  for (int d = 0; d < ndims; d++)
    if ((target[d] = coordinate_on(coords[d] + sign * offset[d], dims[d], periods[d])) < 0) return MPI_PROC_NULL;
  int rank;
  TEST_CHECK(MPI_Cart_rank(cart, target, &rank));
  return rank;
}

/* Checks nhood's Cartesian helpers against MPI's own coordinates on this communicator. */
static void check_cart_helpers(corpus *c, const char *name, MPI_Comm cart, int ndims, const int dims[],
                               const int periods[], const int coords[], int noffsets, const int offsets[]) {
  char what[256];
  int size;
  TEST_CHECK(MPI_Comm_size(cart, &size));
  for (int i = 0; i < noffsets; i++) {
    const int *off = &offsets[i * ndims];
    int want_src = cart_rank_at(cart, ndims, dims, periods, coords, off, -1);
    int want_dst = cart_rank_at(cart, ndims, dims, periods, coords, off, +1);
    int src = -2, dst = -2, at = -2;
    TEST_CHECK(NHOOD_Cart_relative_shift(cart, off, &src, &dst));
    TEST_CHECK(NHOOD_Cart_relative_rank(cart, off, &at));
    if (src != want_src || dst != want_dst || at != want_dst) {
      snprintf(what, sizeof what,
               "offset %d: NHOOD_Cart_relative_shift gave source %d dest %d, relative_rank %d; MPI says "
               "source %d dest %d",
               i, src, dst, at, want_src, want_dst);
      corpus_failure(c, name, what);
    }
  }
  for (int r = 0; r < size; r++) {
    int rel[3], other[3], back = -2, in_range = 1;
    TEST_CHECK(NHOOD_Cart_relative_coords(cart, r, rel));
    TEST_CHECK(MPI_Cart_coords(cart, r, ndims, other));
    for (int d = 0; d < ndims; d++) {
      if (periods[d])
        in_range &= -dims[d] < 2 * rel[d] && 2 * rel[d] <= dims[d] &&
                    ((coords[d] + rel[d]) % dims[d] + dims[d]) % dims[d] == other[d];
      else
        in_range &= rel[d] == other[d] - coords[d];
    }
    TEST_CHECK(NHOOD_Cart_relative_rank(cart, rel, &back));
    if (!in_range || back != r) {
      snprintf(what, sizeof what,
               "NHOOD_Cart_relative_coords of rank %d gives (%d,%d,%d)[first %d dims], which leads back to "
               "rank %d%s",
               r, rel[0], ndims > 1 ? rel[1] : 0, ndims > 2 ? rel[2] : 0, ndims, back,
               in_range ? "" : " and is not the reduced relative coordinate");
      corpus_failure(c, name, what);
    }
  }
}

/* One isomorphic entry; with iso, block sizes depend on the offset only and the topology
 * objects carry NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES. */
static void add_isomorphic_entry(corpus *c, const MPI_Info infos[], const char *filter, int size, int moore, int radius,
                                 int ndims, int periodic, int iso) {
  char name[64];
  snprintf(name, sizeof name, "%s-r%d-%dd-%s%s", moore ? "moore" : "vonneumann", radius, ndims,
           periodic ? "periodic" : "open", iso ? "-isosizes" : "");
  if (!name_selected(name, filter)) return;
  int dims[3] = {0, 0, 0}, periods[3] = {periodic, periodic, periodic}, coords[3];
  TEST_CHECK(MPI_Dims_create(size, ndims, dims));
  MPI_Comm cart;
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
  int rank;
  TEST_CHECK(MPI_Comm_rank(cart, &rank));
  TEST_CHECK(MPI_Cart_coords(cart, rank, ndims, coords));

  int noffsets = 0, nexpected;
  int (*helper)(int, int, int, int *, int *) = moore ? NHOOD_Cart_moore_offsets : NHOOD_Cart_von_neumann_offsets;
  TEST_CHECK(helper(ndims, radius, 0, &noffsets, NULL));
  int capacity = noffsets > 125 ? noffsets : 125; /* (2*2+1)^3 bounds the expected list */
  int *offsets = test_malloc(sizeof(int) * (size_t)(capacity * ndims));
  int *expected = test_malloc(sizeof(int) * (size_t)(125 * ndims));
  TEST_CHECK(helper(ndims, radius, capacity, &noffsets, offsets));
  nexpected = expected_offsets(moore, ndims, radius, expected);
  if (noffsets != nexpected || memcmp(offsets, expected, sizeof(int) * (size_t)(noffsets * ndims)) != 0) {
    corpus_failure(c, name, "the offset helper's list differs from the expected lexicographic list");
  }
  check_cart_helpers(c, name, cart, ndims, dims, periods, coords, noffsets, offsets);

  /* Reference: receive block i from X - C_i, send block i to X + C_i. */
  int *sources = test_malloc(sizeof(int) * (size_t)noffsets);
  int *destinations = test_malloc(sizeof(int) * (size_t)noffsets);
  for (int i = 0; i < noffsets; i++) {
    sources[i] = cart_rank_at(cart, ndims, dims, periods, coords, &offsets[i * ndims], -1);
    destinations[i] = cart_rank_at(cart, ndims, dims, periods, coords, &offsets[i * ndims], +1);
  }
  corpus_entry *e = corpus_new_entry(c, name);
  e->nhood_comm = cart;
  e->owns_nhood_comm = 1;
  /* From MPI_COMM_WORLD (the same ranks: no reordering), not from cart: Open MPI 5.0 takes a
   * distributed graph made from a Cartesian communicator for a Cartesian one (MPI_Topo_test),
   * and crashes in it. */
  TEST_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, noffsets, sources, test_unweighted(), noffsets,
                                            destinations, test_unweighted(), MPI_INFO_NULL, 0, &e->ref_comm));
  for (int a = 0; a < c->nalgorithms; a++) {
    MPI_Info info;
    TEST_CHECK(MPI_Info_dup(infos[a], &info));
    if (iso) TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, "true"));
    TEST_CHECK(NHOOD_Topo_create_cart_offsets(cart, noffsets, offsets, info, &e->topo[a]));
    TEST_CHECK(MPI_Info_free(&info));
  }
  /* With asserted isomorphic sizes, block i holds (i % 3) elements everywhere (some 0). */
  int *elems = test_malloc(sizeof(int) * (size_t)noffsets);
  for (int i = 0; i < noffsets; i++) elems[i] = i % 3;
  e->isomorphic_sizes = iso;
  entry_read_reference(e, iso ? elems : NULL, iso ? elems : NULL);
  free(elems);
  free(offsets);
  free(expected);
  free(sources);
  free(destinations);
}

static void grid_coords(int rank, int ndims, const int dims[], int coords[]) {
  for (int d = ndims - 1; d >= 0; d--) {
    coords[d] = rank % dims[d];
    rank /= dims[d];
  }
}

/* The rank at coords + sign * offset in row-major order (MPI_Cart_create without reordering). */
static int grid_rank_at(int ndims, const int dims[], const int periods[], const int coords[], const int offset[],
                        int sign) {
  int rank = 0;
  for (int d = 0; d < ndims; d++) {
    int x = coordinate_on(coords[d] + sign * offset[d], dims[d], periods[d]);
    if (x < 0) return MPI_PROC_NULL;
    rank = rank * dims[d] + x;
  }
  return rank;
}

/* A stencil written as adjacency lists, as codes pass 9- and 27-point stencils to
 * MPI_Dist_graph_create_adjacent: the offsets on the grid of MPI_Dims_create in row-major rank
 * order, neighbors outside an open grid left out. The library finds the grid under the graph
 * (topology/grid.h) and runs the isomorphic algorithms on it with the graph's buffer layout.
 * With `missing`, rank 0 drops its first source and that source drops rank 0 from its
 * destinations: still a valid graph, but no grid's, which the search must see. */
static void add_grid_graph(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size, int moore,
                           int radius, int ndims, int periodic, int missing) {
  char name[64];
  snprintf(name, sizeof name, "stencil-graph-%s-r%d-%dd-%s%s", moore ? "moore" : "vonneumann", radius, ndims,
           periodic ? "periodic" : "open", missing ? "-missing-edge" : "");
  if (!name_selected(name, filter)) return;
  int dims[3] = {0, 0, 0}, periods[3] = {periodic, periodic, periodic}, noffsets = 0;
  TEST_CHECK(MPI_Dims_create(size, ndims, dims));
  int (*helper)(int, int, int, int *, int *) = moore ? NHOOD_Cart_moore_offsets : NHOOD_Cart_von_neumann_offsets;
  TEST_CHECK(helper(ndims, radius, 0, &noffsets, NULL));
  int *offsets = test_malloc(sizeof(int) * (size_t)(noffsets * ndims) + 1);
  TEST_CHECK(helper(ndims, radius, noffsets, &noffsets, offsets));
  int *lists = test_malloc(sizeof(int) * (size_t)(2 * noffsets) + 1), *sources = lists,
      *destinations = lists + noffsets;
  int indegree = 0, outdegree = 0, first_source = MPI_PROC_NULL, coords[3], origin[3] = {0, 0, 0};
  grid_coords(rank, ndims, dims, coords);
  for (int i = 0; i < noffsets; i++) {
    int from = grid_rank_at(ndims, dims, periods, coords, offsets + i * ndims, -1);
    int to = grid_rank_at(ndims, dims, periods, coords, offsets + i * ndims, +1);
    if (from != MPI_PROC_NULL) sources[indegree++] = from;
    if (to != MPI_PROC_NULL) destinations[outdegree++] = to;
    int from_origin = grid_rank_at(ndims, dims, periods, origin, offsets + i * ndims, -1);
    if (first_source == MPI_PROC_NULL) first_source = from_origin;
  }
  if (missing && first_source != MPI_PROC_NULL) {
    if (rank == 0) sources[0] = sources[--indegree]; /* rank 0 no longer receives from first_source */
    if (rank == first_source)
      for (int j = 0; j < outdegree; j++)
        if (destinations[j] == 0) { /* nor does first_source send to rank 0 */
          destinations[j] = destinations[--outdegree];
          break;
        }
  }
  add_adjacent(c, infos, name, indegree, sources, test_unweighted(), outdegree, destinations, test_unweighted(), NULL,
               NULL);
  free(offsets);
  free(lists);
}

static void add_grid_graphs(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size) {
  add_grid_graph(c, infos, filter, rank, size, 1, 1, 2, 0, 0);
  add_grid_graph(c, infos, filter, rank, size, 1, 1, 2, 0, 1);
  add_grid_graph(c, infos, filter, rank, size, 1, 1, 3, 1, 0);
  add_grid_graph(c, infos, filter, rank, size, 1, 2, 2, 1, 0);
  add_grid_graph(c, infos, filter, rank, size, 0, 2, 2, 0, 0);
}

static void add_isomorphic(corpus *c, const MPI_Info infos[], const char *filter, int size) {
  for (int iso = 0; iso <= 1; iso++)
    for (int moore = 1; moore >= 0; moore--)
      for (int radius = 1; radius <= 2 - iso; radius++) /* asserted sizes: radius 1 only */
        for (int ndims = 2; ndims <= 3; ndims++)
          for (int periodic = 1; periodic >= 0; periodic--)
            add_isomorphic_entry(c, infos, filter, size, moore, radius, ndims, periodic, iso);
}

/* ------------------------------------------------------------------------------------- */
/* SpMV halo exchanges of real matrices                                                   */
/* ------------------------------------------------------------------------------------- */

static const char *const matrices[] = {"bcsstk01", "west0132", "dwt_162"};

static void add_matrix(corpus *c, const MPI_Info infos[], const char *file, int rank, int size) {
  char name[64], spec_text[1024], err[512] = "";
  snprintf(name, sizeof name, "spmv-%s", file);
  topospec spec;
  topospec_rank mine;
  memset(&spec, 0, sizeof spec);
  memset(&mine, 0, sizeof mine);
  snprintf(spec_text, sizeof spec_text, "mtx:" NHOOD_MATRIX_DIR "/%s.mtx.gz", file);
  int ok = topospec_parse(spec_text, &spec, err, sizeof err) == 0 &&
           topospec_for_rank(&spec, rank, size, &mine, err, sizeof err) == 0;
  /* Creating the reference is collective: go on only if every process has its lists. */
  int all_ok = 0;
  TEST_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
  if (all_ok) {
    add_adjacent(c, infos, name, mine.indegree, mine.sources, test_unweighted(), mine.outdegree, mine.destinations,
                 test_unweighted(), mine.send_elems, mine.recv_elems);
  } else {
    corpus_failure(c, name, ok ? "another process could not read the matrix" : err);
  }
  if (ok) topospec_rank_free(&mine);
  topospec_free(&spec);
}

static void add_matrices(corpus *c, const MPI_Info infos[], const char *filter, int rank, int size) {
  for (size_t m = 0; m < sizeof matrices / sizeof matrices[0]; m++) {
    char name[64];
    snprintf(name, sizeof name, "spmv-%s", matrices[m]);
    if (!name_selected(name, filter)) continue;
    add_matrix(c, infos, matrices[m], rank, size);
  }
}

/* ------------------------------------------------------------------------------------- */

void corpus_build(const MPI_Info algorithm_info[], int nalgorithms, const char *name_filter, corpus *c) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(c, 0, sizeof *c);
  c->nalgorithms = nalgorithms;
  TEST_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c->plain_comm));
  add_random_graphs(c, algorithm_info, name_filter, rank, size);
  add_cartesian(c, algorithm_info, name_filter, size);
  add_graph_comm(c, algorithm_info, name_filter, size);
  add_dist_graph_comm(c, algorithm_info, name_filter, rank, size);
  add_isomorphic(c, algorithm_info, name_filter, size);
  add_grid_graphs(c, algorithm_info, name_filter, rank, size);
  add_reverse_graphs(c, algorithm_info, name_filter, rank, size);
  add_matrices(c, algorithm_info, name_filter, rank, size);
}

void corpus_free(corpus *c) {
  for (int k = 0; k < c->nentries; k++) {
    corpus_entry *e = &c->entries[k];
    for (int a = 0; a < c->nalgorithms; a++) TEST_CHECK(NHOOD_Topo_free(&e->topo[a]));
    free(e->topo);
    if (e->owns_nhood_comm) MPI_Comm_free(&e->nhood_comm);
    MPI_Comm_free(&e->ref_comm);
    free(e->sources);
    free(e->destinations);
    free(e->send_elems);
    free(e->recv_elems);
    free(e->alltoallw_recv_block);
    free(e->alltoallw_send_block);
  }
  free(c->entries);
  MPI_Comm_free(&c->plain_comm);
  memset(c, 0, sizeof *c);
}
