/*
 * The algorithm "mpi": the MPI library's own MPI_Neighbor_* (and MPI_Ineighbor_*, and the
 * persistent MPI_Neighbor_*_init of MPI-4 or Open MPI's MPIX_ extension) on a
 * distributed-graph communicator with the topology's lists. It is a candidate of "auto" so that
 * nhood never does worse than the library it runs on where MPI's own code is the better one.
 */
#ifndef NHOOD_ENGINE_NATIVE_MPI_H
#define NHOOD_ENGINE_NATIVE_MPI_H

#include <mpi.h>
#include <stdatomic.h>

#include "schedule/collargs.h"
#include "topology/topology.h"

/* 1 when the MPI library has persistent neighborhood collectives. */
int nhood_native_persistent_supported(void);

/* 1 when MPI's own implementation can run this collective on this process's lists and give
 * the result MPI-4.1 defines: no MPI_PROC_NULL neighbor (a distributed graph cannot hold one),
 * one channel (MPI pairs duplicate edges by order), not a reduction (MPI has none), and none
 * of the installed library's known bugs in reach. Local; the API layer agrees over processes. */
int nhood_native_applies_locally(const struct nhood_topo *t, nhood_coll_kind kind);

/* The distributed-graph communicator "mpi" runs on, reference counted: the topology that made
 * it holds one reference and every request that runs on it holds one, so a request outlives
 * NHOOD_Topo_free (Open MPI's persistent neighborhood requests do not survive MPI_Comm_free
 * of their communicator). The last release frees the communicator. */
typedef struct nhood_native_graph {
  MPI_Comm comm;
  atomic_int refs;
} nhood_native_graph;

/* Creates the graph over comm with t's lists (collective over comm; no reordering), with
 * MPI_ERRORS_RETURN, holding one reference. */
int nhood_native_graph_create(MPI_Comm comm, const struct nhood_topo *t, nhood_native_graph **graph);
void nhood_native_graph_retain(nhood_native_graph *graph);
/* NULL is ignored. */
void nhood_native_graph_release(nhood_native_graph *graph);

typedef enum { NHOOD_NATIVE_BLOCKING, NHOOD_NATIVE_START, NHOOD_NATIVE_INIT } nhood_native_mode;
/* Runs the call on graph: to completion (BLOCKING), started into *req (START), or as an
 * inactive persistent request in *req (INIT). */
int nhood_native_call(const nhood_coll_args *a, MPI_Comm graph, nhood_native_mode mode, MPI_Request *req);

#endif
