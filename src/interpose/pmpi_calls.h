/*
 * Force-included (-include) into the copy of nhood's sources that libnhood-mpi.so carries:
 * every MPI function that the interposition library defines is called by another name there,
 * so that nhood's own sends, waits, frees and MPI's own neighborhood collectives (algorithm
 * "mpi") never come back through the interposed functions: its PMPI name, or, where the
 * library defines the PMPI name too (MPI's own Fortran bindings call it), MPI's own function
 * found behind the library's (ip_mpi_*). The two queries of a distributed graph's lists go to
 * the library's answer (ip_dist_graph_*, proc_null.c): nhood must see the lists the program
 * gave, where MPI has them without their MPI_PROC_NULL entries. A function added to the
 * interposition library must be added here too (tests/interpose checks the two lists against
 * each other).
 */
#ifndef NHOOD_INTERPOSE_PMPI_CALLS_H
#define NHOOD_INTERPOSE_PMPI_CALLS_H

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#define MPI_Neighbor_allgather PMPI_Neighbor_allgather
#define MPI_Neighbor_allgatherv PMPI_Neighbor_allgatherv
#define MPI_Neighbor_alltoall PMPI_Neighbor_alltoall
#define MPI_Neighbor_alltoallv PMPI_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw PMPI_Neighbor_alltoallw
#define MPI_Ineighbor_allgather PMPI_Ineighbor_allgather
#define MPI_Ineighbor_allgatherv PMPI_Ineighbor_allgatherv
#define MPI_Ineighbor_alltoall PMPI_Ineighbor_alltoall
#define MPI_Ineighbor_alltoallv PMPI_Ineighbor_alltoallv
#define MPI_Ineighbor_alltoallw PMPI_Ineighbor_alltoallw
#define MPI_Neighbor_allgather_init PMPI_Neighbor_allgather_init
#define MPI_Neighbor_allgatherv_init PMPI_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoall_init PMPI_Neighbor_alltoall_init
#define MPI_Neighbor_alltoallv_init PMPI_Neighbor_alltoallv_init
#define MPI_Neighbor_alltoallw_init PMPI_Neighbor_alltoallw_init
#define MPIX_Neighbor_allgather_init PMPIX_Neighbor_allgather_init
#define MPIX_Neighbor_allgatherv_init PMPIX_Neighbor_allgatherv_init
#define MPIX_Neighbor_alltoall_init PMPIX_Neighbor_alltoall_init
#define MPIX_Neighbor_alltoallv_init PMPIX_Neighbor_alltoallv_init
#define MPIX_Neighbor_alltoallw_init PMPIX_Neighbor_alltoallw_init
#define MPI_Ineighbor_allgather_c PMPI_Ineighbor_allgather_c
#define MPI_Ineighbor_allgatherv_c PMPI_Ineighbor_allgatherv_c
#define MPI_Ineighbor_alltoall_c PMPI_Ineighbor_alltoall_c
#define MPI_Ineighbor_alltoallv_c PMPI_Ineighbor_alltoallv_c
#define MPI_Ineighbor_alltoallw_c PMPI_Ineighbor_alltoallw_c
#define MPI_Neighbor_allgather_c PMPI_Neighbor_allgather_c
#define MPI_Neighbor_allgather_init_c PMPI_Neighbor_allgather_init_c
#define MPI_Neighbor_allgatherv_c PMPI_Neighbor_allgatherv_c
#define MPI_Neighbor_allgatherv_init_c PMPI_Neighbor_allgatherv_init_c
#define MPI_Neighbor_alltoall_c PMPI_Neighbor_alltoall_c
#define MPI_Neighbor_alltoall_init_c PMPI_Neighbor_alltoall_init_c
#define MPI_Neighbor_alltoallv_c PMPI_Neighbor_alltoallv_c
#define MPI_Neighbor_alltoallv_init_c PMPI_Neighbor_alltoallv_init_c
#define MPI_Neighbor_alltoallw_c PMPI_Neighbor_alltoallw_c
#define MPI_Neighbor_alltoallw_init_c PMPI_Neighbor_alltoallw_init_c
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
