/*
 * The large-count forms of MPI's neighborhood collectives (MPI_Neighbor_*_c, MPI_Ineighbor_*_c,
 * MPI_Neighbor_*_init_c), where the MPI has them (cmake/mpi_features.cmake): the same route as
 * the int forms (route.h), their calls lowered to int form for nhood's checks.
 */
#include "interpose/route.h"

#if defined(NHOOD_HAVE_MPI_NEIGHBOR_C)
/* The call as nhood_coll_args_c (api/large_count.h), for IP_CHECK_COLD (allgather, allgatherv
 * and alltoallv by ARGS_*(nhood_coll_args_c, ...), whose fields have the same names); the NULL
 * arrays of a side without neighbors, replaced by empty ones, as for the int forms. */
#define ARGS_C_ALLTOALLW                              \
  ((nhood_coll_args_c){.kind = NHOOD_ALLTOALLW,       \
                       .sendbuf = sendbuf,            \
                       .recvbuf = recvbuf,            \
                       .sendcounts = sendcounts,      \
                       .sdispls = sdispls,            \
                       .sendtypes = sendtypes,        \
                       .recvcounts = recvcounts,      \
                       .rdispls = rdispls,            \
                       .recvtypes = recvtypes,        \
                       .sendtype = MPI_DATATYPE_NULL, \
                       .recvtype = MPI_DATATYPE_NULL})
#define EMPTIES_C_ALLGATHERV \
  (recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_counts), displs = NHOOD_OR_EMPTY(displs, nhood_no_aints))
#define EMPTIES_C_ALLTOALLV                                                                                     \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_counts), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_aints), \
   recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_counts), rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_aints))
#define EMPTIES_C_ALLTOALLW                                                    \
  (EMPTIES_C_ALLTOALLV, sendtypes = NHOOD_OR_EMPTY(sendtypes, nhood_no_types), \
   recvtypes = NHOOD_OR_EMPTY(recvtypes, nhood_no_types))

/* allgather_c, alltoall_c */
#define GATHER_C_PARAMS                                                                                \
  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, \
      MPI_Datatype recvtype, MPI_Comm comm
#define GATHER_C_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm

int MPI_Neighbor_allgather_c(GATHER_C_PARAMS) {
  BLOCKING_BODY(IP_ALLGATHER, PMPI_Neighbor_allgather_c(GATHER_C_ARGS), NHOOD_Neighbor_allgather_c(GATHER_C_ARGS, topo),
                block_bytes((double)sendcount, sendtype), PLAIN_ALLGATHER,
                ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLGATHER), (void)0);
}
int MPI_Ineighbor_allgather_c(GATHER_C_PARAMS, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHER, 0, PMPI_Ineighbor_allgather_c(GATHER_C_ARGS, request),
               NHOOD_Ineighbor_allgather_c(GATHER_C_ARGS, topo, &nreq), block_bytes((double)sendcount, sendtype),
               PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLGATHER), (void)0);
}
int MPI_Neighbor_alltoall_c(GATHER_C_PARAMS) {
  BLOCKING_BODY(IP_ALLTOALL, PMPI_Neighbor_alltoall_c(GATHER_C_ARGS), NHOOD_Neighbor_alltoall_c(GATHER_C_ARGS, topo),
                block_bytes((double)sendcount, sendtype), PLAIN_ALLGATHER,
                ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLTOALL), (void)0);
}
int MPI_Ineighbor_alltoall_c(GATHER_C_PARAMS, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALL, 0, PMPI_Ineighbor_alltoall_c(GATHER_C_ARGS, request),
               NHOOD_Ineighbor_alltoall_c(GATHER_C_ARGS, topo, &nreq), block_bytes((double)sendcount, sendtype),
               PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLTOALL), (void)0);
}

/* allgatherv_c */
#define GATHERV_C_PARAMS                                                                                        \
  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], \
      const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm
#define GATHERV_C_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm

int MPI_Neighbor_allgatherv_c(GATHERV_C_PARAMS) {
  BLOCKING_BODY(IP_ALLGATHERV, PMPI_Neighbor_allgatherv_c(GATHERV_C_ARGS),
                NHOOD_Neighbor_allgatherv_c(GATHERV_C_ARGS, topo), block_bytes((double)sendcount, sendtype),
                PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args_c), EMPTIES_C_ALLGATHERV);
}
int MPI_Ineighbor_allgatherv_c(GATHERV_C_PARAMS, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHERV, 0, PMPI_Ineighbor_allgatherv_c(GATHERV_C_ARGS, request),
               NHOOD_Ineighbor_allgatherv_c(GATHERV_C_ARGS, topo, &nreq), block_bytes((double)sendcount, sendtype),
               PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args_c), EMPTIES_C_ALLGATHERV);
}

/* alltoallv_c */
#define ALLTOALLV_C_PARAMS                                                                                           \
  const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, \
      const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm
#define ALLTOALLV_C_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm

int MPI_Neighbor_alltoallv_c(ALLTOALLV_C_PARAMS) {
  BLOCKING_BODY(IP_ALLTOALLV, PMPI_Neighbor_alltoallv_c(ALLTOALLV_C_ARGS),
                NHOOD_Neighbor_alltoallv_c(ALLTOALLV_C_ARGS, topo), mean_block(topo, sendcounts, sendtype, NULL),
                PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args_c), EMPTIES_C_ALLTOALLV);
}
int MPI_Ineighbor_alltoallv_c(ALLTOALLV_C_PARAMS, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLV, 0, PMPI_Ineighbor_alltoallv_c(ALLTOALLV_C_ARGS, request),
               NHOOD_Ineighbor_alltoallv_c(ALLTOALLV_C_ARGS, topo, &nreq), mean_block(topo, sendcounts, sendtype, NULL),
               PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args_c), EMPTIES_C_ALLTOALLV);
}

/* alltoallw_c */
#define ALLTOALLW_C_PARAMS                                                                                     \
  const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], \
      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],   \
      MPI_Comm comm
#define ALLTOALLW_C_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm

int MPI_Neighbor_alltoallw_c(ALLTOALLW_C_PARAMS) {
  BLOCKING_BODY(IP_ALLTOALLW, PMPI_Neighbor_alltoallw_c(ALLTOALLW_C_ARGS),
                NHOOD_Neighbor_alltoallw_c(ALLTOALLW_C_ARGS, topo),
                mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_C_ALLTOALLW,
                EMPTIES_C_ALLTOALLW);
}
int MPI_Ineighbor_alltoallw_c(ALLTOALLW_C_PARAMS, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLW, 0, PMPI_Ineighbor_alltoallw_c(ALLTOALLW_C_ARGS, request),
               NHOOD_Ineighbor_alltoallw_c(ALLTOALLW_C_ARGS, topo, &nreq),
               mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_C_ALLTOALLW,
               EMPTIES_C_ALLTOALLW);
}

#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT_C)
int MPI_Neighbor_allgather_init_c(GATHER_C_PARAMS, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHER, 1, PMPI_Neighbor_allgather_init_c(GATHER_C_ARGS, info, request),
               NHOOD_Neighbor_allgather_init_c(GATHER_C_ARGS, topo, info, &nreq),
               block_bytes((double)sendcount, sendtype), PLAIN_ALLGATHER,
               ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLGATHER), (void)0);
}
int MPI_Neighbor_alltoall_init_c(GATHER_C_PARAMS, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALL, 1, PMPI_Neighbor_alltoall_init_c(GATHER_C_ARGS, info, request),
               NHOOD_Neighbor_alltoall_init_c(GATHER_C_ARGS, topo, info, &nreq),
               block_bytes((double)sendcount, sendtype), PLAIN_ALLGATHER,
               ARGS_ALLGATHER(nhood_coll_args_c, NHOOD_ALLTOALL), (void)0);
}
int MPI_Neighbor_allgatherv_init_c(GATHERV_C_PARAMS, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHERV, 1, PMPI_Neighbor_allgatherv_init_c(GATHERV_C_ARGS, info, request),
               NHOOD_Neighbor_allgatherv_init_c(GATHERV_C_ARGS, topo, info, &nreq),
               block_bytes((double)sendcount, sendtype), PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args_c),
               EMPTIES_C_ALLGATHERV);
}
int MPI_Neighbor_alltoallv_init_c(ALLTOALLV_C_PARAMS, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLV, 1, PMPI_Neighbor_alltoallv_init_c(ALLTOALLV_C_ARGS, info, request),
               NHOOD_Neighbor_alltoallv_init_c(ALLTOALLV_C_ARGS, topo, info, &nreq),
               mean_block(topo, sendcounts, sendtype, NULL), PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args_c),
               EMPTIES_C_ALLTOALLV);
}
int MPI_Neighbor_alltoallw_init_c(ALLTOALLW_C_PARAMS, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLW, 1, PMPI_Neighbor_alltoallw_init_c(ALLTOALLW_C_ARGS, info, request),
               NHOOD_Neighbor_alltoallw_init_c(ALLTOALLW_C_ARGS, topo, info, &nreq),
               mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_C_ALLTOALLW,
               EMPTIES_C_ALLTOALLW);
}
#endif
#endif
