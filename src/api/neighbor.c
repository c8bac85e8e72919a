/* The NHOOD_Neighbor_* entry points: each gathers its arguments and runs the call
 * (api/collectives.c). A blocking allgather or alltoall first looks for a repeat the thread
 * keeps as a flat round (api/call_cache.h), before its arguments are even gathered; a blocking
 * allgatherv or alltoallv does so once they are, its arrays compared by content. */
#include "api/call_cache.h"
#include "api/coll_check.h"
#include "common/hot.h"

/* A blocking allgather or alltoall that repeats no flat round: its arguments, from its key. */
NHOOD_NOINLINE static int run_allgather_key(const nhood_call_key *k, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_coll_args a = {.kind = k->kind,
                       .sendbuf = k->sendbuf,
                       .recvbuf = k->recvbuf,
                       .sendcount = k->sendcount,
                       .sendtype = k->sendtype,
                       .recvcount = k->recvcount,
                       .recvtype = k->recvtype};
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}

/* ---- entry points ---------------------------------------------------------------------- */

/* The key of an allgather or alltoall (api/call_cache.h): a repeat the thread keeps as a flat
 * round runs from it first thing, before the call's arguments are even gathered. */
#define ALLGATHER_KEY(K)                                                                                 \
  (nhood_call_key) {                                                                                     \
    .kind = (K), .sendcount = sendcount, .recvcount = recvcount, .sendbuf = sendbuf, .recvbuf = recvbuf, \
    .sendtype = sendtype, .recvtype = recvtype                                                           \
  }

/* NHOOD_Neighbor_allgather and _alltoall where the call repeats no flat round of the thread's
 * last call: another memo's, else the whole way. Out of line, with the entry point's arguments,
 * so that the entry point's own path saves no registers and ends in a jump. */
#define NOT_LAST(name, K)                                                                                             \
  NHOOD_NOINLINE static int name##_not_last(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, \
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo) {   \
    nhood_call_key k = ALLGATHER_KEY(K);                                                                              \
    int rc = nhood_call_cache_run_flat(&k, comm, topo);                                                               \
    return rc >= 0 ? rc : run_allgather_key(&k, comm, topo);                                                          \
  }
NOT_LAST(allgather, NHOOD_ALLGATHER)
NOT_LAST(alltoall, NHOOD_ALLTOALL)

#define ALLGATHER_ARGS(K)                                                                              \
  (nhood_coll_args) {                                                                                  \
    .kind = (K), .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = sendcount, .sendtype = sendtype, \
    .recvtype = recvtype                                                                               \
  }

NHOOD_HOT int NHOOD_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_key k = ALLGATHER_KEY(NHOOD_ALLGATHER);
  struct nhood_flat_round *f = nhood_call_cache_hot(&k, comm, topo);
  return f ? nhood_call_cache_run_hot(f)
           : allgather_not_last(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo);
}
int NHOOD_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHER_ARGS(NHOOD_ALLGATHER);
  a.recvcount = recvcount;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                  NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHER_ARGS(NHOOD_ALLGATHER);
  a.recvcount = recvcount;
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

#define ALLGATHERV_ARGS                                                                                             \
  (nhood_coll_args) {                                                                                               \
    .kind = NHOOD_ALLGATHERV, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = sendcount, .sendtype = sendtype, \
    .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype                                               \
  }

/* The keys of an allgatherv and an alltoallv (api/call_cache.h): their scalars; the arrays are
 * compared apart. */
#define ALLGATHERV_KEY                                                                                              \
  (nhood_call_key) {                                                                                                \
    .kind = NHOOD_ALLGATHERV, .sendcount = sendcount, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendtype = sendtype, \
    .recvtype = recvtype                                                                                            \
  }
#define ALLTOALLV_KEY                                                                                           \
  (nhood_call_key) {                                                                                            \
    .kind = NHOOD_ALLTOALLV, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendtype = sendtype, .recvtype = recvtype \
  }

/* A blocking allgatherv or alltoallv that repeats no flat round of the thread's last call:
 * another memo's flat round, else the whole way (out of line, as the fixed-size collectives'
 * _not_last). */
NHOOD_NOINLINE static int allgatherv_blocking(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                              MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_key k = ALLGATHERV_KEY;
  int rc = nhood_call_cache_run_flat_arrays(&k, comm, topo, NULL, NULL, recvcounts, displs);
  if (rc >= 0) return rc;
  nhood_coll_args a = ALLGATHERV_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}

NHOOD_HOT int NHOOD_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_key k = ALLGATHERV_KEY;
  struct nhood_flat_round *f = nhood_call_cache_hot(&k, comm, topo);
  return f && nhood_call_memo_arrays_are(NULL, NULL, recvcounts, displs)
             ? nhood_call_cache_run_hot(f)
             : allgatherv_blocking(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, topo);
}
int NHOOD_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                               NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHERV_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHERV_ARGS;
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

NHOOD_HOT int NHOOD_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_key k = ALLGATHER_KEY(NHOOD_ALLTOALL);
  struct nhood_flat_round *f = nhood_call_cache_hot(&k, comm, topo);
  return f ? nhood_call_cache_run_hot(f)
           : alltoall_not_last(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, topo);
}
int NHOOD_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHER_ARGS(NHOOD_ALLTOALL);
  a.recvcount = recvcount;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                 NHOOD_Request *request) {
  nhood_coll_args a = ALLGATHER_ARGS(NHOOD_ALLTOALL);
  a.recvcount = recvcount;
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

#define ALLTOALLV_ARGS                                                                                             \
  (nhood_coll_args) {                                                                                              \
    .kind = NHOOD_ALLTOALLV, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts, .sdispls = sdispls, \
    .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype                       \
  }

NHOOD_NOINLINE static int alltoallv_blocking(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                             NHOOD_Topo topo) {
  nhood_call_key k = ALLTOALLV_KEY;
  int rc = nhood_call_cache_run_flat_arrays(&k, comm, topo, sendcounts, sdispls, recvcounts, rdispls);
  if (rc >= 0) return rc;
  nhood_coll_args a = ALLTOALLV_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}

NHOOD_HOT int NHOOD_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_call_key k = ALLTOALLV_KEY;
  struct nhood_flat_round *f = nhood_call_cache_hot(&k, comm, topo);
  return f && nhood_call_memo_arrays_are(sendcounts, sdispls, recvcounts, rdispls)
             ? nhood_call_cache_run_hot(f)
             : alltoallv_blocking(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                  topo);
}
int NHOOD_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = ALLTOALLV_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                  NHOOD_Request *request) {
  nhood_coll_args a = ALLTOALLV_ARGS;
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

#define ALLTOALLW_ARGS                                                                                    \
  (nhood_coll_args) {                                                                                     \
    .kind = NHOOD_ALLTOALLW, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,            \
    .sdispls_bytes = sdispls, .sendtypes = sendtypes, .recvcounts = recvcounts, .rdispls_bytes = rdispls, \
    .recvtypes = recvtypes, .sendtype = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL                  \
  }

NHOOD_HOT int NHOOD_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                       NHOOD_Topo topo) {
  nhood_coll_args a = ALLTOALLW_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}
int NHOOD_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, NHOOD_Topo topo,
                              NHOOD_Request *request) {
  nhood_coll_args a = ALLTOALLW_ARGS;
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request) {
  nhood_coll_args a = ALLTOALLW_ARGS;
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

/* Reduce: the same vector to every destination; scatter-reduce: block j (count elements at
 * j * count * extent) to destination j. Either way the vectors received are reduced with op
 * into recvbuf. */
#define REDUCE_ARGS(K)                                                                                                 \
  (nhood_coll_args) {                                                                                                  \
    .kind = (K), .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .sendtype = datatype, .recvcount = count, \
    .recvtype = datatype, .op = op                                                                                     \
  }

NHOOD_HOT int NHOOD_Neighbor_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, NHOOD_Topo topo) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_REDUCE);
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}
int NHOOD_Ineighbor_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_REDUCE);
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_REDUCE);
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}

NHOOD_HOT int NHOOD_Neighbor_scatter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                            MPI_Op op, MPI_Comm comm, NHOOD_Topo topo) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_SCATTER_REDUCE);
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, NULL);
}
int NHOOD_Ineighbor_scatter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_SCATTER_REDUCE);
  return nhood_coll_run(&a, comm, topo, MPI_INFO_NULL, NHOOD_NONBLOCKING, request);
}
int NHOOD_Neighbor_scatter_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request) {
  nhood_coll_args a = REDUCE_ARGS(NHOOD_SCATTER_REDUCE);
  return nhood_coll_run(&a, comm, topo, info, NHOOD_PERSISTENT, request);
}
