/*
 * nhood: optimized MPI neighborhood collectives on top of any MPI-3 or MPI-4 library.
 *
 * One header is the whole public interface. Everything here is C11 and callable from C++.
 *
 * Model
 * -----
 * A *topology object* (NHOOD_Topo) is a local description of who this process sends to and
 * receives from. It is created without any communication and without a new communicator,
 * and is then used together with any communicator whose size covers its ranks. Every
 * collective takes the communicator and the topology object and behaves exactly like the
 * MPI_Neighbor_* call would on a communicator carrying that topology (neighbor order,
 * buffer layout, duplicate edges, MPI_PROC_NULL neighbors, derived datatypes).
 *
 * Like any collective, an nhood collective must be called by every process of the
 * communicator, in the same order as the other collectives on that communicator.
 *
 * Errors
 * ------
 * Every function returns MPI_SUCCESS or an MPI error class (MPI_ERR_ARG, MPI_ERR_COUNT,
 * MPI_ERR_BUFFER, MPI_ERR_RANK, MPI_ERR_TOPOLOGY, MPI_ERR_REQUEST, MPI_ERR_TYPE,
 * MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_NO_MEM, MPI_ERR_TRUNCATE, MPI_ERR_INTERN, or the class
 * of an error an underlying MPI call returned). The communicator's error handler is not
 * invoked: the caller checks the return code. A message naming the offending argument is
 * kept per thread and returned by NHOOD_Error_message(). No error aborts the job, even
 * with MPI's default MPI_ERRORS_ARE_FATAL: where the MPI library would report an error of
 * one of nhood's requests to MPI_COMM_WORLD's error handler (MPICH's point-to-point
 * requests, Open MPI's non-blocking collectives), nhood sets that handler to
 * MPI_ERRORS_RETURN while it waits for them and puts the caller's back afterwards. An
 * argument error is seen only by the process that made it, and the other processes then
 * hang in the collective: see "Errors" before NHOOD_Neighbor_allgather, and NHOOD_CHECK.
 *
 * Threads
 * -------
 * Handles may be used from several threads, but, as with MPI collectives, calls on the same
 * communicator must not run concurrently. Calls from several threads at once need MPI at
 * MPI_THREAD_MULTIPLE, calls from a thread other than MPI's main one MPI_THREAD_SERIALIZED:
 * below that, nhood refuses such a call with MPI_ERR_OTHER and a message naming MPI's level
 * (concurrent calls are caught when they overlap). A call before MPI_Init or after
 * MPI_Finalize is an MPI_ERR_OTHER too.
 */
#ifndef NHOOD_H
#define NHOOD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NHOOD_VERSION_MAJOR 0
#define NHOOD_VERSION_MINOR 1
#define NHOOD_VERSION_PATCH 0

/* ------------------------------------------------------------------------------------- */
/* Handles                                                                                */
/* ------------------------------------------------------------------------------------- */

/** A local neighborhood description: sources and destinations of the calling process. */
typedef struct nhood_topo *NHOOD_Topo;
/** A non-blocking or persistent nhood collective operation. */
typedef struct nhood_request *NHOOD_Request;

#define NHOOD_TOPO_NULL ((NHOOD_Topo)0)
#define NHOOD_REQUEST_NULL ((NHOOD_Request)0)

/** Longest message NHOOD_Error_message() returns, terminating NUL included. */
#define NHOOD_MAX_ERROR_STRING 512

/** Info key (topology creation or persistent init) that picks the algorithm: "auto"
 *  (default: the algorithm a cost model predicts to be fastest for the call's block size,
 *  among those that apply; see "Choosing algorithms" below) or the name of an algorithm of
 *  the registry: `nhood-info --algorithms` lists them with what each does and where it
 *  applies, and NHOOD_Algorithm_count and NHOOD_Algorithm_get give the same at run time.
 *  "combine", "node" and "node-tree" build their patterns collectively at the first call on
 *  a topology object and communicator, and "mpi" its graph communicator, so every process
 *  must use them alike. Where the algorithm does not apply its fallback runs (see
 *  NHOOD_Topo_algorithm_applies). Environment variables, the same on every process:
 *  NHOOD_COMBINE_THETA, the least number of common destinations for two partners to merge
 *  (default 1); NHOOD_COMBINE_LEVELS, a fixed number of levels instead of the model's choice.
 *  An unknown value is MPI_ERR_INFO. The value given at persistent init overrides the
 *  topology's.
 *
 *  Choosing algorithms ("auto"): the first "auto" call of each collective on a topology object
 *  and communicator predicts every algorithm's time for every block size from its schedule
 *  (per-round latency, per-message overheads, per-byte costs; parameters from the file named
 *  by NHOOD_PARAMS, written by nhood-calibrate, else built-in InfiniBand-like defaults), takes
 *  the maximum over processes in one allreduce (so this first call synchronizes) and keeps
 *  the table; later calls look their block size up locally. Persistent requests are priced
 *  without the size pass that the v collectives of forwarding algorithms run once at init.
 *  Overrides, first match wins: NHOOD_INFO_TUNE at persistent init, NHOOD_INFO_TUNE at
 *  topology creation, the environment variable NHOOD_TUNE; their syntax is in docs/TUNING.md.
 *  nhood-info prints the table.
 *
 *  Graphs on a grid: on a topology from adjacency lists or a (dist) graph communicator, the
 *  first call that could use a cart-* algorithm (auto's first call, an explicit request,
 *  NHOOD_Topo_algorithm_applies) checks collectively whether the lists are exactly one set of
 *  offsets on a process grid (the communicator's Cartesian grid, else 2- to 4-D grids in
 *  row-major rank order; periodic or open). Where they are, the cart-* algorithms run on that
 *  grid with the graph's buffer layout. NHOOD_GRID=off skips the check. */
#define NHOOD_INFO_ALGORITHM "nhood_algorithm"

/** Info key (topology creation or persistent init), value "true" or "false" (default): an
 *  assertion, in the manner of MPI-4's mpi_assert_* keys, that in every call on an isomorphic
 *  topology (NHOOD_Topo_create_cart_offsets) every process sends the same number of bytes to
 *  its neighbor at offset i, for each i (allgatherv: the same sendcount everywhere), as in a
 *  stencil whose processes own blocks of one shape. Processes that forward blocks then know
 *  their sizes, so the cart-* algorithms combine allgatherv, alltoallv and alltoallw too. A
 *  call that breaks it is erroneous; the part a process can see (its receive block i must be
 *  as large as its send block i) gives MPI_ERR_TRUNCATE. The value given at persistent init
 *  overrides the topology's. */
#define NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES "nhood_assert_isomorphic_sizes"

/** Info key (topology creation or persistent init): tuning rules for "auto", as in the
 *  environment variable NHOOD_TUNE, e.g. "allgather:-2K=cart-dim-batch;allgather:2K-=direct"
 *  (collectives, a range of bytes per block, an algorithm; docs/TUNING.md). Malformed rules
 *  are MPI_ERR_INFO. The rules must be the same on every process. */
#define NHOOD_INFO_TUNE "nhood_tune"

/** Info key (topology creation), a positive integer k: for this topology, treat blocks of k
 *  consecutive ranks of the communicator as one node (the last one possibly smaller), as the
 *  environment variable NHOOD_RANKS_PER_NODE does for every communicator; to study the
 *  node-aware algorithm on one machine. Without either, nodes are found with
 *  MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) at the first call that needs them. Another
 *  value is MPI_ERR_INFO. The value must be the same on every process. */
#define NHOOD_INFO_RANKS_PER_NODE "nhood_ranks_per_node"

/* ------------------------------------------------------------------------------------- */
/* Errors                                                                                 */
/* ------------------------------------------------------------------------------------- */

/**
 * Copies the message of the last error that an nhood call returned in this thread.
 *
 * @param msg     buffer of at least NHOOD_MAX_ERROR_STRING characters; receives a
 *                NUL-terminated message (empty when no error happened yet).
 * @param resultlen  if not NULL, receives strlen(msg).
 * @return MPI_SUCCESS, or MPI_ERR_ARG when msg is NULL.
 */
int NHOOD_Error_message(char *msg, int *resultlen);

/* ------------------------------------------------------------------------------------- */
/* Topology objects (local; no communication)                                             */
/* ------------------------------------------------------------------------------------- */

/**
 * Creates a topology object from adjacency lists, with the meaning of
 * MPI_Dist_graph_create_adjacent, without communication and without a communicator.
 *
 * Receive block i comes from sources[i]; send block j goes to destinations[j]. Duplicate
 * entries, self loops, indegree != outdegree and zero degrees are allowed; as in MPI-4.1,
 * the k-th occurrence of q among my sources is paired with the k-th occurrence of me among
 * q's destinations. MPI_PROC_NULL entries are allowed: their blocks keep their place in the
 * buffers and are neither sent nor received.
 *
 * @param indegree       number of sources (>= 0).
 * @param sources        indegree ranks (>= 0 or MPI_PROC_NULL); may be NULL if indegree is 0.
 * @param sourceweights  indegree weights (>= 0), or MPI_UNWEIGHTED; if indegree is 0, any
 *                       value (MPI_WEIGHTS_EMPTY, NULL). As in MPI, NULL is not MPI_UNWEIGHTED.
 * @param outdegree      number of destinations (>= 0).
 * @param destinations   outdegree ranks (>= 0 or MPI_PROC_NULL); may be NULL if outdegree is 0.
 * @param destweights    outdegree weights (>= 0), or MPI_UNWEIGHTED; as sourceweights.
 * @param info           MPI_INFO_NULL, or hints (NHOOD_INFO_ALGORITHM).
 * @param topo           receives the new topology object.
 * @return MPI_ERR_ARG (negative degree, NULL list with non-zero degree, NULL topo,
 *         weights mixed weighted/unweighted, NULL or MPI_WEIGHTS_EMPTY weights with a
 *         non-zero degree, negative weight), MPI_ERR_RANK (a rank < 0 other than
 *         MPI_PROC_NULL), MPI_ERR_INFO, MPI_ERR_NO_MEM.
 */
int NHOOD_Topo_create_adjacent(int indegree, const int sources[], const int *sourceweights, int outdegree,
                               const int destinations[], const int *destweights, MPI_Info info, NHOOD_Topo *topo);

/**
 * Creates a topology object from a communicator that carries an MPI topology: distributed
 * graph, graph or Cartesian. Neighbor order is exactly MPI's: for distributed graphs that of
 * MPI_Dist_graph_neighbors, for graphs that of MPI_Graph_neighbors (as sources and as
 * destinations), for Cartesian communicators, per dimension d, the source then the
 * destination of MPI_Cart_shift(comm, d, 1), MPI_PROC_NULL included on non-periodic
 * boundaries; on periodic dimensions of size 1 or 2 receive block i is paired with the
 * neighbor's send block i^1 (MPI-4.1). Only local queries are made.
 *
 * @return MPI_ERR_COMM (null communicator), MPI_ERR_TOPOLOGY (no topology attached),
 *         MPI_ERR_ARG, MPI_ERR_INFO, MPI_ERR_NO_MEM.
 */
int NHOOD_Topo_create_from_comm(MPI_Comm comm, MPI_Info info, NHOOD_Topo *topo);

/**
 * Creates an isomorphic neighborhood on a Cartesian communicator: every process has the same
 * list of relative coordinate offsets C_0..C_{s-1}. Send block i goes to X + C_i and receive
 * block i comes from X - C_i, where X is the caller's coordinate. An offset that leaves a
 * non-periodic dimension gives MPI_PROC_NULL. A zero offset is a self loop. Local only.
 *
 * @param comm      a communicator with a Cartesian topology.
 * @param noffsets  s >= 0.
 * @param offsets   s * ndims integers, offset i at offsets[i*ndims .. i*ndims+ndims-1].
 * @return MPI_ERR_COMM, MPI_ERR_TOPOLOGY (not Cartesian), MPI_ERR_ARG, MPI_ERR_INFO,
 *         MPI_ERR_NO_MEM.
 */
int NHOOD_Topo_create_cart_offsets(MPI_Comm comm, int noffsets, const int offsets[], MPI_Info info, NHOOD_Topo *topo);

/**
 * Creates the reverse of a topology: sources and destinations (and their weights) swapped.
 * An allgather on the reverse sends along the original's receive edges. Local, O(degree).
 */
int NHOOD_Topo_reverse(NHOOD_Topo topo, NHOOD_Topo *reverse);

/** How NHOOD_Topo_split assigns an edge s -> d to a part: s mod nparts, or d mod nparts. */
#define NHOOD_SPLIT_BY_SOURCE 1
#define NHOOD_SPLIT_BY_DESTINATION 2

/**
 * Cuts a topology into nparts sub-neighborhoods, locally, so that one exchange can run as
 * nparts smaller non-blocking ones, each overlapped with work on the data of the ones before
 * (a pipeline, as the 2-D BFS of Kandalla et al. does). Edge s -> d goes to part s mod nparts
 * (NHOOD_SPLIT_BY_SOURCE: a process's blocks for an allgather all go in one part, and each
 * part brings the blocks of some sources) or d mod nparts (NHOOD_SPLIT_BY_DESTINATION: an
 * alltoall's blocks for some destinations per part). Both ends of an edge compute the same
 * part from the ranks alone, so where topo is consistent over comm's processes, so is every
 * part. Part k keeps topo's order of the kept neighbors (and their weights); MPI_PROC_NULL
 * neighbors are left out. comm gives this process's rank (no communication). info applies to
 * every part as at creation. Topologies from lists, graph communicators and offsets; not a
 * Cartesian communicator's (MPI_ERR_TOPOLOGY: its blocks pair by direction).
 * @return MPI_ERR_ARG (nparts < 1, unknown by, NULL parts), MPI_ERR_TOPOLOGY, MPI_ERR_COMM.
 */
int NHOOD_Topo_split(NHOOD_Topo topo, MPI_Comm comm, int nparts, int by, MPI_Info info, NHOOD_Topo parts[]);

/**
 * Degrees of a topology.
 *
 * @param include_proc_null  non-zero: count MPI_PROC_NULL neighbors (buffer layout degrees,
 *                           as MPI_Dist_graph_neighbors_count); zero: only real neighbors.
 * @param indegree, outdegree  receive the degrees (either may be NULL).
 * @param weighted           if not NULL, receives 1 when the topology carries weights.
 */
int NHOOD_Topo_degrees(NHOOD_Topo topo, int include_proc_null, int *indegree, int *outdegree, int *weighted);

/**
 * Neighbor lists of a topology, as MPI_Dist_graph_neighbors.
 *
 * @param include_proc_null  as for NHOOD_Topo_degrees; without it the lists are compacted.
 * @param maxindegree, maxoutdegree  capacity of the arrays; fewer entries than the degree
 *                           is MPI_ERR_ARG.
 * @param sources, destinations  receive the ranks.
 * @param sourceweights, destweights  receive weights, or may be NULL or MPI_UNWEIGHTED to
 *                           skip; weights of an unweighted topology are reported as 1.
 */
int NHOOD_Topo_neighbors(NHOOD_Topo topo, int include_proc_null, int maxindegree, int sources[], int *sourceweights,
                         int maxoutdegree, int destinations[], int *destweights);

/**
 * Checks, collectively over comm, that the topology objects of all processes agree: if p
 * lists q as a destination k times, q lists p as a source k times. Returns MPI_SUCCESS on
 * every process, or MPI_ERR_TOPOLOGY on every process with a message naming the
 * disagreeing ranks. With the environment variable NHOOD_CHECK=1 every collective runs this
 * check first (a debugging mode: it costs an all-to-all of P integers per call).
 */
int NHOOD_Topo_check(NHOOD_Topo topo, MPI_Comm comm);

/** Frees a topology object and sets *topo to NHOOD_TOPO_NULL. Requests created from it stay
 *  valid: they hold what they need. */
int NHOOD_Topo_free(NHOOD_Topo *topo);

/* ------------------------------------------------------------------------------------- */
/* Cartesian helpers (isomorphic neighborhoods)                                           */
/* ------------------------------------------------------------------------------------- */

/**
 * Offsets of the Moore neighborhood of Chebyshev radius r in ndims dimensions:
 * all vectors with max_d |c_d| <= r except 0, (2r+1)^ndims - 1 of them, in lexicographic
 * order (first dimension slowest).
 *
 * @param maxoffsets  capacity of offsets, in offsets (each ndims integers); with offsets
 *                    NULL only the count is returned.
 * @param noffsets    receives the number of offsets.
 * @return MPI_ERR_ARG for ndims < 1, r < 0, too small capacity, or a count above INT_MAX.
 */
int NHOOD_Cart_moore_offsets(int ndims, int radius, int maxoffsets, int *noffsets, int offsets[]);

/** Offsets of the von Neumann neighborhood of Manhattan radius r (sum_d |c_d| <= r, except
 *  0), lexicographic order; arguments as NHOOD_Cart_moore_offsets. */
int NHOOD_Cart_von_neumann_offsets(int ndims, int radius, int maxoffsets, int *noffsets, int offsets[]);

/**
 * Rank of the process at X + offset on a Cartesian communicator (X: the caller), or
 * MPI_PROC_NULL when that leaves a non-periodic dimension. Local.
 */
int NHOOD_Cart_relative_rank(MPI_Comm comm, const int offset[], int *rank);

/**
 * Relative coordinates of rank as seen from the caller: coords(rank) - coords(X); on a
 * periodic dimension of size n reduced to the range (-n/2 .. n/2], with ties to positive.
 * NHOOD_Cart_relative_rank(comm, offset) gives back rank. Local.
 */
int NHOOD_Cart_relative_coords(MPI_Comm comm, int rank, int offset[]);

/**
 * Generalized MPI_Cart_shift: *dest = rank at X + offset, *source = rank at X - offset
 * (MPI_PROC_NULL outside non-periodic dimensions). Local.
 */
int NHOOD_Cart_relative_shift(MPI_Comm comm, const int offset[], int *source, int *dest);

/* ------------------------------------------------------------------------------------- */
/* Collectives                                                                            */
/* ------------------------------------------------------------------------------------- */
/*
 * Arguments are those of the MPI_Neighbor_* counterpart, followed by the communicator and the
 * topology object (and, non-blocking, the request; persistent, an info and the request).
 * Buffer layout follows the topology's degrees with MPI_PROC_NULL neighbors included.
 * MPI_IN_PLACE is not allowed (MPI_ERR_BUFFER), as for MPI's neighborhood collectives.
 * A NULL buffer with a non-zero amount of data is MPI_ERR_BUFFER unless the datatype
 * addresses absolute memory (MPI_BOTTOM use: the type's true lower bound is non-zero).
 *
 * Non-blocking calls return a request that completes with NHOOD_Wait/NHOOD_Test and is then
 * freed (set to NHOOD_REQUEST_NULL). The buffers must not be touched until completion.
 * Persistent (_init) calls are collective like MPI-4's: call them in the same order on all
 * processes; the returned request is inactive until NHOOD_Start, becomes inactive again on
 * completion, and is released by NHOOD_Request_free. Derived datatypes given to _init may be
 * freed by the caller right after the call.
 *
 * Errors (besides those of MPI calls made on the caller's behalf):
 *   MPI_ERR_TOPOLOGY  topo is NHOOD_TOPO_NULL or not a live topology object; with
 *                     NHOOD_CHECK=1, topology objects that disagree across processes
 *   MPI_ERR_COMM      comm is MPI_COMM_NULL or an intercommunicator
 *   MPI_ERR_RANK      topo lists a rank >= the size of comm
 *   MPI_ERR_BUFFER    MPI_IN_PLACE, or a NULL buffer that data would be read from/written to
 *   MPI_ERR_COUNT     a negative count
 *   MPI_ERR_TYPE      MPI_DATATYPE_NULL
 *   MPI_ERR_ARG       a NULL count/displacement/datatype array or request pointer
 *   MPI_ERR_INFO      an unknown NHOOD_INFO_ALGORITHM value
 *   MPI_ERR_TRUNCATE  more data arrives for a receive block than it holds (a sender's
 *                     count and datatype do not match the receiver's); returned where the
 *                     data arrives, by the call that completes the operation, after the
 *                     operation ran to its end (so that no other process hangs). Under the
 *                     algorithm "mpi" the MPI library's own collective decides what is
 *                     returned (Open MPI 4.1: MPI_ERR_OTHER; nothing for a self loop).
 * The message (NHOOD_Error_message) names the argument, e.g. "recvcounts[3] is negative",
 * or, for an error while data moves, the collective, the algorithm, the block and the
 * neighbor, e.g. "neighborhood allgather (direct): receive block 1 from rank 3: ...".
 *
 * An argument error is found by the process that made it, and only that process returns.
 * The others, which entered the collective, then wait for it and hang, as they would with
 * MPI's own collectives; a topology that one process got wrong (MPI_ERR_RANK, or lists that
 * disagree between processes) is the common case. Run with NHOOD_CHECK=1 (or call
 * NHOOD_Topo_check) while developing: every process then checks the topology together and
 * all of them return MPI_ERR_TOPOLOGY with the disagreeing ranks named. The algorithm
 * "combine" (and "auto" where it picks it) checks as much when it builds its pattern at the
 * first call on a topology object and communicator: lists that disagree give MPI_ERR_TOPOLOGY
 * on every process there, with the two ranks named where it was seen.
 */

int NHOOD_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                  NHOOD_Request *request);

int NHOOD_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              NHOOD_Topo topo);
int NHOOD_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                               NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);

int NHOOD_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                 NHOOD_Request *request);

int NHOOD_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                                  NHOOD_Request *request);

/* alltoallw: displacements are in bytes, one datatype per block (MPI_Aint, as MPI's). */
int NHOOD_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, NHOOD_Topo topo,
                              NHOOD_Request *request);
int NHOOD_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);

/**
 * Large-count forms (MPI-4's MPI_Neighbor_*_c): MPI_Count counts, MPI_Aint displacements, the
 * same semantics and errors. Available on every MPI (MPI_Count is MPI-3). A call whose counts
 * and displacements all fit in an int runs exactly as the int form, under every algorithm. One
 * with a displacement beyond INT_MAX runs as the equivalent alltoallw (byte displacements), and
 * one with a block of more than INT_MAX elements moves that block as one element of a derived
 * datatype under the algorithm "direct" (at over 2^31 elements a block is bandwidth-bound:
 * combining messages cannot help).
 */
int NHOOD_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                                NHOOD_Request *request);
int NHOOD_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                                    MPI_Info info, NHOOD_Request *request);
int NHOOD_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);
int NHOOD_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                               NHOOD_Request *request);
int NHOOD_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                                   MPI_Info info, NHOOD_Request *request);
int NHOOD_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                                NHOOD_Request *request);
int NHOOD_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, NHOOD_Topo topo,
                                    MPI_Info info, NHOOD_Request *request);
int NHOOD_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               NHOOD_Topo topo);
int NHOOD_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                    NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);

/**
 * A triangular (or trapezoidal) layout, for the corners of deep halos: count blocks of
 * oldtype; block i holds first_blocklength + i * block_increment elements and starts
 * stride + (i - 1) * stride_increment elements after block i - 1 (block 0 at 0). Distances
 * are in extents of oldtype. Example, the corner of depth k of a row-major n x n array whose
 * rows grow by one element to the left: NHOOD_Type_create_triangular(k, 1, 1, n - 1, 0, ...).
 * Like the MPI type constructors, the new type is not committed.
 *
 * Errors: MPI_ERR_COUNT (count < 0), MPI_ERR_ARG (a negative first_blocklength, a
 * block_increment that makes a block length negative or overflow, newtype NULL),
 * MPI_ERR_TYPE (oldtype MPI_DATATYPE_NULL).
 */
int NHOOD_Type_create_triangular(int count, int first_blocklength, int block_increment, int stride,
                                 int stride_increment, MPI_Datatype oldtype, MPI_Datatype *newtype);

/* ------------------------------------------------------------------------------------- */
/* Neighborhood reductions                                                                */
/* ------------------------------------------------------------------------------------- */

/**
 * Reduce: every process sends its vector (count elements of datatype at sendbuf) to each of
 * its destinations, and reduces the vectors it receives, one per source, with op into recvbuf
 * (count elements). Scatter-reduce: sendbuf holds one vector per destination (vector j at
 * j * count * extent), and destination j receives vector j; the reduction is the same.
 *
 * op must be commutative, predefined or user-defined (MPI_Op_create with commute = 1); the
 * order in which vectors are combined is not specified, as for MPI_Reduce with such ops.
 * Vectors from MPI_PROC_NULL sources (the edges of non-periodic grids) take no part; a process
 * with no existing source leaves recvbuf unchanged. A source listed twice contributes twice.
 * They run under every algorithm (NHOOD_INFO_ALGORITHM): the algorithm's allgather or alltoall
 * exchange delivers the vectors, in as few messages as it makes, then each process reduces.
 * A persistent request keeps using op: do not free it before the request.
 *
 * Errors as for the collectives above, and MPI_ERR_OP when op is MPI_OP_NULL or not
 * commutative.
 */
int NHOOD_Neighbor_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);

int NHOOD_Neighbor_scatter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, NHOOD_Topo topo);
int NHOOD_Ineighbor_scatter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, NHOOD_Topo topo, NHOOD_Request *request);
int NHOOD_Neighbor_scatter_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, NHOOD_Request *request);

/* ------------------------------------------------------------------------------------- */
/* Requests                                                                               */
/* ------------------------------------------------------------------------------------- */

/** Starts an inactive persistent request. Starting an active one is MPI_ERR_REQUEST. */
int NHOOD_Start(NHOOD_Request *request);
int NHOOD_Startall(int count, NHOOD_Request requests[]);

/**
 * Waits for a request. A non-blocking request is freed and set to NHOOD_REQUEST_NULL; a
 * persistent one becomes inactive. NHOOD_REQUEST_NULL and inactive requests return at once.
 */
int NHOOD_Wait(NHOOD_Request *request);
int NHOOD_Waitall(int count, NHOOD_Request requests[]);

/** Advances a request; *flag is 1 when it completed (then as NHOOD_Wait), else 0. */
int NHOOD_Test(NHOOD_Request *request, int *flag);
int NHOOD_Testall(int count, NHOOD_Request requests[], int *flag);

/** Frees an inactive persistent request, or a completed one; freeing an active request is
 *  MPI_ERR_REQUEST (wait for it first). Sets *request to NHOOD_REQUEST_NULL. */
int NHOOD_Request_free(NHOOD_Request *request);

/**
 * Asynchronous progress. By default a non-blocking or persistent collective moves on only
 * inside nhood's calls (NHOOD_Test, NHOOD_Wait, any nhood collective), so a schedule of several
 * rounds overlaps little with computation unless the program tests it. With the environment
 * variable NHOOD_PROGRESS=thread, and MPI initialized at MPI_THREAD_MULTIPLE, a thread of
 * nhood's advances every request in flight: it passes over them again and again, yielding the
 * CPU between passes, while any is in flight and for 2 ms after, and sleeps otherwise. It wants
 * a core of its own (run fewer ranks than cores, without binding each rank to one core); where
 * every core computes it hides nothing (docs/PERFORMANCE.md, "Overlap").
 * NHOOD_PROGRESS_INTERVAL=us makes it sleep that long between passes instead (a request is
 * left alone for its first interval). Below MPI_THREAD_MULTIPLE nhood says so on stderr once
 * and runs without it. *mode receives "thread" or "off" (static strings); the choice is made at
 * the first call of this function or of a non-blocking or persistent collective, and holds for
 * the process.
 */
int NHOOD_Progress_mode(const char **mode);

/**
 * The algorithms nhood has (its registry), for tools and tests that enumerate them: k from 0
 * to count - 1, in a fixed order. The strings are static.
 */
int NHOOD_Algorithm_count(int *count);
int NHOOD_Algorithm_get(int k, const char **name, const char **description);

/**
 * Whether `algorithm` runs its own schedule for `collective` ("allgather", "allgatherv",
 * "alltoall", "alltoallv", "alltoallw", "reduce", "scatter_reduce") on topo and comm. Where
 * it does not, an explicit request for it runs another one, the first of its fallbacks that
 * applies (*runs names it; *runs = algorithm where it applies): cart-2hop -> cart-dim-batch,
 * cart-bruck -> cart-dim, cart-dim(-batch) -> cart-direct, the others -> direct. The
 * environment variable NHOOD_FALLBACK=error makes such a call fail instead (MPI_ERR_ARG, the
 * reason named), NHOOD_FALLBACK=print reports it on stderr.
 *
 * Collective over comm, like the first call of that algorithm: it may build the combining
 * pattern or agree on MPI's own collective. info: as for a persistent init
 * (NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES), or MPI_INFO_NULL.
 * @return MPI_ERR_INFO (unknown algorithm), MPI_ERR_ARG (unknown collective, NULL output),
 *         MPI_ERR_TOPOLOGY, MPI_ERR_COMM.
 */
int NHOOD_Topo_algorithm_applies(NHOOD_Topo topo, MPI_Comm comm, const char *algorithm, const char *collective,
                                 MPI_Info info, int *applies, const char **runs);

/**
 * The algorithm that the calling thread's last blocking collective ran (*algorithm = NULL
 * before the first), for tools that report what nhood did (the interposition library's
 * NHOOD_STATS). A static string.
 */
int NHOOD_Last_algorithm(const char **algorithm);

/**
 * What a request's schedule does per start, for benchmarks and the curious.
 *
 * @param algorithm  if not NULL, receives the algorithm's name (static string).
 * @param rounds     communication rounds.
 * @param sends, recvs  point-to-point messages this process sends / receives per start.
 * @param scratch_bytes  scratch memory held by the schedule.
 * Any output may be NULL. A combined allgatherv, alltoallv or alltoallw first runs a size pass
 * (forwarding processes learn the sizes of the blocks they forward), then the data schedule,
 * which is built when the pass completes: until then this reports the size pass, named
 * "combine (size pass)". A persistent request runs the pass at its first start only.
 */
int NHOOD_Request_schedule_info(NHOOD_Request request, const char **algorithm, int *rounds, int *sends, int *recvs,
                                MPI_Aint *scratch_bytes);

/**
 * How the algorithm was chosen, one line into text (at most len bytes with the final NUL):
 * for a request, or with NHOOD_REQUEST_NULL for the calling thread's last blocking call.
 *
 *   "asked for: NAME"      an explicit algorithm (info key, NHOOD_TUNE rule)
 *   "cost model: NAME"     "auto" by the cost model alone (non-blocking calls; NHOOD_TRIAL=off;
 *                          a short list of one)
 *   "measuring (K of N calls): A, B, C"   "auto" is timing its candidates in turn
 *   "measured: A 306.1 us, B 285.0 us (median of 3 calls each, slowest process); kept B"
 *
 * Measured selection: a persistent request, and a blocking call repeated with blocks of the
 * same size class on one topology and communicator, run the cost model's two or three best
 * candidates in turn for their first calls (at most 3 x 6 by default: a warm-up round and
 * NHOOD_TRIAL timed rounds, default 5, 1-20, "off" for none), agree on the fastest in one reduction and
 * keep it. Every call delivers the collective's result. docs/ARCHITECTURE.md has the details.
 * @return MPI_ERR_ARG (text NULL, len < 1), MPI_ERR_REQUEST (not a live request).
 */
int NHOOD_Selection_info(NHOOD_Request request, char *text, int len);

#ifdef __cplusplus
}
#endif

#endif /* NHOOD_H */
