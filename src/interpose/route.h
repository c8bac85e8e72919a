/*
 * What every interposed neighborhood collective does (collectives.c, large_count.c): the block
 * sizes it reports, its route (ROUTE: MPI's own, nhood's direct in its place, or nhood), and its
 * body, blocking or through a request (BLOCKING_BODY, REQUEST_BODY), given what functions.h
 * says of each collective's arguments. Included by those two files only.
 */
#ifndef NHOOD_INTERPOSE_ROUTE_H
#define NHOOD_INTERPOSE_ROUTE_H

#include "common/hot.h"
#include "interpose/interpose.h"

/* ---- block sizes: what the cold path asks with, and NHOOD_STATS ------------------------- */

/* 0 where the datatype is not valid (MPI's call or nhood's reports it). */
static inline double block_bytes(double count, MPI_Datatype type) {
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return count * size;
}

/* The mean block of a v or w call's send side (types NULL: one type for all), its counts int
 * or (large-count forms) MPI_Count; 0 without the topology object (a cold call). */
static inline double mean_block_of(NHOOD_Topo topo, const int counts[], const MPI_Count wide[], MPI_Datatype type,
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

/* A call's end: statistics (NHOOD_STATS) and errors; for a request, its MPI request made
 * (collectives.c). */
int ip_blocking_done(MPI_Comm comm, int rc, int slot, ip_coll coll, double bytes, double t0, const char *function);
int ip_request_done(MPI_Comm comm, int rc, int slot, NHOOD_Request nreq, int persistent, MPI_Request *request,
                    ip_coll coll, double bytes, double t0, const char *function);

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
  return ip_blocking_done(comm, rc, slot, coll, rc == MPI_SUCCESS && stats ? (block) : 0, t0, __func__)

#define IP_INFO_0 MPI_INFO_NULL /* a non-blocking call's, for OWN_CALL */
#define IP_INFO_1 info          /* a persistent one's */
#define REQUEST_BODY(coll, persistent, pmpi_call, nhood_call, block, plain, args, empties)          \
  ROUTE(coll, persistent ? IP_PERSISTENT : IP_NONBLOCKING, pmpi_call, block, plain, args, empties,  \
        IP_INFO_##persistent, request);                                                             \
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;                                                          \
  if (request == NULL) return ip_raise_message(comm, MPI_ERR_REQUEST, __func__, "request is NULL"); \
  double t0 = ip_stats_clock();                                                                     \
  rc = nhood_call;                                                                                  \
  return ip_request_done(comm, rc, slot, nreq, persistent, request, coll,                           \
                         rc == MPI_SUCCESS && ip_stats_on() ? (block) : 0, t0, __func__)

#endif
