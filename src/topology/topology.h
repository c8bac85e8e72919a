/*
 * Topology objects: who this process receives from and sends to. Local data only; no
 * communicator is attached, so one object serves any communicator whose size covers it.
 *
 * Pairing of duplicate edges is expressed with *channels*: a message for send block j
 * travels with tag offset send_channel[j], and receive block i accepts only tag offset
 * recv_channel[i]. Within one channel, MPI's non-overtaking order pairs the k-th message
 * from q with the k-th receive from q, which is the MPI-4.1 rule for graphs. Graph
 * topologies need one channel. Cartesian communicators need 2*ndims: on a periodic dimension
 * of size 1 or 2 both neighbors are the same process, and MPI pairs receive block i with
 * send block i^1 (the message that travelled in the same direction), not by order.
 */
#ifndef NHOOD_TOPOLOGY_TOPOLOGY_H
#define NHOOD_TOPOLOGY_TOPOLOGY_H

#include <stdatomic.h>

#include "nhood.h"

#define NHOOD_ALGORITHM_NAME_MAX 32

typedef enum {
  NHOOD_TOPO_ADJACENT,    /* from adjacency lists or a (dist) graph communicator */
  NHOOD_TOPO_CART,        /* from a Cartesian communicator: MPI's +-1 neighbors */
  NHOOD_TOPO_CART_OFFSETS /* isomorphic: relative offsets on a Cartesian grid */
} nhood_topo_kind;

/* What higher layers keep on a topology object (a schedule cache, a combining pattern, what
 * a first use learned), attached under a key of theirs, as MPI attributes are: the topology
 * layer knows only the key's destructor, which runs when the topology is freed. A key is a
 * static object of the layer that owns it: static nhood_topo_key k = NHOOD_TOPO_KEY("name", fn). */
typedef struct nhood_topo_key {
  const char *name;
  void (*destroy)(void *value); /* may be NULL */
  atomic_int slot;              /* assigned at first use; -1 before */
} nhood_topo_key;
#define NHOOD_TOPO_KEY(name, destroy) \
  { (name), (destroy), -1 }
#define NHOOD_TOPO_MAX_KEYS 12

struct nhood_topo {
  nhood_topo_kind kind;
  int indegree, outdegree;
  int *sources, *destinations;      /* MPI_PROC_NULL allowed */
  int *sourceweights, *destweights; /* NULL when unweighted */
  int *recv_channel, *send_channel; /* NULL when nchannels == 1 (all channel 0) */
  int nchannels;
  int max_rank;                             /* largest rank listed; -1 if none */
  char algorithm[NHOOD_ALGORITHM_NAME_MAX]; /* requested with NHOOD_INFO_ALGORITHM ("auto") */
  int isomorphic_sizes;                     /* NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES */
  int ranks_per_node;                       /* NHOOD_INFO_RANKS_PER_NODE; 0: not given */
  /* Cartesian kinds: the grid as seen by the process that created the object. */
  int ndims;
  int *dims, *periods, *coords; /* ndims each */
  int noffsets;
  int *offsets; /* noffsets * ndims (CART_OFFSETS only) */
  /* A view of a graph on a grid found under it (grid.h) where some offset has no neighbor on
   * some process: the graph has no block there, not even a count, so the v and w collectives
   * cannot take a block's size from the forwarder's own block of that offset. */
  int grid_partial;
  _Atomic(void *) attrs[NHOOD_TOPO_MAX_KEYS]; /* by key slot */
};

/* Allocates a topology with room for the given degrees and Cartesian sizes in one block.
 * Lists are left uninitialized; optional arrays (weights, channels) are allocated only when
 * the corresponding flag is set. */
int nhood_topo_alloc(nhood_topo_kind kind, int indegree, int outdegree, int weighted, int channels, int ndims,
                     int noffsets, NHOOD_Topo *out);
/* Computes max_rank once the lists are filled. */
void nhood_topo_finish(NHOOD_Topo topo);
/* Runs the destructors of its attributes and frees it (the handle must be unregistered). */
void nhood_topo_destroy(NHOOD_Topo topo);
/* Checks that topo is a live topology handle; `what` names the argument in the message. */
int nhood_topo_validate(NHOOD_Topo topo, const char *what);

/* The value attached under key, or NULL. */
void *nhood_topo_attr(NHOOD_Topo topo, nhood_topo_key *key);
/* Attaches value under key when the current one is *expected (then 1), else stores the
 * current one in *expected (0): a compare-and-swap, for values taken by one thread at a
 * time. The replaced value is not destroyed: the caller owns it. MPI_ERR_INTERN (as -1)
 * when more than NHOOD_TOPO_MAX_KEYS keys exist. */
int nhood_topo_attr_swap(NHOOD_Topo topo, nhood_topo_key *key, void **expected, void *value);
/* Attaches value under key, destroying the value it replaces. */
int nhood_topo_attr_set(NHOOD_Topo topo, nhood_topo_key *key, void *value);

/* MPI_ERR_RANK when topo lists a rank >= size (the communicator's). */
int nhood_topo_check_ranks(NHOOD_Topo topo, int size);

/* Builders of unpublished topologies (the API layer reads the info, registers the handle):
 * from adjacency lists (arguments as NHOOD_Topo_create_adjacent, checked), from the topology
 * a communicator carries (local MPI queries only), from offsets on a grid given directly, and
 * the reverse of a topology. */
int nhood_topo_from_lists(int indegree, const int sources[], const int *sourceweights, int outdegree,
                          const int destinations[], const int *destweights, NHOOD_Topo *out);
int nhood_topo_from_comm(MPI_Comm comm, NHOOD_Topo *out);
int nhood_topo_from_cart_offsets(int ndims, const int dims[], const int periods[], const int coords[], int noffsets,
                                 const int offsets[], NHOOD_Topo *out);
/* The grid of a Cartesian communicator (MPI_ERR_COMM / MPI_ERR_TOPOLOGY otherwise). */
int nhood_topo_cart_grid(MPI_Comm comm, int *ndims, int dims[], int periods[], int coords[]);
int nhood_topo_reversed(NHOOD_Topo topo, NHOOD_Topo *reverse);
/* Part `part` of nparts of topo as seen by rank me (NHOOD_Topo_split): an adjacency topology of
 * the edges whose source (by_source) or destination rank is part modulo nparts, in topo's
 * order, with their weights; MPI_PROC_NULL neighbors left out. Not for Cartesian channels
 * (MPI_ERR_TOPOLOGY). */
int nhood_topo_part(NHOOD_Topo topo, int me, int nparts, int by_source, int part, NHOOD_Topo *out);

/* Pure Cartesian arithmetic, also used by tools with virtual ranks (no MPI calls). */
/* Rank of coords (row-major) or MPI_PROC_NULL if outside a non-periodic dimension;
 * coords may lie outside [0, dims) on periodic dimensions. */
int nhood_cart_rank_of(int ndims, const int dims[], const int periods[], const int coords[]);

/* A rank and its position in a neighbor list. Sorted with nhood_located_cmp (by rank, then
 * position), the duplicates of an edge stay in list order, which is how MPI-4.1 pairs them. */
typedef struct {
  int rank, index;
} nhood_located;
int nhood_located_cmp(const void *a, const void *b);

#endif
