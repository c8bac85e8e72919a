/*
 * MPI's neighborhood collectives, run by nhood on the topology object of the communicator:
 * blocking, non-blocking (MPI_Ineighbor_*) and persistent (MPI-4's MPI_Neighbor_*_init, or
 * Open MPI 4's MPIX_Neighbor_*_init); the large-count forms are in large_count.c. Each goes to
 * MPI's own where ip_route says so (route.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "interpose/route.h"

#ifdef IP_PERSISTENT
#define PERSISTENT(coll) IP_PERSISTENT(coll)
#define PMPI_PERSISTENT(coll) IP_PMPI_PERSISTENT(coll)
#endif

NHOOD_HOT int ip_blocking_done(MPI_Comm comm, int rc, int slot, ip_coll coll, double bytes, double t0,
                               const char *function) {
  if (ip_stats_on() && rc == MPI_SUCCESS) {
    const char *algorithm = NULL;
    NHOOD_Last_algorithm(&algorithm);
    ip_stats_record(slot, coll, IP_BLOCKING, algorithm, bytes, ip_stats_clock() - t0);
    char text[256], where[64];
    NHOOD_Selection_info(NHOOD_REQUEST_NULL, text, sizeof text);
    snprintf(where, sizeof where, "communicator %d, blocking", slot + 1);
    ip_stats_selection(where, text);
  }
  return ip_raise(comm, rc, function);
}

int ip_request_done(MPI_Comm comm, int rc, int slot, NHOOD_Request nreq, int persistent, MPI_Request *request,
                    ip_coll coll, double bytes, double t0, const char *function) {
  if (rc == MPI_SUCCESS) {
    if (ip_stats_on()) {
      const char *algorithm = NULL;
      NHOOD_Request_schedule_info(nreq, &algorithm, NULL, NULL, NULL, NULL);
      ip_stats_record(slot, coll, persistent ? IP_PERSISTENT : IP_NONBLOCKING, algorithm, bytes, ip_stats_clock() - t0);
    }
    rc = ip_request_wrap(nreq, persistent, request);
    if (rc != MPI_SUCCESS) return ip_raise_message(comm, rc, function, "out of memory for the request");
  }
  return ip_raise(comm, rc, function);
}

/* ---- allgather ----------------------------------------------------------------------------- */

NHOOD_HOT int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BLOCKING_BODY(IP_ALLGATHER, PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                NHOOD_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo),
                block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLGATHER),
                (void)0);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHER, 0,
               PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
               NHOOD_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, &nreq),
               block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLGATHER),
               (void)0);
}

/* ---- allgatherv ---------------------------------------------------------------------------- */

NHOOD_HOT int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  BLOCKING_BODY(
      IP_ALLGATHERV,
      PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
      NHOOD_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo),
      block_bytes(sendcount, sendtype), PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args), EMPTIES_ALLGATHERV);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request) {
  REQUEST_BODY(
      IP_ALLGATHERV, 0,
      PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request),
      NHOOD_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo,
                                 &nreq),
      block_bytes(sendcount, sendtype), PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args), EMPTIES_ALLGATHERV);
}

/* ---- alltoall ------------------------------------------------------------------------------ */

NHOOD_HOT int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BLOCKING_BODY(IP_ALLTOALL, PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                NHOOD_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo),
                block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLTOALL),
                (void)0);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALL, 0,
               PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
               NHOOD_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, &nreq),
               block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLTOALL),
               (void)0);
}

/* ---- alltoallv ----------------------------------------------------------------------------- */

NHOOD_HOT int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm) {
  BLOCKING_BODY(
      IP_ALLTOALLV,
      PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm),
      NHOOD_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               topo),
      mean_block(topo, sendcounts, sendtype, NULL), PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args),
      EMPTIES_ALLTOALLV);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLV, 0,
               PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                        comm, request),
               NHOOD_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                         comm, topo, &nreq),
               mean_block(topo, sendcounts, sendtype, NULL), PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args),
               EMPTIES_ALLTOALLV);
}

/* ---- alltoallw ----------------------------------------------------------------------------- */

NHOOD_HOT int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  BLOCKING_BODY(
      IP_ALLTOALLW,
      PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm),
      NHOOD_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                               topo),
      mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_ALLTOALLW, EMPTIES_ALLTOALLW);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLW, 0,
               PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm, request),
               NHOOD_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm, topo, &nreq),
               mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_ALLTOALLW,
               EMPTIES_ALLTOALLW);
}

/* ---- persistent ------------------------------------------------------------------------ */

#ifdef PERSISTENT
int PERSISTENT(allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(
      IP_ALLGATHER, 1,
      PMPI_PERSISTENT(allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request),
      NHOOD_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, info,
                                    &nreq),
      block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLGATHER), (void)0);
}

int PERSISTENT(allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLGATHERV, 1,
               PMPI_PERSISTENT(allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                           info, request),
               NHOOD_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                              topo, info, &nreq),
               block_bytes(sendcount, sendtype), PLAIN_ALLGATHERV, ARGS_ALLGATHERV(nhood_coll_args),
               EMPTIES_ALLGATHERV);
}

int PERSISTENT(alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(
      IP_ALLTOALL, 1,
      PMPI_PERSISTENT(alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request),
      NHOOD_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, info, &nreq),
      block_bytes(sendcount, sendtype), PLAIN_ALLGATHER, ARGS_ALLGATHER(nhood_coll_args, NHOOD_ALLTOALL), (void)0);
}

int PERSISTENT(alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLV, 1,
               PMPI_PERSISTENT(alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm, info, request),
               NHOOD_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                             recvtype, comm, topo, info, &nreq),
               mean_block(topo, sendcounts, sendtype, NULL), PLAIN_ALLTOALLV, ARGS_ALLTOALLV(nhood_coll_args),
               EMPTIES_ALLTOALLV);
}

int PERSISTENT(alltoallw)(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
  REQUEST_BODY(IP_ALLTOALLW, 1,
               PMPI_PERSISTENT(alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                          recvtypes, comm, info, request),
               NHOOD_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                             recvtypes, comm, topo, info, &nreq),
               mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), PLAIN_ALLTOALLW, ARGS_ALLTOALLW,
               EMPTIES_ALLTOALLW);
}

#endif
