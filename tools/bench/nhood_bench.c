/*
 * nhood-bench: latency of neighborhood collectives, the MPI library's own (algorithm "mpi")
 * against nhood's algorithms, on topologies given as SPECs (see tools/common/topospec.h).
 *
 *   mpiexec -n P nhood-bench --topo SPEC [--topo SPEC ...]
 *       --coll allgather|allgatherv|alltoall|alltoallv|alltoallw[,...] --sizes 4,64,1024
 *       --algo mpi,direct[,...] [--mode blocking|nonblocking|persistent[,...]]
 *       [--iters N] [--warmup W] [--theta N] [--json FILE]
 *
 * Later tools script against the options and the JSON rows: keep both stable. The options
 * are parsed in bench_options.c, the rows written in bench_report.c.
 *
 * Every result is checked before it is timed. The reference receive buffer is what MPI-4.1
 * prescribes, computed locally from the rule that generates the send data; every algorithm,
 * the MPI library's own included, must reproduce it byte for byte. (An independent reference
 * rather than the MPI library's output: MPICH 4.0 pairs the duplicate edges of
 * MPI_Neighbor_alltoall in the wrong order and loses data in MPI_Neighbor_alltoallw, and
 * nhood must not be judged against that.)
 *
 * The machines this runs on are often shared and oversubscribed, so timings interleave the
 * algorithms in batches (each batch runs every algorithm in turn) instead of timing one
 * algorithm after the other, and each call is timed on its own to report the median.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "bench.h"
#include "blockdata.h"
#include "cli.h"
#include "topospec.h"

#include <nhood.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init in Open MPI 4.x */
#endif

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Persistent neighborhood collectives of the MPI library: MPI-4, or Open MPI's extension;
 * without either, "mpi" runs non-blocking in persistent mode and the rows say so. */
#if MPI_VERSION >= 4
#define PERSISTENT_NEIGHBOR_INIT(coll) MPI_Neighbor_##coll##_init
#define PERSISTENT_NEIGHBOR_INIT_P(coll) PMPI_Neighbor_##coll##_init
#define PERSISTENT_KIND "native"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT_NEIGHBOR_INIT(coll) MPIX_Neighbor_##coll##_init
#define PERSISTENT_NEIGHBOR_INIT_P(coll) PMPIX_Neighbor_##coll##_init
#define PERSISTENT_KIND "mpix"
#else
#define PERSISTENT_KIND "emulated"
#endif

/* MPI_UNWEIGHTED. Open MPI defines it as the constant (int *)2, and GCC 12 then warns that
 * MPI_Dist_graph_create_adjacent reads weights from it (-Wstringop-overread); read through a
 * volatile object, the constant is hidden from the optimizer. */
static int *unweighted(void) {
  int *volatile weights = MPI_UNWEIGHTED;
  return weights;
}

#define CREATE_REPS_MPI 30
#define CREATE_REPS_NHOOD 1000
#define SENTINEL 0xA5
#define EXIT_USAGE 2
/* The algo column's least width; longer names widen it (bench.algo_width). */
#define ALGO_WIDTH 12
/* The create row of stencils' NHOOD_Topo_create_cart_offsets. */
#define CART_OFFSETS_ROW "nhood-cart-offsets"

/* The allocators of bench.h: out of memory aborts every rank. */
void *xrealloc(void *p, size_t size) {
  p = realloc(p, size > 0 ? size : 1);
  if (p == NULL) {
    fprintf(stderr, "nhood-bench: out of memory (%zu bytes)\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

void *xmalloc(size_t size) { return xrealloc(NULL, size); }

void *xcalloc(size_t count, size_t size) {
  void *p = xmalloc(count * size);
  memset(p, 0, count * size);
  return p;
}

/* ------------------------------------------------------------------------------------- */
/* Deterministic data                                                                     */
/* ------------------------------------------------------------------------------------- */

/* Which of the duplicate edges to the same rank this list entry is: MPI-4.1 pairs the k-th
 * occurrence of q among my destinations with the k-th occurrence of me among q's sources,
 * so (sender, receiver, occurrence) names one block on both ends. */
static int occurrence(const int *list, int index) {
  int count = 0;
  for (int i = 0; i < index; i++) count += list[i] == list[index];
  return count;
}

/* ------------------------------------------------------------------------------------- */
/* Neighborhoods                                                                          */
/* ------------------------------------------------------------------------------------- */

/* A neighborhood: the lists of this rank and the MPI communicator that carries them. */
typedef struct neighborhood {
  const char *spec_text;
  topospec_rank lists;
  MPI_Comm graph_comm;
  int real_destinations; /* destinations other than MPI_PROC_NULL */
  /* Over all ranks: some list holds MPI_PROC_NULL; some rank's indegree != outdegree. */
  int any_proc_null, any_unequal_degrees;
} neighborhood;

/* The MPI library's distributed-graph communicator of the lists, on MPI_COMM_WORLD's ranks. */
static void graph_comm_create(const topospec_rank *lists, MPI_Comm *comm) {
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, lists->indegree, lists->sources, unweighted(), lists->outdegree,
                                 lists->destinations, unweighted(), MPI_INFO_NULL, 0, comm);
}

/* A stencil's Cartesian communicator without reordering: its ranks are MPI_COMM_WORLD's, where
 * the calls run. */
static int stencil_cart_create(const topospec_rank *lists, MPI_Comm *cart) {
  return MPI_Cart_create(MPI_COMM_WORLD, lists->ndims, lists->dims, lists->periods, 0, cart);
}

/* nhood's topology object of the lists: NHOOD_Topo_create_cart_offsets of a stencil's offsets
 * on *cart, or without a cart (NULL) NHOOD_Topo_create_adjacent. */
static int nhood_topo_create(const topospec_rank *lists, const MPI_Comm *cart, MPI_Info info, NHOOD_Topo *topo) {
  if (cart != NULL) return NHOOD_Topo_create_cart_offsets(*cart, lists->noffsets, lists->offsets, info, topo);
  return NHOOD_Topo_create_adjacent(lists->indegree, lists->sources, unweighted(), lists->outdegree,
                                    lists->destinations, unweighted(), info, topo);
}

/* ------------------------------------------------------------------------------------- */
/* One collective call's buffers                                                          */
/* ------------------------------------------------------------------------------------- */

typedef struct exchange {
  coll_kind coll;
  int bytes;
  int sendcount; /* allgather(v): the one block; alltoall: each block */
  /* Per block, for every collective (the fixed-size ones use them to lay out the data). */
  int *sendcounts, *sdispls, *recvcounts, *rdispls;
  MPI_Aint *sdispls_bytes, *rdispls_bytes; /* alltoallw */
  MPI_Datatype *types;                     /* alltoallw: MPI_BYTE for every block */
  unsigned char *sendbuf;
  unsigned char *recvbuf;  /* where the algorithms under test receive */
  unsigned char *expected; /* what MPI-4.1 says recvbuf holds afterwards */
  size_t sendlen, recvlen;
} exchange;

static void exchange_free(exchange *x) {
  free(x->sendcounts);
  free(x->sdispls);
  free(x->recvcounts);
  free(x->rdispls);
  free(x->sdispls_bytes);
  free(x->rdispls_bytes);
  free(x->types);
  free(x->sendbuf);
  free(x->recvbuf);
  free(x->expected);
  memset(x, 0, sizeof *x);
}

/* Lays out blocks of the given counts one after the other; 1 if that exceeds an int. */
static int pack_displacements(int n, const int *counts, int *displs, MPI_Aint *displs_bytes, size_t *total) {
  long long offset = 0;
  for (int i = 0; i < n; i++) {
    if (offset > INT_MAX) return 1;
    displs[i] = (int)offset;
    displs_bytes[i] = (MPI_Aint)offset;
    offset += counts[i];
  }
  *total = (size_t)offset;
  return offset > INT_MAX;
}

/* The key of receive block i: who sent it, and which of its blocks it is. */
static uint64_t recv_block_key(const exchange *x, const topospec_rank *lists, int rank, int i) {
  int source = lists->sources[i];
  if (x->coll == COLL_ALLGATHER || x->coll == COLL_ALLGATHERV) return blockdata_rank_key(source);
  return blockdata_edge_key(source, rank, occurrence(lists->sources, i));
}

/* What MPI-4.1 says the receive buffer holds: each real source's block, and the sentinel
 * (untouched) in the blocks of MPI_PROC_NULL sources. */
static void expected_receive(exchange *x, const topospec_rank *lists, int rank) {
  memset(x->expected, SENTINEL, x->recvlen);
  for (int i = 0; i < lists->indegree; i++)
    if (lists->sources[i] != MPI_PROC_NULL)
      blockdata_fill(x->expected + x->rdispls[i], x->recvcounts[i], recv_block_key(x, lists, rank, i));
}

/* Buffers, counts, send data and expected receive data of one collective at one size.
 * Returns 0, or 1 when a buffer would exceed what an int displacement addresses. */
static int exchange_init(exchange *x, coll_kind coll, int bytes, const neighborhood *nb, int rank) {
  const topospec_rank *lists = &nb->lists;
  int in = lists->indegree, out = lists->outdegree;
  int maxdeg = in > out ? in : out;
  memset(x, 0, sizeof *x);
  x->coll = coll;
  x->bytes = bytes;
  x->sendcounts = xmalloc((size_t)out * sizeof(int));
  x->sdispls = xmalloc((size_t)out * sizeof(int));
  x->recvcounts = xmalloc((size_t)in * sizeof(int));
  x->rdispls = xmalloc((size_t)in * sizeof(int));
  x->sdispls_bytes = xmalloc((size_t)out * sizeof(MPI_Aint));
  x->rdispls_bytes = xmalloc((size_t)in * sizeof(MPI_Aint));
  x->types = xmalloc((size_t)maxdeg * sizeof(MPI_Datatype));
  for (int k = 0; k < maxdeg; k++) x->types[k] = MPI_BYTE;

  for (int i = 0; i < in; i++) {
    int source = lists->sources[i];
    switch (coll) {
      case COLL_ALLGATHERV:
        x->recvcounts[i] = blockdata_rank_bytes(source, bytes);
        break;
      case COLL_ALLTOALLV:
      case COLL_ALLTOALLW:
        x->recvcounts[i] = blockdata_edge_bytes(source, rank, bytes);
        break;
      default:
        x->recvcounts[i] = bytes;
    }
  }
  for (int j = 0; j < out; j++) {
    int dest = lists->destinations[j];
    x->sendcounts[j] =
        coll == COLL_ALLTOALLV || coll == COLL_ALLTOALLW ? blockdata_edge_bytes(rank, dest, bytes) : bytes;
  }
  x->sendcount = coll == COLL_ALLGATHERV ? blockdata_rank_bytes(rank, bytes) : bytes;
  if (pack_displacements(in, x->recvcounts, x->rdispls, x->rdispls_bytes, &x->recvlen) != 0 ||
      pack_displacements(out, x->sendcounts, x->sdispls, x->sdispls_bytes, &x->sendlen) != 0)
    return 1;
  if (coll == COLL_ALLGATHER || coll == COLL_ALLGATHERV) x->sendlen = (size_t)x->sendcount;

  x->sendbuf = xmalloc(x->sendlen);
  x->recvbuf = xmalloc(x->recvlen);
  x->expected = xmalloc(x->recvlen);
  expected_receive(x, lists, rank);
  if (coll == COLL_ALLGATHER || coll == COLL_ALLGATHERV) {
    blockdata_fill(x->sendbuf, x->sendcount, blockdata_rank_key(rank));
  } else {
    for (int j = 0; j < out; j++)
      blockdata_fill(x->sendbuf + x->sdispls[j], x->sendcounts[j],
                     blockdata_edge_key(rank, lists->destinations[j], occurrence(lists->destinations, j)));
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Algorithms                                                                             */
/* ------------------------------------------------------------------------------------- */

/* One --algo entry on one topology. */
typedef struct algorithm {
  const char *name;
  int is_mpi;      /* MPI's own collective: "mpi", or "pmpi" (by the profiling names) */
  int profiling;   /* "pmpi" */
  MPI_Info info;   /* nhood: NHOOD_INFO_ALGORITHM = name */
  NHOOD_Topo topo; /* nhood: this algorithm's topology object */
  int failed;      /* creation failed on some rank: every case of it is an error row */
  char error[ERROR_LEN];
} algorithm;

/* One algorithm in one case (topology, collective, mode, size). */
typedef struct runner {
  algorithm *algo;
  mode_kind mode; /* as run: "mpi" may fall back from persistent to non-blocking */
  MPI_Request mpi_request;
  NHOOD_Request nhood_request;
  int ok;
  char error[ERROR_LEN];
  const char *resolved; /* the algorithm that ran (auto resolves to one; after its trial) */
  char selection[256];  /* how it was chosen (NHOOD_Selection_info), after the timed calls */
  int rounds, sends;
  int validated;
  double *samples;
  int nsamples;
  /* overlap mode: the call alone (median over calls of the slowest rank, us), the
   * computation alone per call (seconds) */
  double pure_us;
  double *compute_samples;
} runner;

/* ------------------------------------------------------------------------------------- */
/* The calls                                                                              */
/* ------------------------------------------------------------------------------------- */

/* The forms of one neighborhood collective, for coll_call: the blocking call, the start of the
 * non-blocking one, or the persistent init; the MPI library's or nhood's. The arguments given
 * are the ones all six forms share; each form appends its own from coll_call's variables. */
#ifdef PERSISTENT_NEIGHBOR_INIT
#define CALL_MPI_INIT(coll, ...) PERSISTENT_NEIGHBOR_INIT(coll)(__VA_ARGS__)
#define CALL_PMPI_INIT(coll, ...) PERSISTENT_NEIGHBOR_INIT_P(coll)(__VA_ARGS__)
#else /* never called: "mpi" runs non-blocking in persistent mode (mpi_effective_mode) */
#define CALL_MPI_INIT(coll, ...) MPI_ERR_UNSUPPORTED_OPERATION
#define CALL_PMPI_INIT(coll, ...) MPI_ERR_UNSUPPORTED_OPERATION
#endif
/* "pmpi" calls the same by the profiling names, which an interposition library (nhood-run)
 * does not intercept: MPI's own collective, next to what the program's calls become. */
#define CALL_MPI_NAMED(P, coll, ...)                                                    \
  (mode == MODE_BLOCKING      ? P##MPI_Neighbor_##coll(__VA_ARGS__, comm)               \
   : mode == MODE_NONBLOCKING ? P##MPI_Ineighbor_##coll(__VA_ARGS__, comm, mpi_request) \
                              : CALL_##P##MPI_INIT(coll, __VA_ARGS__, comm, MPI_INFO_NULL, mpi_request))
#define CALL_MPI(coll, ...) \
  (algo->profiling ? CALL_MPI_NAMED(P, coll, __VA_ARGS__) : CALL_MPI_NAMED(, coll, __VA_ARGS__))
#define CALL_NHOOD(coll, ...)                                                   \
  (mode == MODE_BLOCKING ? NHOOD_Neighbor_##coll(__VA_ARGS__, comm, algo->topo) \
   : mode == MODE_NONBLOCKING                                                   \
       ? NHOOD_Ineighbor_##coll(__VA_ARGS__, comm, algo->topo, nhood_request)   \
       : NHOOD_Neighbor_##coll##_init(__VA_ARGS__, comm, algo->topo, algo->info, nhood_request))
#define CALL(coll, ...) (algo->is_mpi ? CALL_MPI(coll, __VA_ARGS__) : CALL_NHOOD(coll, __VA_ARGS__))

/* The exchange's collective as `algo` makes it in `mode`: blocking, or the start of a
 * non-blocking call, or a persistent init, into *mpi_request ("mpi") or *nhood_request. "mpi"
 * calls the MPI library on the graph communicator; nhood's algorithms run on MPI_COMM_WORLD
 * with their topology object (and, at init, their info). */
static int coll_call(const neighborhood *nb, const exchange *x, const algorithm *algo, mode_kind mode,
                     MPI_Request *mpi_request, NHOOD_Request *nhood_request) {
  MPI_Comm comm = algo->is_mpi ? nb->graph_comm : MPI_COMM_WORLD;
  switch (x->coll) {
    case COLL_ALLGATHER:
      return CALL(allgather, x->sendbuf, x->sendcount, MPI_BYTE, x->recvbuf, x->bytes, MPI_BYTE);
    case COLL_ALLGATHERV:
      return CALL(allgatherv, x->sendbuf, x->sendcount, MPI_BYTE, x->recvbuf, x->recvcounts, x->rdispls, MPI_BYTE);
    case COLL_ALLTOALL:
      return CALL(alltoall, x->sendbuf, x->bytes, MPI_BYTE, x->recvbuf, x->bytes, MPI_BYTE);
    case COLL_ALLTOALLV:
      return CALL(alltoallv, x->sendbuf, x->sendcounts, x->sdispls, MPI_BYTE, x->recvbuf, x->recvcounts, x->rdispls,
                  MPI_BYTE);
    default:
      return CALL(alltoallw, x->sendbuf, x->sendcounts, x->sdispls_bytes, x->types, x->recvbuf, x->recvcounts,
                  x->rdispls_bytes, x->types);
  }
}

#undef CALL
#undef CALL_NHOOD
#undef CALL_MPI
#undef CALL_MPI_NAMED
#undef CALL_MPI_INIT
#undef CALL_PMPI_INIT

/* The mode "mpi" really runs in: persistent falls back to non-blocking without support. */
static mode_kind mpi_effective_mode(mode_kind mode) {
#ifdef PERSISTENT_NEIGHBOR_INIT
  return mode;
#else
  return mode == MODE_PERSISTENT ? MODE_NONBLOCKING : mode;
#endif
}

/*
 * Why the MPI library's own call must not run in a case, or NULL: known bugs of the
 * installed MPIs that corrupt data, hang or crash, rather than only costing time.
 * - MPICH before 4.1 mixes up indegree and outdegree in MPI_Neighbor_alltoallw and its
 *   non-blocking and persistent forms (pmodels/mpich#6233, fixed by #6250): data goes
 *   missing, or the call hangs, once a rank has indegree != outdegree.
 * - Open MPI 4's blocking MPI_Neighbor_* (coll/basic) hand the MPI_PROC_NULL neighbors of a
 *   distributed graph to the point-to-point layer and crash; its non-blocking and
 *   persistent forms (libnbc) are fine.
 */
static const char *mpi_skip_reason(const neighborhood *nb, coll_kind coll, mode_kind mode) {
  (void)nb;
  (void)coll;
  (void)mode;
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  if (coll == COLL_ALLTOALLW && nb->any_unequal_degrees)
    return "skipped: MPICH before 4.1 mixes up indegree and outdegree in "
           "MPI_Neighbor_alltoallw (pmodels/mpich#6233)";
#endif
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
  if (mode == MODE_BLOCKING && nb->any_proc_null)
    return "skipped: Open MPI 4's blocking MPI_Neighbor_* crash on MPI_PROC_NULL neighbors "
           "of a distributed graph";
#endif
  return NULL;
}

/*
 * Agrees over all ranks whether a step failed on any of them. Returns 1 if so; rank 0's
 * message is then the one of the lowest failing rank, so a failure elsewhere is reported.
 */
static int agree_on_failure(const bench *b, int failed, char *message) {
  int mine = failed ? b->rank : b->size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == b->size) return 0;
  if (first != 0) {
    if (b->rank == first) MPI_Send(message, ERROR_LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    if (b->rank == 0) {
      char remote[ERROR_LEN];
      MPI_Recv(remote, ERROR_LEN, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      snprintf(message, ERROR_LEN, "rank %d: %.*s", first, NHOOD_MAX_ERROR_STRING, remote);
    }
  }
  return 1;
}

/* The message of a failed nhood call: the call, the error class, nhood's explanation. */
static void nhood_failure(char *message, const char *what, int rc) {
  char detail[NHOOD_MAX_ERROR_STRING] = "", class_name[MPI_MAX_ERROR_STRING] = "";
  int len;
  NHOOD_Error_message(detail, NULL);
  MPI_Error_string(rc, class_name, &len);
  snprintf(message, ERROR_LEN, "%s failed (%.*s): %s", what, (int)strcspn(class_name, ":"), class_name, detail);
}

/* agree_on_failure for an nhood call that returned rc, with nhood_failure's message. */
static int agree_on_nhood_failure(const bench *b, int rc, const char *what, char *message) {
  if (rc != MPI_SUCCESS) nhood_failure(message, what, rc);
  return agree_on_failure(b, rc != MPI_SUCCESS, message);
}

static void algorithms_create(const bench *b, const neighborhood *nb, algorithm *algos) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    algorithm *algo = &algos[a];
    algo->name = b->opt.algos[a];
    algo->profiling = strcmp(algo->name, "pmpi") == 0;
    algo->is_mpi = algo->profiling || strcmp(algo->name, "mpi") == 0;
    algo->info = MPI_INFO_NULL;
    algo->topo = NHOOD_TOPO_NULL;
    if (algo->is_mpi) continue;
    MPI_Info_create(&algo->info);
    MPI_Info_set(algo->info, NHOOD_INFO_ALGORITHM, algo->name);
    /* Stencils as relative offsets on a Cartesian communicator, which the isomorphic
     * algorithms need; the other algorithms read the same lists. */
    int rc;
    if (nb->lists.is_cart) {
      MPI_Comm cart;
      rc = stencil_cart_create(&nb->lists, &cart);
      if (rc == MPI_SUCCESS) {
        rc = nhood_topo_create(&nb->lists, &cart, algo->info, &algo->topo);
        MPI_Comm_free(&cart);
      }
    } else {
      rc = nhood_topo_create(&nb->lists, NULL, algo->info, &algo->topo);
    }
    algo->failed = agree_on_nhood_failure(b, rc, "creating the topology object", algo->error);
  }
}

static void algorithms_free(const bench *b, algorithm *algos) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    if (algos[a].topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&algos[a].topo);
    if (algos[a].info != MPI_INFO_NULL) MPI_Info_free(&algos[a].info);
  }
}

static int max_over_ranks(int value) {
  int result;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

/* ------------------------------------------------------------------------------------- */
/* Topology creation                                                                      */
/* ------------------------------------------------------------------------------------- */

/* Times NHOOD_Topo_create_adjacent (cart == NULL) or NHOOD_Topo_create_cart_offsets on *cart,
 * each with NHOOD_Topo_free, repetition by repetition, and emits the row as `algo`. */
static void time_nhood_creation(const bench *b, const neighborhood *nb, const MPI_Comm *cart, const char *algo,
                                double *samples, result_row *row) {
  const topospec_rank *lists = &nb->lists;
  char error[ERROR_LEN] = "";
  int rc = MPI_SUCCESS;
  row->algo = row->algo_resolved = algo;
  row->validated = row->timed = 1;
  row->error = NULL;
  for (int k = 0; k < CREATE_REPS_NHOOD && rc == MPI_SUCCESS; k++) {
    NHOOD_Topo topo;
    double t0 = MPI_Wtime();
    rc = nhood_topo_create(lists, cart, MPI_INFO_NULL, &topo);
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_free(&topo);
    samples[k] = MPI_Wtime() - t0;
  }
  if (agree_on_nhood_failure(b, rc, cart ? "NHOOD_Topo_create_cart_offsets/free" : "NHOOD_Topo_create_adjacent/free",
                             error)) {
    row->validated = 0;
    row->error = error;
    row->timed = 0;
  } else {
    reduce_latency(samples, CREATE_REPS_NHOOD, row);
  }
  emit_row(b, row);
}

/* MPI_Dist_graph_create_adjacent + MPI_Comm_free against NHOOD_Topo_create_adjacent +
 * NHOOD_Topo_free (and for stencils NHOOD_Topo_create_cart_offsets), each repetition timed on
 * its own. */
static void bench_creation(const bench *b, const neighborhood *nb) {
  const topospec_rank *lists = &nb->lists;
  double *samples = xmalloc(CREATE_REPS_NHOOD * sizeof(double));

  result_row row = {.topo = nb->spec_text,
                    .coll = "create",
                    .mode = "-",
                    .algo = "mpi",
                    .algo_resolved = "mpi",
                    .iters = CREATE_REPS_MPI,
                    .msgs = -1,
                    .rounds = -1,
                    .validated = 1,
                    .us_per_nbr = -1,
                    .overlap_pct = -1};
  for (int k = 0; k < CREATE_REPS_MPI; k++) {
    MPI_Comm comm;
    /* The MPI creation is collective: a barrier keeps late ranks from inflating it. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    graph_comm_create(lists, &comm);
    MPI_Comm_free(&comm);
    samples[k] = MPI_Wtime() - t0;
  }
  reduce_latency(samples, CREATE_REPS_MPI, &row);
  double mpi_median = row.median;
  emit_row(b, &row);

  row.iters = CREATE_REPS_NHOOD;
  row.mpi_median = mpi_median;
  time_nhood_creation(b, nb, NULL, "nhood", samples, &row);
  /* Stencils: an isomorphic neighborhood from relative offsets on an existing Cartesian
   * communicator (what the isomorphic algorithms use), also local. */
  if (lists->is_cart) {
    MPI_Comm cart;
    stencil_cart_create(lists, &cart);
    time_nhood_creation(b, nb, &cart, CART_OFFSETS_ROW, samples, &row);
    MPI_Comm_free(&cart);
  }
  free(samples);
}

/* ------------------------------------------------------------------------------------- */
/* Schedule construction                                                                  */
/* ------------------------------------------------------------------------------------- */

/* Times init + free of one algorithm's persistent request, after an untimed one (one-time
 * setup such as the private communicator is not schedule building), and fills the row. */
static void time_schedule_build(const bench *b, const neighborhood *nb, const exchange *x, const algorithm *algo,
                                double *samples, result_row *row) {
  int reps = b->opt.iters;
  char error[ERROR_LEN] = "";
  NHOOD_Request request = NHOOD_REQUEST_NULL;
  int rc = coll_call(nb, x, algo, MODE_PERSISTENT, NULL, &request);
  if (agree_on_nhood_failure(b, rc, "persistent init", error)) goto failed;
  int sends = 0, rounds = 0;
  NHOOD_Request_schedule_info(request, &row->algo_resolved, &rounds, &sends, NULL, NULL);
  row->msgs = max_over_ranks(sends);
  row->rounds = max_over_ranks(rounds);
  NHOOD_Request_free(&request);

  /* init is collective: every rank runs it equally often, so the counts stay matched. */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < reps && rc == MPI_SUCCESS; k++) {
    double t0 = MPI_Wtime();
    rc = coll_call(nb, x, algo, MODE_PERSISTENT, NULL, &request);
    if (rc == MPI_SUCCESS) rc = NHOOD_Request_free(&request);
    samples[k] = MPI_Wtime() - t0;
  }
  if (agree_on_nhood_failure(b, rc, "persistent init/free", error)) goto failed;

  reduce_latency(samples, reps, row);
  /* Per neighbor on each rank (building a schedule is O(degree)), then the worst rank. */
  int neighbors = nb->lists.indegree + nb->lists.outdegree;
  double local = cli_median(samples, reps) * 1e6 / (neighbors > 0 ? neighbors : 1), global;
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  row->us_per_nbr = global;
  row->validated = 1;
  emit_row(b, row);
  return;
failed:
  row->error = error;
  emit_row(b, row);
}

/* One row per nhood algorithm: NHOOD_Neighbor_<coll>_init + NHOOD_Request_free at the
 * smallest size. */
static void bench_schedule_build(const bench *b, const neighborhood *nb, algorithm *algos, coll_kind coll) {
  int smallest = b->opt.sizes[0];
  for (int s = 1; s < b->opt.nsizes; s++) smallest = b->opt.sizes[s] < smallest ? b->opt.sizes[s] : smallest;
  exchange x;
  if (max_over_ranks(exchange_init(&x, coll, smallest, nb, b->rank)) != 0) {
    exchange_free(&x);
    return; /* bench_case reports the size as too large */
  }
  double *samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  for (int a = 0; a < b->opt.nalgos; a++) {
    const algorithm *algo = &algos[a];
    if (algo->is_mpi) continue;
    result_row row = {.topo = nb->spec_text,
                      .coll = "sched_build",
                      .mode = "persistent",
                      .bytes = smallest,
                      .algo = algo->name,
                      .iters = b->opt.iters,
                      .warmup = 1,
                      .msgs = -1,
                      .rounds = -1,
                      .us_per_nbr = -1,
                      .overlap_pct = -1};
    if (algo->failed) {
      row.error = algo->error;
      emit_row(b, &row);
    } else {
      time_schedule_build(b, nb, &x, algo, samples, &row);
    }
  }
  free(samples);
  exchange_free(&x);
}

/* ------------------------------------------------------------------------------------- */
/* One case: validation, then interleaved timing                                          */
/* ------------------------------------------------------------------------------------- */

/* Sets a runner up for its case: the persistent request, and what its schedule does. */
static int runner_setup(const neighborhood *nb, const exchange *x, runner *r) {
  if (r->algo->is_mpi) {
    r->resolved = r->algo->name;
    r->rounds = 1;
    r->sends = nb->real_destinations;
    /* r->mode is persistent only where the MPI library has persistent collectives. */
    return r->mode == MODE_PERSISTENT ? coll_call(nb, x, r->algo, MODE_PERSISTENT, &r->mpi_request, NULL) : MPI_SUCCESS;
  }
  /* A persistent request tells what the schedule does; other modes build one to ask. */
  int rc = coll_call(nb, x, r->algo, MODE_PERSISTENT, NULL, &r->nhood_request);
  if (rc != MPI_SUCCESS) {
    nhood_failure(r->error, "persistent init", rc);
    return rc;
  }
  NHOOD_Request_schedule_info(r->nhood_request, &r->resolved, &r->rounds, &r->sends, NULL, NULL);
  if (r->mode != MODE_PERSISTENT) NHOOD_Request_free(&r->nhood_request);
  return MPI_SUCCESS;
}

static void runner_teardown(runner *r) {
  if (r->mpi_request != MPI_REQUEST_NULL) MPI_Request_free(&r->mpi_request);
  if (r->nhood_request != NHOOD_REQUEST_NULL) NHOOD_Request_free(&r->nhood_request);
  free(r->samples);
  r->samples = NULL;
  free(r->compute_samples);
  r->compute_samples = NULL;
}

/* One call of the runner's algorithm in its mode, complete when it returns. */
static int runner_call(const neighborhood *nb, const exchange *x, runner *r) {
  static const char *const what[NMODES] = {"blocking call", "non-blocking call", "start/wait"};
  int is_mpi = r->algo->is_mpi, rc;
  if (r->mode != MODE_PERSISTENT)
    rc = coll_call(nb, x, r->algo, r->mode, &r->mpi_request, &r->nhood_request);
  else
    rc = is_mpi ? MPI_Start(&r->mpi_request) : NHOOD_Start(&r->nhood_request);
  if (rc == MPI_SUCCESS && r->mode != MODE_BLOCKING)
    rc = is_mpi ? MPI_Wait(&r->mpi_request, MPI_STATUS_IGNORE) : NHOOD_Wait(&r->nhood_request);
  /* nhood's failures are explained; the MPI library's abort under the default error handler. */
  if (rc != MPI_SUCCESS && !is_mpi) nhood_failure(r->error, what[r->mode], rc);
  return rc;
}

/* A call that failed after the same call validated: other ranks may be inside it, so there
 * is nothing to recover. */
static void call_or_abort(const bench *b, const neighborhood *nb, const exchange *x, runner *r) {
  if (runner_call(nb, x, r) == MPI_SUCCESS) return;
  fprintf(stderr, "nhood-bench: rank %d: %s: %s after a successful validation\n", b->rank, r->algo->name, r->error);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Sets up every runner and checks its first result against the expected one. */
static void validate_runners(const bench *b, const neighborhood *nb, const exchange *x, runner *runners) {
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    if (r->algo->failed) {
      snprintf(r->error, sizeof r->error, "%s", r->algo->error);
      continue;
    }
    const char *skip = r->algo->is_mpi ? mpi_skip_reason(nb, x->coll, r->mode) : NULL;
    if (skip != NULL) {
      snprintf(r->error, sizeof r->error, "%s", skip);
      continue;
    }
    int rc = runner_setup(nb, x, r);
    if (agree_on_failure(b, rc != MPI_SUCCESS, r->error)) continue;
    memset(x->recvbuf, SENTINEL, x->recvlen);
    rc = runner_call(nb, x, r);
    if (agree_on_failure(b, rc != MPI_SUCCESS, r->error)) continue;
    int same = memcmp(x->recvbuf, x->expected, x->recvlen) == 0;
    MPI_Allreduce(&same, &r->validated, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    r->ok = 1;
  }
}

/* What ran and how "auto" chose it, after a call: a trial (selection/measured.h) may change
 * it during the warm-up and the first timed calls. */
static void note_selection(runner *r) {
  if (r->algo->is_mpi) return;
  if (r->mode == MODE_BLOCKING) {
    NHOOD_Last_algorithm(&r->resolved);
    NHOOD_Selection_info(NHOOD_REQUEST_NULL, r->selection, sizeof r->selection);
  } else if (r->mode == MODE_PERSISTENT) {
    NHOOD_Request_schedule_info(r->nhood_request, &r->resolved, &r->rounds, &r->sends, NULL, NULL);
    NHOOD_Selection_info(r->nhood_request, r->selection, sizeof r->selection);
  }
}

/* Warmup, then one batch per iteration in which every algorithm runs once, in turn, each
 * call after a barrier. On a shared, oversubscribed machine the conditions drift within
 * seconds, and algorithms timed call by call side by side see the same drift (batches of ten
 * calls per algorithm left 5-10% between algorithms that run the same schedule); the barrier
 * keeps one call's exit skew (large after a many-round schedule) out of the next call's time.
 * The order within a batch is shuffled, the same on every rank (a generator seeded by the
 * batch number), so that no algorithm always follows the same one: work a call leaves behind
 * (rendezvous completions of large messages finish after the barrier) then lands on every
 * algorithm alike. With a fixed rotation, "auto" (listed first) always followed the last
 * algorithm, and ran 20% slower than "direct" with the very same schedule. */
static void time_runners(const bench *b, const neighborhood *nb, const exchange *x, runner *runners) {
  int n = b->opt.nalgos;
  int *order = xcalloc((size_t)n, sizeof *order);
  for (int a = 0; a < n; a++)
    for (int k = 0; runners[a].ok && k < b->opt.warmup; k++) call_or_abort(b, nb, x, &runners[a]);
  for (int batch = 0; batch < b->opt.iters; batch++) {
    uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(batch + 1);
    for (int a = 0; a < n; a++) order[a] = a;
    for (int a = n - 1; a > 0; a--) { /* Fisher-Yates with a splitmix64 step */
      state += 0x9e3779b97f4a7c15ull;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      int j = (int)(z % (uint64_t)(a + 1)), t = order[a];
      order[a] = order[j];
      order[j] = t;
    }
    for (int turn = 0; turn < n; turn++) {
      runner *r = &runners[order[turn]];
      if (!r->ok) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      call_or_abort(b, nb, x, r);
      r->samples[r->nsamples++] = MPI_Wtime() - t0;
      /* What ran is read after the last batch's call, behind a barrier: on an
       * oversubscribed machine, work a process does right after its call takes the CPU
       * from processes still inside theirs, and "mpi" reads nothing. */
      if (batch == b->opt.iters - 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        note_selection(r);
      }
    }
  }
  free(order);
}

/* ------------------------------------------------------------------------------------- */
/* Overlap (OSU's method)                                                                 */
/* ------------------------------------------------------------------------------------- */

static volatile double compute_sink;

/* Floating-point work that touches no memory, as the computation a program overlaps. The
 * empty asm makes each step opaque, so the compiler cannot fold the loop away. */
static void compute(long iterations) {
  double a = 1.0, b = 1e-9;
  for (long k = 0; k < iterations; k++) {
    a = a * 0.999999999 + b;
#if defined(__GNUC__)
    __asm__ __volatile__("" : "+g"(a));
#endif
  }
  compute_sink = a;
}

/* Iterations of compute per microsecond on this rank: the fastest of a few timed runs. */
static double calibrate_compute(void) {
  const long n = 2000000;
  double best = 1e30;
  for (int k = 0; k < 5; k++) {
    double t0 = MPI_Wtime();
    compute(n);
    double t = MPI_Wtime() - t0;
    if (t > 0 && t < best) best = t;
  }
  return (double)n / (best * 1e6);
}

/* The median over calls of the slowest rank, in us, on every rank. */
static double slowest_median_us(const double *samples, int n) {
  double *slowest = xmalloc((size_t)n * sizeof *slowest);
  MPI_Allreduce(samples, slowest, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double median = cli_median(slowest, n) * 1e6;
  free(slowest);
  return median;
}

/* After the runners' non-blocking calls were timed alone: each is posted, followed by
 * computation as long as its latency, then waited for; the computation is also timed alone.
 * Batches and barriers as time_runners. */
static void time_overlap(const bench *b, const neighborhood *nb, const exchange *x, runner *runners) {
  int n = b->opt.nalgos;
  long *iterations = xcalloc((size_t)n, sizeof *iterations);
  for (int a = 0; a < n; a++) {
    runner *r = &runners[a];
    if (!r->ok) continue;
    r->pure_us = slowest_median_us(r->samples, r->nsamples);
    iterations[a] = (long)(r->pure_us * b->compute_per_us);
    r->nsamples = 0;
    r->compute_samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  }
  for (int batch = 0; batch < b->opt.iters; batch++)
    for (int turn = 0; turn < n; turn++) {
      runner *r = &runners[(turn + batch) % n];
      if (!r->ok) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      compute(iterations[(turn + batch) % n]);
      r->compute_samples[batch] = MPI_Wtime() - t0;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      int rc = coll_call(nb, x, r->algo, MODE_NONBLOCKING, &r->mpi_request, &r->nhood_request);
      compute(iterations[(turn + batch) % n]);
      if (rc == MPI_SUCCESS)
        rc = r->algo->is_mpi ? MPI_Wait(&r->mpi_request, MPI_STATUS_IGNORE) : NHOOD_Wait(&r->nhood_request);
      r->samples[r->nsamples++] = MPI_Wtime() - t0;
      if (rc != MPI_SUCCESS) {
        nhood_failure(r->error, "non-blocking call with computation", rc);
        fprintf(stderr, "nhood-bench: rank %d: %s: %s after a successful validation\n", b->rank, r->algo->name,
                r->error);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
  free(iterations);
}

/* The rows of one case, reduced over ranks; emitted once "mpi"'s median is known. */
static void report_case(const bench *b, const neighborhood *nb, const exchange *x, mode_kind mode, runner *runners) {
  result_row *rows = xcalloc((size_t)b->opt.nalgos, sizeof *rows);
  double mpi_median = 0;
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    result_row *row = &rows[a];
    *row = (result_row){.topo = nb->spec_text,
                        .coll = coll_names[x->coll],
                        .mode = mode_names[mode],
                        .bytes = x->bytes,
                        .algo = r->algo->name,
                        .iters = b->opt.iters,
                        .warmup = b->opt.warmup,
                        .msgs = -1,
                        .rounds = -1,
                        .us_per_nbr = -1,
                        .overlap_pct = -1};
    if (r->algo->is_mpi && mode == MODE_PERSISTENT) row->mpi_persistent = PERSISTENT_KIND;
    if (!r->ok) {
      row->error = r->error;
      continue;
    }
    reduce_latency(r->samples, r->nsamples, row);
    if (mode == MODE_OVERLAP) {
      row->pure_us = r->pure_us;
      row->compute_us = slowest_median_us(r->compute_samples, b->opt.iters);
      double hidden = r->pure_us > 0 ? 100.0 * (1.0 - (row->median - row->compute_us) / r->pure_us) : 0;
      row->overlap_pct = hidden < 0 ? 0 : hidden > 100 ? 100 : hidden;
      row->progress = b->progress;
    }
    row->algo_resolved = r->resolved;
    if (r->selection[0]) row->selection = r->selection;
    row->msgs = max_over_ranks(r->sends);
    row->rounds = max_over_ranks(r->rounds);
    row->validated = r->validated;
    /* The ratio's baseline: MPI's own, by the profiling names where they were asked for. */
    if (r->algo->is_mpi && (r->algo->profiling || mpi_median == 0)) mpi_median = row->median;
  }
  for (int a = 0; a < b->opt.nalgos; a++) {
    rows[a].mpi_median = mpi_median;
    emit_row(b, &rows[a]);
  }
  free(rows);
}

static void bench_case(const bench *b, const neighborhood *nb, algorithm *algos, coll_kind coll, mode_kind mode,
                       int bytes) {
  exchange x;
  if (max_over_ranks(exchange_init(&x, coll, bytes, nb, b->rank)) != 0) {
    if (b->rank == 0)
      printf("%-11s %-11s %9d skipped: a buffer exceeds int displacements\n", coll_names[coll], mode_names[mode],
             bytes);
    exchange_free(&x);
    return;
  }

  runner *runners = xcalloc((size_t)b->opt.nalgos, sizeof *runners);
  for (int a = 0; a < b->opt.nalgos; a++) {
    runner *r = &runners[a];
    r->algo = &algos[a];
    r->mode = mode == MODE_OVERLAP ? MODE_NONBLOCKING : r->algo->is_mpi ? mpi_effective_mode(mode) : mode;
    r->mpi_request = MPI_REQUEST_NULL;
    r->nhood_request = NHOOD_REQUEST_NULL;
    r->samples = xmalloc((size_t)b->opt.iters * sizeof(double));
  }
  validate_runners(b, nb, &x, runners);
  time_runners(b, nb, &x, runners);
  if (mode == MODE_OVERLAP) time_overlap(b, nb, &x, runners);
  report_case(b, nb, &x, mode, runners);

  for (int a = 0; a < b->opt.nalgos; a++) runner_teardown(&runners[a]);
  free(runners);
  exchange_free(&x);
}

/* ------------------------------------------------------------------------------------- */
/* Topologies                                                                             */
/* ------------------------------------------------------------------------------------- */

static void print_topology_header(const bench *b, const neighborhood *nb) {
  int local[2] = {nb->lists.indegree, nb->lists.outdegree}, max[2];
  long long edges = nb->real_destinations, total_edges;
  MPI_Reduce(local, max, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&edges, &total_edges, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (b->rank != 0) return;
  printf("\n# topo %s: %d rank%s, %lld edge%s, max indegree %d, max outdegree %d\n", nb->spec_text, b->size,
         cli_plural(b->size), total_edges, cli_plural(total_edges), max[0], max[1]);
  print_table_header(b);
}

static void bench_topology(const bench *b, const topospec *spec) {
  neighborhood nb = {.spec_text = spec->text, .graph_comm = MPI_COMM_NULL};
  algorithm *algos = NULL;
  char err[512];
  int failed = topospec_for_rank(spec, b->rank, b->size, &nb.lists, err, sizeof err) != 0;
  if (failed) fprintf(stderr, "nhood-bench: rank %d: %s: %s\n", b->rank, spec->text, err);
  if (max_over_ranks(failed)) goto cleanup;
  int proc_null = 0;
  for (int j = 0; j < nb.lists.outdegree; j++) nb.real_destinations += nb.lists.destinations[j] != MPI_PROC_NULL;
  for (int i = 0; i < nb.lists.indegree; i++) proc_null |= nb.lists.sources[i] == MPI_PROC_NULL;
  nb.any_proc_null = max_over_ranks(proc_null || nb.real_destinations < nb.lists.outdegree);
  nb.any_unequal_degrees = max_over_ranks(nb.lists.indegree != nb.lists.outdegree);
  graph_comm_create(&nb.lists, &nb.graph_comm);
  algos = xcalloc((size_t)b->opt.nalgos, sizeof *algos);
  algorithms_create(b, &nb, algos);

  print_topology_header(b, &nb);
  bench_creation(b, &nb);
  for (int c = 0; c < b->opt.ncolls; c++) {
    bench_schedule_build(b, &nb, algos, b->opt.colls[c]);
    for (int m = 0; m < b->opt.nmodes; m++)
      for (int s = 0; s < b->opt.nsizes; s++)
        bench_case(b, &nb, algos, b->opt.colls[c], b->opt.modes[m], b->opt.sizes[s]);
  }
cleanup:
  if (algos != NULL) algorithms_free(b, algos);
  free(algos);
  if (nb.graph_comm != MPI_COMM_NULL) MPI_Comm_free(&nb.graph_comm);
  topospec_rank_free(&nb.lists);
}

/* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4": the first clause, one line. */
static void short_library_version(char *out, size_t outlen) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  size_t n = strcspn(version, ",\n");
  for (size_t i = 0; i < n; i++)
    if (version[i] == '\t') version[i] = ' ';
  snprintf(out, outlen, "%.*s", (int)n, version);
}

int main(int argc, char **argv) {
  bench b = {.json = NULL};
  topospec *specs = NULL;
  char err[512] = "";
  int exit_code = 0;
  /* nhood's progress thread calls MPI beside the program: it needs MPI_THREAD_MULTIPLE. */
  const char *progress = getenv("NHOOD_PROGRESS");
  if (progress != NULL && strcmp(progress, "thread") == 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);

  /* Every rank parses the same arguments and reaches the same verdict; only rank 0 talks. */
  if (parse_options(argc, argv, &b.opt, err, sizeof err) != 0) {
    if (b.rank == 0) fprintf(stderr, "nhood-bench: %s\n", err);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }
  if (b.opt.help) {
    if (b.rank == 0) print_usage(stdout);
    goto cleanup;
  }
  if (b.opt.theta > 0) { /* read by the library when it builds a combining pattern */
    char theta[16];
    snprintf(theta, sizeof theta, "%d", b.opt.theta);
    setenv("NHOOD_COMBINE_THETA", theta, 1);
  }

  /* All SPECs first, so a typo in the last one does not surface after an hour. */
  specs = xcalloc((size_t)b.opt.ntopos, sizeof *specs);
  int bad = 0;
  for (int t = 0; t < b.opt.ntopos && !bad; t++) bad = topospec_parse(b.opt.topos[t], &specs[t], err, sizeof err) != 0;
  if (b.rank == 0 && b.opt.json_path != NULL && !bad) {
    b.json = fopen(b.opt.json_path, "w");
    if (b.json == NULL) {
      snprintf(err, sizeof err, "cannot write --json %s: %s", b.opt.json_path, strerror(errno));
      bad = 1;
    }
  }
  /* Usually every rank fails alike and rank 0 speaks for all; a file that only some ranks
   * cannot read is reported by those ranks. */
  int rank0_bad = bad;
  MPI_Bcast(&rank0_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (max_over_ranks(bad)) {
    if (b.rank == 0 && bad)
      fprintf(stderr, "nhood-bench: %s\n", err);
    else if (bad && !rank0_bad)
      fprintf(stderr, "nhood-bench: rank %d: %s\n", b.rank, err);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }

  /* The names the algo column prints: --algo's, and the create rows' ("mpi", "nhood", and for
   * stencils CART_OFFSETS_ROW). */
  b.algo_width = ALGO_WIDTH;
  for (int a = 0; a < b.opt.nalgos; a++)
    if ((int)strlen(b.opt.algos[a]) > b.algo_width) b.algo_width = (int)strlen(b.opt.algos[a]);
  for (int t = 0; t < b.opt.ntopos; t++)
    if ((specs[t].kind == TOPOSPEC_MOORE || specs[t].kind == TOPOSPEC_VONNEUMANN) &&
        (int)strlen(CART_OFFSETS_ROW) > b.algo_width)
      b.algo_width = (int)strlen(CART_OFFSETS_ROW);
  short_library_version(b.mpi_library, sizeof b.mpi_library);
  NHOOD_Progress_mode(&b.progress);
  for (int m = 0; m < b.opt.nmodes; m++)
    if (b.opt.modes[m] == MODE_OVERLAP) b.compute_per_us = calibrate_compute();
  if (b.rank == 0)
    printf("nhood-bench: %d rank%s, %s, iters %d, warmup %d, MPI persistent collectives: %s, nhood progress: %s\n",
           b.size, cli_plural(b.size), b.mpi_library, b.opt.iters, b.opt.warmup, PERSISTENT_KIND, b.progress);
  for (int t = 0; t < b.opt.ntopos; t++) bench_topology(&b, &specs[t]);

cleanup:
  for (int t = 0; specs != NULL && t < b.opt.ntopos; t++) topospec_free(&specs[t]);
  free(specs);
  if (b.json != NULL) fclose(b.json);
  free_options(&b.opt);
  MPI_Finalize();
  return exit_code;
}
