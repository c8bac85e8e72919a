/* The task that runs MPI's own collective (the algorithm "mpi", engine/native_mpi.h) on a
 * distributed-graph communicator: a blocking call runs MPI_Neighbor_* in begin, a non-blocking
 * one starts MPI_Ineighbor_*, a persistent one creates MPI's persistent request once and
 * starts it at every begin. Its schedule only names the algorithm and summarizes the exchange
 * (one round, a message per neighbor). It sends nothing on the context's communicator
 * (ntags 0). */
#ifndef NHOOD_ENGINE_NATIVE_TASK_H
#define NHOOD_ENGINE_NATIVE_TASK_H

#include "engine/native_mpi.h"
#include "engine/task.h"
#include "topology/topology.h"

/* A task for the call a (blocks: t's degrees) on graph, which it retains. A persistent one
 * keeps copies of the arguments (the caller may free its datatypes after init); the others
 * read them in place (MPI lets the caller change them only once the call completed). */
int nhood_native_task_create(const nhood_coll_args *a, const struct nhood_topo *t, nhood_native_graph *graph,
                             nhood_mode mode, nhood_task **task);

#endif
