/*
 * MPI's neighborhood collectives and their arguments: the one list every interposed entry
 * point is generated from (as MPICH generates its bindings from one description). From each
 * entry come, where the MPI has them:
 *
 *   collectives.c       MPI_Neighbor_<name>, MPI_Ineighbor_<name>, the persistent
 *                       MPI_Neighbor_<name>_init (Open MPI 4: MPIX_Neighbor_<name>_init)
 *   large_count.c       the same three with MPI_Count counts (_c)
 *   fortran_openmpi.c   Open MPI's Fortran procedures of the three (mpif.h, use mpi, mpi_f08)
 *   fortran_mpich.c     MPICH's mpi_f08 procedures of the three
 *
 * An entry is X(name, NAME, SHAPE): the lower-case name (MPI_Neighbor_<name>), the upper-case
 * one (NHOOD_<NAME>, IP_<NAME>, MPI_NEIGHBOR_<NAME>) and the shape of its arguments. A shape
 * names, for each binding, its parameters (IP_PARAMS_<SHAPE>, ...), their names as arguments
 * (IP_NAMES_<SHAPE>, ...) and what nhood reads of them: the block size the cold path and
 * NHOOD_STATS ask with (IP_BLOCK), the plain-arguments test of a cold call (IP_PLAIN,
 * interpose.h), the call as nhood_coll_args for nhood's checks (IP_ARGS), the empty arrays
 * put where MPI's own may refuse NULL (IP_EMPTIES). A collective of an existing shape is one
 * line here; a new shape adds its macros below.
 */
#ifndef NHOOD_INTERPOSE_FUNCTIONS_H
#define NHOOD_INTERPOSE_FUNCTIONS_H

#define IP_NEIGHBOR_COLLECTIVES(X)   \
  X(allgather, ALLGATHER, ONE)       \
  X(allgatherv, ALLGATHERV, GATHERV) \
  X(alltoall, ALLTOALL, ONE)         \
  X(alltoallv, ALLTOALLV, V)         \
  X(alltoallw, ALLTOALLW, W)

/* ---- ONE: one count and one datatype per side (allgather, alltoall) ------------------------ */

#define IP_PARAMS_ONE(count, disp)                                                                                    \
  const void *sendbuf, count sendcount, MPI_Datatype sendtype, void *recvbuf, count recvcount, MPI_Datatype recvtype, \
      MPI_Comm comm
#define IP_NAMES_ONE sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define IP_BLOCK_ONE block_bytes((double)sendcount, sendtype)
#define IP_PLAIN_ONE                                                                                          \
  (ip_plain_buffers(sendbuf, recvbuf) && sendcount >= 0 && recvcount >= 0 && sendtype != MPI_DATATYPE_NULL && \
   recvtype != MPI_DATATYPE_NULL)
#define IP_ARGS_ONE(T, K)      \
  ((T){.kind = (K),            \
       .sendbuf = sendbuf,     \
       .recvbuf = recvbuf,     \
       .sendcount = sendcount, \
       .sendtype = sendtype,   \
       .recvcount = recvcount, \
       .recvtype = recvtype})
#define IP_ARGS_C_ONE(K) IP_ARGS_ONE(nhood_coll_args_c, K)
#define IP_EMPTIES_ONE (void)0
#define IP_EMPTIES_C_ONE (void)0

/* ---- GATHERV: one send count, a count and displacement per receive block ------------------- */

#define IP_PARAMS_GATHERV(count, disp)                                                                  \
  const void *sendbuf, count sendcount, MPI_Datatype sendtype, void *recvbuf, const count recvcounts[], \
      const disp displs[], MPI_Datatype recvtype, MPI_Comm comm
#define IP_NAMES_GATHERV sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define IP_BLOCK_GATHERV IP_BLOCK_ONE
#define IP_PLAIN_GATHERV                                                                    \
  (ip_plain_buffers(sendbuf, recvbuf) && sendcount >= 0 && sendtype != MPI_DATATYPE_NULL && \
   recvtype != MPI_DATATYPE_NULL && ip_plain_counts(recvcounts, c->indegree) && displs != NULL)
#define IP_ARGS_GATHERV(T, K)    \
  ((T){.kind = (K),              \
       .sendbuf = sendbuf,       \
       .recvbuf = recvbuf,       \
       .sendcount = sendcount,   \
       .sendtype = sendtype,     \
       .recvcounts = recvcounts, \
       .rdispls = displs,        \
       .recvtype = recvtype})
#define IP_ARGS_C_GATHERV(K) IP_ARGS_GATHERV(nhood_coll_args_c, K)
#define IP_EMPTIES_GATHERV \
  (recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), displs = NHOOD_OR_EMPTY(displs, nhood_no_ints))
#define IP_EMPTIES_C_GATHERV \
  (recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_counts), displs = NHOOD_OR_EMPTY(displs, nhood_no_aints))

/* ---- V: a count and displacement per block, one datatype per side -------------------------- */

#define IP_PARAMS_V(count, disp)                                                                             \
  const void *sendbuf, const count sendcounts[], const disp sdispls[], MPI_Datatype sendtype, void *recvbuf, \
      const count recvcounts[], const disp rdispls[], MPI_Datatype recvtype, MPI_Comm comm
#define IP_NAMES_V sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define IP_BLOCK_V mean_block(topo, sendcounts, sendtype, NULL)
#define IP_PLAIN_V                                                                                             \
  (ip_plain_buffers(sendbuf, recvbuf) && sendtype != MPI_DATATYPE_NULL && recvtype != MPI_DATATYPE_NULL &&     \
   ip_plain_counts(sendcounts, c->outdegree) && sdispls != NULL && ip_plain_counts(recvcounts, c->indegree) && \
   rdispls != NULL)
#define IP_ARGS_V(T, K)          \
  ((T){.kind = (K),              \
       .sendbuf = sendbuf,       \
       .recvbuf = recvbuf,       \
       .sendcounts = sendcounts, \
       .sdispls = sdispls,       \
       .sendtype = sendtype,     \
       .recvcounts = recvcounts, \
       .rdispls = rdispls,       \
       .recvtype = recvtype})
#define IP_ARGS_C_V(K) IP_ARGS_V(nhood_coll_args_c, K)
#define IP_EMPTIES_V                                                                                         \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_ints), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_ints), \
   recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_ints))
#define IP_EMPTIES_C_V                                                                                          \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_counts), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_aints), \
   recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_counts), rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_aints))

/* ---- W: a count, byte displacement and datatype per block ---------------------------------- */

#define IP_PARAMS_W(count, disp)                                                                           \
  const void *sendbuf, const count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], \
      void *recvbuf, const count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define IP_NAMES_W sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define IP_BLOCK_W mean_block(topo, sendcounts, MPI_DATATYPE_NULL, sendtypes)
#define IP_PLAIN_W                                                                                           \
  (ip_plain_buffers(sendbuf, recvbuf) && ip_plain_counts(sendcounts, c->outdegree) && sdispls != NULL &&     \
   ip_plain_types(sendtypes, c->outdegree) && ip_plain_counts(recvcounts, c->indegree) && rdispls != NULL && \
   ip_plain_types(recvtypes, c->indegree))
/* nhood_coll_args keeps a w call's byte displacements apart; nhood_coll_args_c has one kind. */
#define IP_ARGS_W(T, K)                             \
  ((nhood_coll_args){.kind = (K),                   \
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
#define IP_ARGS_C_W(K)                                \
  ((nhood_coll_args_c){.kind = (K),                   \
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
#define IP_EMPTIES_W                                                                                              \
  (sendcounts = NHOOD_OR_EMPTY(sendcounts, nhood_no_ints), sdispls = NHOOD_OR_EMPTY(sdispls, nhood_no_aints),     \
   sendtypes = NHOOD_OR_EMPTY(sendtypes, nhood_no_types), recvcounts = NHOOD_OR_EMPTY(recvcounts, nhood_no_ints), \
   rdispls = NHOOD_OR_EMPTY(rdispls, nhood_no_aints), recvtypes = NHOOD_OR_EMPTY(recvtypes, nhood_no_types))
#define IP_EMPTIES_C_W                                                    \
  (IP_EMPTIES_C_V, sendtypes = NHOOD_OR_EMPTY(sendtypes, nhood_no_types), \
   recvtypes = NHOOD_OR_EMPTY(recvtypes, nhood_no_types))

/* The int and large-count forms' parameters. */
#define IP_INT_PARAMS(SHAPE) IP_INT_PARAMS_(IP_PARAMS_##SHAPE)
#define IP_INT_PARAMS_(P) P(int, int)
#define IP_C_PARAMS(SHAPE) IP_C_PARAMS_(IP_PARAMS_##SHAPE)
#define IP_C_PARAMS_(P) P(MPI_Count, MPI_Aint)

#endif
