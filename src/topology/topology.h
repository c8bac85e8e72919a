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

struct nhood_topo {
  nhood_topo_kind kind;
  int indegree, outdegree;
  int *sources, *destinations;      /* MPI_PROC_NULL allowed */
  int *sourceweights, *destweights; /* NULL when unweighted */
  int *recv_channel, *send_channel; /* NULL when nchannels == 1 (all channel 0) */
  int nchannels;
  int max_rank;                             /* largest rank listed; -1 if none */
  char algorithm[NHOOD_ALGORITHM_NAME_MAX]; /* requested with NHOOD_INFO_ALGORITHM */
  int isomorphic_sizes;                     /* NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES */
  struct nhood_tune_rules *tune;            /* NHOOD_INFO_TUNE rules, parsed, or NULL */
  /* Cartesian kinds: the grid as seen by the process that created the object. */
  int ndims;
  int *dims, *periods, *coords; /* ndims each */
  int noffsets;
  int *offsets; /* noffsets * ndims (CART_OFFSETS only) */
  /* Schedule of the last blocking call (api/call_cache.c); freed with the topology. */
  _Atomic(struct nhood_call_cache *) call_cache;
  /* The message-combining pattern of this process (pattern/combine.h), computed for the
   * communicator context pattern_owner (NULL: virtual ranks of nhood-sim); freed with the
   * topology, which then releases pattern_owner. */
  struct nhood_combine_pattern *pattern;
  struct nhood_commctx *pattern_owner;
  /* What the topology learned collectively on pattern_owner's communicator or another one:
   * decisions of "auto", MPI's own graph communicator (api/first_use.h). */
  struct nhood_first_use *first_use;
};

/* Allocates a topology with room for the given degrees and Cartesian sizes in one block.
 * Lists are left uninitialized; optional arrays (weights, channels) are allocated only when
 * the corresponding flag is set. */
int nhood_topo_alloc(nhood_topo_kind kind, int indegree, int outdegree, int weighted, int channels, int ndims,
                     int noffsets, NHOOD_Topo *out);
/* Computes max_rank and registers the handle; frees the topology on failure. */
int nhood_topo_publish(NHOOD_Topo topo, MPI_Info info, NHOOD_Topo *out);
/* Checks that topo is a live topology handle; `what` names the argument in the message. */
int nhood_topo_validate(NHOOD_Topo topo, const char *what);

/* Frees the combining pattern (if any) and releases the context it was built for. */
void nhood_topo_drop_pattern(NHOOD_Topo topo);

/* MPI_ERR_RANK when topo lists a rank >= size (the communicator's). */
int nhood_topo_check_ranks(NHOOD_Topo topo, int size);

/* Reads NHOOD_INFO_ALGORITHM from info (if any) into name (NHOOD_ALGORITHM_NAME_MAX bytes);
 * leaves name unchanged when absent; MPI_ERR_INFO for an unknown algorithm. */
int nhood_info_algorithm(MPI_Info info, char *name);
/* Reads NHOOD_INFO_TUNE from info (if any) and stores its parsed rules in topo->tune;
 * MPI_ERR_INFO for malformed rules. nhood_topo_free_tune releases them. */
int nhood_info_tune(MPI_Info info, NHOOD_Topo topo);
void nhood_topo_free_tune(NHOOD_Topo topo);
/* Reads a boolean info key ("true" / "false") into *value, which stays as it is when the key
 * is absent; another value is MPI_ERR_INFO. */
int nhood_info_bool(MPI_Info info, const char *key, int *value);

/* NHOOD_Topo_create_cart_offsets for a grid given directly (no communicator): for tools
 * with virtual ranks, which give each rank its coordinates. Local. */
int nhood_topo_create_cart_offsets_on_grid(int ndims, const int dims[], const int periods[], const int coords[],
                                           int noffsets, const int offsets[], MPI_Info info, NHOOD_Topo *topo);

/* Pure Cartesian arithmetic, also used by tools with virtual ranks (no MPI calls). */
/* Rank of coords (row-major) or MPI_PROC_NULL if outside a non-periodic dimension;
 * coords may lie outside [0, dims) on periodic dimensions. */
int nhood_cart_rank_of(int ndims, const int dims[], const int periods[], const int coords[]);

#endif
