/*
 * MPI-4.1 conformance of the neighborhood collectives through the interposition library, with
 * expected results computed here from the standard's rules, never from an MPI library:
 *
 * - graphs (distributed and MPI_Graph_create) whose lists repeat ranks, hold self loops and
 *   MPI_PROC_NULL, and leave some processes without neighbors, with indegree != outdegree: the
 *   k-th receive block from q takes q's k-th send block to this process;
 * - Cartesian grids with periodic dimensions of size 1 and 2 (and others, and non-periodic
 *   ones): receive block i takes the neighbor's send block i^1 (the message that travelled in
 *   the same direction); MPI_PROC_NULL blocks are left alone.
 *
 * Every collective (allgather, allgatherv, alltoall, alltoallv, alltoallw) in every mode
 * (blocking, non-blocking, persistent where the MPI has it), three calls each with new data, on
 * a new communicator per topology, so that the calls of a cold communicator (NHOOD_COLD unset)
 * and of one nhood runs from the first (NHOOD_COLD=off) are both judged. Then misuse: each bad
 * argument nhood's API rejects, on a communicator whose handler returns errors, must come back
 * as that error class, on every process, and leave the communicator usable.
 *
 *   test_conformance            refuses to run without libnhood-mpi.so
 *   test_conformance --native   MPI alone (to see what the MPI itself gets wrong)
 *   test_conformance [--native] --only S   the topologies whose names contain S ("misuse":
 *                               the misuse cases)
 *
 * Ends with 'test_conformance: N passed, M failed'.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interposed.h"

#define MAX_EDGES 64
#define SENTINEL (-7)
#define ITERATIONS 3

typedef struct {
  char name[64];
  MPI_Comm comm; /* a new one for each collective and mode (comm_create) */
  int kind;      /* MPI_DIST_GRAPH, MPI_GRAPH or MPI_CART */
  int cart;      /* receive block i takes send block i^1 */
  int ndims, dims[3], periods[3];
  /* Every process's lists (all processes know all of them), MPI's layout order. */
  int nprocs;
  int indegree[16], outdegree[16];
  int sources[16][MAX_EDGES], destinations[16][MAX_EDGES];
} topology;

static int rank, size, passed, failed;
static const char *only; /* --only: topology names containing this */

static void verdict(int ok, const char *what, const char *topo) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (all)
    passed++;
  else
    failed++;
  if (!ok) printf("rank %d: FAILED %s on %s\n", rank, what, topo);
}

/* ---- deterministic random numbers, the same on every process ------------------------------ */

static unsigned long long rng_state;
static unsigned rng(unsigned n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng_state >> 33) % n;
}

/* ---- topologies ---------------------------------------------------------------------------- */

/* A multigraph of `edges` random edges (self loops and repeats among them), a repeated edge and,
 * with proc_null, MPI_PROC_NULL in some lists; rank size-1 has no neighbor where size > 2. */
static void insert_proc_null(int *list, int *n, int at) {
  memmove(list + at + 1, list + at, sizeof(int) * (size_t)(*n - at));
  list[at] = MPI_PROC_NULL;
  (*n)++;
}

static void random_graph(topology *t, unsigned seed, int edges, int proc_null) {
  rng_state = seed;
  memset(t->indegree, 0, sizeof t->indegree);
  memset(t->outdegree, 0, sizeof t->outdegree);
  int lonely = size > 2 ? size - 1 : -1;
  for (int e = 0; e < edges; e++) {
    int p = (int)rng((unsigned)size), q = (int)rng((unsigned)size);
    if (p == lonely || q == lonely) continue;
    if (t->outdegree[p] >= MAX_EDGES - 2 || t->indegree[q] >= MAX_EDGES - 2) continue;
    t->destinations[p][t->outdegree[p]++] = q;
    t->sources[q][t->indegree[q]++] = p;
  }
  /* A repeated edge for sure: 0 -> size-2 (size-1 on 2 processes, a self loop on one) twice. */
  int p = 0, q = size > 2 ? size - 2 : size - 1;
  for (int k = 0; k < 2; k++) {
    t->destinations[p][t->outdegree[p]++] = q;
    t->sources[q][t->indegree[q]++] = p;
  }
  /* Sources in a shuffled order: pairing is by occurrence, not by position. */
  for (int r = 0; r < size; r++)
    for (int i = t->indegree[r] - 1; i > 0; i--) {
      int j = (int)rng((unsigned)i + 1), x = t->sources[r][i];
      t->sources[r][i] = t->sources[r][j];
      t->sources[r][j] = x;
    }
  /* MPI_PROC_NULL first among the sources and halfway through the destinations: an MPI that
   * dropped it and packed the other blocks would misplace them. */
  if (proc_null)
    for (int r = 0; r < size; r += 2) {
      if (r == lonely) continue;
      insert_proc_null(t->sources[r], &t->indegree[r], 0);
      insert_proc_null(t->destinations[r], &t->outdegree[r], t->outdegree[r] / 2);
    }
}

static void make_dist_graph(topology *t, const char *name, unsigned seed, int edges, int proc_null) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  random_graph(t, seed, edges, proc_null);
  t->kind = MPI_DIST_GRAPH;
}

/* A graph communicator: symmetric, with repeated pairs and self loops. */
static void make_graph(topology *t, unsigned seed) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "graph-multi");
  rng_state = seed;
  for (int e = 0; e < 2 * size + 2; e++) {
    int p = (int)rng((unsigned)size), q = e < 2 ? 0 : (int)rng((unsigned)size);
    if (e < 2) p = size - 1; /* size-1 <-> 0 twice */
    if (t->outdegree[p] >= MAX_EDGES - 2 || t->outdegree[q] >= MAX_EDGES - 2) continue;
    t->destinations[p][t->outdegree[p]++] = q;
    if (p != q) t->destinations[q][t->outdegree[q]++] = p;
  }
  for (int r = 0; r < size; r++) {
    memcpy(t->sources[r], t->destinations[r], sizeof(int) * (size_t)t->outdegree[r]);
    t->indegree[r] = t->outdegree[r];
  }
  t->kind = MPI_GRAPH;
}

/* A Cartesian grid (row-major ranks, no reordering): the neighbors of dimension d at -1 and +1. */
static void make_cart(topology *t, int ndims, const int dims[], const int periods[]) {
  memset(t, 0, sizeof *t);
  int len = snprintf(t->name, sizeof t->name, "cart");
  for (int d = 0; d < ndims; d++)
    len +=
        snprintf(t->name + len, sizeof t->name - (size_t)len, "%s%d%s", d ? "x" : "-", dims[d], periods[d] ? "p" : "");
  t->cart = 1;
  for (int r = 0; r < size; r++) {
    int coords[8], rest = r;
    for (int d = ndims - 1; d >= 0; d--) {
      coords[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (int d = 0; d < ndims; d++)
      for (int dir = -1; dir <= 1; dir += 2) {
        int c = coords[d] + dir, neighbor = MPI_PROC_NULL;
        if (periods[d]) c = (c + dims[d]) % dims[d];
        if (c >= 0 && c < dims[d]) {
          neighbor = 0;
          for (int e = 0; e < ndims; e++) neighbor = neighbor * dims[e] + (e == d ? c : coords[e]);
        }
        t->sources[r][t->indegree[r]++] = neighbor;
        t->destinations[r][t->outdegree[r]++] = neighbor;
      }
  }
  t->kind = MPI_CART;
  t->ndims = ndims;
  memcpy(t->dims, dims, sizeof(int) * (size_t)ndims);
  memcpy(t->periods, periods, sizeof(int) * (size_t)ndims);
}

/* A new communicator with t's topology: each collective and mode starts on a cold one. */
static void comm_create(topology *t) {
  if (t->kind == MPI_CART) {
    MPI_Cart_create(MPI_COMM_WORLD, t->ndims, t->dims, t->periods, 0, &t->comm);
  } else if (t->kind == MPI_GRAPH) {
    int index[16], edges[16 * MAX_EDGES], n = 0;
    for (int r = 0; r < size; r++) {
      for (int k = 0; k < t->outdegree[r]; k++) edges[n++] = t->destinations[r][k];
      index[r] = n;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t->comm);
  } else {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->indegree[rank], t->sources[rank], interposed_unweighted(),
                                   t->outdegree[rank], t->destinations[rank], interposed_unweighted(), MPI_INFO_NULL, 0,
                                   &t->comm);
  }
}

/* ---- MPI-4.1's pairing ------------------------------------------------------------------- */

/* The send block of sources[me][i] that arrives in receive block i (-1: MPI_PROC_NULL). */
static int paired_send_block(const topology *t, int me, int i) {
  int s = t->sources[me][i];
  if (s == MPI_PROC_NULL) return -1;
  if (t->cart) return i ^ 1;
  int k = 0;
  for (int x = 0; x < i; x++) k += t->sources[me][x] == s;
  for (int j = 0; j < t->outdegree[s]; j++)
    if (t->destinations[s][j] == me && k-- == 0) return j;
  return -2; /* inconsistent lists: a bug of this test */
}

/* The value of element e of send block j of process p at iteration it (allgather: block 0). */
static int value(int p, int j, int e, int it) { return 1 + p * 100000 + j * 1000 + e * 10 + it; }
/* Elements per block: of p's send block j (v and w; some are 0), and of p's allgatherv block. */
static int block_count(int p, int j) { return (p + 2 * j) % 3; }
static int gather_count(int p) { return 1 + p % 3; }

/* ---- one collective, every mode ------------------------------------------------------------- */

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, NCOLLS };
static const char *const coll_names[NCOLLS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
enum { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *const mode_names[NMODES] = {"blocking", "non-blocking", "persistent"};

typedef struct {
  int in, out;
  int scounts[MAX_EDGES], sdispls[MAX_EDGES], rcounts[MAX_EDGES], rdispls[MAX_EDGES];
  MPI_Aint sbytes[MAX_EDGES], rbytes[MAX_EDGES];
  MPI_Datatype types[MAX_EDGES];
  int slen, rlen;
  int *send, *recv, *expected;
} layout;

/* v and w blocks laid out with a gap of one element after each, so that a write past a block
 * shows; allgather and alltoall blocks are contiguous, as MPI lays them out, with one element
 * after the last. */
static void make_layout(const topology *t, int coll, layout *L) {
  L->in = t->indegree[rank];
  L->out = t->outdegree[rank];
  L->slen = L->rlen = 0;
  for (int j = 0; j < L->out; j++) {
    L->scounts[j] = coll == ALLTOALL ? 2 : coll == ALLTOALLV || coll == ALLTOALLW ? block_count(rank, j) : 0;
    L->sdispls[j] = L->slen;
    L->sbytes[j] = (MPI_Aint)sizeof(int) * L->slen;
    L->slen += L->scounts[j] + (coll != ALLTOALL);
  }
  if (coll == ALLTOALL) L->slen++;
  if (coll == ALLGATHER || coll == ALLGATHERV) L->slen = coll == ALLGATHER ? 2 : gather_count(rank);
  for (int i = 0; i < L->in; i++) {
    int s = t->sources[rank][i], j = paired_send_block(t, rank, i);
    int n = coll == ALLGATHER || coll == ALLTOALL ? 2
            : s == MPI_PROC_NULL                  ? 1
            : coll == ALLGATHERV                  ? gather_count(s)
                                                  : block_count(s, j);
    L->rcounts[i] = n;
    L->rdispls[i] = L->rlen;
    L->rbytes[i] = (MPI_Aint)sizeof(int) * L->rlen;
    L->rlen += n + (coll != ALLGATHER && coll != ALLTOALL);
  }
  if (coll == ALLGATHER || coll == ALLTOALL) L->rlen++;
  for (int k = 0; k < MAX_EDGES; k++) L->types[k] = MPI_INT;
  L->send = malloc(sizeof(int) * (size_t)(L->slen + 1));
  L->recv = malloc(sizeof(int) * (size_t)(L->rlen + 1));
  L->expected = malloc(sizeof(int) * (size_t)(L->rlen + 1));
}

static void fill(const topology *t, int coll, layout *L, int it) {
  for (int k = 0; k < L->slen; k++) L->send[k] = SENTINEL;
  if (coll == ALLGATHER || coll == ALLGATHERV)
    for (int e = 0; e < L->slen; e++) L->send[e] = value(rank, 0, e, it);
  else
    for (int j = 0; j < L->out; j++)
      for (int e = 0; e < L->scounts[j]; e++) L->send[L->sdispls[j] + e] = value(rank, j, e, it);
  for (int k = 0; k < L->rlen; k++) L->recv[k] = L->expected[k] = SENTINEL;
  for (int i = 0; i < L->in; i++) {
    int s = t->sources[rank][i], j = paired_send_block(t, rank, i);
    if (s == MPI_PROC_NULL) continue;
    for (int e = 0; e < L->rcounts[i]; e++)
      L->expected[L->rdispls[i] + e] = value(s, coll == ALLGATHER || coll == ALLGATHERV ? 0 : j, e, it);
  }
}

/* The arrays a call passes: NULL on a side without neighbors (MPI's arrays have no element
 * there, and nhood accepts NULL). */
typedef struct {
  const int *scounts, *sdispls, *rcounts, *rdispls;
  const MPI_Aint *sbytes, *rbytes;
  const MPI_Datatype *stypes, *rtypes;
} arrays;

static int start_call(int coll, int mode, layout *L, MPI_Comm comm, MPI_Request *req) {
  int c = 2, sc = coll == ALLGATHERV ? gather_count(rank) : 2, s = L->out > 0, r = L->in > 0;
  arrays A = {s ? L->scounts : NULL, s ? L->sdispls : NULL, r ? L->rcounts : NULL, r ? L->rdispls : NULL,
              s ? L->sbytes : NULL,  r ? L->rbytes : NULL,  s ? L->types : NULL,   r ? L->types : NULL};
  switch (mode * NCOLLS + coll) {
    case BLOCKING *NCOLLS + ALLGATHER:
      return MPI_Neighbor_allgather(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm);
    case BLOCKING *NCOLLS + ALLGATHERV:
      return MPI_Neighbor_allgatherv(L->send, sc, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT, comm);
    case BLOCKING *NCOLLS + ALLTOALL:
      return MPI_Neighbor_alltoall(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm);
    case BLOCKING *NCOLLS + ALLTOALLV:
      return MPI_Neighbor_alltoallv(L->send, A.scounts, A.sdispls, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT,
                                    comm);
    case BLOCKING *NCOLLS + ALLTOALLW:
      return MPI_Neighbor_alltoallw(L->send, A.scounts, A.sbytes, A.stypes, L->recv, A.rcounts, A.rbytes, A.rtypes,
                                    comm);
    case NONBLOCKING *NCOLLS + ALLGATHER:
      return MPI_Ineighbor_allgather(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm, req);
    case NONBLOCKING *NCOLLS + ALLGATHERV:
      return MPI_Ineighbor_allgatherv(L->send, sc, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT, comm, req);
    case NONBLOCKING *NCOLLS + ALLTOALL:
      return MPI_Ineighbor_alltoall(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm, req);
    case NONBLOCKING *NCOLLS + ALLTOALLV:
      return MPI_Ineighbor_alltoallv(L->send, A.scounts, A.sdispls, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT,
                                     comm, req);
    case NONBLOCKING *NCOLLS + ALLTOALLW:
      return MPI_Ineighbor_alltoallw(L->send, A.scounts, A.sbytes, A.stypes, L->recv, A.rcounts, A.rbytes, A.rtypes,
                                     comm, req);
#ifdef PERSISTENT_INIT
    case PERSISTENT *NCOLLS + ALLGATHER:
      return PERSISTENT_INIT(allgather)(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm, MPI_INFO_NULL, req);
    case PERSISTENT *NCOLLS + ALLGATHERV:
      return PERSISTENT_INIT(allgatherv)(L->send, sc, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT, comm,
                                         MPI_INFO_NULL, req);
    case PERSISTENT *NCOLLS + ALLTOALL:
      return PERSISTENT_INIT(alltoall)(L->send, c, MPI_INT, L->recv, c, MPI_INT, comm, MPI_INFO_NULL, req);
    case PERSISTENT *NCOLLS + ALLTOALLV:
      return PERSISTENT_INIT(alltoallv)(L->send, A.scounts, A.sdispls, MPI_INT, L->recv, A.rcounts, A.rdispls, MPI_INT,
                                        comm, MPI_INFO_NULL, req);
    case PERSISTENT *NCOLLS + ALLTOALLW:
      return PERSISTENT_INIT(alltoallw)(L->send, A.scounts, A.sbytes, A.stypes, L->recv, A.rcounts, A.rbytes, A.rtypes,
                                        comm, MPI_INFO_NULL, req);
#endif
    default:
      return MPI_ERR_UNSUPPORTED_OPERATION;
  }
}

/* Three calls of coll in `mode` on t, each checked whole (gaps and MPI_PROC_NULL blocks too). */
static void run(const topology *t, int coll, int mode) {
  layout L;
  make_layout(t, coll, &L);
  MPI_Request req = MPI_REQUEST_NULL;
  int ok = 1, rc = MPI_SUCCESS;
  for (int it = 0; it < ITERATIONS && ok; it++) {
    fill(t, coll, &L, it);
    if (mode == PERSISTENT) {
      if (it == 0) rc = start_call(coll, mode, &L, t->comm, &req);
      if (rc == MPI_SUCCESS) rc = MPI_Start(&req);
    } else {
      rc = start_call(coll, mode, &L, t->comm, &req);
    }
    if (rc == MPI_SUCCESS && mode != BLOCKING) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = rc == MPI_SUCCESS && memcmp(L.recv, L.expected, sizeof(int) * (size_t)L.rlen) == 0;
    if (!ok && rc == MPI_SUCCESS)
      for (int k = 0; k < L.rlen; k++)
        if (L.recv[k] != L.expected[k]) {
          printf("rank %d: %s %s call %d: element %d is %d, MPI-4.1 says %d\n", rank, coll_names[coll],
                 mode_names[mode], it + 1, k, L.recv[k], L.expected[k]);
          break;
        }
  }
  if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
  char what[64];
  snprintf(what, sizeof what, "%s %s", coll_names[coll], mode_names[mode]);
  verdict(ok, what, t->name);
  free(L.send);
  free(L.recv);
  free(L.expected);
}

/* A distributed graph's lists and weights as MPI reports them, on comm or on a duplicate of it,
 * against t's (weight of an edge: 100 times its position, plus 1). */
static int lists_reported(const topology *t, int weighted_graph, int on_duplicate) {
  int in = 0, out = 0, weighted = 0, s[MAX_EDGES], d[MAX_EDGES], sw[MAX_EDGES], dw[MAX_EDGES], ok = 1;
  MPI_Comm comm = t->comm;
  if (on_duplicate) MPI_Comm_dup(t->comm, &comm);
  MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  MPI_Dist_graph_neighbors(comm, in, s, weighted_graph ? sw : interposed_unweighted(), out, d,
                           weighted_graph ? dw : interposed_unweighted());
  ok = in == t->indegree[rank] && out == t->outdegree[rank] && !weighted == !weighted_graph &&
       !memcmp(s, t->sources[rank], sizeof(int) * (size_t)in) &&
       !memcmp(d, t->destinations[rank], sizeof(int) * (size_t)out);
  for (int k = 0; weighted_graph && ok && k < in; k++) ok = sw[k] == 100 * k + 1;
  for (int k = 0; weighted_graph && ok && k < out; k++) ok = dw[k] == 100 * k + 1;
  if (on_duplicate) MPI_Comm_free(&comm);
  return ok;
}

static void run_topology(topology *t) {
  if (only && !strstr(t->name, only)) return;
  /* The lists MPI reports must be the ones the expected values come from, also on a duplicate
   * and with weights (where the library gives MPI lists without MPI_PROC_NULL, it answers). */
  int same = 1;
  comm_create(t);
  if (t->kind == MPI_DIST_GRAPH) {
    same = lists_reported(t, 0, 0) && lists_reported(t, 0, 1);
    MPI_Comm_free(&t->comm);
    int sw[MAX_EDGES], dw[MAX_EDGES];
    for (int k = 0; k < MAX_EDGES; k++) sw[k] = dw[k] = 100 * k + 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->indegree[rank], t->sources[rank], sw, t->outdegree[rank],
                                   t->destinations[rank], dw, MPI_INFO_NULL, 0, &t->comm);
    same = same && lists_reported(t, 1, 0) && lists_reported(t, 1, 1);
  }
  MPI_Comm_free(&t->comm);
  verdict(same, "neighbor lists", t->name);
  for (int coll = 0; coll < NCOLLS; coll++)
    for (int mode = 0; mode < NMODES; mode++) {
#ifndef PERSISTENT_INIT
      if (mode == PERSISTENT) continue;
#endif
      comm_create(t);
      /* The blocking calls on a duplicate: it keeps what the library knows of the lists. */
      if (mode == BLOCKING && t->kind == MPI_DIST_GRAPH) {
        MPI_Comm dup = MPI_COMM_NULL;
        MPI_Comm_dup(t->comm, &dup);
        MPI_Comm_free(&t->comm);
        t->comm = dup;
      }
      run(t, coll, mode);
      MPI_Comm_free(&t->comm);
    }
}

/* ---- misuse ------------------------------------------------------------------------------ */

/* One bad call on every process: its error class must be `want` everywhere. */
static void expect_class(int rc, int want, const char *what, const char *on) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (cls != want) printf("rank %d: %s on %s gave error class %d, want %d\n", rank, what, on, cls, want);
  verdict(cls == want, what, on);
}

static void misuse(MPI_Comm comm, const char *on, int after_calls) {
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int degree = 0, in = 0, out = 0, weighted = 0, kind = MPI_UNDEFINED;
  MPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) {
    MPI_Cartdim_get(comm, &degree);
    in = out = 2 * degree;
  } else {
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  }
  int n = 2 * (in + out + 1), *buf = calloc((size_t)n, sizeof(int)), *counts = calloc((size_t)n, sizeof(int));
  int *displs = calloc((size_t)n, sizeof(int));
  MPI_Request req = MPI_REQUEST_NULL;
  for (int k = 0; k < after_calls; k++) MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + n / 2, 1, MPI_INT, comm);
  expect_class(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_ERR_BUFFER,
               "alltoall with MPI_IN_PLACE", on);
  expect_class(MPI_Ineighbor_allgather(buf, 1, MPI_INT, buf + n / 2, -1, MPI_INT, comm, &req), MPI_ERR_COUNT,
               "non-blocking allgather with recvcount -1", on);
  expect_class(MPI_Neighbor_allgather(buf, 1, MPI_DATATYPE_NULL, buf + n / 2, 1, MPI_INT, comm), MPI_ERR_TYPE,
               "allgather with sendtype MPI_DATATYPE_NULL", on);
  if (out > 0)
    expect_class(MPI_Neighbor_alltoallv(buf, NULL, displs, MPI_INT, buf + n / 2, counts, displs, MPI_INT, comm),
                 MPI_ERR_ARG, "alltoallv with sendcounts NULL", on);
  counts[0] = -2;
  if (in > 0)
    expect_class(MPI_Neighbor_alltoallv(buf, counts + 1, displs, MPI_INT, buf + n / 2, counts, displs, MPI_INT, comm),
                 MPI_ERR_COUNT, "alltoallv with recvcounts[0] -2", on);
  /* The communicator still works: every process made the same calls. */
  int rc = MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + n / 2, 1, MPI_INT, comm);
  verdict(rc == MPI_SUCCESS, "a call after the bad ones", on);
  free(buf);
  free(counts);
  free(displs);
}

static void misuse_cases(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  for (int after = 0; after <= 20; after += 20) {
    MPI_Comm cart, graph, plain;
    char on[64];
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    snprintf(on, sizeof on, "a Cartesian communicator after %d calls", after);
    misuse(cart, on, after);
    MPI_Comm_free(&cart);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int sources[2] = {left, right}, destinations[2] = {right, left};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, interposed_unweighted(), 2, destinations,
                                   interposed_unweighted(), MPI_INFO_NULL, 0, &graph);
    snprintf(on, sizeof on, "a distributed graph after %d calls", after);
    misuse(graph, on, after);
    MPI_Comm_free(&graph);
    /* No topology: MPI_ERR_TOPOLOGY. */
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN);
    int x = 0, y = 0;
    expect_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, plain), MPI_ERR_TOPOLOGY,
                 "allgather on a communicator without topology", "MPI_COMM_WORLD's duplicate");
    MPI_Comm_free(&plain);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int native = 0;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--native") == 0) native = 1;
    if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) only = argv[++k];
  }
  if (!native && !interposed()) {
    if (rank == 0) fprintf(stderr, "test_conformance: libnhood-mpi.so is not loaded (--native to test MPI alone)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (size > 16) {
    if (rank == 0) fprintf(stderr, "test_conformance: at most 16 processes\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  topology t;
  make_dist_graph(&t, "dist-graph-multi", 11, 3 * size, 0);
  run_topology(&t);
  make_dist_graph(&t, "dist-graph-proc-null", 23, 2 * size, 1);
  run_topology(&t);
  make_dist_graph(&t, "dist-graph-sparse", 37, size / 2, 0);
  run_topology(&t);
  make_graph(&t, 5);
  run_topology(&t);
  /* Grids with periodic dimensions of size 1 and 2 (on 1 and 2 processes every dimension is),
   * and a non-periodic one (MPI_PROC_NULL neighbors). */
  int grids[][4] = {/* ndims, dims..., periods as bits */
                    {1, size, 0, 0},
                    {2, 1, size, 0},
                    {3, size, 1, 1},
                    {1, size, 0, 0}};
  for (int g = 0; g < 4; g++) {
    int dims[3] = {grids[g][1], grids[g][2], grids[g][3]}, periods[3] = {g < 3, g < 3, g < 3};
    make_cart(&t, grids[g][0], dims, periods);
    run_topology(&t);
  }
  if (size % 2 == 0) {
    int dims[3] = {2, size / 2, 1}, periodic[3] = {1, 1, 1}, open[3] = {0, 1, 1};
    make_cart(&t, 3, dims, periodic);
    run_topology(&t);
    make_cart(&t, 3, dims, open);
    run_topology(&t);
  }
  if (!only || strstr("misuse", only)) misuse_cases();
  if (rank == 0) printf("test_conformance: %d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed > 0;
}
