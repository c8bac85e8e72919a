/*
 * The large-count forms of MPI's neighborhood collectives (MPI_Neighbor_*_c, MPI_Ineighbor_*_c,
 * MPI_Neighbor_*_init_c) of every collective of functions.h, where the MPI has them
 * (cmake/mpi_features.cmake): the same route as the int forms (route.h), their calls lowered
 * to int form for nhood's checks.
 */
#include "interpose/functions.h"
#include "interpose/route.h"

#if defined(NHOOD_HAVE_MPI_NEIGHBOR_C)
#define BLOCKING_C(name, NAME, SHAPE)                                                                    \
  int MPI_Neighbor_##name##_c(IP_C_PARAMS(SHAPE)) {                                                      \
    BLOCKING_BODY(IP_##NAME, PMPI_Neighbor_##name##_c(IP_NAMES_##SHAPE),                                 \
                  NHOOD_Neighbor_##name##_c(IP_NAMES_##SHAPE, topo), IP_BLOCK_##SHAPE, IP_PLAIN_##SHAPE, \
                  IP_ARGS_C_##SHAPE(NHOOD_##NAME), IP_EMPTIES_C_##SHAPE);                                \
  }
IP_NEIGHBOR_COLLECTIVES(BLOCKING_C)

#define NONBLOCKING_C(name, NAME, SHAPE)                                                                        \
  int MPI_Ineighbor_##name##_c(IP_C_PARAMS(SHAPE), MPI_Request *request) {                                      \
    REQUEST_BODY(IP_##NAME, 0, PMPI_Ineighbor_##name##_c(IP_NAMES_##SHAPE, request),                            \
                 NHOOD_Ineighbor_##name##_c(IP_NAMES_##SHAPE, topo, &nreq), IP_BLOCK_##SHAPE, IP_PLAIN_##SHAPE, \
                 IP_ARGS_C_##SHAPE(NHOOD_##NAME), IP_EMPTIES_C_##SHAPE);                                        \
  }
IP_NEIGHBOR_COLLECTIVES(NONBLOCKING_C)

#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT_C)
#define PERSISTENT_C(name, NAME, SHAPE)                                                                 \
  int MPI_Neighbor_##name##_init_c(IP_C_PARAMS(SHAPE), MPI_Info info, MPI_Request *request) {           \
    REQUEST_BODY(IP_##NAME, 1, PMPI_Neighbor_##name##_init_c(IP_NAMES_##SHAPE, info, request),          \
                 NHOOD_Neighbor_##name##_init_c(IP_NAMES_##SHAPE, topo, info, &nreq), IP_BLOCK_##SHAPE, \
                 IP_PLAIN_##SHAPE, IP_ARGS_C_##SHAPE(NHOOD_##NAME), IP_EMPTIES_C_##SHAPE);              \
  }
IP_NEIGHBOR_COLLECTIVES(PERSISTENT_C)
#endif
#endif
