#include "topology/topology.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"

int nhood_topo_alloc(nhood_topo_kind kind, int indegree, int outdegree, int weighted, int channels, int ndims,
                     int noffsets, NHOOD_Topo *out) {
  /* Everything in one allocation: the struct, then int arrays. */
  size_t nint = (size_t)indegree + (size_t)outdegree;
  if (weighted) nint += (size_t)indegree + (size_t)outdegree;
  if (channels) nint += (size_t)indegree + (size_t)outdegree;
  nint += 3 * (size_t)ndims + (size_t)noffsets * (size_t)ndims;
  struct nhood_topo *t = calloc(1, sizeof *t + nint * sizeof(int));
  if (!t) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a topology of degree %d/%d", indegree, outdegree);
  int *next = (int *)(t + 1);
#define TAKE(field, n) (t->field = next, next += (n))
  t->kind = kind;
  t->indegree = indegree;
  t->outdegree = outdegree;
  t->nchannels = 1;
  TAKE(sources, indegree);
  TAKE(destinations, outdegree);
  if (weighted) {
    TAKE(sourceweights, indegree);
    TAKE(destweights, outdegree);
  }
  if (channels) {
    TAKE(recv_channel, indegree);
    TAKE(send_channel, outdegree);
  }
  t->ndims = ndims;
  if (ndims > 0) {
    TAKE(dims, ndims);
    TAKE(periods, ndims);
    TAKE(coords, ndims);
  }
  t->noffsets = noffsets;
  if (noffsets > 0 && ndims > 0) TAKE(offsets, (size_t)noffsets * ndims);
#undef TAKE
  strcpy(t->algorithm, "auto");
  for (int k = 0; k < NHOOD_TOPO_MAX_KEYS; k++) atomic_init(&t->attrs[k], NULL);
  *out = t;
  return MPI_SUCCESS;
}

void nhood_topo_finish(NHOOD_Topo t) {
  t->max_rank = -1;
  for (int i = 0; i < t->indegree; i++)
    if (t->sources[i] > t->max_rank) t->max_rank = t->sources[i];
  for (int j = 0; j < t->outdegree; j++)
    if (t->destinations[j] > t->max_rank) t->max_rank = t->destinations[j];
}

NHOOD_HOT int nhood_topo_validate(NHOOD_Topo topo, const char *what) {
  if (topo == NHOOD_TOPO_NULL) return nhood_error(MPI_ERR_TOPOLOGY, "%s is NHOOD_TOPO_NULL", what);
  if (!nhood_handle_is_live(topo, NHOOD_HANDLE_TOPO))
    return nhood_error(MPI_ERR_TOPOLOGY, "%s is not a valid topology object (freed or never created)", what);
  return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------------------ */

static _Atomic(nhood_topo_key *) keys[NHOOD_TOPO_MAX_KEYS]; /* by slot, for the destructors */
static atomic_int nkeys;

/* The key's slot, assigned at its first use; -1 when every slot is taken. */
NHOOD_HOT static int slot_of(nhood_topo_key *key) {
  int slot = atomic_load(&key->slot);
  if (slot >= 0) return slot;
  static atomic_flag lock = ATOMIC_FLAG_INIT;
  while (atomic_flag_test_and_set(&lock)) {}
  slot = atomic_load(&key->slot);
  if (slot < 0 && atomic_load(&nkeys) < NHOOD_TOPO_MAX_KEYS) {
    slot = atomic_fetch_add(&nkeys, 1);
    atomic_store(&keys[slot], key);
    atomic_store(&key->slot, slot);
  }
  atomic_flag_clear(&lock);
  return slot;
}

NHOOD_HOT void *nhood_topo_attr(NHOOD_Topo t, nhood_topo_key *key) {
  int slot = slot_of(key);
  return slot < 0 ? NULL : atomic_load(&t->attrs[slot]);
}

int nhood_topo_attr_swap(NHOOD_Topo t, nhood_topo_key *key, void **expected, void *value) {
  int slot = slot_of(key);
  if (slot < 0) return -1;
  return atomic_compare_exchange_strong(&t->attrs[slot], expected, value);
}

int nhood_topo_attr_set(NHOOD_Topo t, nhood_topo_key *key, void *value) {
  int slot = slot_of(key);
  if (slot < 0) return nhood_error(MPI_ERR_INTERN, "more than %d kinds of topology attributes", NHOOD_TOPO_MAX_KEYS);
  void *old = atomic_exchange(&t->attrs[slot], value);
  if (old && key->destroy) key->destroy(old);
  return MPI_SUCCESS;
}

void nhood_topo_destroy(NHOOD_Topo t) {
  if (t == NULL) return;
  nhood_handles_advance(); /* before its attributes go: a thread's memo may point at them */
  for (int k = 0; k < NHOOD_TOPO_MAX_KEYS; k++) {
    void *value = atomic_exchange(&t->attrs[k], NULL);
    nhood_topo_key *key = atomic_load(&keys[k]);
    if (value && key && key->destroy) key->destroy(value);
  }
  free(t);
}

int nhood_topo_check_ranks(NHOOD_Topo topo, int size) {
  if (topo->max_rank >= size)
    return nhood_error(MPI_ERR_RANK, "topo lists rank %d but comm has only %d process%s", topo->max_rank, size,
                       size == 1 ? "" : "es");
  return MPI_SUCCESS;
}

/* Validates one adjacency list; `what` is the argument's name. */
static int check_list(int degree, const int ranks[], const int weights[], const char *degname, const char *what,
                      const char *wname) {
  if (degree < 0) return nhood_error(MPI_ERR_ARG, "%s is negative (%d)", degname, degree);
  if (degree > 0 && ranks == NULL) return nhood_error(MPI_ERR_ARG, "%s is NULL but %s is %d", what, degname, degree);
  /* As MPI_Dist_graph_create_adjacent: an array, or MPI_UNWEIGHTED; MPI_WEIGHTS_EMPTY (or
   * anything, NULL included) only where the degree is 0. */
  if (degree > 0 && weights == NULL)
    return nhood_error(MPI_ERR_ARG, "%s is NULL but %s is %d (pass MPI_UNWEIGHTED for no weights)", wname, degname,
                       degree);
  if (degree > 0 && weights == MPI_WEIGHTS_EMPTY)
    return nhood_error(MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY but %s is %d (it stands for no weights of a degree of 0)",
                       wname, degname, degree);
  for (int i = 0; i < degree; i++) {
    if (ranks[i] < 0 && ranks[i] != MPI_PROC_NULL)
      return nhood_error(MPI_ERR_RANK, "%s[%d] = %d is not a rank", what, i, ranks[i]);
    if (weights != MPI_UNWEIGHTED && weights[i] < 0)
      return nhood_error(MPI_ERR_ARG, "%s[%d] = %d is negative", wname, i, weights[i]);
  }
  return MPI_SUCCESS;
}

int nhood_topo_from_lists(int indegree, const int sources[], const int *sourceweights, int outdegree,
                          const int destinations[], const int *destweights, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS;
  NHOOD_Topo t = NULL;
  NHOOD_TRY(check_list(indegree, sources, sourceweights, "indegree", "sources", "sourceweights"));
  NHOOD_TRY(check_list(outdegree, destinations, destweights, "outdegree", "destinations", "destweights"));
  /* A side with degree 0 may pass anything as weights (MPI_WEIGHTS_EMPTY, NULL). */
  int in_weighted = indegree > 0 && sourceweights != MPI_UNWEIGHTED;
  int out_weighted = outdegree > 0 && destweights != MPI_UNWEIGHTED;
  if (indegree > 0 && outdegree > 0 && in_weighted != out_weighted)
    return nhood_error(MPI_ERR_ARG, "sourceweights and destweights must both be MPI_UNWEIGHTED or both be arrays");
  int weighted = in_weighted || out_weighted;
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_ADJACENT, indegree, outdegree, weighted, 0, 0, 0, &t));
  if (indegree) memcpy(t->sources, sources, sizeof(int) * indegree);
  if (outdegree) memcpy(t->destinations, destinations, sizeof(int) * outdegree);
  if (weighted) {
    for (int i = 0; i < indegree; i++) t->sourceweights[i] = in_weighted ? sourceweights[i] : 1;
    for (int j = 0; j < outdegree; j++) t->destweights[j] = out_weighted ? destweights[j] : 1;
  }
  nhood_topo_finish(t);
  *out = t;
cleanup:
  return rc;
}

static int create_from_dist_graph(MPI_Comm comm, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS, indeg = 0, outdeg = 0, weighted = 0;
  NHOOD_Topo t = NULL;
  NHOOD_MPI_CALL(MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted));
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_ADJACENT, indeg, outdeg, weighted, 0, 0, 0, &t));
  NHOOD_MPI_CALL(MPI_Dist_graph_neighbors(comm, indeg, t->sources, weighted ? t->sourceweights : MPI_UNWEIGHTED, outdeg,
                                          t->destinations, weighted ? t->destweights : MPI_UNWEIGHTED));
  *out = t;
  return MPI_SUCCESS;
cleanup:
  free(t);
  return rc;
}

static int create_from_graph(MPI_Comm comm, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS, rank = 0, n = 0;
  NHOOD_Topo t = NULL;
  NHOOD_MPI_CALL(MPI_Comm_rank(comm, &rank));
  NHOOD_MPI_CALL(MPI_Graph_neighbors_count(comm, rank, &n));
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_ADJACENT, n, n, 0, 0, 0, 0, &t));
  NHOOD_MPI_CALL(MPI_Graph_neighbors(comm, rank, n, t->sources));
  if (n) memcpy(t->destinations, t->sources, sizeof(int) * n);
  *out = t;
  return MPI_SUCCESS;
cleanup:
  free(t);
  return rc;
}

static int create_from_cart(MPI_Comm comm, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS, ndims = 0;
  NHOOD_Topo t = NULL;
  NHOOD_MPI_CALL(MPI_Cartdim_get(comm, &ndims));
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_CART, 2 * ndims, 2 * ndims, 0, 1, ndims, 0, &t));
  if (ndims > 0) NHOOD_MPI_CALL(MPI_Cart_get(comm, ndims, t->dims, t->periods, t->coords));
  for (int d = 0; d < ndims; d++) {
    int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
    NHOOD_MPI_CALL(MPI_Cart_shift(comm, d, 1, &lower, &upper));
    t->sources[2 * d] = t->destinations[2 * d] = lower;
    t->sources[2 * d + 1] = t->destinations[2 * d + 1] = upper;
    /* Send block 2d travels towards lower coordinates, 2d+1 towards higher ones; the block
     * received from the lower neighbor (2d) is the one it sent upwards (its 2d+1). */
    t->send_channel[2 * d] = 2 * d;
    t->send_channel[2 * d + 1] = 2 * d + 1;
    t->recv_channel[2 * d] = 2 * d + 1;
    t->recv_channel[2 * d + 1] = 2 * d;
  }
  t->nchannels = ndims > 0 ? 2 * ndims : 1;
  *out = t;
  return MPI_SUCCESS;
cleanup:
  free(t);
  return rc;
}

int nhood_topo_from_comm(MPI_Comm comm, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS, status = MPI_UNDEFINED;
  NHOOD_Topo t = NULL;
  if (comm == MPI_COMM_NULL) return nhood_error(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  NHOOD_MPI_CALL(MPI_Topo_test(comm, &status));
  switch (status) {
    case MPI_DIST_GRAPH:
      NHOOD_TRY(create_from_dist_graph(comm, &t));
      break;
    case MPI_GRAPH:
      NHOOD_TRY(create_from_graph(comm, &t));
      break;
    case MPI_CART:
      NHOOD_TRY(create_from_cart(comm, &t));
      break;
    default:
      return nhood_error(MPI_ERR_TOPOLOGY, "comm carries no topology (MPI_Topo_test gives MPI_UNDEFINED)");
  }
  nhood_topo_finish(t);
  *out = t;
cleanup:
  return rc;
}

int nhood_topo_reversed(NHOOD_Topo topo, NHOOD_Topo *reverse) {
  int rc = MPI_SUCCESS;
  NHOOD_Topo r = NULL;
  NHOOD_TRY(nhood_topo_alloc(topo->kind, topo->outdegree, topo->indegree, topo->sourceweights != NULL,
                             topo->recv_channel != NULL, topo->ndims, topo->noffsets, &r));
  size_t in = sizeof(int) * (size_t)topo->indegree, out = sizeof(int) * (size_t)topo->outdegree;
  memcpy(r->sources, topo->destinations, out);
  memcpy(r->destinations, topo->sources, in);
  if (r->sourceweights) {
    memcpy(r->sourceweights, topo->destweights, out);
    memcpy(r->destweights, topo->sourceweights, in);
  }
  /* A message that arrived on channel c is answered on channel c (see topology.h). */
  if (r->recv_channel) {
    memcpy(r->recv_channel, topo->send_channel, out);
    memcpy(r->send_channel, topo->recv_channel, in);
  }
  r->nchannels = topo->nchannels;
  size_t nd = sizeof(int) * (size_t)topo->ndims;
  if (nd) {
    memcpy(r->dims, topo->dims, nd);
    memcpy(r->periods, topo->periods, nd);
    memcpy(r->coords, topo->coords, nd);
  }
  /* Reversing offset C_i gives -C_i: send to X - C_i, receive from X + C_i. */
  for (int k = 0; k < topo->noffsets * topo->ndims; k++) r->offsets[k] = -topo->offsets[k];
  strcpy(r->algorithm, topo->algorithm);
  r->ranks_per_node = topo->ranks_per_node;
  nhood_topo_finish(r);
  *reverse = r;
cleanup:
  return rc;
}

/* The part of edge source -> destination. */
static int part_of(int by_source, int source, int destination, int nparts) {
  return (by_source ? source : destination) % nparts;
}

int nhood_topo_part(NHOOD_Topo topo, int me, int nparts, int by_source, int part, NHOOD_Topo *out) {
  int rc = MPI_SUCCESS, in = 0, outd = 0;
  NHOOD_Topo r = NULL;
  if (topo->nchannels != 1)
    return nhood_error(MPI_ERR_TOPOLOGY,
                       "topo has Cartesian channels (a communicator's Cartesian topology), where blocks of one "
                       "neighbor pair by direction; split a topology from lists or offsets instead");
  for (int i = 0; i < topo->indegree; i++)
    in += topo->sources[i] != MPI_PROC_NULL && part_of(by_source, topo->sources[i], me, nparts) == part;
  for (int j = 0; j < topo->outdegree; j++)
    outd += topo->destinations[j] != MPI_PROC_NULL && part_of(by_source, me, topo->destinations[j], nparts) == part;
  NHOOD_TRY(nhood_topo_alloc(NHOOD_TOPO_ADJACENT, in, outd, topo->sourceweights != NULL, 0, 0, 0, &r));
  in = outd = 0;
  for (int i = 0; i < topo->indegree; i++)
    if (topo->sources[i] != MPI_PROC_NULL && part_of(by_source, topo->sources[i], me, nparts) == part) {
      if (r->sourceweights) r->sourceweights[in] = topo->sourceweights[i];
      r->sources[in++] = topo->sources[i];
    }
  for (int j = 0; j < topo->outdegree; j++)
    if (topo->destinations[j] != MPI_PROC_NULL && part_of(by_source, me, topo->destinations[j], nparts) == part) {
      if (r->destweights) r->destweights[outd] = topo->destweights[j];
      r->destinations[outd++] = topo->destinations[j];
    }
  r->nchannels = 1;
  strcpy(r->algorithm, topo->algorithm);
  r->ranks_per_node = topo->ranks_per_node;
  nhood_topo_finish(r);
  *out = r;
cleanup:
  return rc;
}

static int count_real(int n, const int ranks[]) {
  int c = 0;
  for (int i = 0; i < n; i++) c += ranks[i] != MPI_PROC_NULL;
  return c;
}

int NHOOD_Topo_degrees(NHOOD_Topo topo, int include_proc_null, int *indegree, int *outdegree, int *weighted) {
  int rc = nhood_topo_validate(topo, "topo");
  if (rc != MPI_SUCCESS) return rc;
  if (indegree) *indegree = include_proc_null ? topo->indegree : count_real(topo->indegree, topo->sources);
  if (outdegree) *outdegree = include_proc_null ? topo->outdegree : count_real(topo->outdegree, topo->destinations);
  if (weighted) *weighted = topo->sourceweights != NULL;
  return MPI_SUCCESS;
}

/* Copies one list (and its weights) into caller arrays, optionally dropping MPI_PROC_NULL. */
static void copy_list(int n, const int ranks[], const int weights[], int include_proc_null, int out[],
                      int outweights[]) {
  int k = 0;
  int want_weights = outweights != NULL && outweights != MPI_UNWEIGHTED;
  for (int i = 0; i < n; i++) {
    if (!include_proc_null && ranks[i] == MPI_PROC_NULL) continue;
    if (out) out[k] = ranks[i];
    if (want_weights) outweights[k] = weights ? weights[i] : 1;
    k++;
  }
}

int NHOOD_Topo_neighbors(NHOOD_Topo topo, int include_proc_null, int maxindegree, int sources[], int *sourceweights,
                         int maxoutdegree, int destinations[], int *destweights) {
  int indeg = 0, outdeg = 0;
  int rc = NHOOD_Topo_degrees(topo, include_proc_null, &indeg, &outdeg, NULL);
  if (rc != MPI_SUCCESS) return rc;
  if (maxindegree < indeg)
    return nhood_error(MPI_ERR_ARG, "maxindegree (%d) is less than the indegree (%d)", maxindegree, indeg);
  if (maxoutdegree < outdeg)
    return nhood_error(MPI_ERR_ARG, "maxoutdegree (%d) is less than the outdegree (%d)", maxoutdegree, outdeg);
  if (indeg > 0 && sources == NULL) return nhood_error(MPI_ERR_ARG, "sources is NULL");
  if (outdeg > 0 && destinations == NULL) return nhood_error(MPI_ERR_ARG, "destinations is NULL");
  copy_list(topo->indegree, topo->sources, topo->sourceweights, include_proc_null, sources, sourceweights);
  copy_list(topo->outdegree, topo->destinations, topo->destweights, include_proc_null, destinations, destweights);
  return MPI_SUCCESS;
}

int nhood_located_cmp(const void *a, const void *b) {
  const nhood_located *x = a, *y = b;
  if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->index > y->index) - (x->index < y->index);
}
