/*
 * Distributed graphs with MPI_PROC_NULL neighbors, on an MPI whose blocking neighborhood
 * collectives crash on them but which gets every other list right (Open MPI 4.1 and 5.0:
 * coll/basic hands MPI_PROC_NULL to the PML; own_right.c).
 *
 * The cold path needs every process to take the same route. Making them agree, at each
 * graph's creation, on whether some list holds MPI_PROC_NULL costs an allreduce per graph,
 * which a program making many short-lived graphs pays on every one. Instead, a process whose
 * lists hold MPI_PROC_NULL gives MPI its lists without those entries and keeps the lists it
 * was given (an attribute of the graph, which duplicates share). MPI's own collective is then
 * right on every process, and no process needs to hear of another's lists:
 *
 * - the queries (MPI_Dist_graph_neighbors and _count, under both names, so that MPI's own
 *   Fortran bindings and nhood's copy inside this library see the same) answer with the lists
 *   the process gave;
 * - a call that MPI's own runs on such a process is rewritten for MPI's shorter lists
 *   (ip_own_stripped): allgather becomes allgatherv and alltoall alltoallv, each kept block
 *   where it was in the caller's buffers; v and w calls keep the entries of their kept
 *   neighbors. Open MPI matches an allgather with an allgatherv, and an alltoall with an
 *   alltoallv or alltoallw, message for message (coll/basic sends each family under one tag;
 *   libnbc numbers collectives, whatever their kind), and reads the arrays only while the call
 *   builds its schedule, so they are freed when the call returns. nhood's own algorithms read
 *   the lists the process gave, through the queries.
 *
 * Where the MPI has the large-count forms this is not used and the processes agree instead
 * (own_right.c): lowering a large-count call may change its family.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"

struct ip_stripped {
  atomic_int refs;
  int indegree, outdegree;          /* as the process gave them */
  int in_kept, out_kept;            /* what MPI has: the entries that are not MPI_PROC_NULL */
  int *sources, *destinations;      /* as given (ranks of the graph communicator) */
  int *sourceweights, *destweights; /* as given; NULL where unweighted */
  int *in_index, *out_index;        /* each entry MPI has: its position as given */
};

/* MPI's own functions, by their PMPI names (this library defines those names too). */
typedef int create_fn(MPI_Comm, int, const int[], const int[], int, const int[], const int[], MPI_Info, int,
                      MPI_Comm *);
typedef int neighbors_count_fn(MPI_Comm, int *, int *, int *);
typedef int neighbors_fn(MPI_Comm, int, int[], int[], int, int[], int[]);
static create_fn *mpi_create;
static neighbors_count_fn *mpi_neighbors_count;
static neighbors_fn *mpi_neighbors;

/* The graphs made here that MPI has without some of their entries carry one of these, and
 * those made from edges (MPI_Dist_graph_create) carry `unknown`: their lists are MPI's, whose
 * MPI_PROC_NULL entries may be any process's. The keyval exists once such a graph was made (so
 * that the queries of other programs pay one load). */
static struct ip_stripped unknown;
static int keyval = MPI_KEYVAL_INVALID;
static atomic_int have_keyval;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void release(struct ip_stripped *s) {
  if (s != NULL && s != &unknown && atomic_fetch_sub(&s->refs, 1) == 1) free(s);
}

static int copy_attr(MPI_Comm oldcomm, int key, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm, (void)key, (void)extra;
  if (in != &unknown) atomic_fetch_add(&((struct ip_stripped *)in)->refs, 1);
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_attr(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)extra;
  release(value);
  return MPI_SUCCESS;
}

static void init_once(void) {
  mpi_create = (create_fn *)ip_mpi_own("PMPI_Dist_graph_create_adjacent", (ip_any_fn *)PMPI_Dist_graph_create_adjacent);
  mpi_neighbors_count =
      (neighbors_count_fn *)ip_mpi_own("PMPI_Dist_graph_neighbors_count", (ip_any_fn *)PMPI_Dist_graph_neighbors_count);
  mpi_neighbors = (neighbors_fn *)ip_mpi_own("PMPI_Dist_graph_neighbors", (ip_any_fn *)PMPI_Dist_graph_neighbors);
}
static void ensure_init(void) { pthread_once(&once, init_once); }

void ip_stripped_finalize(void) {
  if (atomic_load(&have_keyval)) PMPI_Comm_free_keyval(&keyval);
  atomic_store(&have_keyval, 0);
}

static struct ip_stripped *attribute(MPI_Comm comm) {
  void *value = NULL;
  int flag = 0;
  if (!atomic_load_explicit(&have_keyval, memory_order_acquire) ||
      PMPI_Comm_get_attr(comm, keyval, &value, &flag) != MPI_SUCCESS || !flag)
    return NULL;
  return value;
}

const struct ip_stripped *ip_stripped_of(MPI_Comm comm) {
  struct ip_stripped *s = attribute(comm);
  return s == &unknown ? NULL : s;
}

int ip_stripped_lists_known(MPI_Comm comm) { return attribute(comm) != &unknown; }

static int ensure_keyval(void) {
  if (!atomic_load_explicit(&have_keyval, memory_order_acquire)) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (!atomic_load(&have_keyval) && PMPI_Comm_create_keyval(copy_attr, delete_attr, &keyval, NULL) == MPI_SUCCESS)
      atomic_store_explicit(&have_keyval, 1, memory_order_release);
    pthread_mutex_unlock(&lock);
  }
  return atomic_load(&have_keyval) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int ip_stripped_mark_unknown(MPI_Comm comm) {
  int rc = ensure_keyval();
  return rc == MPI_SUCCESS ? PMPI_Comm_set_attr(comm, keyval, &unknown) : rc;
}

int ip_mpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                      int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                      int reorder, MPI_Comm *comm_dist_graph) {
  ensure_init();
  return mpi_create(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                    comm_dist_graph);
}

static int count_kept(const int *list, int n) {
  int kept = 0;
  for (int k = 0; k < n; k++) kept += list[k] != MPI_PROC_NULL;
  return kept;
}

/* A weights array (not NULL, MPI_UNWEIGHTED nor MPI_WEIGHTS_EMPTY, which go to MPI as they are). */
static int is_array(const int *weights) {
  return weights != NULL && weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
}

static void keep(const int *list, const int *weights, int n, int *kept, int *kept_weights, int *index) {
  for (int k = 0, j = 0; k < n; k++)
    if (list[k] != MPI_PROC_NULL) {
      kept[j] = list[k];
      if (kept_weights) kept_weights[j] = weights[k];
      index[j++] = k;
    }
}

int ip_stripped_create(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree,
                       const int destinations[], const int destweights[], MPI_Info info, int reorder,
                       MPI_Comm *comm_dist_graph) {
  ensure_init();
  /* Arguments MPI would refuse go to MPI as they are, for it to report. */
  if (indegree < 0 || outdegree < 0 || (indegree > 0 && sources == NULL) || (outdegree > 0 && destinations == NULL) ||
      (indegree > 0 && !is_array(sourceweights) && sourceweights != MPI_UNWEIGHTED) ||
      (outdegree > 0 && !is_array(destweights) && destweights != MPI_UNWEIGHTED) || comm_dist_graph == NULL ||
      (count_kept(sources, indegree) == indegree && count_kept(destinations, outdegree) == outdegree))
    return mpi_create(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                      comm_dist_graph);
  size_t in = (size_t)indegree, out = (size_t)outdegree;
  struct ip_stripped *s = malloc(sizeof *s + sizeof(int) * 5 * (in + out + 1));
  if (s == NULL)
    return mpi_create(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                      comm_dist_graph); /* MPI then crashes on it, as without nhood */
  int *p = (int *)(s + 1);
  atomic_init(&s->refs, 1);
  s->indegree = indegree, s->outdegree = outdegree;
  s->in_kept = count_kept(sources, indegree), s->out_kept = count_kept(destinations, outdegree);
  s->sources = p, s->destinations = p + in;
  s->sourceweights = is_array(sourceweights) ? p + in + out : NULL;
  s->destweights = is_array(destweights) ? p + 2 * in + out : NULL;
  s->in_index = p + 2 * (in + out), s->out_index = p + 3 * in + 2 * out;
  int *kept = p + 3 * (in + out); /* the kept lists and weights given to MPI: the last in + out + 1 */
  int *kept_weights = malloc(sizeof(int) * (in + out + 1));
  if (kept_weights == NULL) {
    free(s);
    return mpi_create(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                      comm_dist_graph);
  }
  keep(sources, sourceweights, indegree, kept, s->sourceweights ? kept_weights : NULL, s->in_index);
  keep(destinations, destweights, outdegree, kept + s->in_kept, s->destweights ? kept_weights + s->in_kept : NULL,
       s->out_index);
  if (s->sourceweights) memcpy(s->sourceweights, sourceweights, sizeof(int) * in);
  if (s->destweights) memcpy(s->destweights, destweights, sizeof(int) * out);
  int rc = mpi_create(comm_old, s->in_kept, kept, s->sourceweights ? kept_weights : sourceweights, s->out_kept,
                      kept + s->in_kept, s->destweights ? kept_weights + s->in_kept : destweights, info, reorder,
                      comm_dist_graph);
  free(kept_weights);
  if (rc != MPI_SUCCESS || *comm_dist_graph == MPI_COMM_NULL) {
    free(s);
    return rc;
  }
  /* The lists as given, in the new communicator's ranks (MPI keeps the order of an adjacent
   * graph's lists, and renumbers them where it reorders). */
  rc =
      mpi_neighbors(*comm_dist_graph, s->in_kept, kept, MPI_UNWEIGHTED, s->out_kept, kept + s->in_kept, MPI_UNWEIGHTED);
  for (int k = 0; k < indegree; k++) s->sources[k] = MPI_PROC_NULL;
  for (int k = 0; k < outdegree; k++) s->destinations[k] = MPI_PROC_NULL;
  for (int j = 0; j < s->in_kept; j++) s->sources[s->in_index[j]] = kept[j];
  for (int j = 0; j < s->out_kept; j++) s->destinations[s->out_index[j]] = kept[s->in_kept + j];
  if (rc == MPI_SUCCESS) rc = ensure_keyval();
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_attr(*comm_dist_graph, keyval, s);
  if (rc != MPI_SUCCESS) free(s); /* MPI then crashes on the graph's blocking calls, as without nhood */
  return MPI_SUCCESS;
}

/* ---- the queries ----------------------------------------------------------------------- */

int ip_dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
  ensure_init();
  int rc = mpi_neighbors_count(comm, indegree, outdegree, weighted);
  const struct ip_stripped *s = rc == MPI_SUCCESS ? ip_stripped_of(comm) : NULL;
  if (s != NULL) *indegree = s->indegree, *outdegree = s->outdegree;
  return rc;
}
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
  return ip_dist_graph_neighbors_count(comm, indegree, outdegree, weighted);
}
int PMPI_Dist_graph_neighbors_count(MPI_Comm, int *, int *, int *)
    __attribute__((alias("MPI_Dist_graph_neighbors_count")));

static void copy_out(int *to, const int *from, int n) {
  if (n > 0) memcpy(to, from, sizeof(int) * (size_t)n);
}

int ip_dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                            int destinations[], int destweights[]) {
  ensure_init();
  const struct ip_stripped *s = ip_stripped_of(comm);
  if (s == NULL || maxindegree < 0 || maxoutdegree < 0 || (maxindegree > 0 && sources == NULL) ||
      (maxoutdegree > 0 && destinations == NULL))
    return mpi_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree, destinations, destweights);
  int in = maxindegree < s->indegree ? maxindegree : s->indegree;
  int out = maxoutdegree < s->outdegree ? maxoutdegree : s->outdegree;
  copy_out(sources, s->sources, in);
  copy_out(destinations, s->destinations, out);
  if (s->sourceweights && is_array(sourceweights)) copy_out(sourceweights, s->sourceweights, in);
  if (s->destweights && is_array(destweights)) copy_out(destweights, s->destweights, out);
  return MPI_SUCCESS;
}
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) {
  return ip_dist_graph_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree, destinations, destweights);
}
int PMPI_Dist_graph_neighbors(MPI_Comm, int, int[], int[], int, int[], int[])
    __attribute__((alias("MPI_Dist_graph_neighbors")));

/* ---- MPI's own, on the kept lists -------------------------------------------------------- */

/* The block of `count` elements of `type` as one element, where the kept blocks' positions
 * (at most `last`, counted in blocks) would overflow an int displacement counted in
 * elements; MPI_DATATYPE_NULL where they fit (or on failure: *rc says). */
static MPI_Datatype block_type(int count, MPI_Datatype type, int last, int *rc) {
  MPI_Datatype block = MPI_DATATYPE_NULL;
  if ((long long)last * count <= 2147483647LL) return MPI_DATATYPE_NULL;
  *rc = PMPI_Type_contiguous(count, type, &block);
  if (*rc == MPI_SUCCESS) *rc = PMPI_Type_commit(&block);
  return block;
}

/* Counts and displacements of the kept blocks of an allgather's or alltoall's side: n kept
 * blocks at positions index[], `count` elements each (or, with `block`, one of it). */
static void side(int n, const int *index, int count, MPI_Datatype block, int *counts, int *displs) {
  for (int j = 0; j < n; j++) {
    counts[j] = block != MPI_DATATYPE_NULL ? 1 : count;
    displs[j] = block != MPI_DATATYPE_NULL ? index[j] : index[j] * count;
  }
}

/* The counts, displacements and datatypes of the kept blocks (w: byte displacements and a
 * datatype per block; the others: one datatype per side). */
struct kept_lists {
  int *scounts, *sdispls, *rcounts, *rdispls;
  MPI_Aint *sd, *rd;
  MPI_Datatype *st, *rt;
  MPI_Datatype stype, rtype;
};

/* MPI's own v or w collective over the kept blocks, in mode. */
static int call_own(MPI_Comm comm, const nhood_coll_args *a, const struct kept_lists *k, ip_mode mode, MPI_Info info,
                    MPI_Request *request) {
  const void *sb = a->sendbuf;
  void *rb = a->recvbuf;
  int sc = a->sendcount;
  int gather = a->kind == NHOOD_ALLGATHER || a->kind == NHOOD_ALLGATHERV, w = a->kind == NHOOD_ALLTOALLW;
  (void)info;
  if (mode == IP_BLOCKING)
    return gather ? PMPI_Neighbor_allgatherv(sb, sc, k->stype, rb, k->rcounts, k->rdispls, k->rtype, comm)
           : w    ? PMPI_Neighbor_alltoallw(sb, k->scounts, k->sd, k->st, rb, k->rcounts, k->rd, k->rt, comm)
                  : PMPI_Neighbor_alltoallv(sb, k->scounts, k->sdispls, k->stype, rb, k->rcounts, k->rdispls, k->rtype,
                                            comm);
  if (mode == IP_NONBLOCKING)
    return gather ? PMPI_Ineighbor_allgatherv(sb, sc, k->stype, rb, k->rcounts, k->rdispls, k->rtype, comm, request)
           : w    ? PMPI_Ineighbor_alltoallw(sb, k->scounts, k->sd, k->st, rb, k->rcounts, k->rd, k->rt, comm, request)
                  : PMPI_Ineighbor_alltoallv(sb, k->scounts, k->sdispls, k->stype, rb, k->rcounts, k->rdispls, k->rtype,
                                             comm, request);
#ifdef IP_PMPI_PERSISTENT
  return gather ? IP_PMPI_PERSISTENT(allgatherv)(sb, sc, k->stype, rb, k->rcounts, k->rdispls, k->rtype, comm, info,
                                                 request)
         : w    ? IP_PMPI_PERSISTENT(alltoallw)(sb, k->scounts, k->sd, k->st, rb, k->rcounts, k->rd, k->rt, comm, info,
                                             request)
             : IP_PMPI_PERSISTENT(alltoallv)(sb, k->scounts, k->sdispls, k->stype, rb, k->rcounts, k->rdispls, k->rtype,
                                             comm, info, request);
#else
  return MPI_ERR_INTERN; /* no persistent collective reaches here without them */
#endif
}

int ip_own_stripped(MPI_Comm comm, const struct ip_stripped *s, nhood_coll_args a, ip_mode mode, MPI_Info info,
                    MPI_Request *request) {
  int in = s->in_kept, out = s->out_kept, rc = MPI_SUCCESS;
  size_t n = (size_t)in + (size_t)out + 1;
  int *ints = malloc(sizeof(int) * 2 * n);
  MPI_Aint *aints = a.kind == NHOOD_ALLTOALLW ? malloc(sizeof(MPI_Aint) * n) : NULL;
  MPI_Datatype *types = a.kind == NHOOD_ALLTOALLW ? malloc(sizeof(MPI_Datatype) * n) : NULL;
  if (ints == NULL || (a.kind == NHOOD_ALLTOALLW && (aints == NULL || types == NULL))) {
    free(ints), free(aints), free(types);
    return ip_raise_message(comm, MPI_ERR_NO_MEM, "MPI's own collective", "out of memory");
  }
  int *scounts = ints, *sdispls = ints + out, *rcounts = ints + 2 * out, *rdispls = ints + 2 * out + in;
  MPI_Datatype sblock = MPI_DATATYPE_NULL, rblock = MPI_DATATYPE_NULL;
  MPI_Datatype stype = a.sendtype, rtype = a.recvtype;
  int last_in = in > 0 ? s->in_index[in - 1] : 0, last_out = out > 0 ? s->out_index[out - 1] : 0;
  switch (a.kind) {
    case NHOOD_ALLTOALL:
      sblock = block_type(a.sendcount, a.sendtype, last_out, &rc);
      side(out, s->out_index, a.sendcount, sblock, scounts, sdispls);
      if (sblock != MPI_DATATYPE_NULL) stype = sblock;
      /* the receive side is an allgather's */
      __attribute__((fallthrough));
    case NHOOD_ALLGATHER:
      if (rc == MPI_SUCCESS) rblock = block_type(a.recvcount, a.recvtype, last_in, &rc);
      side(in, s->in_index, a.recvcount, rblock, rcounts, rdispls);
      if (rblock != MPI_DATATYPE_NULL) rtype = rblock;
      break;
    case NHOOD_ALLTOALLV:
    case NHOOD_ALLTOALLW:
      for (int j = 0; j < out; j++) {
        int k = s->out_index[j];
        scounts[j] = a.sendcounts[k];
        if (aints)
          aints[j] = a.sdispls_bytes[k], types[j] = a.sendtypes[k];
        else
          sdispls[j] = a.sdispls[k];
      }
      /* the receive side is an allgatherv's */
      __attribute__((fallthrough));
    default:
      for (int j = 0; j < in; j++) {
        int k = s->in_index[j];
        rcounts[j] = a.recvcounts[k];
        if (aints)
          aints[out + j] = a.rdispls_bytes[k], types[out + j] = a.recvtypes[k];
        else
          rdispls[j] = a.rdispls[k];
      }
  }
  if (rc == MPI_SUCCESS) {
    struct kept_lists k = {
        scounts, sdispls, rcounts, rdispls, aints, aints ? aints + out : NULL, types, types ? types + out : NULL,
        stype,   rtype};
    rc = call_own(comm, &a, &k, mode, info, request);
  }
  if (sblock != MPI_DATATYPE_NULL) PMPI_Type_free(&sblock);
  if (rblock != MPI_DATATYPE_NULL) PMPI_Type_free(&rblock);
  free(ints), free(aints), free(types);
  return rc;
}

int ip_own_stripped_c(MPI_Comm comm, const struct ip_stripped *s, nhood_coll_args_c a, ip_mode mode, MPI_Info info,
                      MPI_Request *request) {
  (void)s, (void)a, (void)mode, (void)info, (void)request;
  return ip_raise_message(comm, MPI_ERR_INTERN, "MPI's own collective",
                          "a large-count call on a graph whose MPI_PROC_NULL neighbors MPI does not have");
}
