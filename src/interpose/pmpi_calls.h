/*
 * Force-included (-include) into the copy of nhood's sources that libnhood-mpi.so carries:
 * every MPI function that the interposition library defines is called by another name there,
 * so that nhood's own sends, waits, frees and MPI's own neighborhood collectives (algorithm
 * "mpi") never come back through the interposed functions: its PMPI name, or, where the
 * library defines the PMPI name too (MPI's own Fortran bindings call it), MPI's own function
 * found behind the library's (ip_mpi_*). The two queries of a distributed graph's lists go to
 * the library's answer (ip_dist_graph_*, proc_null.c): nhood must see the lists the program
 * gave, where MPI has them without their MPI_PROC_NULL entries. A function added to the
 * interposition library outside functions.h's list must be added here too (tests/interpose
 * checks the exports against these renames).
 */
#ifndef NHOOD_INTERPOSE_PMPI_CALLS_H
#define NHOOD_INTERPOSE_PMPI_CALLS_H

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

/* The neighborhood collectives, all forms: generated from functions.h's list
 * (cmake/interpose_renames.cmake). */
#include "interpose_renames.h"
/* The request functions, the frees, the graph's creation and its list queries. */
#define MPI_Wait PMPI_Wait
#define MPI_Waitall PMPI_Waitall
#define MPI_Waitany PMPI_Waitany
#define MPI_Waitsome PMPI_Waitsome
#define MPI_Test PMPI_Test
#define MPI_Testall PMPI_Testall
#define MPI_Testany PMPI_Testany
#define MPI_Testsome PMPI_Testsome
#define MPI_Start PMPI_Start
#define MPI_Startall PMPI_Startall
#define MPI_Request_free PMPI_Request_free
#define MPI_Request_get_status PMPI_Request_get_status
#define MPI_Cancel PMPI_Cancel
#define MPI_Finalize PMPI_Finalize
#define MPI_Comm_free ip_mpi_comm_free
#define MPI_Comm_disconnect ip_mpi_comm_disconnect
#define MPI_Dist_graph_create_adjacent ip_mpi_dist_graph_create_adjacent
#define MPI_Dist_graph_create ip_mpi_dist_graph_create
#define MPI_Dist_graph_neighbors ip_dist_graph_neighbors
#define MPI_Dist_graph_neighbors_count ip_dist_graph_neighbors_count

#include "interpose/mpi_own.h"

#endif
