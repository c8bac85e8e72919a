/*
 * Force-included (-include) into the copy of nhood's sources that libnhood-mpi.so carries:
 * every MPI function that the interposition library defines is called by its PMPI name
 * there, so that nhood's own sends, waits and MPI's own neighborhood collectives (algorithm
 * "mpi") neither re-enter the interposed functions nor pay for them. A function added to
 * the interposition library must be added here too (tests/interpose checks the two lists
 * against each other).
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
#define MPI_Comm_free PMPI_Comm_free
#define MPI_Dist_graph_create_adjacent PMPI_Dist_graph_create_adjacent
#define MPI_Dist_graph_create PMPI_Dist_graph_create
#define MPI_Dist_graph_neighbors PMPI_Dist_graph_neighbors
#define MPI_Dist_graph_neighbors_count PMPI_Dist_graph_neighbors_count
#define MPI_Comm_disconnect PMPI_Comm_disconnect

#endif
