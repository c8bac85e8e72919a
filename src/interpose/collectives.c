/*
 * MPI's neighborhood collectives, run by nhood on the topology object of the communicator:
 * blocking, non-blocking (MPI_Ineighbor_*) and persistent (MPI-4's MPI_Neighbor_*_init, or
 * Open MPI 4's MPIX_Neighbor_*_init), and their large-count forms (MPI_Neighbor_*_c, where the
 * MPI has them: cmake/mpi_features.cmake). Each function goes to MPI unchanged where ip_route
 * says so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/hot.h"
#include "interpose/interpose.h"

#ifdef IP_PERSISTENT
#define PERSISTENT(coll) IP_PERSISTENT(coll)
#define PMPI_PERSISTENT(coll) IP_PMPI_PERSISTENT(coll)
#endif

/* ---- block sizes: what the cold path asks with, and NHOOD_STATS ------------------------- */

/* 0 where the datatype is not valid (MPI's call or nhood's reports it). */
static double block_bytes(double count, MPI_Datatype type) {
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return count * size;
}

/* The mean block of a v or w call's send side (types NULL: one type for all), its counts int
 * or (large-count forms) MPI_Count; 0 without the topology object (a cold call). */
static double mean_block_of(NHOOD_Topo topo, const int counts[], const MPI_Count wide[], MPI_Datatype type,
                            const MPI_Datatype types[]) {
  int indegree = 0, outdegree = 0, weighted = 0;
  if (topo == NHOOD_TOPO_NULL || (counts == NULL && wide == NULL) ||
      NHOOD_Topo_degrees(topo, 1, &indegree, &outdegree, &weighted) != MPI_SUCCESS || outdegree == 0)
    return 0;
  double total = 0;
  for (int j = 0; j < outdegree; j++)
    total += block_bytes(counts ? (double)counts[j] : (double)wide[j], types ? types[j] : type);
  return total / outdegree;
}
#define mean_block(topo, counts, type, types) \
  _Generic((counts), const MPI_Count *: mean_block_of(topo, NULL, (const MPI_Count *)(counts), type, types),       \
           default: mean_block_of(topo, (const int *)(counts), NULL, type, types))

/* ---- what every call does ------------------------------------------------------------- */

NHOOD_HOT static int blocking_done(MPI_Comm comm, int rc, int slot, ip_coll coll, double bytes, double t0,
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

static int request_done(MPI_Comm comm, int rc, int slot, NHOOD_Request nreq, int persistent, MPI_Request *request,
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

/* What every function does first: MPI's own call where nhood does not handle comm or comm is
 * cold (ip_route; at the call count where the cold path asks, ip_ask with this call's block
 * size `block`), timed for NHOOD_STATS; else it goes on with comm's topology object in
 * `topo` and its statistics row in `slot`. `block` may read `topo` (NULL while cold). A cold
 * call goes to MPI's own only with `plain` arguments (interpose.h; else nhood's checks run
 * first on `args`, the call as nhood_coll_args) and where MPI's own is right for the
 * collective on comm; where it is not, nhood's direct runs it (IP_TO_DIRECT, `hot` 0). A call
 * that passed those checks has its NULL arrays (a side without neighbors) replaced by empty ones
 * (`empties`): MPI's own may refuse NULL there, which nhood accepts (Open MPI 4.1's allgatherv).
 * Where MPI has this process's lists without their MPI_PROC_NULL entries (c->stripped), MPI's
 * own call is rewritten for them (OWN_CALL; info and request: the persistent and non-blocking
 * forms'). */
#define OWN_CALL(pmpi_call, mode, args, info, request) \
  (c != NULL && c->stripped ? IP_OWN_STRIPPED(comm, c->stripped, args, mode, info, request) : (pmpi_call))
#define ROUTE(coll, mode, pmpi_call, block, plain, args, empties, info, request)                         \
  ip_comm *c = NULL;                                                                                     \
  if ((mode) != IP_PERSISTENT) {                                                                         \
    c = ip_memo_state(comm);                                                                             \
    if (IP_COLD_TAKE(c, coll, plain)) return pmpi_call;                                                  \
  }                                                                                                      \
  NHOOD_Topo topo = NHOOD_TOPO_NULL;                                                                     \
  int rc;                                                                                                \
  ip_route_to to = ip_route(comm, (mode) == IP_PERSISTENT, &c, &rc);                                     \
  if (c) topo = c->topo;                                                                                 \
  if (to == IP_TO_ASK) to = ip_ask(comm, c, coll, block, &rc);                                           \
  if (to == IP_TO_PROBE) to = ip_probe(comm, c, &rc);                                                    \
  if (to == IP_TO_MPI && c != NULL) {                                                                    \
    if (!(plain)) {                                                                                      \
      if ((rc = IP_CHECK_COLD(comm, c, args, __func__)) != MPI_SUCCESS) return rc;                       \
      empties;                                                                                           \
    }                                                                                                    \
    if (c->own_wrong & (1u << (coll))) {                                                                 \
      if ((rc = ip_direct_topo(comm, c, &topo)) != MPI_SUCCESS) return rc;                               \
      to = IP_TO_DIRECT;                                                                                 \
    }                                                                                                    \
  }                                                                                                      \
  if (to == IP_TO_MPI) {                                                                                 \
    int probing = (mode) == IP_BLOCKING && ip_probing(c);                                                \
    if (c == NULL || !(ip_stats_on() || probing)) return OWN_CALL(pmpi_call, mode, args, info, request); \
    double t0 = PMPI_Wtime();                                                                            \
    rc = OWN_CALL(pmpi_call, mode, args, info, request);                                                 \
    double t = PMPI_Wtime() - t0;                                                                        \
    if (rc == MPI_SUCCESS && probing) ip_probe_record(c, 0, t);                                          \
    if (rc == MPI_SUCCESS && ip_stats_on()) ip_stats_record(c->slot, coll, mode, NULL, block, t);        \
    return rc;                                                                                           \
  }                                                                                                      \
  if (rc != MPI_SUCCESS) return rc;                                                                      \
  int slot = c->slot, hot = to != IP_TO_DIRECT;                                                          \
  (void)hot

/* Then nhood's call, statistics (the block size read after a successful call) and errors. A
 * request output that is NULL is MPI_ERR_REQUEST, before anything starts. */
#define BLOCKING_BODY(coll, pmpi_call, nhood_call, block, plain, args, empties)          \
  ROUTE(coll, IP_BLOCKING, pmpi_call, block, plain, args, empties, MPI_INFO_NULL, NULL); \
  int probing = ip_probing(c), stats = ip_stats_on();                                    \
  double t0 = probing || stats ? PMPI_Wtime() : 0;                                       \
  rc = nhood_call;                                                                       \
  if (probing && rc == MPI_SUCCESS) ip_probe_record(c, hot, PMPI_Wtime() - t0);          \
  if (rc == MPI_SUCCESS && !stats) return MPI_SUCCESS; /* a hot loop's call */           \
  return blocking_done(comm, rc, slot, coll, rc == MPI_SUCCESS && stats ? (block) : 0, t0, __func__)

#define IP_INFO_0 MPI_INFO_NULL /* a non-blocking call's, for OWN_CALL */
#define IP_INFO_1 info          /* a persistent one's */
#define REQUEST_BODY(coll, persistent, pmpi_call, nhood_call, block, plain, args, empties)          \
  ROUTE(coll, persistent ? IP_PERSISTENT : IP_NONBLOCKING, pmpi_call, block, plain, args, empties,  \
        IP_INFO_##persistent, request);                                                             \
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;                                                          \
  if (request == NULL) return ip_raise_message(comm, MPI_ERR_REQUEST, __func__, "request is NULL"); \
  double t0 = ip_stats_clock();                                                                     \
  rc = nhood_call;                                                                                  \
  return request_done(comm, rc, slot, nreq, persistent, request, coll,                              \
                      rc == MPI_SUCCESS && ip_stats_on() ? (block) : 0, t0, __func__)

/* The plain arguments (interpose.h) of each collective, c being comm's state, and the call as
 * nhood_coll_args for its checks. */
#define PLAIN_ALLGATHER                                                                                       \
  (ip_plain_buffers(sendbuf, recvbuf) && sendcount >= 0 && recvcount >= 0 && sendtype != MPI_DATATYPE_NULL && \
   recvtype != MPI_DATATYPE_NULL)
#define PLAIN_ALLGATHERV                                                                    \
  (ip_plain_buffers(sendbuf, recvbuf) && sendcount >= 0 && sendtype != MPI_DATATYPE_NULL && \
   recvtype != MPI_DATATYPE_NULL && ip_plain_counts(recvcounts, c->indegree) && displs != NULL)
#define PLAIN_ALLTOALLV                                                                                        \
  (ip_plain_buffers(sendbuf, recvbuf) && sendtype != MPI_DATATYPE_NULL && recvtype != MPI_DATATYPE_NULL &&     \
   ip_plain_counts(sendcounts, c->outdegree) && sdispls != NULL && ip_plain_counts(recvcounts, c->indegree) && \
   rdispls != NULL)
#define PLAIN_ALLTOALLW                                                                                      \
  (ip_plain_buffers(sendbuf, recvbuf) && ip_plain_counts(sendcounts, c->outdegree) && sdispls != NULL &&     \
   ip_plain_types(sendtypes, c->outdegree) && ip_plain_counts(recvcounts, c->indegree) && rdispls != NULL && \
   ip_plain_types(recvtypes, c->indegree))
#define EMPTIES_ALLGATHERV \
  (recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), displs = NHOOD_OR_EMPTY(displs, nhood_no_ints))
#define EMPTIES_ALLTOALLV                                                                                    \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_ints), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_ints), \
   recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_ints))
#define EMPTIES_ALLTOALLW                                                                                         \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_ints), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_aints),     \
   sendtypes = NHOOD_OR_EMPTY(sendtypes, nhood_no_types), recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), \
   rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_aints), recvtypes = NHOOD_OR_EMPTY(recvtypes, nhood_no_types))
#define ARGS_ALLGATHER(T, K)   \
  ((T){.kind = (K),            \
       .sendbuf = sendbuf,     \
       .recvbuf = recvbuf,     \
       .sendcount = sendcount, \
       .sendtype = sendtype,   \
       .recvcount = recvcount, \
       .recvtype = recvtype})
#define ARGS_ALLGATHERV(T)       \
  ((T){.kind = NHOOD_ALLGATHERV, \
       .sendbuf = sendbuf,       \
       .recvbuf = recvbuf,       \
       .sendcount = sendcount,   \
       .sendtype = sendtype,     \
       .recvcounts = recvcounts, \
       .rdispls = displs,        \
       .recvtype = recvtype})
#define ARGS_ALLTOALLV(T)        \
  ((T){.kind = NHOOD_ALLTOALLV,  \
       .sendbuf = sendbuf,       \
       .recvbuf = recvbuf,       \
       .sendcounts = sendcounts, \
       .sdispls = sdispls,       \
       .sendtype = sendtype,     \
       .recvcounts = recvcounts, \
       .rdispls = rdispls,       \
       .recvtype = recvtype})
#define ARGS_ALLTOALLW                              \
  ((nhood_coll_args){.kind = NHOOD_ALLTOALLW,       \
                     .sendbuf = sendbuf,            \
                     .recvbuf = recvbuf,            \
                     .sendcounts = sendcounts,      \
                     .sdispls_bytes = sdispls,      \
                     .sendtypes = sendtypes,        \
                     .recvcounts = recvcounts,      \
                     .rdispls_bytes = rdispls,      \
                     .recvtypes = recvtypes,        \
                     .sendtype = MPI_DATATYPE_NULL, \
                     .recvtype = MPI_DATATYPE_NULL})

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

/* ---- large-count forms ------------------------------------------------------------------ */

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
