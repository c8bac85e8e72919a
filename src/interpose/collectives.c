/*
 * MPI's neighborhood collectives, run by nhood on the topology object of the communicator:
 * blocking, non-blocking (MPI_Ineighbor_*) and persistent (MPI-4's MPI_Neighbor_*_init, or
 * Open MPI 4's MPIX_Neighbor_*_init). The large-count _c variants are not defined here, so
 * MPI runs them. Each function goes to MPI unchanged where ip_route says so.
 */
#include <stdlib.h>

#include "interpose/interpose.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init */
#endif

#if MPI_VERSION >= 4
#define PERSISTENT(coll) MPI_Neighbor_##coll##_init
#define PMPI_PERSISTENT(coll) PMPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT(coll) MPIX_Neighbor_##coll##_init
#define PMPI_PERSISTENT(coll) PMPIX_Neighbor_##coll##_init
#endif

/* ---- block sizes, for NHOOD_STATS only ------------------------------------------------- */

/* Only after a call that succeeded (rc): its datatypes are valid. */
static double bytes_of(int rc, int count, MPI_Datatype type) {
  int size = 0;
  if (rc != MPI_SUCCESS || !ip_stats_on() || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return (double)count * size;
}

/* The mean block of a v or w call's send side (types NULL: one type for all). */
static double mean_bytes(int rc, NHOOD_Topo topo, const int counts[], MPI_Datatype type, const MPI_Datatype types[]) {
  int indegree = 0, outdegree = 0, weighted = 0;
  if (rc != MPI_SUCCESS || !ip_stats_on() ||
      NHOOD_Topo_degrees(topo, 1, &indegree, &outdegree, &weighted) != MPI_SUCCESS || outdegree == 0 || counts == NULL)
    return 0;
  double total = 0;
  for (int j = 0; j < outdegree; j++) total += bytes_of(rc, counts[j], types ? types[j] : type);
  return total / outdegree;
}

/* ---- what every call does after nhood ran it ------------------------------------------- */

static int blocking_done(MPI_Comm comm, int rc, ip_coll coll, double bytes, double t0, const char *function) {
  if (ip_stats_on() && rc == MPI_SUCCESS) {
    const char *algorithm = NULL;
    NHOOD_Last_algorithm(&algorithm);
    ip_stats_record(coll, IP_BLOCKING, algorithm, bytes, ip_stats_clock() - t0);
  }
  return ip_raise(comm, rc, function);
}

static int request_done(MPI_Comm comm, int rc, NHOOD_Request nreq, int persistent, MPI_Request *request, ip_coll coll,
                        double bytes, double t0, const char *function) {
  if (rc == MPI_SUCCESS) {
    if (ip_stats_on()) {
      const char *algorithm = NULL;
      NHOOD_Request_schedule_info(nreq, &algorithm, NULL, NULL, NULL, NULL);
      ip_stats_record(coll, persistent ? IP_PERSISTENT : IP_NONBLOCKING, algorithm, bytes, ip_stats_clock() - t0);
    }
    rc = ip_request_wrap(nreq, persistent, request);
    if (rc != MPI_SUCCESS) return ip_raise_message(comm, rc, function, "out of memory for the request");
  }
  return ip_raise(comm, rc, function);
}

/* A request output that is NULL: MPI_ERR_REQUEST, before anything starts. */
#define CHECK_REQUEST(function) \
  if (request == NULL) return ip_raise_message(comm, MPI_ERR_REQUEST, function, "request is NULL")

/* ---- allgather ------------------------------------------------------------------------- */

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  NHOOD_Topo topo;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (rc != MPI_SUCCESS) return rc;
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo);
  return blocking_done(comm, rc, IP_ALLGATHER, bytes_of(rc, sendcount, sendtype), t0, "MPI_Neighbor_allgather");
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Ineighbor_allgather");
  double t0 = ip_stats_clock();
  rc = NHOOD_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, &nreq);
  return request_done(comm, rc, nreq, 0, request, IP_ALLGATHER, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Ineighbor_allgather");
}

/* ---- allgatherv ------------------------------------------------------------------------ */

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  NHOOD_Topo topo;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  if (rc != MPI_SUCCESS) return rc;
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo);
  return blocking_done(comm, rc, IP_ALLGATHERV, bytes_of(rc, sendcount, sendtype), t0, "MPI_Neighbor_allgatherv");
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                     request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Ineighbor_allgatherv");
  double t0 = ip_stats_clock();
  rc = NHOOD_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo,
                                  &nreq);
  return request_done(comm, rc, nreq, 0, request, IP_ALLGATHERV, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Ineighbor_allgatherv");
}

/* ---- alltoall -------------------------------------------------------------------------- */

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  NHOOD_Topo topo;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (rc != MPI_SUCCESS) return rc;
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo);
  return blocking_done(comm, rc, IP_ALLTOALL, bytes_of(rc, sendcount, sendtype), t0, "MPI_Neighbor_alltoall");
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Ineighbor_alltoall");
  double t0 = ip_stats_clock();
  rc = NHOOD_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, &nreq);
  return request_done(comm, rc, nreq, 0, request, IP_ALLTOALL, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Ineighbor_alltoall");
}

/* ---- alltoallv ------------------------------------------------------------------------- */

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  NHOOD_Topo topo;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm);
  if (rc != MPI_SUCCESS) return rc;
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                topo);
  return blocking_done(comm, rc, IP_ALLTOALLV, mean_bytes(rc, topo, sendcounts, sendtype, NULL), t0,
                       "MPI_Neighbor_alltoallv");
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                    comm, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Ineighbor_alltoallv");
  double t0 = ip_stats_clock();
  rc = NHOOD_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                 topo, &nreq);
  return request_done(comm, rc, nreq, 0, request, IP_ALLTOALLV, mean_bytes(rc, topo, sendcounts, sendtype, NULL), t0,
                      "MPI_Ineighbor_alltoallv");
}

/* ---- alltoallw ------------------------------------------------------------------------- */

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  NHOOD_Topo topo;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm);
  if (rc != MPI_SUCCESS) return rc;
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                                topo);
  return blocking_done(comm, rc, IP_ALLTOALLW, mean_bytes(rc, topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), t0,
                       "MPI_Neighbor_alltoallw");
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Ineighbor_alltoallw");
  double t0 = ip_stats_clock();
  rc = NHOOD_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                                 topo, &nreq);
  return request_done(comm, rc, nreq, 0, request, IP_ALLTOALLW,
                      mean_bytes(rc, topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), t0, "MPI_Ineighbor_alltoallw");
}

/* ---- persistent ------------------------------------------------------------------------ */

#ifdef PERSISTENT
int PERSISTENT(allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_PERSISTENT(allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Neighbor_allgather_init");
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, info,
                                     &nreq);
  return request_done(comm, rc, nreq, 1, request, IP_ALLGATHER, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Neighbor_allgather_init");
}

int PERSISTENT(allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_PERSISTENT(allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                       request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Neighbor_allgatherv_init");
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo,
                                      info, &nreq);
  return request_done(comm, rc, nreq, 1, request, IP_ALLGATHERV, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Neighbor_allgatherv_init");
}

int PERSISTENT(alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_PERSISTENT(alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Neighbor_alltoall_init");
  double t0 = ip_stats_clock();
  rc =
      NHOOD_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo, info, &nreq);
  return request_done(comm, rc, nreq, 1, request, IP_ALLTOALL, bytes_of(rc, sendcount, sendtype), t0,
                      "MPI_Neighbor_alltoall_init");
}

int PERSISTENT(alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_PERSISTENT(alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                      comm, info, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Neighbor_alltoallv_init");
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     comm, topo, info, &nreq);
  return request_done(comm, rc, nreq, 1, request, IP_ALLTOALLV, mean_bytes(rc, topo, sendcounts, sendtype, NULL), t0,
                      "MPI_Neighbor_alltoallv_init");
}

int PERSISTENT(alltoallw)(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
  NHOOD_Topo topo;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  int rc;
  if (!ip_route(comm, &topo, &rc))
    return PMPI_PERSISTENT(alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                      comm, info, request);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_REQUEST("MPI_Neighbor_alltoallw_init");
  double t0 = ip_stats_clock();
  rc = NHOOD_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                     comm, topo, info, &nreq);
  return request_done(comm, rc, nreq, 1, request, IP_ALLTOALLW,
                      mean_bytes(rc, topo, sendcounts, MPI_DATATYPE_NULL, sendtypes), t0,
                      "MPI_Neighbor_alltoallw_init");
}
#endif
