/*
 * The public constructors of topology objects (NHOOD_Topo_create_*, NHOOD_Topo_reverse,
 * NHOOD_Topo_free) and the info keys they and the collectives read. The topology layer
 * builds the lists; this layer reads the info (algorithm names are the registry's), keeps
 * the parsed tuning rules on the topology as an attribute and registers the handle.
 */
#ifndef NHOOD_API_TOPOLOGIES_H
#define NHOOD_API_TOPOLOGIES_H

#include "selection/tune.h"
#include "topology/topology.h"

/* Reads the creation info into t and registers the handle in *out; frees t on failure. */
int nhood_topo_publish(NHOOD_Topo t, MPI_Info info, NHOOD_Topo *out);

/* NHOOD_Topo_create_cart_offsets for a grid given directly (no communicator): for tools
 * with virtual ranks, which give each rank its coordinates. Local. */
int nhood_topo_create_cart_offsets_on_grid(int ndims, const int dims[], const int periods[], const int coords[],
                                           int noffsets, const int offsets[], MPI_Info info, NHOOD_Topo *topo);

/* Reads NHOOD_INFO_ALGORITHM from info (if any) into name (NHOOD_ALGORITHM_NAME_MAX bytes);
 * leaves name unchanged when absent; MPI_ERR_INFO for an unknown algorithm. */
int nhood_info_algorithm(MPI_Info info, char *name);
/* Reads a boolean info key ("true" / "false") into *value, which stays as it is when the key
 * is absent; another value is MPI_ERR_INFO. */
int nhood_info_bool(MPI_Info info, const char *key, int *value);
/* Reads a positive integer info key into *value, unchanged when absent; else MPI_ERR_INFO. */
int nhood_info_positive(MPI_Info info, const char *key, int *value);

#endif
