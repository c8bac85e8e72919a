/*
 * MPI's neighborhood collectives, run by nhood on the topology object of the communicator:
 * blocking, non-blocking (MPI_Ineighbor_*) and persistent (MPI-4's MPI_Neighbor_*_init, or
 * Open MPI 4's MPIX_Neighbor_*_init), one of each for every collective of functions.h; the
 * large-count forms are in large_count.c. Each goes to MPI's own where ip_route says so
 * (route.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "interpose/functions.h"
#include "interpose/route.h"

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

/* ---- the entry points, from functions.h's list ------------------------------------------ */

#define BLOCKING(name, NAME, SHAPE)                                                                                 \
  NHOOD_HOT int MPI_Neighbor_##name(IP_INT_PARAMS(SHAPE)) {                                                         \
    BLOCKING_BODY(IP_##NAME, PMPI_Neighbor_##name(IP_NAMES_##SHAPE), NHOOD_Neighbor_##name(IP_NAMES_##SHAPE, topo), \
                  IP_BLOCK_##SHAPE, IP_PLAIN_##SHAPE, IP_ARGS_##SHAPE(nhood_coll_args, NHOOD_##NAME),               \
                  IP_EMPTIES_##SHAPE);                                                                              \
  }
IP_NEIGHBOR_COLLECTIVES(BLOCKING)

#define NONBLOCKING(name, NAME, SHAPE)                                                                      \
  int MPI_Ineighbor_##name(IP_INT_PARAMS(SHAPE), MPI_Request *request) {                                    \
    REQUEST_BODY(IP_##NAME, 0, PMPI_Ineighbor_##name(IP_NAMES_##SHAPE, request),                            \
                 NHOOD_Ineighbor_##name(IP_NAMES_##SHAPE, topo, &nreq), IP_BLOCK_##SHAPE, IP_PLAIN_##SHAPE, \
                 IP_ARGS_##SHAPE(nhood_coll_args, NHOOD_##NAME), IP_EMPTIES_##SHAPE);                       \
  }
IP_NEIGHBOR_COLLECTIVES(NONBLOCKING)

/* MPI-4's persistent collectives, or Open MPI 4's MPIX_ ones. */
#ifdef IP_PERSISTENT
#define PERSISTENT(name, NAME, SHAPE)                                                                   \
  int IP_PERSISTENT(name)(IP_INT_PARAMS(SHAPE), MPI_Info info, MPI_Request * request) {                 \
    REQUEST_BODY(IP_##NAME, 1, IP_PMPI_PERSISTENT(name)(IP_NAMES_##SHAPE, info, request),               \
                 NHOOD_Neighbor_##name##_init(IP_NAMES_##SHAPE, topo, info, &nreq), IP_BLOCK_##SHAPE,   \
                 IP_PLAIN_##SHAPE, IP_ARGS_##SHAPE(nhood_coll_args, NHOOD_##NAME), IP_EMPTIES_##SHAPE); \
  }
IP_NEIGHBOR_COLLECTIVES(PERSISTENT)
#endif
