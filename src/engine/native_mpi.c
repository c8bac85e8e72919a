#include "engine/native_mpi.h"

#include <pthread.h>
#include <stdlib.h>

#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"
#include "common/mpi_util.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init in Open MPI 4.x */
#endif

/* Persistent neighborhood collectives: MPI-4's (cmake/mpi_features.cmake), or Open MPI's
 * extension. */
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define NATIVE_INIT(coll) MPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NATIVE_INIT(coll) MPIX_Neighbor_##coll##_init
#endif

int nhood_native_persistent_supported(void) {
#ifdef NATIVE_INIT
  return 1;
#else
  return 0;
#endif
}

static int compare_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/* 1 when a rank appears twice in list[0..n). */
static int has_duplicates(int n, const int list[]) {
  if (n < 2) return 0;
  int *copy = malloc((size_t)n * sizeof *copy), dup = 1; /* no memory: say yes, which only drops "mpi" */
  if (copy) {
    for (int k = 0; k < n; k++) copy[k] = list[k];
    qsort(copy, (size_t)n, sizeof *copy, compare_int);
    dup = 0;
    for (int k = 1; k < n && !dup; k++) dup = copy[k] == copy[k - 1];
    free(copy);
  }
  return dup;
}

int nhood_native_applies_locally(const struct nhood_topo *t, nhood_coll_kind kind) {
  if (nhood_coll_reduces(kind) || t->nchannels != 1) return 0;
  for (int i = 0; i < t->indegree; i++)
    if (t->sources[i] == MPI_PROC_NULL) return 0;
  for (int j = 0; j < t->outdegree; j++)
    if (t->destinations[j] == MPI_PROC_NULL) return 0;
  /* The library that runs (common/mpi_util.h), not the header nhood was built with. */
  nhood_library l = nhood_library_running();
  /* MPICH before 5 (and Intel MPI) pairs duplicate edges of the alltoall family in the wrong order. */
  if (nhood_library_mpich4_family(l) &&
      (kind == NHOOD_ALLTOALL || kind == NHOOD_ALLTOALLV || kind == NHOOD_ALLTOALLW) &&
      (has_duplicates(t->indegree, t->sources) || has_duplicates(t->outdegree, t->destinations)))
    return 0;
  /* MPICH before 4.1 (and Intel MPI 2021) mixes up indegree and outdegree in
   * MPI_Neighbor_alltoallw (pmodels/mpich#6233): data goes missing or the call hangs. */
  int swapped_degrees = l.kind == NHOOD_LIBRARY_INTEL ||
                        (l.kind == NHOOD_LIBRARY_MPICH && (l.major < 4 || (l.major == 4 && l.minor < 1)));
  if (swapped_degrees && kind == NHOOD_ALLTOALLW && t->indegree != t->outdegree) return 0;
  return 1;
}

/* MPI_UNWEIGHTED through a volatile object: GCC 12 warns that the graph constructor reads
 * weights from Open MPI's constant (int *)2 otherwise. */
static int *unweighted(void) {
  int *volatile weights = MPI_UNWEIGHTED;
  return weights;
}

#if defined(OPEN_MPI) && OPEN_MPI
/* Open MPI 4.1 sets up its topology framework at the first topology communicator a process
 * creates, and not thread-safely: two threads creating their first ones at once crashed in
 * mca_topo_base_lazy_init (mpi.threads under ThreadSanitizer, once in four CI runs). A graph
 * communicator of MPI_COMM_SELF, made once before any other and freed, runs that set-up
 * alone; it involves no other process, so a thread waiting for it cannot deadlock one. */
static void topology_framework_setup(void) {
  MPI_Comm self_graph = MPI_COMM_NULL;
  int none = 0;
  if (MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 0, &none, unweighted(), 0, &none, unweighted(), MPI_INFO_NULL, 0,
                                     &self_graph) == MPI_SUCCESS &&
      self_graph != MPI_COMM_NULL)
    MPI_Comm_free(&self_graph);
}
static pthread_once_t topology_framework_once = PTHREAD_ONCE_INIT;
#endif

int nhood_native_graph_create(MPI_Comm comm, const struct nhood_topo *t, nhood_native_graph **graph) {
  int rc = MPI_SUCCESS;
#if defined(OPEN_MPI) && OPEN_MPI
  pthread_once(&topology_framework_once, topology_framework_setup);
#endif
  nhood_native_graph *g = malloc(sizeof *g);
  if (!g) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a graph communicator");
  g->comm = MPI_COMM_NULL;
  atomic_init(&g->refs, 1);
  MPI_Comm parent = comm, plain = MPI_COMM_NULL;
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
  /* Open MPI 5.0 takes a distributed graph made from a communicator with a topology for one of
   * the parent's kind (MPI_Topo_test), and crashes in its collectives: from a copy without. */
  int kind = MPI_UNDEFINED, rank = 0;
  NHOOD_MPI_CALL(MPI_Topo_test(comm, &kind));
  if (kind != MPI_UNDEFINED) {
    NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
    NHOOD_MPI_CALL(MPI_Comm_split(comm, 0, rank, &plain));
    parent = plain;
  }
#endif
  rc = MPI_Dist_graph_create_adjacent(parent, t->indegree, t->sources, unweighted(), t->outdegree, t->destinations,
                                      unweighted(), MPI_INFO_NULL, 0, &g->comm);
  if (plain != MPI_COMM_NULL) MPI_Comm_free(&plain);
  if (rc != MPI_SUCCESS) {
    rc = nhood_mpi_error(rc, "MPI_Dist_graph_create_adjacent");
    goto cleanup;
  }
  NHOOD_MPI_CALL(MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN));
  *graph = g;
  return MPI_SUCCESS;
cleanup:
  nhood_native_graph_release(g);
  return rc;
}

void nhood_native_graph_retain(nhood_native_graph *graph) { atomic_fetch_add(&graph->refs, 1); }

void nhood_native_graph_release(nhood_native_graph *graph) {
  if (graph == NULL || atomic_fetch_sub(&graph->refs, 1) != 1) return;
  nhood_handles_advance(); /* a thread's memo may name the communicator (api/call_cache.h) */
  int finalized = 0;       /* a request freed after MPI_Finalize: the communicator went with it */
  MPI_Finalized(&finalized);
  if (!finalized && graph->comm != MPI_COMM_NULL) MPI_Comm_free(&graph->comm);
  free(graph);
}

/* One call shape per collective, in the three modes. The persistent form is compiled only
 * where the library has it (callers check nhood_native_persistent_supported). */
#ifdef NATIVE_INIT
#define NATIVE_DISPATCH(coll, ...)                                               \
  (mode == NHOOD_NATIVE_BLOCKING ? MPI_Neighbor_##coll(__VA_ARGS__, graph)       \
   : mode == NHOOD_NATIVE_START  ? MPI_Ineighbor_##coll(__VA_ARGS__, graph, req) \
                                 : NATIVE_INIT(coll)(__VA_ARGS__, graph, MPI_INFO_NULL, req))
#else
#define NATIVE_DISPATCH(coll, ...)                                               \
  (mode == NHOOD_NATIVE_BLOCKING ? MPI_Neighbor_##coll(__VA_ARGS__, graph)       \
   : mode == NHOOD_NATIVE_START  ? MPI_Ineighbor_##coll(__VA_ARGS__, graph, req) \
                                 : MPI_ERR_UNSUPPORTED_OPERATION)
#endif

NHOOD_HOT int nhood_native_call(const nhood_coll_args *a, MPI_Comm graph, nhood_native_mode mode, MPI_Request *req) {
  int code;
  switch (a->kind) {
    case NHOOD_ALLGATHER:
      code = NATIVE_DISPATCH(allgather, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount, a->recvtype);
      break;
    case NHOOD_ALLGATHERV:
      code = NATIVE_DISPATCH(allgatherv, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf,
                             NHOOD_OR_EMPTY(a->recvcounts, nhood_no_ints), NHOOD_OR_EMPTY(a->rdispls, nhood_no_ints),
                             a->recvtype);
      break;
    case NHOOD_ALLTOALL:
      code = NATIVE_DISPATCH(alltoall, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount, a->recvtype);
      break;
    case NHOOD_ALLTOALLV:
      code = NATIVE_DISPATCH(alltoallv, a->sendbuf, NHOOD_OR_EMPTY(a->sendcounts, nhood_no_ints),
                             NHOOD_OR_EMPTY(a->sdispls, nhood_no_ints), a->sendtype, a->recvbuf,
                             NHOOD_OR_EMPTY(a->recvcounts, nhood_no_ints), NHOOD_OR_EMPTY(a->rdispls, nhood_no_ints),
                             a->recvtype);
      break;
    case NHOOD_ALLTOALLW:
      code = NATIVE_DISPATCH(
          alltoallw, a->sendbuf, NHOOD_OR_EMPTY(a->sendcounts, nhood_no_ints),
          NHOOD_OR_EMPTY(a->sdispls_bytes, nhood_no_aints), NHOOD_OR_EMPTY(a->sendtypes, nhood_no_types), a->recvbuf,
          NHOOD_OR_EMPTY(a->recvcounts, nhood_no_ints), NHOOD_OR_EMPTY(a->rdispls_bytes, nhood_no_aints),
          NHOOD_OR_EMPTY(a->recvtypes, nhood_no_types));
      break;
    default:
      return nhood_error(MPI_ERR_INTERN, "the MPI library has no neighborhood %s", nhood_coll_names[a->kind]);
  }
  return code == MPI_SUCCESS ? MPI_SUCCESS : nhood_mpi_error(code, "the MPI library's neighborhood collective");
}
