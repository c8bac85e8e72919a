/*
 * nhood-cg: conjugate gradients on a sparse matrix, the halo of x exchanged by a persistent
 * nhood alltoallv on a topology object, checked against a serial solve; and a
 * changing-topology mode that re-partitions the rows again and again (as AMR and AMG levels
 * do) and times, per partition, setting the exchange up plus using it, for MPI's graph
 * communicators, hand-written point-to-point code and nhood's topology objects.
 *
 *   nhood-cg --matrix PATH [--tol T] [--maxit N] [--algo NAME] [--sabotage 1]
 *   nhood-cg --matrix PATH --changing K [--rounds R] [--algo NAME] [--json FILE]
 *
 * The matrix: the pattern of a Matrix Market file, gzip-compressed or not (data/matrices; symmetric files are
 * expanded, and an unsymmetric pattern is symmetrized) made symmetric positive definite as
 * A = L + I, L the graph Laplacian of the pattern (degree on the diagonal, -1 per edge, self
 * loops dropped): strictly diagonally dominant with a positive diagonal. Rows and x are split
 * in contiguous blocks. Row i of A needs x_j for every neighbor j of i, so a process receives
 * from the owner of j and, the pattern being symmetric, sends its own x_i to the owners of
 * i's neighbors: both lists come from the process's own rows.
 *
 * Solve mode: b = A x* for a fixed x* (x*_i = 1 + (i mod 13)/13 + (i mod 7)/7), x0 = 0, CG until ||r|| <= tol ||b||
 * (default 1e-10) or maxit iterations (default 1000). Dot products are summed per process, then over processes in rank
 * order (an allgather of the partial sums), and every process also solves the whole system
 * serially with the same blocks summed in the same order, so the two runs must agree bit for
 * bit: the same iteration count, the same residual at every iteration. --sabotage 1 adds 1 to
 * one received halo value on one process at one iteration: the run must then be reported
 * WRONG. The exchange is NHOOD_Neighbor_alltoallv_init on NHOOD_Topo_create_adjacent's
 * topology, with the algorithm --algo names (default auto).
 *
 * Changing-topology mode: R rounds (default 20); each draws a new partition (block sizes
 * n/P perturbed by up to 25%, the same draw on every process), builds its halo lists, and
 * runs, in an order that rotates per round, each way to exchange that halo K times:
 *   graph        MPI_Dist_graph_create_adjacent + K MPI_Neighbor_alltoallv + MPI_Comm_free
 *   p2p          K times MPI_Irecv / MPI_Isend per neighbor + MPI_Waitall (no set-up)
 *   p2p-persist  MPI_Recv_init / MPI_Send_init + K MPI_Startall / MPI_Waitall + free
 *   nhood        NHOOD_Topo_create_adjacent + K NHOOD_Neighbor_alltoallv + NHOOD_Topo_free
 *   nhood-persist  the topology, NHOOD_Neighbor_alltoallv_init, K start / wait, frees
 * each after a barrier, timed on every process (the maximum over processes counts), set-up
 * and exchanges apart; every method's received halo is checked. The table gives medians
 * over rounds and each method's set-up plus exchanges divided by nhood's (and
 * nhood-persist's). nhood's topologies use --algo (default direct: a topology that lives for
 * K exchanges has no use for a pattern built collectively at its first call).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/app_util.h"
#include "nhood.h"
#include "topospec.h"

/* ---- options ---------------------------------------------------------------------------- */

typedef struct {
  const char *matrix, *algo, *json;
  double tol;
  int maxit, sabotage, changing, rounds;
} options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: nhood-cg --matrix PATH [--tol T] [--maxit N] [--algo NAME] [--sabotage 1]\n"
          "       nhood-cg --matrix PATH --changing K [--rounds R] [--algo NAME] [--json FILE]\n"
          "Conjugate gradients on the pattern of a Matrix Market file made SPD (graph Laplacian\n"
          "plus identity), the halo exchanged by a persistent nhood alltoallv and checked against\n"
          "a serial solve; or (--changing K) R re-partitions, each exchanging its halo K times\n"
          "with MPI graph communicators, point-to-point code and nhood topology objects, timed.\n");
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){.tol = 1e-10, .maxit = 1000, .rounds = 20};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      return 1;
    }
    if (v == NULL) {
      fprintf(stderr, "nhood-cg: %s needs a value\n", a);
      return 2;
    }
    k++;
    if (strcmp(a, "--matrix") == 0)
      o->matrix = v;
    else if (strcmp(a, "--algo") == 0)
      o->algo = v;
    else if (strcmp(a, "--json") == 0)
      o->json = v;
    else if (strcmp(a, "--tol") == 0)
      o->tol = atof(v);
    else if (strcmp(a, "--maxit") == 0)
      o->maxit = atoi(v);
    else if (strcmp(a, "--sabotage") == 0)
      o->sabotage = atoi(v);
    else if (strcmp(a, "--changing") == 0)
      o->changing = atoi(v);
    else if (strcmp(a, "--rounds") == 0)
      o->rounds = atoi(v);
    else {
      fprintf(stderr, "nhood-cg: unknown option %s\n", a);
      return 2;
    }
  }
  if (o->matrix == NULL || o->maxit < 1 || !(o->tol > 0) || o->changing < 0 || o->rounds < 1) {
    usage(stderr);
    return 2;
  }
  if (o->algo == NULL) o->algo = o->changing ? "direct" : "auto";
  return 0;
}

/* ---- the matrix ------------------------------------------------------------------------- */

/* The symmetric pattern without self loops, in compressed rows (columns ascending). */
typedef struct {
  int n;
  long long *ptr;
  int *col;
} pattern;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The pattern of spec's matrix, symmetrized (i~j where A_ij or A_ji), square part only. */
static void pattern_of(const topospec *t, pattern *p) {
  int n = t->mtx_rows < t->mtx_cols ? t->mtx_rows : t->mtx_cols;
  long long *deg = calloc((size_t)n + 1, sizeof *deg);
  if (!deg) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < n; i++)
    for (long long e = t->mtx_rowptr[i]; e < t->mtx_rowptr[i + 1]; e++) {
      int j = t->mtx_colind[e];
      if (j < n && j != i) deg[i]++, deg[j]++;
    }
  p->n = n;
  p->ptr = xmalloc(sizeof(long long) * ((size_t)n + 1));
  p->ptr[0] = 0;
  for (int i = 0; i < n; i++) p->ptr[i + 1] = p->ptr[i] + deg[i];
  p->col = xmalloc(sizeof(int) * (size_t)p->ptr[n]);
  for (int i = 0; i < n; i++) deg[i] = p->ptr[i];
  for (int i = 0; i < n; i++)
    for (long long e = t->mtx_rowptr[i]; e < t->mtx_rowptr[i + 1]; e++) {
      int j = t->mtx_colind[e];
      if (j < n && j != i) p->col[deg[i]++] = j, p->col[deg[j]++] = i;
    }
  /* Sort each row and drop duplicates (an entry stored as (i,j) and (j,i)). */
  long long w = 0;
  for (int i = 0; i < n; i++) {
    long long b = p->ptr[i], e = p->ptr[i + 1];
    qsort(p->col + b, (size_t)(e - b), sizeof(int), cmp_int);
    p->ptr[i] = w;
    for (long long k = b; k < e; k++)
      if (k == b || p->col[k] != p->col[k - 1]) p->col[w++] = p->col[k];
  }
  p->ptr[n] = w;
  free(deg);
}

/* y = A x for rows [lo, hi): A = L + I, so (A x)_i = (deg_i + 1) x_i - sum_j x_j. xg(j) is
 * x_j wherever it lives (global index). */
typedef double (*x_of)(const void *ctx, int j);

/* ---- the partition and its halo ---------------------------------------------------------- */

typedef struct {
  int lo, hi; /* my rows */
  int *first; /* P + 1 block starts */
  /* The halo: neighbors in rank order, with the global indices received from / sent to each,
   * ascending. Receive and send lists have the same ranks (the pattern is symmetric). */
  int nnbr, *nbr;
  int *rcount, *rdispl, *ridx; /* ridx: global indices, grouped by neighbor */
  int *scount, *sdispl, *sidx;
  int nrecv, nsend;
} halo;

static int owner_of(const halo *h, int size, int j) {
  int lo = 0, hi = size;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (h->first[mid] <= j)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void halo_free(halo *h) {
  free(h->first);
  free(h->nbr);
  free(h->rcount);
  free(h->rdispl);
  free(h->ridx);
  free(h->scount);
  free(h->sdispl);
  free(h->sidx);
  memset(h, 0, sizeof *h);
}

/* The halo of rank me for the partition first[0..size]. */
static void halo_build(const pattern *p, const int *first, int me, int size, halo *h) {
  memset(h, 0, sizeof *h);
  h->first = xmalloc(sizeof(int) * ((size_t)size + 1));
  memcpy(h->first, first, sizeof(int) * ((size_t)size + 1));
  h->lo = first[me];
  h->hi = first[me + 1];
  /* Needed columns outside my block, each once (they arrive sorted by owner then index). */
  int *mark = calloc((size_t)p->n, sizeof *mark);
  int *need = xmalloc(sizeof(int) * (size_t)(p->ptr[h->hi] - p->ptr[h->lo] + 1));
  int nneed = 0;
  for (int i = h->lo; i < h->hi; i++)
    for (long long e = p->ptr[i]; e < p->ptr[i + 1]; e++) {
      int j = p->col[e];
      if ((j < h->lo || j >= h->hi) && !mark[j]) mark[j] = 1, need[nneed++] = j;
    }
  qsort(need, (size_t)nneed, sizeof(int), cmp_int);
  /* What I send: my x_i to the owner of every outside neighbor of i, each (i, owner) once. */
  int *to = xmalloc(sizeof(int) * 2 * (size_t)(p->ptr[h->hi] - p->ptr[h->lo] + 1));
  int nto = 0;
  for (int i = h->lo; i < h->hi; i++) {
    int last_owner = -1;
    int *owners = to + 2 * nto;
    int nown = 0;
    for (long long e = p->ptr[i]; e < p->ptr[i + 1]; e++) {
      int j = p->col[e];
      if (j >= h->lo && j < h->hi) continue;
      int q = owner_of(h, size, j);
      if (q == last_owner) continue; /* columns ascend, so one owner's come together */
      last_owner = q;
      int seen = 0;
      for (int k = 0; k < nown; k++) seen |= owners[2 * k] == q;
      if (!seen) owners[2 * nown] = q, owners[2 * nown + 1] = i, nown++;
    }
    nto += nown;
  }
  qsort(to, (size_t)nto, 2 * sizeof(int), cmp_pair); /* by owner, then index */
  /* Neighbors: the owners in need (the same set as in to, by symmetry). */
  h->nbr = xmalloc(sizeof(int) * (size_t)(nneed + 1));
  for (int k = 0; k < nneed; k++) {
    int q = owner_of(h, size, need[k]);
    if (h->nnbr == 0 || h->nbr[h->nnbr - 1] != q) h->nbr[h->nnbr++] = q;
  }
  h->rcount = calloc((size_t)h->nnbr + 1, sizeof(int));
  h->rdispl = calloc((size_t)h->nnbr + 1, sizeof(int));
  h->scount = calloc((size_t)h->nnbr + 1, sizeof(int));
  h->sdispl = calloc((size_t)h->nnbr + 1, sizeof(int));
  for (int k = 0, n = 0; k < nneed; k++) {
    while (h->nbr[n] != owner_of(h, size, need[k])) n++;
    h->rcount[n]++;
  }
  for (int k = 0, n = 0; k < nto; k++) {
    while (n < h->nnbr && h->nbr[n] != to[2 * k]) n++;
    if (n == h->nnbr) {
      fprintf(stderr, "nhood-cg: rank %d sends to rank %d, which it does not receive from (pattern not symmetric)\n",
              me, to[2 * k]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    h->scount[n]++;
  }
  for (int n = 1; n < h->nnbr; n++) {
    h->rdispl[n] = h->rdispl[n - 1] + h->rcount[n - 1];
    h->sdispl[n] = h->sdispl[n - 1] + h->scount[n - 1];
  }
  h->nrecv = nneed;
  h->nsend = nto;
  h->ridx = need;
  h->sidx = xmalloc(sizeof(int) * (size_t)(nto + 1));
  for (int k = 0; k < nto; k++) h->sidx[k] = to[2 * k + 1];
  free(to);
  free(mark);
}

/* ---- solve mode ---------------------------------------------------------------------------- */

/* Dot product of rows [first[q], first[q+1]) for each q, summed in rank order: the parallel
 * and the serial solve use it alike. partial[q] is block q's sum. */
static double sum_blocks(const double *partial, int size) {
  double s = 0;
  for (int q = 0; q < size; q++) s += partial[q];
  return s;
}

static double block_dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* y_i = (A x)_i for i in [lo, hi), x indexed globally through xat. */
static void spmv_rows(const pattern *p, int lo, int hi, const double *xloc, const double *halo_x, const int *map,
                      double *y) {
  for (int i = lo; i < hi; i++) {
    double deg = (double)(p->ptr[i + 1] - p->ptr[i]);
    double s = (deg + 1.0) * xloc[i - lo];
    for (long long e = p->ptr[i]; e < p->ptr[i + 1]; e++) {
      int j = p->col[e];
      s -= (j >= lo && j < hi) ? xloc[j - lo] : halo_x[map[e - p->ptr[lo]]];
    }
    y[i - lo] = s;
  }
}

/* The exact solution, and b = A x* for row i. */
static double xstar(int i) { return 1.0 + (double)(i % 13) / 13.0 + (double)(i % 7) / 7.0; }

static double rhs(const pattern *p, int i) {
  double s = (double)(p->ptr[i + 1] - p->ptr[i] + 1) * xstar(i);
  for (long long e = p->ptr[i]; e < p->ptr[i + 1]; e++) s -= xstar(p->col[e]);
  return s;
}

/* Serial CG with the same block sums; returns iterations, residual norms in res[0..it]. */
static int serial_cg(const pattern *p, const int *first, int size, double tol, int maxit, double *res) {
  int n = p->n;
  double *x = calloc((size_t)n, sizeof *x), *r = xmalloc(sizeof(double) * (size_t)n);
  double *d = xmalloc(sizeof(double) * (size_t)n), *q = xmalloc(sizeof(double) * (size_t)n);
  double *partial = xmalloc(sizeof(double) * (size_t)size);
  for (int i = 0; i < n; i++) r[i] = rhs(p, i); /* x0 = 0: r0 = b */
  memcpy(d, r, sizeof(double) * (size_t)n);
  for (int b = 0; b < size; b++) partial[b] = block_dot(r + first[b], r + first[b], first[b + 1] - first[b]);
  double rr = sum_blocks(partial, size), bnorm = sqrt(rr);
  res[0] = sqrt(rr);
  int it = 0;
  while (it < maxit && sqrt(rr) > tol * bnorm) {
    spmv_rows(p, 0, n, d, NULL, NULL, q);
    for (int b = 0; b < size; b++) partial[b] = block_dot(d + first[b], q + first[b], first[b + 1] - first[b]);
    double alpha = rr / sum_blocks(partial, size);
    for (int i = 0; i < n; i++) x[i] += alpha * d[i], r[i] -= alpha * q[i];
    for (int b = 0; b < size; b++) partial[b] = block_dot(r + first[b], r + first[b], first[b + 1] - first[b]);
    double rr_new = sum_blocks(partial, size);
    double beta = rr_new / rr;
    rr = rr_new;
    for (int i = 0; i < n; i++) d[i] = r[i] + beta * d[i];
    res[++it] = sqrt(rr);
  }
  free(x), free(r), free(d), free(q), free(partial);
  return it;
}

static double global_sum(double local, int size, double *partial) {
  MPI_Allgather(&local, 1, MPI_DOUBLE, partial, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return sum_blocks(partial, size);
}

static int solve(const options *o, const pattern *p, int rank, int size) {
  int n = p->n, *first = xmalloc(sizeof(int) * ((size_t)size + 1));
  for (int q = 0; q <= size; q++) first[q] = (int)((long long)n * q / size);
  halo h;
  halo_build(p, first, rank, size, &h);
  int lo = h.lo, m = h.hi - h.lo;
  /* map: for each entry of my rows with an outside column, its place in the halo buffer. */
  long long nent = p->ptr[h.hi] - p->ptr[lo];
  int *map = xmalloc(sizeof(int) * (size_t)(nent + 1));
  for (long long e = 0; e < nent; e++) {
    int j = p->col[p->ptr[lo] + e];
    if (j >= lo && j < h.hi) continue;
    int a = 0, b = h.nrecv;
    while (a < b) {
      int mid = (a + b) / 2;
      if (h.ridx[mid] < j)
        a = mid + 1;
      else
        b = mid;
    }
    map[e] = a;
  }
  double *x = calloc((size_t)m + 1, sizeof *x), *r = xmalloc(sizeof(double) * ((size_t)m + 1));
  double *d = xmalloc(sizeof(double) * ((size_t)m + 1)), *q = xmalloc(sizeof(double) * ((size_t)m + 1));
  double *sendbuf = xmalloc(sizeof(double) * ((size_t)h.nsend + 1));
  double *recvbuf = xmalloc(sizeof(double) * ((size_t)h.nrecv + 1));
  double *partial = xmalloc(sizeof(double) * (size_t)size);
  double *res = xmalloc(sizeof(double) * ((size_t)o->maxit + 1));
  double *serial = xmalloc(sizeof(double) * ((size_t)o->maxit + 1));

  /* The exchange: a topology object of the halo, created locally, and a persistent alltoallv. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, o->algo);
  NHOOD_Topo topo;
  check(NHOOD_Topo_create_adjacent(h.nnbr, h.nbr, (const int *)app_unweighted, h.nnbr, h.nbr,
                                   (const int *)app_unweighted, info, &topo),
        "NHOOD_Topo_create_adjacent");
  NHOOD_Request req;
  check(NHOOD_Neighbor_alltoallv_init(sendbuf, h.scount, h.sdispl, MPI_DOUBLE, recvbuf, h.rcount, h.rdispl, MPI_DOUBLE,
                                      MPI_COMM_WORLD, topo, MPI_INFO_NULL, &req),
        "NHOOD_Neighbor_alltoallv_init");
  MPI_Info_free(&info);

  for (int i = 0; i < m; i++) r[i] = d[i] = rhs(p, lo + i);
  double rr = global_sum(block_dot(r, r, m), size, partial), bnorm = sqrt(rr);
  res[0] = sqrt(rr);
  int it = 0;
  double t_exchange = 0, t0 = MPI_Wtime();
  while (it < o->maxit && sqrt(rr) > o->tol * bnorm) {
    for (int k = 0; k < h.nsend; k++) sendbuf[k] = d[h.sidx[k] - lo];
    double te = MPI_Wtime();
    check(NHOOD_Start(&req), "NHOOD_Start");
    check(NHOOD_Wait(&req), "NHOOD_Wait");
    t_exchange += MPI_Wtime() - te;
    if (o->sabotage && rank == size - 1 && it == 1 && h.nrecv > 0) recvbuf[0] += 1.0;
    spmv_rows(p, lo, h.hi, d, recvbuf, map, q);
    double alpha = rr / global_sum(block_dot(d, q, m), size, partial);
    for (int i = 0; i < m; i++) x[i] += alpha * d[i], r[i] -= alpha * q[i];
    double rr_new = global_sum(block_dot(r, r, m), size, partial);
    double beta = rr_new / rr;
    rr = rr_new;
    for (int i = 0; i < m; i++) d[i] = r[i] + beta * d[i];
    res[++it] = sqrt(rr);
  }
  double t_solve = MPI_Wtime() - t0;
  const char *algorithm = NULL;
  NHOOD_Request_schedule_info(req, &algorithm, NULL, NULL, NULL, NULL);

  /* The serial solve, the same sums in the same order: equal bit for bit. */
  int serial_it = serial_cg(p, first, size, o->tol, o->maxit, serial);
  int same = serial_it == it;
  for (int k = 0; same && k <= it; k++) same = res[k] == serial[k];
  /* The solution: x* to the tolerance's order. */
  double err = 0;
  for (int i = 0; i < m; i++) err = fmax(err, fabs(x[i] - xstar(lo + i)));
  int all_same = 0;
  MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  double max_err = 0, max_t[2] = {t_solve, t_exchange}, tmax[2];
  MPI_Reduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(max_t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int nbr_max = 0;
  MPI_Reduce(&h.nnbr, &nbr_max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("nhood-cg: %s, %d rows, %lld entries (Laplacian + I), %d process%s, up to %d neighbors, algorithm %s (%s)\n",
           o->matrix, n, p->ptr[n] + n, size, size == 1 ? "" : "es", nbr_max, o->algo, algorithm ? algorithm : "-");
    printf(
        "iterations %d (serial %d), final relative residual %.3e, max |x - x*| %.3e, solve %.3f ms, exchanges "
        "%.3f ms (%.2f us each)\n",
        it, serial_it, res[it] / res[0], max_err, tmax[0] * 1e3, tmax[1] * 1e3, it ? tmax[1] * 1e6 / it : 0.0);
    printf("check against the serial solve: %s\n",
           all_same ? "OK (same iterations, every residual equal bit for bit)" : "WRONG");
  }
  NHOOD_Request_free(&req);
  NHOOD_Topo_free(&topo);
  free(x), free(r), free(d), free(q), free(sendbuf), free(recvbuf), free(partial), free(res), free(serial), free(map);
  free(first);
  halo_free(&h);
  return all_same ? 0 : 1;
}

/* ---- changing-topology mode ------------------------------------------------------------------ */

enum { M_GRAPH, M_P2P, M_P2P_PERSIST, M_NHOOD, M_NHOOD_PERSIST, NMETHODS };
static const char *const method_names[NMETHODS] = {"graph", "p2p", "p2p-persist", "nhood", "nhood-persist"};

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Block sizes n/P perturbed by up to 25%, the same on every process (seeded by the round). */
static void partition(int n, int size, int round, int *first) {
  uint64_t s = 0x5eedull + (uint64_t)round;
  double *w = xmalloc(sizeof(double) * (size_t)size), total = 0;
  for (int q = 0; q < size; q++) total += w[q] = 0.75 + 0.5 * (double)(splitmix(&s) >> 11) / 9007199254740992.0;
  double at = 0;
  first[0] = 0;
  for (int q = 0; q < size; q++) {
    at += w[q];
    first[q + 1] = q + 1 == size ? n : (int)(n * (at / total));
    if (first[q + 1] < first[q]) first[q + 1] = first[q];
  }
  free(w);
}

/* Times one method: set-up, K exchanges, teardown; returns 1 when the halo arrived right. */
static int run_method(int method, const halo *h, const options *o, double *sendbuf, double *recvbuf, double *t_setup,
                      double *t_exchange, double value_base) {
  int K = o->changing, n = h->nnbr, rc;
  MPI_Request *reqs = xmalloc(sizeof(MPI_Request) * (2 * (size_t)n + 1));
  MPI_Status *statuses =
      xmalloc(sizeof(MPI_Status) * (2 * (size_t)n + 1)); /* (MPI_STATUSES_IGNORE trips GCC 12 with MPICH) */
  MPI_Comm graph = MPI_COMM_NULL;
  NHOOD_Topo topo = NHOOD_TOPO_NULL;
  NHOOD_Request nreq = NHOOD_REQUEST_NULL;
  memset(recvbuf, 0, sizeof(double) * ((size_t)h->nrecv + 1));
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  switch (method) {
    case M_GRAPH:
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, h->nbr, (const int *)app_unweighted, n, h->nbr,
                                     (const int *)app_unweighted, MPI_INFO_NULL, 0, &graph);
      break;
    case M_P2P_PERSIST:
      for (int k = 0; k < n; k++) {
        MPI_Recv_init(recvbuf + h->rdispl[k], h->rcount[k], MPI_DOUBLE, h->nbr[k], 7, MPI_COMM_WORLD, &reqs[k]);
        MPI_Send_init(sendbuf + h->sdispl[k], h->scount[k], MPI_DOUBLE, h->nbr[k], 7, MPI_COMM_WORLD, &reqs[n + k]);
      }
      break;
    case M_NHOOD:
    case M_NHOOD_PERSIST: {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, NHOOD_INFO_ALGORITHM, o->algo);
      check(NHOOD_Topo_create_adjacent(n, h->nbr, (const int *)app_unweighted, n, h->nbr, (const int *)app_unweighted,
                                       info, &topo),
            "NHOOD_Topo_create_adjacent");
      MPI_Info_free(&info);
      if (method == M_NHOOD_PERSIST)
        check(NHOOD_Neighbor_alltoallv_init(sendbuf, h->scount, h->sdispl, MPI_DOUBLE, recvbuf, h->rcount, h->rdispl,
                                            MPI_DOUBLE, MPI_COMM_WORLD, topo, MPI_INFO_NULL, &nreq),
              "NHOOD_Neighbor_alltoallv_init");
      break;
    }
    default:
      break;
  }
  double t1 = MPI_Wtime();
  for (int x = 0; x < K; x++) {
    switch (method) {
      case M_GRAPH:
        MPI_Neighbor_alltoallv(sendbuf, h->scount, h->sdispl, MPI_DOUBLE, recvbuf, h->rcount, h->rdispl, MPI_DOUBLE,
                               graph);
        break;
      case M_P2P:
        for (int k = 0; k < n; k++)
          MPI_Irecv(recvbuf + h->rdispl[k], h->rcount[k], MPI_DOUBLE, h->nbr[k], 7, MPI_COMM_WORLD, &reqs[k]);
        for (int k = 0; k < n; k++)
          MPI_Isend(sendbuf + h->sdispl[k], h->scount[k], MPI_DOUBLE, h->nbr[k], 7, MPI_COMM_WORLD, &reqs[n + k]);
        MPI_Waitall(2 * n, reqs, statuses);
        break;
      case M_P2P_PERSIST:
        MPI_Startall(2 * n, reqs);
        MPI_Waitall(2 * n, reqs, statuses);
        break;
      case M_NHOOD:
        rc = NHOOD_Neighbor_alltoallv(sendbuf, h->scount, h->sdispl, MPI_DOUBLE, recvbuf, h->rcount, h->rdispl,
                                      MPI_DOUBLE, MPI_COMM_WORLD, topo);
        check(rc, "NHOOD_Neighbor_alltoallv");
        break;
      default:
        check(NHOOD_Start(&nreq), "NHOOD_Start");
        check(NHOOD_Wait(&nreq), "NHOOD_Wait");
        break;
    }
  }
  double t2 = MPI_Wtime();
  switch (method) {
    case M_GRAPH:
      MPI_Comm_free(&graph);
      break;
    case M_P2P_PERSIST:
      for (int k = 0; k < 2 * n; k++) MPI_Request_free(&reqs[k]);
      break;
    case M_NHOOD_PERSIST:
      NHOOD_Request_free(&nreq);
      /* fall through */
    case M_NHOOD:
      NHOOD_Topo_free(&topo);
      break;
    default:
      break;
  }
  double t3 = MPI_Wtime();
  *t_setup = (t1 - t0) + (t3 - t2);
  *t_exchange = t2 - t1;
  free(reqs);
  free(statuses);
  int ok = 1;
  for (int k = 0; k < h->nrecv; k++) ok &= recvbuf[k] == value_base + h->ridx[k];
  return ok;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int changing(const options *o, const pattern *p, int rank, int size) {
  int R = o->rounds, all_ok = 1;
  double *setup = xmalloc(sizeof(double) * NMETHODS * (size_t)R),
         *exch = xmalloc(sizeof(double) * NMETHODS * (size_t)R);
  int *first = xmalloc(sizeof(int) * ((size_t)size + 1));
  long long recv_total = 0;
  int nbr_total = 0;
  for (int round = 0; round < R; round++) {
    partition(p->n, size, round, first);
    halo h;
    halo_build(p, first, rank, size, &h);
    recv_total += h.nrecv;
    nbr_total += h.nnbr;
    double *sendbuf = xmalloc(sizeof(double) * ((size_t)h.nsend + 1));
    double *recvbuf = xmalloc(sizeof(double) * ((size_t)h.nrecv + 1));
    double base = 1000.0 * round;
    for (int k = 0; k < h.nsend; k++) sendbuf[k] = base + h.sidx[k];
    for (int turn = 0; turn < NMETHODS; turn++) {
      int m = (turn + round) % NMETHODS;
      double ts, te, t[2], tmax[2];
      int ok = run_method(m, &h, o, sendbuf, recvbuf, &ts, &te, base), ok_all;
      t[0] = ts;
      t[1] = te;
      MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      if (!ok_all) {
        all_ok = 0;
        if (rank == 0) fprintf(stderr, "nhood-cg: round %d: %s delivered a wrong halo\n", round, method_names[m]);
      }
      setup[m * R + round] = tmax[0];
      exch[m * R + round] = tmax[1];
    }
    free(sendbuf);
    free(recvbuf);
    halo_free(&h);
  }
  long long totals[2] = {recv_total, nbr_total}, sums[2];
  MPI_Reduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double med_setup[NMETHODS], med_exch[NMETHODS], med_total[NMETHODS];
  double *tot = xmalloc(sizeof(double) * (size_t)R);
  for (int m = 0; m < NMETHODS; m++) {
    for (int r = 0; r < R; r++) tot[r] = setup[m * R + r] + exch[m * R + r];
    med_total[m] = median(tot, R);
    med_setup[m] = median(setup + m * R, R);
    med_exch[m] = median(exch + m * R, R);
  }
  free(tot);
  FILE *json = NULL;
  if (rank == 0) {
    printf(
        "nhood-cg changing topologies: %s, %d rows, %d processes, %d partitions, %d exchanges each, nhood algorithm "
        "%s; per partition, on average per process: %.1f neighbors, %.1f halo values\n",
        o->matrix, p->n, size, R, o->changing, o->algo, (double)sums[1] / size / R, (double)sums[0] / size / R);
    printf("%-14s %12s %14s %14s %10s %14s\n", "method", "setup_us", "exchange_us", "total_us", "vs_nhood",
           "vs_nhood_pers");
    for (int m = 0; m < NMETHODS; m++)
      printf("%-14s %12.2f %14.2f %14.2f %10.2f %14.2f\n", method_names[m], med_setup[m] * 1e6,
             med_exch[m] * 1e6 / o->changing, med_total[m] * 1e6, med_total[m] / med_total[M_NHOOD],
             med_total[m] / med_total[M_NHOOD_PERSIST]);
    printf(
        "(medians over partitions of the slowest process; exchange_us per exchange; total: set-up and teardown plus "
        "%d exchanges; vs: total / nhood's total)\n",
        o->changing);
    printf("halo check: %s\n", all_ok ? "OK (every method, every partition)" : "WRONG");
    if (o->json && (json = fopen(o->json, "w")) != NULL) {
      for (int m = 0; m < NMETHODS; m++)
        fprintf(json,
                "{\"matrix\":\"%s\",\"ranks\":%d,\"partitions\":%d,\"exchanges\":%d,\"method\":\"%s\",\"algo\":\"%s\","
                "\"setup_us\":%.3f,\"exchange_us\":%.3f,\"total_us\":%.3f,\"vs_nhood\":%.4f,\"vs_nhood_persist\":%.4f}"
                "\n",
                o->matrix, size, R, o->changing, method_names[m], o->algo, med_setup[m] * 1e6,
                med_exch[m] * 1e6 / o->changing, med_total[m] * 1e6, med_total[m] / med_total[M_NHOOD],
                med_total[m] / med_total[M_NHOOD_PERSIST]);
      fclose(json);
    }
  }
  free(setup), free(exch), free(first);
  return all_ok ? 0 : 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  app_init("nhood-cg");
  int rank, size, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  int prc = parse(argc, argv, &o);
  if (prc != 0) {
    MPI_Finalize();
    return prc == 1 ? 0 : 2;
  }
  topospec spec;
  char spec_text[1100], err[512];
  snprintf(spec_text, sizeof spec_text, "mtx:%s", o.matrix);
  if (topospec_parse(spec_text, &spec, err, sizeof err) != 0) {
    if (rank == 0) fprintf(stderr, "nhood-cg: %s\n", err);
    MPI_Finalize();
    return 2;
  }
  pattern p;
  pattern_of(&spec, &p);
  topospec_free(&spec);
  if (p.n < size) {
    if (rank == 0) fprintf(stderr, "nhood-cg: %d rows for %d processes: every process needs a row\n", p.n, size);
    MPI_Finalize();
    return 2;
  }
  rc = o.changing ? changing(&o, &p, rank, size) : solve(&o, &p, rank, size);
  free(p.ptr);
  free(p.col);
  MPI_Finalize();
  return rc;
}
