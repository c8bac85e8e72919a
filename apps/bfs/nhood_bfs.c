/*
 * nhood-bfs: level-synchronous top-down breadth-first search on an R-MAT graph with a 2-D
 * distribution of its adjacency matrix (Buluc and Madduri's, as CombBLAS runs it), in three
 * versions that differ only in how the two exchanges of a level move:
 *
 *   a  MPI's collectives on row and column sub-communicators (MPI_Comm_split): the frontier
 *      expanded by MPI_Allgather(v) along the process column, the candidates folded by
 *      MPI_Alltoall(v) along the process row (CombBLAS's way);
 *   b  nhood's blocking neighborhood collectives on two topology objects of MPI_COMM_WORLD,
 *      the column and the row neighborhoods (no sub-communicator);
 *   c  b's exchanges each cut into K phases (NHOOD_Topo_split: the expand by source, the
 *      fold by destination), all posted at once as non-blocking calls, the computation on
 *      each phase's data done while the later phases are still in flight (Kandalla et al.);
 *      with NHOOD_PROGRESS=thread the phases also move while the process computes.
 *
 *   nhood-bfs [--scale S] [--ef E] [--seed N] [--roots R] [--grid PRxPC] [--versions a,b,c]
 *             [--phases K] [--algo NAME] [--sabotage 1] [--json FILE]
 *
 * The graph: rmat:scale=S,ef=E,seed=N,scramble=1 of nhood's topology SPECs (Graph500's
 * generator parameters a, b, c = 0.57, 0.19, 0.19, vertices relabelled as Graph500 does),
 * undirected, self loops and repeated edges dropped; every process generates it whole
 * (defaults: scale 14, edge factor 16, seed 1). The distribution, for P = PR x PC processes
 * (default: the most nearly square grid): vertices are cut into P pieces of ceil(n / P);
 * process r = i + j PR (row i, column j of the grid) owns piece r, and holds the edges
 * (u, v) with u in a piece of its grid row (pieces = i mod PR) and v in a piece of its grid
 * column (pieces j PR .. j PR + PR - 1). A level: the frontier's vertices of column j are
 * gathered by the column's processes (expand), each follows its edges to candidate (vertex,
 * parent) pairs, which go to the vertices' owners, all in its grid row (fold); an owner keeps
 * the first parent of each new vertex.
 *
 * R roots (default 16) with at least one edge, drawn from the seed, the same for every
 * version. Every search is validated as Graph500 validates: the levels equal a serial BFS's
 * (every process runs one on the whole graph), the root is its own parent, every other
 * reached vertex's parent is a neighbor one level up, unreached vertices have none.
 * --sabotage 1 makes each process give the first candidate it receives itself as parent: the
 * searches must be reported WRONG.
 *
 * Reported per version: TEPS (Graph500's: the edges of the root's component over the
 * search's time; harmonic mean over roots), the median search time, the time per level
 * spent in communication calls (the slowest process's), and for c the exposed communication
 * (time in its calls, waits included) as a fraction of b's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/app_util.h"
#include "nhood.h"
#include "topospec.h"

enum { V_A, V_B, V_C, NVERSIONS };
static const char *const version_names[NVERSIONS] = {"a", "b", "c"};
static const char *const version_text[NVERSIONS] = {"MPI collectives on row/column communicators",
                                                    "nhood neighborhood collectives, blocking",
                                                    "nhood, phased non-blocking, overlapped"};

typedef struct {
  int scale, ef, roots, pr, pc, phases, sabotage;
  unsigned long long seed;
  int versions[NVERSIONS];
  const char *algo, *json;
} options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: nhood-bfs [--scale S] [--ef E] [--seed N] [--roots R] [--grid PRxPC] [--versions a,b,c]\n"
          "                 [--phases K] [--algo NAME] [--sabotage 1] [--json FILE]\n");
}

static int parse(int argc, char **argv, int size, options *o) {
  *o = (options){.scale = 14, .ef = 16, .roots = 16, .phases = 2, .seed = 1, .algo = "auto"};
  o->versions[V_A] = o->versions[V_B] = o->versions[V_C] = 1;
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(a, "--help") == 0) return 1;
    if (!v) return 2;
    k++;
    if (strcmp(a, "--scale") == 0)
      o->scale = atoi(v);
    else if (strcmp(a, "--ef") == 0)
      o->ef = atoi(v);
    else if (strcmp(a, "--seed") == 0)
      o->seed = strtoull(v, NULL, 10);
    else if (strcmp(a, "--roots") == 0)
      o->roots = atoi(v);
    else if (strcmp(a, "--phases") == 0)
      o->phases = atoi(v);
    else if (strcmp(a, "--algo") == 0)
      o->algo = v;
    else if (strcmp(a, "--json") == 0)
      o->json = v;
    else if (strcmp(a, "--sabotage") == 0)
      o->sabotage = atoi(v);
    else if (strcmp(a, "--grid") == 0) {
      if (sscanf(v, "%dx%d", &o->pr, &o->pc) != 2) return 2;
    } else if (strcmp(a, "--versions") == 0) {
      memset(o->versions, 0, sizeof o->versions);
      for (const char *c = v; *c; c++)
        if (*c >= 'a' && *c <= 'c') o->versions[*c - 'a'] = 1;
    } else
      return 2;
  }
  if (o->pr == 0) {
    o->pr = 1;
    for (int d = 1; d * d <= size; d++)
      if (size % d == 0) o->pr = d;
    o->pc = size / o->pr;
  }
  if (o->pr * o->pc != size || o->scale < 1 || o->scale > 26 || o->ef < 1 || o->roots < 1 || o->phases < 1) return 2;
  return 0;
}

/* ---- the distribution ------------------------------------------------------------------ */

typedef struct {
  int rank, size, pr, pc, i, j;
  int n, b;        /* vertices, piece size */
  int lo, hi;      /* owned vertices */
  int clo, chi;    /* the grid column's vertices: pieces j PR .. j PR + PR - 1 */
  long long *cptr; /* local CSC: for v in [clo, chi), the neighbors u in the grid row's pieces */
  int *rows;
  const long long *gptr; /* the whole graph (every process holds it) */
  const int *gcol;
} dist;

static int owner(const dist *d, int v) { return v / d->b; }

static void dist_build(dist *d, const topospec *g, int rank, int size, int pr, int pc) {
  d->rank = rank;
  d->size = size;
  d->pr = pr;
  d->pc = pc;
  d->i = rank % pr;
  d->j = rank / pr;
  d->n = g->mtx_rows;
  d->b = (d->n + size - 1) / size;
  d->lo = rank * d->b < d->n ? rank * d->b : d->n;
  d->hi = (rank + 1) * d->b < d->n ? (rank + 1) * d->b : d->n;
  d->clo = d->j * pr * d->b < d->n ? d->j * pr * d->b : d->n;
  d->chi = (d->j + 1) * pr * d->b < d->n ? (d->j + 1) * pr * d->b : d->n;
  d->gptr = g->mtx_rowptr;
  d->gcol = g->mtx_colind;
  int ncols = d->chi - d->clo;
  d->cptr = xmalloc(sizeof(long long) * ((size_t)ncols + 1));
  long long nnz = 0;
  for (int v = d->clo; v < d->chi; v++)
    for (long long e = g->mtx_rowptr[v]; e < g->mtx_rowptr[v + 1]; e++) nnz += owner(d, g->mtx_colind[e]) % pr == d->i;
  d->rows = xmalloc(sizeof(int) * ((size_t)nnz + 1));
  nnz = 0;
  for (int v = d->clo; v < d->chi; v++) {
    d->cptr[v - d->clo] = nnz;
    for (long long e = g->mtx_rowptr[v]; e < g->mtx_rowptr[v + 1]; e++) {
      int u = g->mtx_colind[e];
      if (owner(d, u) % pr == d->i) d->rows[nnz++] = u;
    }
  }
  d->cptr[ncols] = nnz;
}

/* ---- one search ------------------------------------------------------------------------- */

typedef struct {
  const options *o;
  dist *d;
  /* a: the grid column's and row's communicators (ranks by i and by j) */
  MPI_Comm col_comm, row_comm;
  /* b, c: the column and row neighborhoods of MPI_COMM_WORLD, and c's parts */
  NHOOD_Topo col_topo, row_topo, *col_parts, *row_parts;
  int *col_members, *row_members; /* world ranks, in grid order (i' for the column, j' for the row) */
  /* the search */
  int *parent, *level, *frontier, nfrontier, *next, nnext;
  int *gathered, gathered_cap;
  int *stamp, stamp_now; /* candidates already produced this level (by global vertex) */
  int *cand_count, *cand_displ, *cand, cand_cap, *recv_count, *recv_displ, *recv, recv_cap;
  int *counts_in, *displs_in;
  double comm_s;
  int levels, sabotage_left;
} bfs;

static double now(void) { return MPI_Wtime(); }

static void grow(int **buf, int *cap, int need) {
  if (need <= *cap) return;
  *cap = need > 2 * *cap ? need : 2 * *cap;
  free(*buf);
  *buf = xmalloc(sizeof(int) * (size_t)*cap);
}

/* Candidates from the gathered frontier vertices [from, to): one (u, v) pair per new u,
 * bucketed by u's owner's place in the grid row (its column j' = owner / PR). */
typedef struct {
  int *pairs, npairs, cap;
} bucket;

static void expand_local(bfs *s, const int *vertices, int count, bucket *buckets) {
  dist *d = s->d;
  for (int k = 0; k < count; k++) {
    int v = vertices[k];
    for (long long e = d->cptr[v - d->clo]; e < d->cptr[v - d->clo + 1]; e++) {
      int u = d->rows[e];
      if (s->stamp[u] == s->stamp_now) continue;
      s->stamp[u] = s->stamp_now;
      bucket *bk = &buckets[owner(d, u) / d->pr];
      if (bk->npairs + 2 > bk->cap) {
        bk->cap = bk->cap ? 2 * bk->cap : 64;
        int *bigger = realloc(bk->pairs, sizeof(int) * (size_t)bk->cap);
        if (!bigger) MPI_Abort(MPI_COMM_WORLD, 1);
        bk->pairs = bigger;
      }
      bk->pairs[bk->npairs++] = u;
      bk->pairs[bk->npairs++] = v;
    }
  }
}

/* Received (u, parent) pairs: new vertices join the next frontier. */
static void update(bfs *s, const int *pairs, int count, int level) {
  dist *d = s->d;
  for (int k = 0; k + 1 < count; k += 2) {
    int u = pairs[k], v = pairs[k + 1];
    if (s->sabotage_left > 0) {
      s->sabotage_left--;
      v = u;
    }
    if (s->parent[u - d->lo] >= 0) continue;
    s->parent[u - d->lo] = v;
    s->level[u - d->lo] = level + 1;
    s->next[s->nnext++] = u;
  }
}

/* Packs the buckets into cand (row order); cand_count in ints. */
static void pack(bfs *s, bucket *buckets) {
  int total = 0, pc = s->d->pc;
  for (int k = 0; k < pc; k++) total += buckets[k].npairs;
  grow(&s->cand, &s->cand_cap, total + 1);
  for (int k = 0, at = 0; k < pc; k++) {
    s->cand_count[k] = buckets[k].npairs;
    s->cand_displ[k] = at;
    if (buckets[k].npairs) memcpy(s->cand + at, buckets[k].pairs, sizeof(int) * (size_t)buckets[k].npairs);
    at += buckets[k].npairs;
    buckets[k].npairs = 0;
  }
}

static int sum(const int *v, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) s += v[k];
  return s;
}

static void displs_of(const int *counts, int n, int *displs) {
  for (int k = 0, at = 0; k < n; k++) displs[k] = at, at += counts[k];
}

/* One level of versions a and b: expand, expand_local, fold, update. */
static void level_blocking(bfs *s, int version, int level, bucket *buckets) {
  dist *d = s->d;
  int pr = d->pr, pc = d->pc;
  double t0 = now();
  /* Expand. */
  if (version == V_A) {
    MPI_Allgather(&s->nfrontier, 1, MPI_INT, s->counts_in, 1, MPI_INT, s->col_comm);
  } else {
    check(NHOOD_Neighbor_allgather(&s->nfrontier, 1, MPI_INT, s->counts_in, 1, MPI_INT, MPI_COMM_WORLD, s->col_topo),
          "expand counts");
  }
  displs_of(s->counts_in, pr, s->displs_in);
  int total = sum(s->counts_in, pr);
  grow(&s->gathered, &s->gathered_cap, total + 1);
  if (version == V_A)
    MPI_Allgatherv(s->frontier, s->nfrontier, MPI_INT, s->gathered, s->counts_in, s->displs_in, MPI_INT, s->col_comm);
  else
    check(NHOOD_Neighbor_allgatherv(s->frontier, s->nfrontier, MPI_INT, s->gathered, s->counts_in, s->displs_in,
                                    MPI_INT, MPI_COMM_WORLD, s->col_topo),
          "expand");
  s->comm_s += now() - t0;
  expand_local(s, s->gathered, total, buckets);
  pack(s, buckets);
  /* Fold. */
  t0 = now();
  if (version == V_A)
    MPI_Alltoall(s->cand_count, 1, MPI_INT, s->recv_count, 1, MPI_INT, s->row_comm);
  else
    check(NHOOD_Neighbor_alltoall(s->cand_count, 1, MPI_INT, s->recv_count, 1, MPI_INT, MPI_COMM_WORLD, s->row_topo),
          "fold counts");
  displs_of(s->recv_count, pc, s->recv_displ);
  int received = sum(s->recv_count, pc);
  grow(&s->recv, &s->recv_cap, received + 1);
  if (version == V_A)
    MPI_Alltoallv(s->cand, s->cand_count, s->cand_displ, MPI_INT, s->recv, s->recv_count, s->recv_displ, MPI_INT,
                  s->row_comm);
  else
    check(NHOOD_Neighbor_alltoallv(s->cand, s->cand_count, s->cand_displ, MPI_INT, s->recv, s->recv_count,
                                   s->recv_displ, MPI_INT, MPI_COMM_WORLD, s->row_topo),
          "fold");
  s->comm_s += now() - t0;
  update(s, s->recv, received, level);
}

/* One level of version c: the same exchanges in K phases, posted together, each phase's data
 * worked on while the later ones are in flight. Column members in part p: those with world
 * rank p mod K (by source); row members in part p: the same rule (by destination). */
static void level_phased(bfs *s, int level, bucket *buckets) {
  dist *d = s->d;
  int pr = d->pr, pc = d->pc, K = s->o->phases;
  NHOOD_Request reqs[64];
  int pcount[64 * 64], pdispl[64 * 64];
  double t0 = now();
  check(NHOOD_Neighbor_allgather(&s->nfrontier, 1, MPI_INT, s->counts_in, 1, MPI_INT, MPI_COMM_WORLD, s->col_topo),
        "expand counts");
  displs_of(s->counts_in, pr, s->displs_in);
  int total = sum(s->counts_in, pr);
  grow(&s->gathered, &s->gathered_cap, total + 1);
  /* Part p's receive layout: its sources in the column's order, into the same places. */
  for (int p = 0; p < K; p++) {
    int n = 0;
    for (int k = 0; k < pr; k++)
      if (s->col_members[k] % K == p) pcount[p * 64 + n] = s->counts_in[k], pdispl[p * 64 + n] = s->displs_in[k], n++;
    check(NHOOD_Ineighbor_allgatherv(s->frontier, s->nfrontier, MPI_INT, s->gathered, &pcount[p * 64], &pdispl[p * 64],
                                     MPI_INT, MPI_COMM_WORLD, s->col_parts[p], &reqs[p]),
          "expand phase");
  }
  s->comm_s += now() - t0;
  for (int p = 0; p < K; p++) {
    t0 = now();
    check(NHOOD_Wait(&reqs[p]), "expand phase wait");
    s->comm_s += now() - t0;
    for (int k = 0; k < pr; k++)
      if (s->col_members[k] % K == p) expand_local(s, s->gathered + s->displs_in[k], s->counts_in[k], buckets);
  }
  pack(s, buckets);
  t0 = now();
  check(NHOOD_Neighbor_alltoall(s->cand_count, 1, MPI_INT, s->recv_count, 1, MPI_INT, MPI_COMM_WORLD, s->row_topo),
        "fold counts");
  displs_of(s->recv_count, pc, s->recv_displ);
  int received = sum(s->recv_count, pc);
  grow(&s->recv, &s->recv_cap, received + 1);
  int scount[64 * 64], sdispl[64 * 64];
  for (int p = 0; p < K; p++) {
    int nd = 0, ns = 0;
    for (int k = 0; k < pc; k++) {
      if (s->row_members[k] % K == p) /* destinations of part p */
        scount[p * 64 + nd] = s->cand_count[k], sdispl[p * 64 + nd] = s->cand_displ[k], nd++;
      if (d->rank % K == p) /* part p's sources: the whole row, where this process is a destination */
        pcount[p * 64 + ns] = s->recv_count[k], pdispl[p * 64 + ns] = s->recv_displ[k], ns++;
    }
    check(NHOOD_Ineighbor_alltoallv(s->cand, &scount[p * 64], &sdispl[p * 64], MPI_INT, s->recv, &pcount[p * 64],
                                    &pdispl[p * 64], MPI_INT, MPI_COMM_WORLD, s->row_parts[p], &reqs[p]),
          "fold phase");
  }
  s->comm_s += now() - t0;
  /* Everything arrives in the phase of this process's own rank; the other parts only send. */
  for (int p = 0; p < K; p++) {
    t0 = now();
    check(NHOOD_Wait(&reqs[p]), "fold phase wait");
    s->comm_s += now() - t0;
    if (d->rank % K == p) update(s, s->recv, received, level);
  }
}

/* One search from root; returns the time. */
static double search(bfs *s, int version, int root) {
  dist *d = s->d;
  int owned = d->hi - d->lo;
  bucket *buckets = calloc((size_t)d->pc, sizeof *buckets);
  for (int k = 0; k < owned; k++) s->parent[k] = s->level[k] = -1;
  s->nfrontier = s->nnext = 0;
  s->comm_s = 0;
  s->levels = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  if (root >= d->lo && root < d->hi) {
    s->parent[root - d->lo] = root;
    s->level[root - d->lo] = 0;
    s->frontier[s->nfrontier++] = root;
  }
  for (int level = 0;; level++) {
    s->stamp_now++;
    if (version == V_C)
      level_phased(s, level, buckets);
    else
      level_blocking(s, version, level, buckets);
    int *t = s->frontier;
    s->frontier = s->next;
    s->next = t;
    s->nfrontier = s->nnext;
    s->nnext = 0;
    s->levels++;
    int any = 0;
    double tc = now();
    MPI_Allreduce(&s->nfrontier, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    s->comm_s += now() - tc;
    if (any == 0) break;
  }
  double t = now() - t0;
  for (int k = 0; k < d->pc; k++) free(buckets[k].pairs);
  free(buckets);
  return t;
}

/* ---- validation ------------------------------------------------------------------------- */

static void serial_levels(const dist *d, int root, int *lv, int *queue) {
  for (int v = 0; v < d->n; v++) lv[v] = -1;
  int head = 0, tail = 0;
  lv[root] = 0;
  queue[tail++] = root;
  while (head < tail) {
    int v = queue[head++];
    for (long long e = d->gptr[v]; e < d->gptr[v + 1]; e++)
      if (lv[d->gcol[e]] < 0) lv[d->gcol[e]] = lv[v] + 1, queue[tail++] = d->gcol[e];
  }
}

static int is_neighbor(const dist *d, int v, int u) {
  long long lo = d->gptr[v], hi = d->gptr[v + 1];
  while (lo < hi) {
    long long mid = (lo + hi) / 2;
    if (d->gcol[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < d->gptr[v + 1] && d->gcol[lo] == u;
}

/* Errors among this process's vertices; *edges: half the degrees of its reached vertices. */
static long long validate(const bfs *s, int root, const int *lv, double *edges) {
  const dist *d = s->d;
  long long errors = 0;
  double deg = 0;
  for (int v = d->lo; v < d->hi; v++) {
    int l = s->level[v - d->lo], p = s->parent[v - d->lo];
    if (l != lv[v]) {
      errors++;
      continue;
    }
    if (l < 0) {
      errors += p != -1;
      continue;
    }
    deg += (double)(d->gptr[v + 1] - d->gptr[v]);
    if (v == root)
      errors += p != root;
    else
      errors += p < 0 || p >= d->n || !is_neighbor(d, v, p) || lv[p] != l - 1;
  }
  *edges = deg / 2;
  return errors;
}

/* ---- main --------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void make_topologies(bfs *s, MPI_Info info) {
  dist *d = s->d;
  int pr = d->pr, pc = d->pc, K = s->o->phases;
  s->col_members = xmalloc(sizeof(int) * (size_t)pr);
  s->row_members = xmalloc(sizeof(int) * (size_t)pc);
  for (int k = 0; k < pr; k++) s->col_members[k] = d->j * pr + k;
  for (int k = 0; k < pc; k++) s->row_members[k] = d->i + k * pr;
  check(NHOOD_Topo_create_adjacent(pr, s->col_members, (const int *)app_unweighted, pr, s->col_members,
                                   (const int *)app_unweighted, info, &s->col_topo),
        "column topology");
  check(NHOOD_Topo_create_adjacent(pc, s->row_members, (const int *)app_unweighted, pc, s->row_members,
                                   (const int *)app_unweighted, info, &s->row_topo),
        "row topology");
  s->col_parts = xmalloc(sizeof(NHOOD_Topo) * (size_t)K);
  s->row_parts = xmalloc(sizeof(NHOOD_Topo) * (size_t)K);
  check(NHOOD_Topo_split(s->col_topo, MPI_COMM_WORLD, K, NHOOD_SPLIT_BY_SOURCE, info, s->col_parts), "split column");
  check(NHOOD_Topo_split(s->row_topo, MPI_COMM_WORLD, K, NHOOD_SPLIT_BY_DESTINATION, info, s->row_parts), "split row");
}

int main(int argc, char **argv) {
  const char *progress = getenv("NHOOD_PROGRESS");
  if (progress && strcmp(progress, "thread") == 0) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  app_init("nhood-bfs");
  options o;
  int prc = parse(argc, argv, size, &o);
  if (prc != 0) {
    if (rank == 0) usage(prc == 1 ? stdout : stderr);
    MPI_Finalize();
    return prc == 1 ? 0 : 2;
  }
  if (o.phases > 64 || o.pr > 64 || o.pc > 64) {
    if (rank == 0) fprintf(stderr, "nhood-bfs: at most 64 phases and 64 processes per grid row and column\n");
    MPI_Finalize();
    return 2;
  }
  char spec_text[128], err[512];
  snprintf(spec_text, sizeof spec_text, "rmat:scale=%d,ef=%d,seed=%llu,scramble=1", o.scale, o.ef, o.seed);
  topospec g;
  double tg = now();
  if (topospec_parse(spec_text, &g, err, sizeof err) != 0) {
    if (rank == 0) fprintf(stderr, "nhood-bfs: %s\n", err);
    MPI_Finalize();
    return 2;
  }
  tg = now() - tg;
  dist d;
  dist_build(&d, &g, rank, size, o.pr, o.pc);
  bfs s = {.o = &o, .d = &d, .sabotage_left = o.sabotage ? 1 : 0};
  int owned = d.hi - d.lo;
  s.parent = xmalloc(sizeof(int) * ((size_t)owned + 1));
  s.level = xmalloc(sizeof(int) * ((size_t)owned + 1));
  s.frontier = xmalloc(sizeof(int) * ((size_t)owned + 1));
  s.next = xmalloc(sizeof(int) * ((size_t)owned + 1));
  s.stamp = calloc((size_t)d.n, sizeof(int));
  s.counts_in = xmalloc(sizeof(int) * (size_t)d.pr);
  s.displs_in = xmalloc(sizeof(int) * (size_t)d.pr);
  s.cand_count = xmalloc(sizeof(int) * (size_t)d.pc);
  s.cand_displ = xmalloc(sizeof(int) * (size_t)d.pc);
  s.recv_count = xmalloc(sizeof(int) * (size_t)d.pc);
  s.recv_displ = xmalloc(sizeof(int) * (size_t)d.pc);
  MPI_Comm_split(MPI_COMM_WORLD, d.j, d.i, &s.col_comm);
  MPI_Comm_split(MPI_COMM_WORLD, d.i, d.j, &s.row_comm);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, o.algo);
  make_topologies(&s, info);
  MPI_Info_free(&info);

  /* Roots with an edge, the same everywhere. */
  int *roots = xmalloc(sizeof(int) * (size_t)o.roots);
  uint64_t state = o.seed * 7919 + 17;
  for (int r = 0; r < o.roots;) {
    int v = (int)(splitmix(&state) % (uint64_t)d.n);
    if (d.gptr[v + 1] > d.gptr[v]) roots[r++] = v;
  }
  const char *mode = "off";
  NHOOD_Progress_mode(&mode);
  if (rank == 0)
    printf(
        "nhood-bfs: R-MAT scale %d, edge factor %d, seed %llu: %d vertices, %lld edges (undirected, distinct, no "
        "self loops); %d processes as %d x %d; %d roots; phases %d; nhood algorithm %s, progress %s; generated in "
        "%.2f s\n",
        o.scale, o.ef, o.seed, d.n, (long long)(d.gptr[d.n] / 2), size, d.pr, d.pc, o.roots, o.phases, o.algo, mode,
        tg);

  int *lv = xmalloc(sizeof(int) * (size_t)d.n), *queue = xmalloc(sizeof(int) * (size_t)d.n);
  double times[NVERSIONS][256], comms[NVERSIONS][256], teps[NVERSIONS][256];
  int levels[NVERSIONS][256];
  long long errors = 0;
  if (o.roots > 256) o.roots = 256;
  for (int r = 0; r < o.roots; r++) {
    serial_levels(&d, roots[r], lv, queue);
    for (int v = 0; v < NVERSIONS; v++) {
      if (!o.versions[v]) continue;
      double t = search(&s, v, roots[r]), local[2] = {t, s.comm_s}, maxima[2], edges = 0, total_edges = 0;
      long long e = validate(&s, roots[r], lv, &edges), all_e = 0;
      MPI_Allreduce(local, maxima, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(&e, &all_e, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(&edges, &total_edges, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      errors += all_e;
      times[v][r] = maxima[0];
      comms[v][r] = maxima[1];
      teps[v][r] = total_edges / maxima[0];
      levels[v][r] = s.levels;
    }
  }
  FILE *json = rank == 0 && o.json ? fopen(o.json, "w") : NULL;
  double comm_b = 0;
  if (rank == 0) {
    printf("%-8s %-45s %12s %12s %10s %14s %12s\n", "version", "exchanges", "TEPS_hmean", "time_ms_med", "levels",
           "comm_us/level", "vs_b_comm");
    for (int v = 0; v < NVERSIONS; v++) {
      if (!o.versions[v]) continue;
      double inv = 0, per_level = 0, comm_total = 0;
      int lv_total = 0;
      for (int r = 0; r < o.roots; r++) inv += 1.0 / teps[v][r], comm_total += comms[v][r], lv_total += levels[v][r];
      per_level = comm_total / lv_total;
      if (v == V_B) comm_b = comm_total;
      double sorted[256];
      memcpy(sorted, times[v], sizeof(double) * (size_t)o.roots);
      qsort(sorted, (size_t)o.roots, sizeof(double), cmp_double);
      double med = o.roots % 2 ? sorted[o.roots / 2] : 0.5 * (sorted[o.roots / 2 - 1] + sorted[o.roots / 2]);
      char ratio[32] = "-";
      if (o.versions[V_B] && comm_b > 0) snprintf(ratio, sizeof ratio, "%.3f", comm_total / comm_b);
      printf("%-8s %-45s %12.4g %12.3f %10.1f %14.2f %12s\n", version_names[v], version_text[v], o.roots / inv,
             med * 1e3, (double)lv_total / o.roots, per_level * 1e6, ratio);
      if (json)
        fprintf(
            json,
            "{\"scale\":%d,\"ef\":%d,\"ranks\":%d,\"grid\":\"%dx%d\",\"version\":\"%s\",\"phases\":%d,\"algo\":\"%s\","
            "\"progress\":\"%s\",\"roots\":%d,\"teps_hmean\":%.6g,\"time_ms_median\":%.4f,\"comm_us_per_level\":%."
            "3f,\"comm_vs_b\":%s}\n",
            o.scale, o.ef, size, d.pr, d.pc, version_names[v], o.phases, o.algo, mode, o.roots, o.roots / inv,
            med * 1e3, per_level * 1e6, strcmp(ratio, "-") ? ratio : "null");
    }
    printf(
        "(time: per search, the slowest process; comm: time in communication calls, waits included, the slowest "
        "process's; vs_b_comm: that over version b's, for c its exposed communication)\n");
    printf("validation: %s\n",
           errors == 0 ? "OK (every search, every version: levels as a serial BFS, parents valid)" : "WRONG");
    if (errors) printf("validation errors: %lld\n", errors);
  }
  if (json) fclose(json);
  for (int p = 0; p < o.phases; p++) {
    NHOOD_Topo_free(&s.col_parts[p]);
    NHOOD_Topo_free(&s.row_parts[p]);
  }
  NHOOD_Topo_free(&s.col_topo);
  NHOOD_Topo_free(&s.row_topo);
  MPI_Comm_free(&s.col_comm);
  MPI_Comm_free(&s.row_comm);
  topospec_free(&g);
  MPI_Finalize();
  return errors == 0 ? 0 : 1;
}
