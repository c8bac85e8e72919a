/*
 * Long runs: nothing grows.
 *
 *   test_soak [--calls N] [--cycles M] [--rss-slack-kib K]     (defaults 100000, 10000, 1024)
 *
 * On a periodic Cartesian communicator with a Moore neighborhood given as offsets (every
 * algorithm applies), for auto and every algorithm of the registry: N blocking allgathers and
 * N starts of a persistent allgather; then M cycles of a topology object created (each with the
 * next algorithm), used by a blocking allgather and a non-blocking alltoall, and freed. Data
 * are checked every 1000th call. A tenth of each runs first as warm-up; then, at the end:
 *
 * - the resident set size (VmRSS) may have grown by at most K KiB on any process (-1: any);
 * - the same number of nhood topology objects, requests and communicator contexts is live;
 * - the communicators and datatypes nhood made through MPI are as many as before: counted by
 *   this program's own MPI_Comm_dup, MPI_Dist_graph_create_adjacent, MPI_Comm_free,
 *   MPI_Type_dup and MPI_Type_free, which forward to MPI's profiling entry points.
 *
 * CI runs a fifth of it (mpi.soak); the full run is `ctest -C soak -R soak.full` (docs/RELIABILITY.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/commctx.h"
#include "common/handles.h"
#include "nhood.h"
#include "testutil.h"

#define MAXDEG 8

static int rank, size, failures;
static long comms_made, types_made; /* made minus freed, through the wrappers below */

/* The profiling interface: every MPI call of nhood's reaches these first. */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc == MPI_SUCCESS) comms_made++;
  return rc;
}
int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *newcomm) {
  int rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                           info, reorder, newcomm);
  if (rc == MPI_SUCCESS) comms_made++;
  return rc;
}
int MPI_Comm_free(MPI_Comm *comm) {
  int rc = PMPI_Comm_free(comm);
  if (rc == MPI_SUCCESS) comms_made--;
  return rc;
}
int MPI_Type_dup(MPI_Datatype type, MPI_Datatype *newtype) {
  int rc = PMPI_Type_dup(type, newtype);
  if (rc == MPI_SUCCESS) types_made++;
  return rc;
}
int MPI_Type_free(MPI_Datatype *type) {
  int rc = PMPI_Type_free(type);
  if (rc == MPI_SUCCESS) types_made--;
  return rc;
}

/* VmRSS of this process in KiB. */
static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return kib;
}

typedef struct {
  long rss, comms, types, contexts, topos, requests;
} census;

static census take_census(void) {
  return (census){rss_kib(),
                  comms_made,
                  types_made,
                  nhood_commctx_live(),
                  (long)nhood_handle_count(NHOOD_HANDLE_TOPO),
                  (long)nhood_handle_count(NHOOD_HANDLE_REQUEST)};
}

static MPI_Comm comm;
static int noffsets, offsets[2 * MAXDEG], indeg, outdeg, sources[MAXDEG], destinations[MAXDEG];

static int value(int q, int to, long r) { return (int)((q * 1009 + to + 1) * 100000 + r % 100000); }

static NHOOD_Topo make_topo(const char *algorithm) {
  MPI_Info info;
  NHOOD_Topo t;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm));
  TEST_CHECK(NHOOD_Topo_create_cart_offsets(comm, noffsets, offsets, info, &t));
  TEST_CHECK(MPI_Info_free(&info));
  return t;
}

static void check_blocks(const int *got, int to, long r, const char *what, const char *algorithm) {
  for (int i = 0; i < indeg; i++)
    if (got[i] != value(sources[i], to, r) && failures++ < 10)
      fprintf(stderr, "rank %d: %s (%s) call %ld: block %d is %d, not %d\n", rank, what, algorithm, r, i, got[i],
              value(sources[i], to, r));
}

/* count blocking allgathers and count persistent starts under one algorithm. */
static void calls(NHOOD_Topo t, NHOOD_Request preq, int *psend, int *pgot, const char *algorithm, long first,
                  long count) {
  int mine, got[MAXDEG];
  for (long r = first; r < first + count; r++) {
    mine = value(rank, -1, r);
    TEST_CHECK(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, t));
    if (r % 1000 == 0) check_blocks(got, -1, r, "allgather", algorithm);
    *psend = value(rank, -1, r + 7);
    TEST_CHECK(NHOOD_Start(&preq));
    TEST_CHECK(NHOOD_Wait(&preq));
    if (r % 1000 == 0) check_blocks(pgot, -1, r + 7, "persistent allgather", algorithm);
  }
}

/* count topology cycles, the algorithm turning with each. */
static void cycles(const char *const *names, int nalg, long first, long count) {
  int mine, got[MAXDEG], send[MAXDEG];
  for (long c = first; c < first + count; c++) {
    const char *algorithm = names[c % nalg];
    NHOOD_Topo t = make_topo(algorithm);
    mine = value(rank, -1, c);
    TEST_CHECK(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, comm, t));
    if (c % 100 == 0) check_blocks(got, -1, c, "cycle allgather", algorithm);
    for (int j = 0; j < outdeg; j++) send[j] = value(rank, destinations[j], c);
    NHOOD_Request req;
    TEST_CHECK(NHOOD_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, comm, t, &req));
    TEST_CHECK(NHOOD_Wait(&req));
    if (c % 100 == 0) check_blocks(got, rank, c, "cycle alltoall", algorithm);
    TEST_CHECK(NHOOD_Topo_free(&t));
  }
}

int main(int argc, char **argv) {
  long ncalls = 100000, ncycles = 10000, rss_slack_kib = 1024;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--calls") == 0)
      ncalls = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--cycles") == 0)
      ncycles = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--rss-slack-kib") == 0) /* -1: no limit */
      rss_slack_kib = atol(argv[i + 1]);
  }
  MPI_Init(&argc, &argv);
  int world, dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  TEST_CHECK(MPI_Dims_create(world, 2, dims));
  TEST_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) offsets[2 * noffsets] = dy, offsets[2 * noffsets + 1] = dx, noffsets++;

  const char *names[TEST_MAX_ALGORITHMS];
  int nalg = test_algorithms(1, names);
  NHOOD_Topo topos[TEST_MAX_ALGORITHMS];
  NHOOD_Request preqs[TEST_MAX_ALGORITHMS];
  int psend[TEST_MAX_ALGORITHMS], pgot[TEST_MAX_ALGORITHMS][MAXDEG];
  for (int a = 0; a < nalg; a++) {
    topos[a] = make_topo(names[a]);
    TEST_CHECK(NHOOD_Neighbor_allgather_init(&psend[a], 1, MPI_INT, pgot[a], 1, MPI_INT, comm, topos[a], MPI_INFO_NULL,
                                             &preqs[a]));
  }
  TEST_CHECK(NHOOD_Topo_degrees(topos[0], 1, &indeg, &outdeg, NULL));
  TEST_CHECK(NHOOD_Topo_neighbors(topos[0], 1, MAXDEG, sources, NULL, MAXDEG, destinations, NULL));

  long warm_calls = ncalls / 10, warm_cycles = ncycles / 10;
  watchdog_arm("warm-up");
  for (int a = 0; a < nalg; a++) calls(topos[a], preqs[a], &psend[a], pgot[a], names[a], 0, warm_calls);
  cycles(names, nalg, 0, warm_cycles);
  census before = take_census();
  double start = MPI_Wtime();
  char what[128];
  for (int a = 0; a < nalg; a++) {
    snprintf(what, sizeof what, "%ld calls of %s", ncalls - warm_calls, names[a]);
    watchdog_arm(what);
    calls(topos[a], preqs[a], &psend[a], pgot[a], names[a], warm_calls, ncalls - warm_calls);
  }
  watchdog_arm("topology cycles");
  cycles(names, nalg, warm_cycles, ncycles - warm_cycles);
  census after = take_census();
  double seconds = MPI_Wtime() - start;
  watchdog_disarm();

  /* What grew, on any process. */
  long growth[6] = {after.rss - before.rss,           after.comms - before.comms, after.types - before.types,
                    after.contexts - before.contexts, after.topos - before.topos, after.requests - before.requests};
  for (int k = 1; k < 6; k++) growth[k] = labs(growth[k]); /* a count that fell is as wrong */
  long max_growth[6];
  MPI_Allreduce(growth, max_growth, 6, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  long rss[2] = {before.rss, after.rss}, max_rss[2];
  MPI_Allreduce(rss, max_rss, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf(
        "test_soak np=%d: %d algorithms x %ld blocking calls and %ld persistent starts, %ld topology cycles, %.1f s\n",
        size, nalg, ncalls, ncalls, ncycles, seconds);
    printf("  after warm-up: VmRSS %ld KiB (max over processes); at the end %ld KiB; largest growth %ld KiB\n",
           max_rss[0], max_rss[1], max_growth[0]);
    printf(
        "  change (largest over processes): MPI communicators %ld, datatypes %ld, nhood contexts %ld, topology "
        "objects %ld, requests %ld\n",
        max_growth[1], max_growth[2], max_growth[3], max_growth[4], max_growth[5]);
  }
  if (rss_slack_kib >= 0 && max_growth[0] > rss_slack_kib) failures++;
  for (int k = 1; k < 6; k++)
    if (max_growth[k] != 0) failures++;

  for (int a = 0; a < nalg; a++) {
    TEST_CHECK(NHOOD_Request_free(&preqs[a]));
    TEST_CHECK(NHOOD_Topo_free(&topos[a]));
  }
  TEST_CHECK(MPI_Comm_free(&comm));
  return test_finish("test_soak", failures);
}
