/*
 * Topology SPECs: parsing and per-rank neighborhoods. See topospec.h for the grammar. This
 * file parses SPECs and makes ER graphs and grids; topospec_mtx.c reads Matrix Market files and
 * cuts any sparse matrix's SpMV halo, topospec_rmat.c generates R-MAT graphs.
 *
 * Everything here is deterministic and local: every rank (or every virtual rank of a
 * simulator) computes the same global graph without talking to anybody, so the lists of
 * all ranks agree by construction.
 */
#include "topospec.h"

#include <mpi.h> /* MPI_PROC_NULL only */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topospec_internal.h"

/* ------------------------------------------------------------------------------------- */
/* Small helpers                                                                          */
/* ------------------------------------------------------------------------------------- */

/* Formats a message into err (if any) and returns 1, so callers can `return topospec_fail(...)`. */
int topospec_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return 1;
}

uint64_t topospec_splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

int topospec_compare_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int compare_int_descending(const void *a, const void *b) { return topospec_compare_int(b, a); }

/* malloc of n ints, never NULL for n == 0, so callers can hand the lists to MPI as they are. */
int *topospec_alloc_ints(size_t n) { return malloc((n > 0 ? n : 1) * sizeof(int)); }

/* ------------------------------------------------------------------------------------- */
/* Parsing of "key=value,key=value"                                                       */
/* ------------------------------------------------------------------------------------- */

static int parse_int_value(const char *key, const char *value, long min, long max, int *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (value[0] == '\0' || *end != '\0' || errno != 0)
    return topospec_fail(err, errlen, "%s=%s is not an integer", key, value);
  if (v < min || v > max) return topospec_fail(err, errlen, "%s=%ld is out of range [%ld, %ld]", key, v, min, max);
  *out = (int)v;
  return 0;
}

static int parse_density_value(const char *value, double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(value, &end);
  if (value[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
    return topospec_fail(err, errlen, "density=%s is not a number", value);
  if (v < 0.0 || v > 1.0) return topospec_fail(err, errlen, "density=%s is outside [0, 1]", value);
  *out = v;
  return 0;
}

static int parse_seed_value(const char *value, unsigned long long *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  /* strtoull accepts a minus sign and negates; a seed must be written as a plain number. */
  if (!isdigit((unsigned char)value[0]))
    return topospec_fail(err, errlen, "seed=%s is not a non-negative integer", value);
  unsigned long long v = strtoull(value, &end, 0);
  if (*end != '\0' || errno != 0) return topospec_fail(err, errlen, "seed=%s is not a non-negative integer", value);
  *out = v;
  return 0;
}

/* A SPEC being parsed, with the parameters seen so far (to reject repeated keys and to
 * report missing ones). */
enum {
  SEEN_DENSITY = 1,
  SEEN_SEED = 2,
  SEEN_D = 4,
  SEEN_R = 8,
  SEEN_PERIODIC = 16,
  SEEN_GRAPH = 32,
  SEEN_SCALE = 64,
  SEEN_EF = 128,
  SEEN_SCRAMBLE = 256
};
typedef struct param_context {
  topospec *spec;
  int seen;
  char *err;
  size_t errlen;
} param_context;

static int mark_seen(param_context *ctx, int flag, const char *key) {
  if (ctx->seen & flag) return topospec_fail(ctx->err, ctx->errlen, "parameter '%s' given twice", key);
  ctx->seen |= flag;
  return 0;
}

static int handle_er_param(param_context *ctx, const char *key, const char *value) {
  if (strcmp(key, "density") == 0)
    return mark_seen(ctx, SEEN_DENSITY, key) || parse_density_value(value, &ctx->spec->density, ctx->err, ctx->errlen);
  if (strcmp(key, "seed") == 0)
    return mark_seen(ctx, SEEN_SEED, key) || parse_seed_value(value, &ctx->spec->seed, ctx->err, ctx->errlen);
  return topospec_fail(ctx->err, ctx->errlen, "unknown er parameter '%s' (expected density, seed)", key);
}

static int handle_grid_param(param_context *ctx, const char *key, const char *value) {
  topospec *spec = ctx->spec;
  if (strcmp(key, "d") == 0)
    return mark_seen(ctx, SEEN_D, key) ||
           parse_int_value(key, value, 1, TOPOSPEC_MAX_DIMS, &spec->ndims, ctx->err, ctx->errlen);
  if (strcmp(key, "r") == 0)
    return mark_seen(ctx, SEEN_R, key) ||
           parse_int_value(key, value, 0, INT_MAX / 2, &spec->radius, ctx->err, ctx->errlen);
  if (strcmp(key, "periodic") == 0)
    return mark_seen(ctx, SEEN_PERIODIC, key) ||
           parse_int_value(key, value, 0, 1, &spec->periodic, ctx->err, ctx->errlen);
  if (strcmp(key, "graph") == 0)
    return mark_seen(ctx, SEEN_GRAPH, key) || parse_int_value(key, value, 0, 1, &spec->as_graph, ctx->err, ctx->errlen);
  return topospec_fail(ctx->err, ctx->errlen, "unknown grid parameter '%s' (expected d, r, periodic, graph)", key);
}

static int handle_rmat_param(param_context *ctx, const char *key, const char *value) {
  topospec *spec = ctx->spec;
  if (strcmp(key, "scale") == 0)
    return mark_seen(ctx, SEEN_SCALE, key) ||
           parse_int_value(key, value, 1, TOPOSPEC_MAX_RMAT_SCALE, &spec->rmat_scale, ctx->err, ctx->errlen);
  if (strcmp(key, "ef") == 0)
    return mark_seen(ctx, SEEN_EF, key) ||
           parse_int_value(key, value, 1, TOPOSPEC_MAX_RMAT_EF, &spec->rmat_ef, ctx->err, ctx->errlen);
  if (strcmp(key, "seed") == 0)
    return mark_seen(ctx, SEEN_SEED, key) || parse_seed_value(value, &spec->seed, ctx->err, ctx->errlen);
  if (strcmp(key, "scramble") == 0)
    return mark_seen(ctx, SEEN_SCRAMBLE, key) ||
           parse_int_value(key, value, 0, 1, &spec->rmat_scramble, ctx->err, ctx->errlen);
  return topospec_fail(ctx->err, ctx->errlen, "unknown rmat parameter '%s' (expected scale, ef, seed, scramble)", key);
}

typedef int (*param_handler)(param_context *ctx, const char *key, const char *value);

/* Splits params ("k=v,k=v", modified in place) and hands each pair to a kind's handler. */
static int parse_params(char *params, param_context *ctx, param_handler handle) {
  char *cursor = params;
  while (*cursor != '\0') {
    char *item = cursor;
    char *comma = strchr(cursor, ',');
    if (comma != NULL) {
      *comma = '\0';
      cursor = comma + 1;
    } else {
      cursor += strlen(cursor);
    }
    char *eq = strchr(item, '=');
    if (eq == NULL || eq == item)
      return topospec_fail(ctx->err, ctx->errlen, "parameter '%s' is not of the form key=value", item);
    *eq = '\0';
    if (handle(ctx, item, eq + 1) != 0) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* topospec_parse                                                                         */
/* ------------------------------------------------------------------------------------- */

int topospec_parse(const char *spec, topospec *out, char *err, size_t errlen) {
  int rc = 1;
  char params[sizeof out->text];
  memset(out, 0, sizeof *out);
  if (spec == NULL || spec[0] == '\0') {
    topospec_fail(err, errlen, "empty topology SPEC");
    goto cleanup;
  }
  if (strlen(spec) >= sizeof out->text) {
    topospec_fail(err, errlen, "topology SPEC longer than %zu characters", sizeof out->text - 1);
    goto cleanup;
  }
  strcpy(out->text, spec);

  const char *colon = strchr(spec, ':');
  size_t kind_len = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
  const char *rest = colon != NULL ? colon + 1 : "";
  strcpy(params, rest);
  param_context ctx = {out, 0, err, errlen};

  if (kind_len == 2 && strncmp(spec, "er", 2) == 0) {
    out->kind = TOPOSPEC_ER;
    out->seed = 1;
    if (parse_params(params, &ctx, handle_er_param) != 0) goto cleanup;
    if (!(ctx.seen & SEEN_DENSITY)) {
      topospec_fail(err, errlen, "'%s': er needs density=D", spec);
      goto cleanup;
    }
  } else if ((kind_len == 5 && strncmp(spec, "moore", 5) == 0) ||
             (kind_len == 10 && strncmp(spec, "vonneumann", 10) == 0)) {
    out->kind = kind_len == 5 ? TOPOSPEC_MOORE : TOPOSPEC_VONNEUMANN;
    out->periodic = 1;
    if (parse_params(params, &ctx, handle_grid_param) != 0) goto cleanup;
    if ((ctx.seen & (SEEN_D | SEEN_R)) != (SEEN_D | SEEN_R)) {
      topospec_fail(err, errlen, "'%s': grid neighborhoods need d=D and r=R", spec);
      goto cleanup;
    }
  } else if (kind_len == 3 && strncmp(spec, "mtx", 3) == 0) {
    out->kind = TOPOSPEC_MTX;
    if (rest[0] == '\0') {
      topospec_fail(err, errlen, "'%s': mtx needs a file, as mtx:PATH", spec);
      goto cleanup;
    }
    if (topospec_read_mtx(rest, out, err, errlen) != 0) goto cleanup;
  } else if (kind_len == 4 && strncmp(spec, "rmat", 4) == 0) {
    out->kind = TOPOSPEC_RMAT;
    out->seed = 1;
    out->rmat_ef = 16;
    if (parse_params(params, &ctx, handle_rmat_param) != 0) goto cleanup;
    if (!(ctx.seen & SEEN_SCALE)) {
      topospec_fail(err, errlen, "'%s': rmat needs scale=S", spec);
      goto cleanup;
    }
    if (topospec_rmat_generate(out, err, errlen) != 0) goto cleanup;
  } else {
    topospec_fail(err, errlen,
                  "unknown topology '%.*s' in '%s' (expected er:, moore:, vonneumann:, "
                  "mtx: or rmat:)",
                  (int)kind_len, spec, spec);
    goto cleanup;
  }
  rc = 0;
cleanup:
  if (rc != 0) topospec_free(out);
  return rc;
}

void topospec_free(topospec *spec) {
  if (spec == NULL) return;
  free(spec->mtx_rowptr);
  free(spec->mtx_colind);
  spec->mtx_rowptr = NULL;
  spec->mtx_colind = NULL;
  spec->mtx_nnz = 0;
}

void topospec_rank_free(topospec_rank *r) {
  if (r == NULL) return;
  free(r->sources);
  free(r->destinations);
  free(r->recv_elems);
  free(r->send_elems);
  free(r->offsets);
  memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------------------- */
/* Erdos-Renyi                                                                            */
/* ------------------------------------------------------------------------------------- */

/* Whether the directed edge from -> to exists: a hash of (seed, from, to) compared with the
 * density, so any process decides any edge alone. */
static int er_edge(const topospec *spec, int from, int to) {
  uint64_t h = topospec_splitmix64(topospec_splitmix64(topospec_splitmix64(spec->seed) ^ (uint64_t)(uint32_t)from) ^
                                   (uint64_t)(uint32_t)to);
  double uniform = (double)(h >> 11) * 0x1.0p-53; /* in [0, 1) */
  return uniform < spec->density;
}

static int er_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  out->sources = topospec_alloc_ints((size_t)nranks);
  out->destinations = topospec_alloc_ints((size_t)nranks);
  if (out->sources == NULL || out->destinations == NULL)
    return topospec_fail(err, errlen, "out of memory for %d rank%s", nranks, cli_plural(nranks));
  for (int other = 0; other < nranks; other++) {
    if (other == rank) continue;
    if (er_edge(spec, rank, other)) out->destinations[out->outdegree++] = other;
    if (er_edge(spec, other, rank)) out->sources[out->indegree++] = other;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Grids (Moore, von Neumann)                                                             */
/* ------------------------------------------------------------------------------------- */

/* The search for balanced grid dimensions: the divisors of nranks (descending) to pick
 * factors from, the factorization being built and the best one found so far. */
typedef struct dims_search {
  int ndims;
  int ndivisors;
  int *divisors;
  int current[TOPOSPEC_MAX_DIMS];
  int best[TOPOSPEC_MAX_DIMS];
  int found;
  long long best_spread, best_sum;
} dims_search;

/*
 * Depth-first search over non-increasing factorizations of remaining into the dimensions
 * from index k on, each factor <= max_factor. Keeps the one with the smallest spread
 * (largest - smallest factor), then the smallest sum; this reproduces MPICH's
 * MPI_Dims_create (checked for all n <= 3000, up to 5 dimensions). Open MPI 4.1 differs for
 * a few sizes (72 on 2 dims: 12 x 6 instead of 9 x 8).
 */
static void search_dims(dims_search *s, int remaining, int k, int max_factor) {
  if (k == s->ndims - 1) {
    if (remaining > max_factor) return;
    s->current[k] = remaining;
    long long spread = s->current[0] - remaining, sum = 0;
    for (int i = 0; i < s->ndims; i++) sum += s->current[i];
    if (!s->found || spread < s->best_spread || (spread == s->best_spread && sum < s->best_sum)) {
      s->found = 1;
      s->best_spread = spread;
      s->best_sum = sum;
      memcpy(s->best, s->current, sizeof s->best);
    }
    return;
  }
  int left = s->ndims - k; /* factors still to choose, this one included */
  for (int i = 0; i < s->ndivisors; i++) {
    int f = s->divisors[i];
    if (f > max_factor || remaining % f != 0) continue;
    /* f is the largest of the remaining factors: f^left must reach remaining. */
    long long power = 1;
    for (int n = 0; n < left && power < remaining; n++) power *= f;
    if (power < remaining) break; /* smaller divisors cannot reach it either */
    s->current[k] = f;
    search_dims(s, remaining / f, k + 1, f);
  }
}

/* dims: a balanced factorization of nranks, non-increasing, as MPI_Dims_create. */
static int balanced_dims(int nranks, int ndims, int dims[], char *err, size_t errlen) {
  dims_search s;
  memset(&s, 0, sizeof s);
  s.ndims = ndims;
  /* Divisors come in pairs (f, nranks / f) with f <= sqrt(nranks). */
  int capacity = 2;
  while ((long long)capacity * capacity < 4LL * nranks) capacity *= 2;
  s.divisors = topospec_alloc_ints((size_t)capacity);
  if (s.divisors == NULL) return topospec_fail(err, errlen, "out of memory factoring %d", nranks);
  for (long long f = 1; f * f <= nranks; f++) {
    if (nranks % f != 0) continue;
    s.divisors[s.ndivisors++] = (int)f;
    if (f * f != nranks) s.divisors[s.ndivisors++] = (int)(nranks / f);
  }
  qsort(s.divisors, (size_t)s.ndivisors, sizeof(int), compare_int_descending);
  search_dims(&s, nranks, 0, nranks);
  memcpy(dims, s.best, (size_t)ndims * sizeof(int));
  free(s.divisors);
  return 0;
}

/* All offsets of the neighborhood, lexicographic with each coordinate from -r to r. */
static int grid_offsets(const topospec *spec, int **offsets_out, int *noffsets_out, char *err, size_t errlen) {
  int d = spec->ndims, r = spec->radius;
  long long side = 2LL * r + 1, cube = 1;
  for (int i = 0; i < d; i++) {
    cube *= side;
    if (cube > TOPOSPEC_MAX_OFFSETS + 1)
      return topospec_fail(err, errlen, "'%s': too many offsets ((2r+1)^d - 1 above %d)", spec->text,
                           TOPOSPEC_MAX_OFFSETS);
  }
  int *offsets = topospec_alloc_ints((size_t)(cube * d));
  if (offsets == NULL) return topospec_fail(err, errlen, "out of memory for %lld offset%s", cube, cli_plural(cube));
  int count = 0, c[TOPOSPEC_MAX_DIMS];
  for (long long index = 0; index < cube; index++) {
    /* Decode index in base 2r+1, first dimension most significant. */
    long long rest = index;
    int chebyshev = 0, manhattan = 0;
    for (int i = d - 1; i >= 0; i--) {
      c[i] = (int)(rest % side) - r;
      rest /= side;
      int a = abs(c[i]);
      chebyshev = a > chebyshev ? a : chebyshev;
      manhattan += a;
    }
    if (chebyshev == 0) continue;
    if (spec->kind == TOPOSPEC_VONNEUMANN && manhattan > r) continue;
    memcpy(offsets + (size_t)count * d, c, (size_t)d * sizeof(int));
    count++;
  }
  *offsets_out = offsets;
  *noffsets_out = count;
  return 0;
}

/* Rank at coords + sign * offset, or MPI_PROC_NULL outside a non-periodic grid. */
static int grid_neighbor(const topospec_rank *g, const int coords[], const int offset[], int sign) {
  long long rank = 0;
  for (int i = 0; i < g->ndims; i++) {
    long long x = (long long)coords[i] + (long long)sign * offset[i];
    if (x < 0 || x >= g->dims[i]) {
      if (!g->periods[i]) return MPI_PROC_NULL;
      x %= g->dims[i];
      if (x < 0) x += g->dims[i];
    }
    rank = rank * g->dims[i] + x;
  }
  return (int)rank;
}

static int grid_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  out->is_cart = 1;
  out->ndims = spec->ndims;
  if (balanced_dims(nranks, spec->ndims, out->dims, err, errlen) != 0) return 1;
  for (int i = 0; i < spec->ndims; i++) out->periods[i] = spec->periodic;
  if (grid_offsets(spec, &out->offsets, &out->noffsets, err, errlen) != 0) return 1;

  int coords[TOPOSPEC_MAX_DIMS];
  int rest = rank;
  for (int i = spec->ndims - 1; i >= 0; i--) {
    coords[i] = rest % out->dims[i];
    rest /= out->dims[i];
  }
  out->sources = topospec_alloc_ints((size_t)out->noffsets);
  out->destinations = topospec_alloc_ints((size_t)out->noffsets);
  if (out->sources == NULL || out->destinations == NULL)
    return topospec_fail(err, errlen, "out of memory for %d neighbor%s", out->noffsets, cli_plural(out->noffsets));
  for (int k = 0; k < out->noffsets; k++) {
    const int *offset = out->offsets + (size_t)k * spec->ndims;
    out->destinations[k] = grid_neighbor(out, coords, offset, +1);
    out->sources[k] = grid_neighbor(out, coords, offset, -1);
  }
  out->indegree = out->outdegree = out->noffsets;
  if (spec->as_graph) { /* adjacency lists, as a code writes its stencil: no missing neighbors */
    out->is_cart = 0;
    out->indegree = out->outdegree = 0;
    for (int k = 0; k < out->noffsets; k++) {
      if (out->sources[k] != MPI_PROC_NULL) out->sources[out->indegree++] = out->sources[k];
      if (out->destinations[k] != MPI_PROC_NULL) out->destinations[out->outdegree++] = out->destinations[k];
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* topospec_for_rank                                                                      */
/* ------------------------------------------------------------------------------------- */

int topospec_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  memset(out, 0, sizeof *out);
  if (spec == NULL) {
    topospec_fail(err, errlen, "no topology SPEC");
    goto cleanup;
  }
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    topospec_fail(err, errlen, "rank %d out of range for %d rank%s", rank, nranks, cli_plural(nranks));
    goto cleanup;
  }
  switch (spec->kind) {
    case TOPOSPEC_ER:
      rc = er_for_rank(spec, rank, nranks, out, err, errlen);
      break;
    case TOPOSPEC_MOORE:
    case TOPOSPEC_VONNEUMANN:
      rc = grid_for_rank(spec, rank, nranks, out, err, errlen);
      break;
    case TOPOSPEC_MTX:
      rc = topospec_mtx_receive_side(spec, rank, nranks, out, err, errlen) ||
           topospec_mtx_send_side(spec, rank, nranks, out, err, errlen);
      break;
    case TOPOSPEC_RMAT:
      rc = topospec_symmetric_halo(spec, rank, nranks, out, err, errlen);
      break;
  }
cleanup:
  if (rc != 0) topospec_rank_free(out);
  return rc;
}

void topospec_rank_coords(const topospec_rank *r, int rank, int coords[]) {
  for (int d = r->ndims - 1; d >= 0; d--) {
    coords[d] = rank % r->dims[d];
    rank /= r->dims[d];
  }
}
