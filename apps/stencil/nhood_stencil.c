/*
 * nhood-stencil: a deep-halo stencil on a periodic Cartesian grid, the halo exchanged with
 * MPI_Neighbor_alltoallw (MPI's own) or NHOOD_Neighbor_alltoallw_init (nhood's algorithms),
 * checked against a serial computation, and timed per exchange.
 *
 *   nhood-stencil [--dims 2|3] [--points 5|9|7|27] [--depth K] [--n N] [--steps T]
 *                 [--iters I] [--warmup W] [--algo mpi,cart-direct,...|all] [--json FILE]
 *                 [--sabotage 1]   (corrupts a received halo value: the check must fail)
 *
 * --algo names nhood's algorithms (its registry; nhood-info --algorithms), auto, and mpi:
 * MPI's own MPI_Neighbor_alltoallw, called directly. all: mpi, auto and every algorithm of
 * the registry but its own "mpi" (MPI's collective again, run by nhood), as nhood-bench's all.
 * Where an algorithm does not apply its fallback runs: the row ends in "ran NAME", the JSON
 * row's algo_resolved names it.
 *
 * Each process owns an N^d block of a periodic grid of (dims x N)^d points (MPI_Dims_create),
 * stored with a halo of depth K. One step exchanges the halo, then runs K Jacobi sweeps of
 * the stencil on shrinking regions (communication-avoiding: sweep s updates the points up to
 * distance K - s outside the block), so a halo of depth K buys K sweeps per exchange.
 *
 * The halo a neighbor sends depends on the stencil. A 9- or 27-point stencil reaches
 * diagonally, so K sweeps need the full K-deep boxes of all 3^d - 1 neighbors. A 5- or
 * 7-point stencil reaches along axes only, so K sweeps need the points within distance K in
 * the 1-norm: faces K deep, and for K >= 2 the corners (2-D) and edges and corners (3-D) as
 * triangles and pyramids. Every region is a derived datatype over the grid array itself (no
 * packing by hand): the 2-D corners use NHOOD_Type_create_triangular, the others an indexed
 * type of rows. Blocks are addressed absolutely (MPI_BOTTOM), as they all live in one array.
 *
 * The result after T steps must equal a serial run of T * K sweeps on the whole grid,
 * computed by every process for its own part, bit for bit (the same operations in the same
 * order). The topology asserts isomorphic sizes (NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES): every
 * process's halo towards offset i has one shape, so the cart-* algorithms combine the
 * alltoallw. The time per exchange is the median over I exchanges after W warm-up ones, taken
 * per process, then the maximum over processes; every algorithm runs in the same job.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"

#define MAXD 3

typedef struct {
  int d, points, depth, n, steps, iters, warmup;
  char algos[512]; /* comma-separated, "all" expanded */
  const char *json;
  int sabotage; /* --sabotage 1: corrupt one received halo value per step; the check must fail */
  int diamond;  /* 5- and 7-point: the 1-norm region; 9- and 27-point: the box */
} options;

typedef struct {
  options o;
  int rank, size;
  MPI_Comm cart;
  int dims[MAXD], coords[MAXD];
  int w;          /* N + 2K: the stored width per dimension */
  size_t npoints; /* w^d */
  int noffsets;
  int offsets[27 * MAXD];
  MPI_Datatype *sendtypes, *recvtypes;
  MPI_Aint *sdispls, *rdispls;
  int *counts;
  int *sources, *destinations;
} stencil;

/* MPI_UNWEIGHTED through a volatile object: Open MPI's constant (int *)2 makes GCC 12 warn
 * that MPI_Dist_graph_create_adjacent reads weights from it. */
static int *unweighted(void) {
  int *volatile weights = MPI_UNWEIGHTED;
  return weights;
}

static void die(const char *msg) {
  fprintf(stderr, "nhood-stencil: %s\n", msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char text[NHOOD_MAX_ERROR_STRING] = "";
  NHOOD_Error_message(text, NULL);
  fprintf(stderr, "nhood-stencil: %s failed (%d): %s\n", what, rc, text);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- the grid array ---------------------------------------------------------------------- */

/* Index of local point x (each coordinate in [-K, N + K)) in the stored array. */
static size_t at(const stencil *s, const int x[]) {
  size_t i = 0;
  for (int k = 0; k < s->o.d; k++) i = i * (size_t)s->w + (size_t)(x[k] + s->o.depth);
  return i;
}

/* How far outside the block point x lies along dimension k (0 inside). */
static int outside(const stencil *s, const int x[], int k) {
  return x[k] < 0 ? -x[k] : (x[k] >= s->o.n ? x[k] - s->o.n + 1 : 0);
}

/* The distance outside the block that the stencil's K sweeps care about. */
static int distance(const stencil *s, const int x[]) {
  int sum = 0, max = 0;
  for (int k = 0; k < s->o.d; k++) {
    int v = outside(s, x, k);
    sum += v;
    if (v > max) max = v;
  }
  return s->o.diamond ? sum : max;
}

/* Iterates x over every stored point, in storage order (x[2] stays 0 in 2-D). */
#define FOR_POINTS(s, x)                                               \
  for (x[0] = -(s)->o.depth; x[0] < (s)->o.n + (s)->o.depth; x[0]++)   \
    for (x[1] = -(s)->o.depth; x[1] < (s)->o.n + (s)->o.depth; x[1]++) \
      for (x[2] = (s)->o.d == 3 ? -(s)->o.depth : 0; x[2] < ((s)->o.d == 3 ? (s)->o.n + (s)->o.depth : 1); x[2]++)

/* One Jacobi sweep from `in` to `out` over the points within distance `reach` of the block.
 * The same expression, in the same order, as the serial reference. */
static void sweep_point(const double *in, double *out, size_t i, const size_t *strides, int d, int diamond) {
  double sum = in[i];
  int terms = 1;
  if (diamond) {
    for (int k = 0; k < d; k++) {
      sum += in[i - strides[k]] + in[i + strides[k]];
      terms += 2;
    }
  } else if (d == 2) {
    for (int a = -1; a <= 1; a++)
      for (int b = -1; b <= 1; b++)
        if (a || b) sum += in[(size_t)((long)i + a * (long)strides[0] + b * (long)strides[1])], terms++;
  } else {
    for (int a = -1; a <= 1; a++)
      for (int b = -1; b <= 1; b++)
        for (int c = -1; c <= 1; c++)
          if (a || b || c)
            sum += in[(size_t)((long)i + a * (long)strides[0] + b * (long)strides[1] + c * (long)strides[2])], terms++;
  }
  out[i] = sum / terms;
}

static void local_sweep(const stencil *s, const double *in, double *out, int reach) {
  size_t strides[MAXD];
  for (int k = s->o.d - 1, st = 1; k >= 0; k--, st *= s->w) strides[k] = (size_t)st;
  int x[MAXD] = {0, 0, 0};
  FOR_POINTS(s, x) {
    if (distance(s, x) <= reach) sweep_point(in, out, at(s, x), strides, s->o.d, s->o.diamond);
  }
}

static double initial_value(const long g[], int d) {
  long h = 0;
  for (int k = 0; k < d; k++) h = h * 131 + g[k] * (k == 0 ? 31 : k == 1 ? 17 : 7);
  return (double)(h % 101) / 101.0;
}

/* ---- halo regions as datatypes ----------------------------------------------------------- */

/* Whether point x belongs to the region of direction t: receive side (the halo beyond the
 * block in direction t) or send side (the points of the block that the neighbor at +t keeps
 * in its halo towards us). */
static int in_region(const stencil *s, const int x[], const int t[], int send) {
  int n = s->o.n, K = s->o.depth, sum = 0;
  for (int k = 0; k < s->o.d; k++) {
    int v;
    if (!send) {
      if (t[k] == 0 ? (x[k] < 0 || x[k] >= n) : t[k] < 0 ? !(x[k] >= -K && x[k] < 0) : !(x[k] >= n && x[k] < n + K))
        return 0;
      v = outside(s, x, k);
    } else {
      if (t[k] == 0 ? (x[k] < 0 || x[k] >= n) : t[k] > 0 ? !(x[k] >= n - K && x[k] < n) : !(x[k] >= 0 && x[k] < K))
        return 0;
      v = t[k] > 0 ? n - x[k] : t[k] < 0 ? x[k] + 1 : 0; /* the distance it will have at the neighbor */
    }
    sum += v;
  }
  return !s->o.diamond || sum <= K;
}

/* How many points the region of direction t holds (send or receive side). */
static int region_count(const stencil *s, const int t[], int send) {
  int x[MAXD] = {0, 0, 0}, count = 0;
  FOR_POINTS(s, x) { count += in_region(s, x, t, send); }
  return count;
}

/* The region as an indexed type of runs along the last dimension. */
static MPI_Datatype region_type(const stencil *s, const int t[], int send) {
  int cap = 64, nblocks = 0;
  int *lengths = malloc(sizeof(int) * (size_t)cap), *displs = malloc(sizeof(int) * (size_t)cap);
  int x[MAXD] = {0, 0, 0};
  long last = -2;
  FOR_POINTS(s, x) {
    if (!in_region(s, x, t, send)) continue;
    long i = (long)at(s, x);
    if (nblocks > 0 && i == last + 1) {
      lengths[nblocks - 1]++;
    } else {
      if (nblocks == cap) {
        cap *= 2;
        lengths = realloc(lengths, sizeof(int) * (size_t)cap);
        displs = realloc(displs, sizeof(int) * (size_t)cap);
      }
      lengths[nblocks] = 1;
      displs[nblocks++] = (int)i;
    }
    last = i;
  }
  MPI_Datatype type;
  check(MPI_Type_indexed(nblocks, lengths, displs, MPI_DOUBLE, &type), "MPI_Type_indexed");
  free(lengths);
  free(displs);
  return type;
}

/* The 2-D corners of a 1-norm halo: triangles of K - 1 rows (1..K-1 long, or K-1..1), each
 * row moving one column from the last. The same points as region_type, as a triangular type. */
static MPI_Datatype corner_type(const stencil *s, const int t[], int send) {
  int n = s->o.n, K = s->o.depth, w = s->w;
  /* Rows in storage order. Receive side: towards -y the rows get longer (1..K-1), towards
   * +y shorter; send side the reverse. A row's run hugs the block's column edge: it ends at
   * that edge on the left of it, starts there on the right; so the start moves by -inc or
   * 0 columns from row to row. */
  int grows = send ? t[0] > 0 : t[0] < 0, left = t[1] < 0;
  int first = grows ? 1 : K - 1, inc = grows ? 1 : -1;
  int y0 = send ? (t[0] > 0 ? n - K + 1 : 0) : (t[0] < 0 ? -K + 1 : n);
  int x0 = send ? (left ? 0 : n - first) : (left ? -first : n);
  int stride = send ? (left ? w : w - inc) : (left ? w - inc : w);
  int y[MAXD] = {y0, x0, 0};
  MPI_Datatype tri, shifted;
  check(NHOOD_Type_create_triangular(K - 1, first, inc, stride, 0, MPI_DOUBLE, &tri), "NHOOD_Type_create_triangular");
  MPI_Aint disp = (MPI_Aint)(at(s, y) * sizeof(double));
  check(MPI_Type_create_hindexed_block(1, 1, &disp, tri, &shifted), "MPI_Type_create_hindexed_block");
  MPI_Type_free(&tri);
  return shifted;
}

static void build_neighborhood(stencil *s) {
  int d = s->o.d, t[MAXD] = {0, 0, 0};
  s->noffsets = 0;
  for (int c = 0; c < (d == 2 ? 9 : 27); c++) {
    int v = c;
    for (int k = d - 1; k >= 0; k--, v /= 3) t[k] = v % 3 - 1;
    int zero = 1;
    for (int k = 0; k < d; k++) zero &= t[k] == 0;
    if (zero) continue;
    /* e.g. the corners of a depth-1 halo for a 5-point stencil are empty */
    if (region_count(s, t, 0) == 0) continue;
    memcpy(&s->offsets[s->noffsets++ * d], t, sizeof(int) * (size_t)d);
  }
  int m = s->noffsets;
  s->sendtypes = malloc(sizeof(MPI_Datatype) * (size_t)m);
  s->recvtypes = malloc(sizeof(MPI_Datatype) * (size_t)m);
  s->sdispls = calloc((size_t)m, sizeof(MPI_Aint));
  s->rdispls = calloc((size_t)m, sizeof(MPI_Aint));
  s->counts = malloc(sizeof(int) * (size_t)m);
  s->sources = malloc(sizeof(int) * (size_t)m);
  s->destinations = malloc(sizeof(int) * (size_t)m);
  for (int i = 0; i < m; i++) {
    const int *c = &s->offsets[i * d];
    int minus[MAXD];
    for (int k = 0; k < d; k++) minus[k] = -c[k];
    int nonzero = 0;
    for (int k = 0; k < d; k++) nonzero += c[k] != 0;
    /* Send block i goes to X + C_i: our points it keeps in its halo towards -C_i. Receive
     * block i comes from X - C_i into our halo towards -C_i. */
    if (region_count(s, c, 1) != region_count(s, minus, 0)) die("internal: send and receive regions differ in size");
    int corner = d == 2 && s->o.diamond && nonzero == 2;
    s->sendtypes[i] = corner ? corner_type(s, c, 1) : region_type(s, c, 1);
    s->recvtypes[i] = corner ? corner_type(s, minus, 0) : region_type(s, minus, 0);
    check(MPI_Type_commit(&s->sendtypes[i]), "MPI_Type_commit");
    check(MPI_Type_commit(&s->recvtypes[i]), "MPI_Type_commit");
    s->counts[i] = 1;
    check(NHOOD_Cart_relative_shift(s->cart, c, &s->sources[i], &s->destinations[i]), "NHOOD_Cart_relative_shift");
  }
}

/* ---- the run ------------------------------------------------------------------------------ */

static void set_initial(const stencil *s, double *grid) {
  int x[MAXD] = {0, 0, 0};
  memset(grid, 0, sizeof(double) * s->npoints);
  FOR_POINTS(s, x) {
    if (distance(s, x) > 0) continue;
    long g[MAXD];
    for (int k = 0; k < s->o.d; k++) g[k] = (long)s->coords[k] * s->o.n + x[k];
    grid[at(s, x)] = initial_value(g, s->o.d);
  }
}

/* The serial reference: T * K sweeps on the whole periodic grid, then this process's block. */
static void serial_reference(const stencil *s, double *mine) {
  int d = s->o.d;
  long G[MAXD] = {1, 1, 1}, total = 1;
  for (int k = 0; k < d; k++) G[k] = (long)s->dims[k] * s->o.n, total *= G[k];
  /* Stored with a one-point periodic frame, so that the sweep expression is the same. */
  long W[MAXD] = {1, 1, 1}, stored = 1;
  for (int k = 0; k < d; k++) W[k] = G[k] + 2, stored *= W[k];
  double *a = calloc((size_t)stored, sizeof(double)), *b = calloc((size_t)stored, sizeof(double));
  size_t strides[MAXD];
  for (int k = d - 1, st = 1; k >= 0; k--) strides[k] = (size_t)st, st *= (int)W[k];
  long g[MAXD] = {0, 0, 0};
  for (long p = 0; p < total; p++) {
    long q = p, idx = 0;
    for (int k = d - 1; k >= 0; k--) g[k] = q % G[k], q /= G[k];
    for (int k = 0; k < d; k++) idx = idx * W[k] + g[k] + 1;
    a[idx] = initial_value(g, d);
  }
  for (int sweep = 0; sweep < s->o.steps * s->o.depth; sweep++) {
    /* refresh the periodic frame: every frame point copies its wrapped interior point */
    for (long p = 0; p < stored; p++) {
      long q = p, h[MAXD], inside = 1, src = 0;
      for (int k = d - 1; k >= 0; k--) h[k] = q % W[k], q /= W[k];
      for (int k = 0; k < d; k++) inside &= h[k] >= 1 && h[k] <= G[k];
      if (inside) continue;
      for (int k = 0; k < d; k++) src = src * W[k] + ((h[k] - 1 + G[k]) % G[k]) + 1;
      a[p] = a[src];
    }
    for (long p = 0; p < total; p++) {
      long q = p, idx = 0;
      for (int k = d - 1; k >= 0; k--) g[k] = q % G[k], q /= G[k];
      for (int k = 0; k < d; k++) idx = idx * W[k] + g[k] + 1;
      sweep_point(a, b, (size_t)idx, strides, d, s->o.diamond);
    }
    double *swap = a;
    a = b;
    b = swap;
  }
  int x[MAXD] = {0, 0, 0};
  FOR_POINTS(s, x) {
    if (distance(s, x) > 0) continue;
    long idx = 0;
    for (int k = 0; k < d; k++) idx = idx * W[k] + (long)s->coords[k] * s->o.n + x[k] + 1;
    mine[at(s, x)] = a[idx];
  }
  free(a);
  free(b);
}

typedef struct {
  int is_mpi;
  MPI_Comm graph;
  NHOOD_Request req;
} exchanger;

static void exchange(const stencil *s, exchanger *e) {
  if (e->is_mpi)
    check(MPI_Neighbor_alltoallw(MPI_BOTTOM, s->counts, s->sdispls, s->sendtypes, MPI_BOTTOM, s->counts, s->rdispls,
                                 s->recvtypes, e->graph),
          "MPI_Neighbor_alltoallw");
  else {
    check(NHOOD_Start(&e->req), "NHOOD_Start");
    check(NHOOD_Wait(&e->req), "NHOOD_Wait");
  }
}

/* Appends name to the comma-separated list unless it is listed already. */
static void append_algo(char *list, size_t size, const char *name) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", list);
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ","))
    if (!strcmp(item, name)) return;
  if (strlen(list) + 1 + strlen(name) + 1 > size) die("--algo: the list is too long");
  if (list[0]) strcat(list, ",");
  strcat(list, name);
}

/* --algo's value with "all" replaced by mpi, auto and nhood's registry (NHOOD_Algorithm_get):
 * its own "mpi" aside, which is the mpi row's MPI_Neighbor_alltoallw again. */
static void expand_algos(const char *given, char *list, size_t size) {
  char copy[512];
  if (strlen(given) >= sizeof copy) die("--algo: the list is too long");
  strcpy(copy, given);
  list[0] = '\0';
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
    if (strcmp(item, "all") != 0) {
      if (strlen(list) + 1 + strlen(item) + 1 > size) die("--algo: the list is too long");
      strcat(strcat(list, list[0] ? "," : ""), item);
      continue;
    }
    int count = 0;
    const char *name = NULL;
    append_algo(list, size, "mpi");
    append_algo(list, size, "auto");
    check(NHOOD_Algorithm_count(&count), "NHOOD_Algorithm_count");
    for (int k = 0; k < count; k++) {
      check(NHOOD_Algorithm_get(k, &name, NULL), "NHOOD_Algorithm_get");
      if (strcmp(name, "mpi") != 0) append_algo(list, size, name);
    }
  }
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void parse(int argc, char **argv, options *o) {
  *o = (options){.d = 2, .points = 5, .depth = 2, .n = 32, .steps = 3, .iters = 200, .warmup = 20};
  strcpy(o->algos, "mpi,cart-direct,cart-dim,cart-bruck,combine");
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (!v) die("every option takes a value (see the comment at the top of apps/stencil/nhood_stencil.c)");
    if (!strcmp(a, "--dims"))
      o->d = atoi(v);
    else if (!strcmp(a, "--points"))
      o->points = atoi(v);
    else if (!strcmp(a, "--depth"))
      o->depth = atoi(v);
    else if (!strcmp(a, "--n"))
      o->n = atoi(v);
    else if (!strcmp(a, "--steps"))
      o->steps = atoi(v);
    else if (!strcmp(a, "--iters"))
      o->iters = atoi(v);
    else if (!strcmp(a, "--warmup"))
      o->warmup = atoi(v);
    else if (!strcmp(a, "--algo"))
      expand_algos(v, o->algos, sizeof o->algos);
    else if (!strcmp(a, "--json"))
      o->json = v;
    else if (!strcmp(a, "--sabotage"))
      o->sabotage = atoi(v);
    else
      die("unknown option (see the comment at the top of apps/stencil/nhood_stencil.c)");
    k++;
  }
  if (o->d != 2 && o->d != 3) die("--dims must be 2 or 3");
  int ok = o->d == 2 ? (o->points == 5 || o->points == 9) : (o->points == 7 || o->points == 27);
  if (!ok) die("--points must be 5 or 9 in 2-D, 7 or 27 in 3-D");
  if (o->depth < 1 || o->n < o->depth) die("--depth must be at least 1 and at most --n");
  if (o->iters < 1 || o->warmup < 0 || o->steps < 1) die("--iters and --steps must be positive, --warmup not negative");
  o->diamond = o->points == 5 || o->points == 7;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  stencil s;
  memset(&s, 0, sizeof s);
  parse(argc, argv, &s.o);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  int periods[MAXD] = {1, 1, 1};
  MPI_Dims_create(s.size, s.o.d, s.dims);
  check(MPI_Cart_create(MPI_COMM_WORLD, s.o.d, s.dims, periods, 0, &s.cart), "MPI_Cart_create");
  MPI_Cart_coords(s.cart, s.rank, s.o.d, s.coords);
  s.w = s.o.n + 2 * s.o.depth;
  s.npoints = 1;
  for (int k = 0; k < s.o.d; k++) s.npoints *= (size_t)s.w;
  build_neighborhood(&s);

  double *grid = malloc(sizeof(double) * s.npoints), *other = malloc(sizeof(double) * s.npoints);
  double *expect = calloc(s.npoints, sizeof(double));
  serial_reference(&s, expect);
  MPI_Aint base;
  MPI_Get_address(grid, &base);
  for (int i = 0; i < s.noffsets; i++) s.sdispls[i] = s.rdispls[i] = base;

  FILE *json = NULL;
  if (s.rank == 0) {
    printf("nhood-stencil: %d-D %d-point, halo depth %d, %d^%d points per process, %d process%s (%d", s.o.d, s.o.points,
           s.o.depth, s.o.n, s.o.d, s.size, s.size == 1 ? "" : "es", s.dims[0]);
    for (int k = 1; k < s.o.d; k++) printf(" x %d", s.dims[k]);
    printf("), %d neighbors\n%-14s %12s %12s %8s %s\n", s.noffsets, "algo", "median_us", "min_us", "rounds", "check");
    if (s.o.json && !(json = fopen(s.o.json, "w"))) die("cannot open the --json file");
  }
  int failures = 0;
  char list[sizeof s.o.algos];
  snprintf(list, sizeof list, "%s", s.o.algos);
  for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
    exchanger e = {.is_mpi = strcmp(name, "mpi") == 0, .req = NHOOD_REQUEST_NULL};
    NHOOD_Topo topo = NHOOD_TOPO_NULL;
    int rounds = 1;
    const char *used = "mpi"; /* what ran: the algorithm, or its fallback */
    if (e.is_mpi) {
      check(MPI_Dist_graph_create_adjacent(s.cart, s.noffsets, s.sources, unweighted(), s.noffsets, s.destinations,
                                           unweighted(), MPI_INFO_NULL, 0, &e.graph),
            "MPI_Dist_graph_create_adjacent");
    } else {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, NHOOD_INFO_ALGORITHM, name);
      /* Every process owns a block of one shape: the halo for offset i has the same size
       * everywhere, so the cart-* algorithms may combine this alltoallw. */
      MPI_Info_set(info, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, "true");
      check(NHOOD_Topo_create_cart_offsets(s.cart, s.noffsets, s.offsets, info, &topo),
            "NHOOD_Topo_create_cart_offsets");
      MPI_Info_free(&info);
      check(NHOOD_Neighbor_alltoallw_init(MPI_BOTTOM, s.counts, s.sdispls, s.sendtypes, MPI_BOTTOM, s.counts, s.rdispls,
                                          s.recvtypes, s.cart, topo, MPI_INFO_NULL, &e.req),
            "NHOOD_Neighbor_alltoallw_init");
    }
    /* The computation, checked against the serial one. */
    set_initial(&s, grid);
    for (int step = 0; step < s.o.steps; step++) {
      exchange(&s, &e);
      if (s.o.sabotage) {
        int corner[MAXD] = {-1, -1, -1}; /* a halo point every stencil reads */
        corner[0] = -1, corner[1] = 0, corner[2] = 0;
        grid[at(&s, corner)] += 1.0;
      }
      double *in = grid, *out = other;
      for (int sweep = 1; sweep <= s.o.depth; sweep++) {
        local_sweep(&s, in, out, s.o.depth - sweep);
        double *swap = in;
        in = out;
        out = swap;
      }
      if (in != grid) memcpy(grid, in, sizeof(double) * s.npoints);
    }
    double worst = 0;
    int x[MAXD] = {0, 0, 0};
    FOR_POINTS(&s, x) {
      if (distance(&s, x) > 0) continue;
      double diff = fabs(grid[at(&s, x)] - expect[at(&s, x)]);
      if (diff > worst) worst = diff;
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    failures += worst != 0;
    if (!e.is_mpi) {
      check(NHOOD_Request_schedule_info(e.req, &used, &rounds, NULL, NULL, NULL), "NHOOD_Request_schedule_info");
      MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    /* The timing: exchanges alone. */
    double *t = malloc(sizeof(double) * (size_t)s.o.iters);
    for (int k = 0; k < s.o.warmup; k++) exchange(&s, &e);
    for (int k = 0; k < s.o.iters; k++) {
      MPI_Barrier(s.cart);
      double t0 = MPI_Wtime();
      exchange(&s, &e);
      t[k] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(t, (size_t)s.o.iters, sizeof *t, compare_double);
    double median = t[s.o.iters / 2], min = t[0];
    MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &min, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(t);
    if (s.rank == 0) {
      printf("%-14s %12.2f %12.2f %8d %s%s%s\n", name, median, min, rounds, worst == 0 ? "ok" : "WRONG",
             strcmp(used, name) ? "  ran " : "", strcmp(used, name) ? used : "");
      if (worst != 0) printf("  largest difference from the serial result: %g\n", worst);
      if (json)
        fprintf(json,
                "{\"app\":\"stencil\",\"dims\":%d,\"points\":%d,\"depth\":%d,\"n\":%d,\"ranks\":%d,\"neighbors\":%d,"
                "\"algo\":\"%s\",\"algo_resolved\":\"%s\",\"median_us\":%.3f,\"min_us\":%.3f,\"rounds\":%d,"
                "\"check\":\"%s\"}\n",
                s.o.d, s.o.points, s.o.depth, s.o.n, s.size, s.noffsets, name, used, median, min, rounds,
                worst == 0 ? "ok" : "wrong");
    }
    if (e.is_mpi)
      MPI_Comm_free(&e.graph);
    else {
      check(NHOOD_Request_free(&e.req), "NHOOD_Request_free");
      check(NHOOD_Topo_free(&topo), "NHOOD_Topo_free");
    }
  }
  if (json) fclose(json);
  for (int i = 0; i < s.noffsets; i++) {
    MPI_Type_free(&s.sendtypes[i]);
    MPI_Type_free(&s.recvtypes[i]);
  }
  free(s.sendtypes), free(s.recvtypes), free(s.sdispls), free(s.rdispls), free(s.counts), free(s.sources);
  free(s.destinations), free(grid), free(other), free(expect);
  MPI_Comm_free(&s.cart);
  MPI_Finalize();
  return failures ? 1 : 0;
}
