/*
 * Correctness of the neighborhood reductions (NHOOD_Neighbor_reduce and
 * NHOOD_Neighbor_scatter_reduce, blocking, non-blocking and persistent) under every algorithm,
 * over the topology corpus (corpus.h).
 *
 * The expected result comes from the MPI library: the vectors exchanged by an
 * MPI_Neighbor_alltoallw that places every block explicitly (the corpus's reference
 * lists), then reduced with MPI_Reduce_local in source order. Every operation below is exact
 * (integers, or max of doubles), so any order of a commutative reduction gives the same
 * bytes, and the whole receive buffer, holes included, is compared.
 *
 * Operation cases: MPI_SUM on 3 ints; MPI_MAX on 2 doubles; a user-defined commutative
 * operation (sum of the first double, max of the second) on 2 elements of a strided double
 * type with holes that must stay untouched. (Open MPI refuses predefined operations on
 * derived datatypes, in MPI_Reduce_local as in its own reductions: so do these calls there.)
 *
 * Options: --algorithm LIST and --topology LIST (comma-separated; topology names are
 * substrings), --verbose. NHOOD_TEST_SABOTAGE=1 flips a byte of every result: the run must
 * then fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "nhood.h"
#include "testutil.h"

/* Every algorithm of nhood's registry (where one does not apply, its fallback runs). */
static const char *algorithms[TEST_MAX_ALGORITHMS];
static int NALGORITHMS;

enum { COLL_REDUCE, COLL_SCATTER_REDUCE, NCOLLS };
static const char *const coll_names[NCOLLS] = {"reduce", "scatter_reduce"};
enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, NMODES };
static const char *const mode_names[NMODES] = {"blocking", "nonblocking", "persistent"};
enum { OP_SUM_INT, OP_MAX_DOUBLE, OP_USER_STRIDED, NOPS };
static const char *const op_names[NOPS] = {"sum-int", "max-double", "user-strided"};

typedef struct {
  MPI_Datatype type;
  MPI_Op op;
  int count;
  int is_double;   /* elements are doubles (else ints) */
  int per_element; /* basic elements per datatype element */
  MPI_Aint extent;
} op_case;

typedef struct {
  int rank, size, verbose, sabotage;
  const char *filter_algorithm, *filter_topology;
  op_case ops[NOPS];
  int ncases, nfailed;
} test_context;

/* On the strided type (doubles 0 and 2 of every 4): the sum of the first, the max of the
 * second. Commutative and associative, and exact on the values used. */
static void sum_max_strided(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const double *a = in;
  double *b = inout;
  for (int k = 0; k < *len; k++) {
    b[4 * k] += a[4 * k];
    if (a[4 * k + 2] > b[4 * k + 2]) b[4 * k + 2] = a[4 * k + 2];
  }
}

static void ops_create(op_case ops[NOPS]) {
  ops[OP_SUM_INT] = (op_case){.type = MPI_INT, .op = MPI_SUM, .count = 3, .per_element = 1};
  ops[OP_MAX_DOUBLE] = (op_case){.type = MPI_DOUBLE, .op = MPI_MAX, .count = 2, .is_double = 1, .per_element = 1};
  op_case *u = &ops[OP_USER_STRIDED];
  MPI_Datatype strided;
  TEST_CHECK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided)); /* doubles 0 and 2 of every 4 */
  TEST_CHECK(MPI_Type_create_resized(strided, 0, 4 * (MPI_Aint)sizeof(double), &u->type));
  TEST_CHECK(MPI_Type_free(&strided));
  TEST_CHECK(MPI_Type_commit(&u->type));
  TEST_CHECK(MPI_Op_create(sum_max_strided, 1, &u->op));
  u->count = 2, u->is_double = 1, u->per_element = 2;
  for (int k = 0; k < NOPS; k++) {
    MPI_Aint lb;
    TEST_CHECK(MPI_Type_get_extent(ops[k].type, &lb, &ops[k].extent));
  }
}

static void ops_free(op_case ops[NOPS]) {
  TEST_CHECK(MPI_Type_free(&ops[OP_USER_STRIDED].type));
  TEST_CHECK(MPI_Op_free(&ops[OP_USER_STRIDED].op));
}

/* A vector's bytes: holes hold a sentinel; elements hold small values that depend on the
 * sender, the block, the element and the round, so that a misplaced block shows. */
static size_t vector_bytes(const op_case *o) { return (size_t)(o->count * o->extent); }

static void fill_vector(const op_case *o, unsigned char *buf, int sender, int block, int round) {
  memset(buf, 0xA5, vector_bytes(o));
  for (int e = 0; e < o->count; e++)
    for (int k = 0; k < o->per_element; k++) {
      int value = (sender * 7 + block * 13 + e * 3 + k * 5 + round * 11) % 61 - 30;
      if (o->is_double) {
        double d = value + 0.25;
        memcpy(buf + e * o->extent + (MPI_Aint)((o->per_element > 1 ? 2 : 1) * k * sizeof(double)), &d, sizeof d);
      } else {
        memcpy(buf + e * o->extent + (MPI_Aint)(k * sizeof(int)), &value, sizeof value);
      }
    }
}

/* The expected receive vector: MPI's alltoallw exchange of the same send buffer, then a local
 * reduction over the blocks of existing sources. */
static void reference(const corpus_entry *e, MPI_Comm ref_graph, int coll, const op_case *o, const unsigned char *send,
                      unsigned char *expected) {
  int in = e->alltoallw_indegree, out = e->alltoallw_outdegree;
  size_t vb = vector_bytes(o);
  unsigned char *blocks = test_malloc(vb * (size_t)(e->indegree + 1));
  int *sendcounts = test_malloc(sizeof(int) * (size_t)(out + 1)),
      *recvcounts = test_malloc(sizeof(int) * (size_t)(in + 1));
  MPI_Aint *sdispls = test_malloc(sizeof(MPI_Aint) * (size_t)(out + 1));
  MPI_Aint *rdispls = test_malloc(sizeof(MPI_Aint) * (size_t)(in + 1));
  MPI_Datatype *sendtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)(out + 1));
  MPI_Datatype *recvtypes = test_malloc(sizeof(MPI_Datatype) * (size_t)(in + 1));
  for (int k = 0; k < out; k++) {
    int block = e->alltoallw_send_block[k];
    sendcounts[k] = block >= 0 ? o->count : 0, sendtypes[k] = o->type;
    sdispls[k] = coll == COLL_SCATTER_REDUCE && block >= 0 ? (MPI_Aint)block * (MPI_Aint)vb : 0;
  }
  for (int k = 0; k < in; k++) {
    int block = e->alltoallw_recv_block[k];
    recvcounts[k] = block >= 0 ? o->count : 0, recvtypes[k] = o->type;
    rdispls[k] = block >= 0 ? (MPI_Aint)block * (MPI_Aint)vb : 0;
  }
  TEST_CHECK(
      MPI_Neighbor_alltoallw(send, sendcounts, sdispls, sendtypes, blocks, recvcounts, rdispls, recvtypes, ref_graph));
  memset(expected, 0xA5, vb);
  int first = 1;
  for (int i = 0; i < e->indegree; i++) {
    if (e->sources[i] == MPI_PROC_NULL) continue;
    unsigned char *block = blocks + (size_t)i * vb;
    if (first) { /* copy the elements, not the holes */
      int size, position = 0;
      TEST_CHECK(MPI_Pack_size(o->count, o->type, MPI_COMM_SELF, &size));
      void *packed = test_malloc((size_t)size);
      TEST_CHECK(MPI_Pack(block, o->count, o->type, packed, size, &position, MPI_COMM_SELF));
      position = 0;
      TEST_CHECK(MPI_Unpack(packed, size, &position, expected, o->count, o->type, MPI_COMM_SELF));
      free(packed);
    } else {
      TEST_CHECK(MPI_Reduce_local(block, expected, o->count, o->type, o->op));
    }
    first = 0;
  }
  free(blocks);
  free(sendcounts);
  free(recvcounts);
  free(sdispls);
  free(rdispls);
  free(sendtypes);
  free(recvtypes);
}

static int call_reduce(int coll, int mode, const void *send, void *recv, const op_case *o, MPI_Comm comm,
                       NHOOD_Topo topo, NHOOD_Request *req) {
  if (coll == COLL_REDUCE) {
    if (mode == MODE_BLOCKING) return NHOOD_Neighbor_reduce(send, recv, o->count, o->type, o->op, comm, topo);
    if (mode == MODE_NONBLOCKING) return NHOOD_Ineighbor_reduce(send, recv, o->count, o->type, o->op, comm, topo, req);
    return NHOOD_Neighbor_reduce_init(send, recv, o->count, o->type, o->op, comm, topo, MPI_INFO_NULL, req);
  }
  if (mode == MODE_BLOCKING) return NHOOD_Neighbor_scatter_reduce(send, recv, o->count, o->type, o->op, comm, topo);
  if (mode == MODE_NONBLOCKING)
    return NHOOD_Ineighbor_scatter_reduce(send, recv, o->count, o->type, o->op, comm, topo, req);
  return NHOOD_Neighbor_scatter_reduce_init(send, recv, o->count, o->type, o->op, comm, topo, MPI_INFO_NULL, req);
}

/* Records a case that failed on this process if `failed`; cases are counted in the same order
 * on every process, and the totals are combined at the end. */
static void record(test_context *t, int failed, const char *what) {
  t->ncases++;
  if (failed) {
    t->nfailed++;
    fprintf(stderr, "rank %d: FAILED %s\n", t->rank, what);
  } else if (t->verbose && t->rank == 0) {
    printf("ok %s\n", what);
  }
}

static void run_entry(test_context *t, const corpus_entry *e) {
  MPI_Comm ref_graph;
  int in = e->alltoallw_indegree, out = e->alltoallw_outdegree;
  int *sources = test_malloc(sizeof(int) * (size_t)(in + 1)),
      *destinations = test_malloc(sizeof(int) * (size_t)(out + 1));
  for (int k = 0; k < in; k++)
    sources[k] = e->alltoallw_recv_block[k] >= 0 ? e->sources[e->alltoallw_recv_block[k]] : MPI_PROC_NULL;
  for (int k = 0; k < out; k++)
    destinations[k] = e->alltoallw_send_block[k] >= 0 ? e->destinations[e->alltoallw_send_block[k]] : MPI_PROC_NULL;
  TEST_CHECK(MPI_Dist_graph_create_adjacent(e->ref_comm, in, sources, test_unweighted(), out, destinations,
                                            test_unweighted(), MPI_INFO_NULL, 0, &ref_graph));
  free(sources);
  free(destinations);
  for (int coll = 0; coll < NCOLLS; coll++)
    for (int o = 0; o < NOPS; o++) {
      const op_case *oc = &t->ops[o];
      size_t vb = vector_bytes(oc);
      int nsend = coll == COLL_REDUCE ? 1 : (e->outdegree > 0 ? e->outdegree : 1);
      unsigned char *send[2], *expected[2], *got = test_malloc(vb), *psend = test_malloc(vb * (size_t)nsend);
      for (int r = 0; r < 2; r++) {
        send[r] = test_malloc(vb * (size_t)nsend);
        expected[r] = test_malloc(vb);
        for (int j = 0; j < nsend; j++) fill_vector(oc, send[r] + (size_t)j * vb, t->rank, j, r);
        reference(e, ref_graph, coll, oc, send[r], expected[r]);
      }
      for (int a = 0; a < NALGORITHMS; a++) {
        if (!test_selected(algorithms[a], t->filter_algorithm)) continue;
        for (int mode = 0; mode < NMODES; mode++) {
          char what[256];
          snprintf(what, sizeof what, "np=%d topo=%s coll=%s op=%s mode=%s algo=%s", t->size, e->name, coll_names[coll],
                   op_names[o], mode_names[mode], algorithms[a]);
          watchdog_arm(what);
          NHOOD_Request req = NHOOD_REQUEST_NULL;
          int rounds = mode == MODE_PERSISTENT ? 2 : 1;
          if (mode == MODE_PERSISTENT)
            TEST_CHECK(call_reduce(coll, mode, psend, got, oc, e->nhood_comm, e->topo[a], &req));
          for (int r = 0; r < rounds; r++) {
            memset(got, 0xA5, vb);
            if (mode == MODE_PERSISTENT) {
              memcpy(psend, send[r], vb * (size_t)nsend);
              TEST_CHECK(NHOOD_Start(&req));
            } else {
              TEST_CHECK(call_reduce(coll, mode, send[r], got, oc, e->nhood_comm, e->topo[a], &req));
            }
            if (mode != MODE_BLOCKING) TEST_CHECK(NHOOD_Wait(&req));
            if (t->sabotage) got[0] ^= 1;
            record(t, memcmp(got, expected[r], vb) != 0, what);
          }
          if (mode == MODE_PERSISTENT) TEST_CHECK(NHOOD_Request_free(&req));
          watchdog_disarm();
        }
      }
      for (int r = 0; r < 2; r++) {
        free(send[r]);
        free(expected[r]);
      }
      free(got);
      free(psend);
    }
  TEST_CHECK(MPI_Comm_free(&ref_graph));
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  test_context t;
  memset(&t, 0, sizeof t);
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--verbose") == 0)
      t.verbose = 1;
    else if (strcmp(argv[k], "--algorithm") == 0 && k + 1 < argc)
      t.filter_algorithm = argv[++k];
    else if (strcmp(argv[k], "--topology") == 0 && k + 1 < argc)
      t.filter_topology = argv[++k];
    else {
      if (t.rank == 0) fprintf(stderr, "usage: test_reduce [--algorithm LIST] [--topology LIST] [--verbose]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const char *sabotage = getenv("NHOOD_TEST_SABOTAGE");
  t.sabotage = sabotage != NULL && strcmp(sabotage, "1") == 0;
  double start = MPI_Wtime();
  NALGORITHMS = test_algorithms(0, algorithms);
  MPI_Info infos[TEST_MAX_ALGORITHMS];
  for (int a = 0; a < NALGORITHMS; a++) {
    TEST_CHECK(MPI_Info_create(&infos[a]));
    TEST_CHECK(MPI_Info_set(infos[a], NHOOD_INFO_ALGORITHM, algorithms[a]));
  }
  ops_create(t.ops);
  corpus c;
  corpus_build(infos, NALGORITHMS, t.filter_topology, &c);
  for (int k = 0; k < c.nentries; k++) run_entry(&t, &c.entries[k]);

  int corpus_failures = 0;
  TEST_CHECK(MPI_Allreduce(&c.nfailures, &corpus_failures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  int total_failed = 0;
  TEST_CHECK(MPI_Allreduce(&t.nfailed, &total_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (t.rank == 0)
    printf(
        "test_reduce np=%d%s: %d cases per process, %d failures over all processes, %d corpus check(s) failed "
        "(%d topologies) in %.1f s\n",
        t.size, t.sabotage ? " [SABOTAGE: must fail]" : "", t.ncases, total_failed, corpus_failures, c.nentries,
        MPI_Wtime() - start);
  corpus_free(&c);
  ops_free(t.ops);
  for (int a = 0; a < NALGORITHMS; a++) MPI_Info_free(&infos[a]);
  MPI_Finalize();
  return total_failed || corpus_failures || t.ncases == 0 ? 1 : 0;
}
