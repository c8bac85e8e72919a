/*
 * What nhood's copy inside libnhood-mpi.so calls instead of the functions this library
 * interposes under their PMPI names too (pmpi_calls.h): MPI's own, found behind this library
 * (control.c, own_right.c), and a distributed graph's lists as the program gave them
 * (proc_null.c).
 */
#ifndef NHOOD_INTERPOSE_MPI_OWN_H
#define NHOOD_INTERPOSE_MPI_OWN_H

#include <mpi.h>

int ip_mpi_comm_free(MPI_Comm *comm);
int ip_mpi_comm_disconnect(MPI_Comm *comm);
int ip_mpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                      int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                      int reorder, MPI_Comm *comm_dist_graph);
int ip_mpi_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info, int reorder,
                             MPI_Comm *comm_dist_graph);
int ip_dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
int ip_dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                            int destinations[], int destweights[]);

#endif
