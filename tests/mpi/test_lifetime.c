/*
 * Requests outlive what they were made from. nhood.h promises that a non-blocking or
 * persistent request stays valid after the caller frees the topology object, the datatypes
 * and the communicator it was created with (as MPI's own requests outlive their datatypes
 * and communicator). For every algorithm and collective, on a graph and on an isomorphic
 * topology: start a non-blocking call and create a persistent one, free everything they were
 * made from, then complete the first and start the second three times, checking the data.
 *
 *   test_lifetime [--algorithm a,b,...]
 *
 * Topology: receive from the left neighbor and oneself, send to the right one and oneself
 * (a self loop and, on 1 or 2 processes, duplicate edges). Receive block i then always holds
 * send block i of source i.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "testutil.h"

#define DEG 2
#define STARTS 3

typedef enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, REDUCE, SCATTER_REDUCE, NKINDS } kind;
static const char *const kind_names[NKINDS] = {"allgather", "allgatherv", "alltoall",      "alltoallv",
                                               "alltoallw", "reduce",     "scatter_reduce"};

static int failures, checks;

/* Send block k of process `from` at start `round`. */
static int value(int from, int k, int round) { return 1 + from * 100 + k * 10 + round; }

typedef struct {
  int rank, size, sources[DEG];
  int send[DEG], recv[DEG];
  int counts[DEG], displs[DEG];
  MPI_Aint byte_displs[DEG];
} call;

static void fill(call *c, kind k, int round) {
  for (int b = 0; b < DEG; b++) {
    /* allgather(v) and reduce send one block; the others one per destination. */
    int block = (k == ALLGATHER || k == ALLGATHERV || k == REDUCE) ? 0 : b;
    c->send[b] = value(c->rank, block, round);
    c->recv[b] = -1;
  }
}

static void check(call *c, kind k, int round, const char *what) {
  int one_block = k == ALLGATHER || k == ALLGATHERV || k == REDUCE;
  int sum = 0, ok = 1;
  for (int i = 0; i < DEG; i++) {
    int want = value(c->sources[i], one_block ? 0 : i, round);
    sum += want;
    if (k != REDUCE && k != SCATTER_REDUCE && c->recv[i] != want) ok = 0;
  }
  if ((k == REDUCE || k == SCATTER_REDUCE) && c->recv[0] != sum) ok = 0;
  checks++;
  if (!ok) {
    failures++;
    fprintf(stderr, "rank %d: FAILED %s %s start %d: got %d %d\n", c->rank, what, kind_names[k], round, c->recv[0],
            c->recv[1]);
  }
}

/* Starts (nonblocking) or creates (persistent) call k; types are the caller's, freed after. */
static int post(call *c, kind k, MPI_Datatype type, MPI_Datatype *types, MPI_Comm comm, NHOOD_Topo topo, int persistent,
                NHOOD_Request *req) {
  MPI_Info none = MPI_INFO_NULL;
  switch (k) {
    case ALLGATHER:
      return persistent ? NHOOD_Neighbor_allgather_init(c->send, 1, type, c->recv, 1, type, comm, topo, none, req)
                        : NHOOD_Ineighbor_allgather(c->send, 1, type, c->recv, 1, type, comm, topo, req);
    case ALLGATHERV:
      return persistent
                 ? NHOOD_Neighbor_allgatherv_init(c->send, 1, type, c->recv, c->counts, c->displs, type, comm, topo,
                                                  none, req)
                 : NHOOD_Ineighbor_allgatherv(c->send, 1, type, c->recv, c->counts, c->displs, type, comm, topo, req);
    case ALLTOALL:
      return persistent ? NHOOD_Neighbor_alltoall_init(c->send, 1, type, c->recv, 1, type, comm, topo, none, req)
                        : NHOOD_Ineighbor_alltoall(c->send, 1, type, c->recv, 1, type, comm, topo, req);
    case ALLTOALLV:
      return persistent ? NHOOD_Neighbor_alltoallv_init(c->send, c->counts, c->displs, type, c->recv, c->counts,
                                                        c->displs, type, comm, topo, none, req)
                        : NHOOD_Ineighbor_alltoallv(c->send, c->counts, c->displs, type, c->recv, c->counts, c->displs,
                                                    type, comm, topo, req);
    case ALLTOALLW:
      return persistent ? NHOOD_Neighbor_alltoallw_init(c->send, c->counts, c->byte_displs, types, c->recv, c->counts,
                                                        c->byte_displs, types, comm, topo, none, req)
                        : NHOOD_Ineighbor_alltoallw(c->send, c->counts, c->byte_displs, types, c->recv, c->counts,
                                                    c->byte_displs, types, comm, topo, req);
    case REDUCE:
      /* Predefined ops on derived types are refused by Open MPI: reduce MPI_INT. */
      return persistent ? NHOOD_Neighbor_reduce_init(c->send, c->recv, 1, MPI_INT, MPI_SUM, comm, topo, none, req)
                        : NHOOD_Ineighbor_reduce(c->send, c->recv, 1, MPI_INT, MPI_SUM, comm, topo, req);
    case SCATTER_REDUCE:
      return persistent
                 ? NHOOD_Neighbor_scatter_reduce_init(c->send, c->recv, 1, MPI_INT, MPI_SUM, comm, topo, none, req)
                 : NHOOD_Ineighbor_scatter_reduce(c->send, c->recv, 1, MPI_INT, MPI_SUM, comm, topo, req);
    default:
      return MPI_ERR_ARG;
  }
}

/* A fresh copy of MPI_INT that the caller frees right after posting. */
static MPI_Datatype derived_int(void) {
  MPI_Datatype t;
  TEST_CHECK(MPI_Type_contiguous(1, MPI_INT, &t));
  TEST_CHECK(MPI_Type_commit(&t));
  return t;
}

/* A topology made with algorithm `alg`: the ring (graph) or the same neighbors as offsets
 * -1 and 0 on a periodic 1-D grid (isomorphic). */
static NHOOD_Topo make_topology(const call *c, const char *alg, int isomorphic, MPI_Comm grid) {
  MPI_Info info;
  NHOOD_Topo topo;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, alg));
  if (isomorphic) {
    int offsets[DEG] = {1, 0}; /* send block 0 to X + 1, receive block 0 from X - 1 */
    TEST_CHECK(NHOOD_Topo_create_cart_offsets(grid, DEG, offsets, info, &topo));
  } else {
    int right = (c->rank + 1) % c->size, destinations[DEG] = {right, c->rank};
    TEST_CHECK(NHOOD_Topo_create_adjacent(DEG, c->sources, test_unweighted(), DEG, destinations, test_unweighted(),
                                          info, &topo));
  }
  TEST_CHECK(MPI_Info_free(&info));
  return topo;
}

static void run_case(call *c, const char *alg, int isomorphic, kind k) {
  char what[128];
  snprintf(what, sizeof what, "%s on %s", alg, isomorphic ? "an isomorphic topology" : "a graph");
  watchdog_arm(what);
  MPI_Comm comm, grid;
  int periodic = 1;
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &c->size, &periodic, 0, &grid));
  TEST_CHECK(MPI_Comm_dup(isomorphic ? grid : MPI_COMM_WORLD, &comm));
  NHOOD_Topo topo = make_topology(c, alg, isomorphic, grid);
  NHOOD_Request nonblocking = NHOOD_REQUEST_NULL, persistent = NHOOD_REQUEST_NULL;
  MPI_Datatype type = derived_int(), types[DEG] = {derived_int(), derived_int()};

  call nb = *c, ps = *c; /* separate buffers */
  fill(&nb, k, 0);
  fill(&ps, k, 0);
  TEST_CHECK(post(&nb, k, type, types, comm, topo, 0, &nonblocking));
  TEST_CHECK(post(&ps, k, type, types, comm, topo, 1, &persistent));

  /* Everything the requests were made from goes away. */
  TEST_CHECK(NHOOD_Topo_free(&topo));
  TEST_CHECK(MPI_Type_free(&type));
  for (int b = 0; b < DEG; b++) TEST_CHECK(MPI_Type_free(&types[b]));
  TEST_CHECK(MPI_Comm_free(&comm));
  TEST_CHECK(MPI_Comm_free(&grid));

  TEST_CHECK(NHOOD_Wait(&nonblocking));
  check(&nb, k, 0, what);
  for (int round = 0; round < STARTS; round++) {
    fill(&ps, k, round);
    TEST_CHECK(NHOOD_Start(&persistent));
    TEST_CHECK(NHOOD_Wait(&persistent));
    check(&ps, k, round, what);
  }
  TEST_CHECK(NHOOD_Request_free(&persistent));
  watchdog_disarm();
}

int main(int argc, char **argv) {
  test_mpi_init(&argc, &argv);
  const char *filter = NULL;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--algorithm") == 0) filter = argv[++i];
  call c;
  memset(&c, 0, sizeof c);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  c.sources[0] = (c.rank + c.size - 1) % c.size;
  c.sources[1] = c.rank;
  for (int b = 0; b < DEG; b++) {
    c.counts[b] = 1;
    c.displs[b] = b;
    c.byte_displs[b] = (MPI_Aint)(b * sizeof(int));
  }

  /* Every algorithm of the registry and auto, on both topologies: where one does not apply,
   * the request runs its fallback, whose lifetime counts as much. */
  const char *algs[TEST_MAX_ALGORITHMS];
  int nalgs = test_algorithms(1, algs);
  for (int iso = 0; iso < 2; iso++)
    for (int a = 0; a < nalgs; a++) {
      if (!test_selected(algs[a], filter)) continue;
      for (int k = 0; k < NKINDS; k++) run_case(&c, algs[a], iso, (kind)k);
    }

  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (c.rank == 0) printf("test_lifetime np=%d: %d passed, %d failed\n", c.size, checks - failures, failures);
  MPI_Finalize();
  return failures > 0;
}
