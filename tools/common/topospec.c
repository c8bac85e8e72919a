/*
 * Topology SPECs: parsing and per-rank neighborhoods. See topospec.h for the grammar.
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
#include <zlib.h>

#include "cli.h"

/* ------------------------------------------------------------------------------------- */
/* Small helpers                                                                          */
/* ------------------------------------------------------------------------------------- */

/* Formats a message into err (if any) and returns 1, so callers can `return fail(...)`. */
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return 1;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static int compare_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int compare_int_descending(const void *a, const void *b) { return compare_int(b, a); }

/* malloc of n ints, never NULL for n == 0, so callers can hand the lists to MPI as they are. */
static int *alloc_ints(size_t n) { return malloc((n > 0 ? n : 1) * sizeof(int)); }

/* ------------------------------------------------------------------------------------- */
/* Parsing of "key=value,key=value"                                                       */
/* ------------------------------------------------------------------------------------- */

static int parse_int_value(const char *key, const char *value, long min, long max, int *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (value[0] == '\0' || *end != '\0' || errno != 0) return fail(err, errlen, "%s=%s is not an integer", key, value);
  if (v < min || v > max) return fail(err, errlen, "%s=%ld is out of range [%ld, %ld]", key, v, min, max);
  *out = (int)v;
  return 0;
}

static int parse_density_value(const char *value, double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(value, &end);
  if (value[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
    return fail(err, errlen, "density=%s is not a number", value);
  if (v < 0.0 || v > 1.0) return fail(err, errlen, "density=%s is outside [0, 1]", value);
  *out = v;
  return 0;
}

static int parse_seed_value(const char *value, unsigned long long *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  /* strtoull accepts a minus sign and negates; a seed must be written as a plain number. */
  if (!isdigit((unsigned char)value[0])) return fail(err, errlen, "seed=%s is not a non-negative integer", value);
  unsigned long long v = strtoull(value, &end, 0);
  if (*end != '\0' || errno != 0) return fail(err, errlen, "seed=%s is not a non-negative integer", value);
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
  if (ctx->seen & flag) return fail(ctx->err, ctx->errlen, "parameter '%s' given twice", key);
  ctx->seen |= flag;
  return 0;
}

static int handle_er_param(param_context *ctx, const char *key, const char *value) {
  if (strcmp(key, "density") == 0)
    return mark_seen(ctx, SEEN_DENSITY, key) || parse_density_value(value, &ctx->spec->density, ctx->err, ctx->errlen);
  if (strcmp(key, "seed") == 0)
    return mark_seen(ctx, SEEN_SEED, key) || parse_seed_value(value, &ctx->spec->seed, ctx->err, ctx->errlen);
  return fail(ctx->err, ctx->errlen, "unknown er parameter '%s' (expected density, seed)", key);
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
  return fail(ctx->err, ctx->errlen, "unknown grid parameter '%s' (expected d, r, periodic, graph)", key);
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
  return fail(ctx->err, ctx->errlen, "unknown rmat parameter '%s' (expected scale, ef, seed, scramble)", key);
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
      return fail(ctx->err, ctx->errlen, "parameter '%s' is not of the form key=value", item);
    *eq = '\0';
    if (handle(ctx, item, eq + 1) != 0) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Matrix Market reader                                                                   */
/* ------------------------------------------------------------------------------------- */

typedef enum { MTX_GENERAL, MTX_SYMMETRIC } mtx_symmetry;

/* The whole file at path, decompressed where it is gzip (zlib reads plain files as they are). */
static int read_whole_file(const char *path, char **text_out, char *err, size_t errlen) {
  int rc = 1;
  char *text = NULL;
  errno = 0;
  gzFile file = gzopen(path, "rb");
  if (file == NULL) {
    fail(err, errlen, "cannot open matrix file '%s': %s", path, errno ? strerror(errno) : "out of memory");
    goto cleanup;
  }
  size_t len = 0, cap = 1 << 16;
  text = malloc(cap);
  if (text == NULL) {
    fail(err, errlen, "out of memory reading '%s'", path);
    goto cleanup;
  }
  for (;;) {
    size_t want = cap - len - 1;
    int got = gzread(file, text + len, want > INT_MAX ? INT_MAX : (unsigned)want), zerr = Z_OK;
    const char *why = gzerror(file, &zerr);
    if (got < 0 || zerr != Z_OK) { /* a gzip stream cut short ends with Z_BUF_ERROR, not with -1 */
      fail(err, errlen, "error reading '%s' (truncated or corrupt?): %s", path,
           zerr == Z_ERRNO ? strerror(errno) : why);
      goto cleanup;
    }
    len += (size_t)got;
    if (got == 0) break;
    if (len < cap - 1) continue;
    char *bigger = realloc(text, cap * 2);
    if (bigger == NULL) {
      fail(err, errlen, "out of memory reading '%s'", path);
      goto cleanup;
    }
    text = bigger;
    cap *= 2;
  }
  text[len] = '\0';
  *text_out = text;
  text = NULL;
  rc = 0;
cleanup:
  free(text);
  if (file != NULL) gzclose(file);
  return rc;
}

/* Case-insensitive comparison of the word at *cursor with word; advances past it. */
static int take_word(const char **cursor, const char *word) {
  const char *p = *cursor;
  while (*p == ' ' || *p == '\t') p++;
  size_t n = strlen(word);
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)p[i]) != word[i]) return 0;
  if (p[n] != '\0' && !isspace((unsigned char)p[n])) return 0;
  *cursor = p + n;
  return 1;
}

static const char *next_line(const char *p) {
  while (*p != '\0' && *p != '\n') p++;
  return *p == '\n' ? p + 1 : p;
}

/* Skips comment (%) and blank lines; returns the start of the next data line, or of "". */
static const char *skip_comments(const char *p) {
  for (;;) {
    const char *q = p;
    while (*q == ' ' || *q == '\t' || *q == '\r') q++;
    if (*q == '%' || *q == '\n')
      p = next_line(q);
    else
      return q;
  }
}

static int parse_mtx_banner(const char **cursor, mtx_symmetry *symmetry, const char *path, char *err, size_t errlen) {
  const char *p = *cursor;
  if (!take_word(&p, "%%matrixmarket") || !take_word(&p, "matrix"))
    return fail(err, errlen,
                "'%s' is not a Matrix Market file (no %%%%MatrixMarket matrix "
                "banner)",
                path);
  if (!take_word(&p, "coordinate"))
    return fail(err, errlen, "'%s': only the sparse 'coordinate' format is supported", path);
  if (!take_word(&p, "real") && !take_word(&p, "integer") && !take_word(&p, "pattern") && !take_word(&p, "complex"))
    return fail(err, errlen,
                "'%s': unknown field (expected real, integer, pattern or "
                "complex)",
                path);
  if (take_word(&p, "general"))
    *symmetry = MTX_GENERAL;
  else if (take_word(&p, "symmetric") || take_word(&p, "skew-symmetric") || take_word(&p, "hermitian"))
    *symmetry = MTX_SYMMETRIC;
  else
    return fail(err, errlen,
                "'%s': unknown symmetry (expected general, symmetric, "
                "skew-symmetric or hermitian)",
                path);
  *cursor = next_line(p);
  return 0;
}

/* Reads the next integer of the current line into *value; 0 when the line has none left. */
static int take_integer(const char **cursor, long long *value) {
  const char *p = *cursor;
  while (*p == ' ' || *p == '\t') p++;
  if (!isdigit((unsigned char)*p) && *p != '-' && *p != '+') return 0;
  char *end;
  errno = 0;
  long long v = strtoll(p, &end, 10);
  if (end == p || errno != 0 || (*end != '\0' && !isspace((unsigned char)*end))) return 0;
  *value = v;
  *cursor = end;
  return 1;
}

/*
 * Turns (row, col) pairs (0-based, possibly repeated) into compressed rows with sorted,
 * distinct column indices.
 */
static int build_csr(int nrows, long long npairs, const int *rows, const int *cols, topospec *out, char *err,
                     size_t errlen) {
  long long *rowptr = calloc((size_t)nrows + 1, sizeof(long long));
  long long *fill = malloc(((size_t)nrows + 1) * sizeof(long long));
  int *colind = alloc_ints((size_t)npairs);
  if (rowptr == NULL || fill == NULL || colind == NULL) {
    free(rowptr);
    free(fill);
    free(colind);
    return fail(err, errlen, "out of memory for a matrix of %lld entr%s", npairs, npairs == 1 ? "y" : "ies");
  }
  for (long long k = 0; k < npairs; k++) rowptr[rows[k] + 1]++;
  for (int i = 0; i < nrows; i++) rowptr[i + 1] += rowptr[i];
  memcpy(fill, rowptr, ((size_t)nrows + 1) * sizeof(long long));
  for (long long k = 0; k < npairs; k++) colind[fill[rows[k]]++] = cols[k];
  free(fill);

  /* Sort each row and drop duplicates, compacting in place. */
  long long write = 0, begin = 0;
  for (int i = 0; i < nrows; i++) {
    long long end = rowptr[i + 1];
    qsort(colind + begin, (size_t)(end - begin), sizeof(int), compare_int);
    rowptr[i] = write;
    for (long long k = begin; k < end; k++)
      if (write == rowptr[i] || colind[write - 1] != colind[k]) colind[write++] = colind[k];
    begin = end;
  }
  rowptr[nrows] = write;

  out->mtx_rowptr = rowptr;
  out->mtx_colind = colind;
  out->mtx_nnz = write;
  return 0;
}

static int read_mtx(const char *path, topospec *out, char *err, size_t errlen) {
  int rc = 1;
  char *text = NULL;
  int *rows = NULL, *cols = NULL;
  if (read_whole_file(path, &text, err, errlen) != 0) goto cleanup;

  const char *p = text;
  mtx_symmetry symmetry = MTX_GENERAL;
  if (parse_mtx_banner(&p, &symmetry, path, err, errlen) != 0) goto cleanup;

  p = skip_comments(p);
  long long nrows, ncols, nentries;
  if (!take_integer(&p, &nrows) || !take_integer(&p, &ncols) || !take_integer(&p, &nentries)) {
    fail(err, errlen, "'%s': bad size line (expected: rows cols entries)", path);
    goto cleanup;
  }
  if (nrows < 1 || nrows > TOPOSPEC_MAX_MTX_ROWS || ncols < 1 || ncols > TOPOSPEC_MAX_MTX_ROWS || nentries < 0) {
    fail(err, errlen, "'%s': unsupported size %lld x %lld with %lld entr%s (at most %d rows and columns)", path, nrows,
         ncols, nentries, nentries == 1 ? "y" : "ies", TOPOSPEC_MAX_MTX_ROWS);
    goto cleanup;
  }
  /* An entry takes at least 4 characters ("i j" and an end of line): a size line announcing
   * more than the file can hold is wrong, and must not size an allocation. */
  long long room = (long long)strlen(p) / 4 + 1;
  if (nentries > room) {
    fail(err, errlen, "'%s': the size line announces %lld entries, the file has room for at most %lld", path, nentries,
         room);
    goto cleanup;
  }
  if (symmetry == MTX_SYMMETRIC && nrows != ncols) {
    fail(err, errlen, "'%s': a symmetric matrix must be square, not %lld x %lld", path, nrows, ncols);
    goto cleanup;
  }
  p = next_line(p);

  /* Symmetric files hold one triangle: room for the mirrored entries too. */
  long long capacity = symmetry == MTX_SYMMETRIC ? 2 * nentries : nentries;
  rows = alloc_ints((size_t)capacity);
  cols = alloc_ints((size_t)capacity);
  if (rows == NULL || cols == NULL) {
    fail(err, errlen, "'%s': out of memory for %lld entr%s", path, nentries, nentries == 1 ? "y" : "ies");
    goto cleanup;
  }
  long long npairs = 0;
  for (long long k = 0; k < nentries; k++) {
    p = skip_comments(p);
    long long i, j;
    if (*p == '\0') {
      fail(err, errlen, "'%s': expected %lld entr%s, found %lld", path, nentries, nentries == 1 ? "y" : "ies", k);
      goto cleanup;
    }
    if (!take_integer(&p, &i) || !take_integer(&p, &j)) {
      fail(err, errlen, "'%s': entry %lld is not 'row col [value]'", path, k + 1);
      goto cleanup;
    }
    if (i < 1 || i > nrows || j < 1 || j > ncols) {
      fail(err, errlen, "'%s': entry %lld (%lld, %lld) is outside the %lld x %lld matrix", path, k + 1, i, j, nrows,
           ncols);
      goto cleanup;
    }
    rows[npairs] = (int)(i - 1);
    cols[npairs] = (int)(j - 1);
    npairs++;
    if (symmetry == MTX_SYMMETRIC && i != j) {
      rows[npairs] = (int)(j - 1);
      cols[npairs] = (int)(i - 1);
      npairs++;
    }
    p = next_line(p);
  }
  if (*skip_comments(p) != '\0') {
    fail(err, errlen, "'%s': more entries than the %lld the size line announces", path, nentries);
    goto cleanup;
  }

  out->mtx_rows = (int)nrows;
  out->mtx_cols = (int)ncols;
  if (build_csr(out->mtx_rows, npairs, rows, cols, out, err, errlen) != 0) goto cleanup;
  rc = 0;
cleanup:
  free(text);
  free(rows);
  free(cols);
  return rc;
}

/* ------------------------------------------------------------------------------------- */
/* R-MAT generator                                                                        */
/* ------------------------------------------------------------------------------------- */

/* Graph500's quadrant probabilities (d = 1 - a - b - c = 0.05). */
#define RMAT_A 0.57
#define RMAT_B 0.19
#define RMAT_C 0.19

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ULL

/*
 * Everything an edge depends on. Edge k is a pure function of (seed, k): it draws its bits
 * from a fixed window of one splitmix64 sequence (splitmix64's output i is a hash of
 * base + i * gamma, so any window is reachable without running the ones before it). The
 * generator can therefore run twice, counting degrees first and filling rows second,
 * without keeping the edge list (half a GiB at scale 22).
 */
typedef struct rmat_generator {
  int scale;
  int words;                             /* 64-bit draws per edge: two levels each */
  uint64_t base;                         /* splitmix64 counter before edge 0 */
  uint32_t below_a, below_ab, below_abc; /* quadrant thresholds on a 32-bit uniform */
  int scramble, shift;                   /* label scrambling: see rmat_scramble */
  uint64_t mask, multiply[2], add[2];
} rmat_generator;

static void rmat_generator_init(const topospec *spec, rmat_generator *g) {
  memset(g, 0, sizeof *g);
  g->scale = spec->rmat_scale;
  g->words = (spec->rmat_scale + 1) / 2;
  g->base = splitmix64(spec->seed);
  /* 32-bit thresholds: probabilities off by at most 2^-32, far below any sampling noise. */
  g->below_a = (uint32_t)(RMAT_A * 4294967296.0);
  g->below_ab = (uint32_t)((RMAT_A + RMAT_B) * 4294967296.0);
  g->below_abc = (uint32_t)((RMAT_A + RMAT_B + RMAT_C) * 4294967296.0);
  g->scramble = spec->rmat_scramble;
  g->mask = (UINT64_C(1) << spec->rmat_scale) - 1;
  g->shift = (spec->rmat_scale + 1) / 2;
  /* Scrambling keys from a stream of its own (the seed's hash xor a constant), so they
   * do not reuse the edges' random bits. */
  uint64_t key = splitmix64(spec->seed ^ 0x5CA4B1E5CA4B1E5CULL);
  for (int round = 0; round < 2; round++) {
    key = splitmix64(key);
    g->multiply[round] = key | 1; /* odd: invertible modulo 2^scale */
    key = splitmix64(key);
    g->add[round] = key;
  }
}

/*
 * A bijection of [0, 2^scale): two rounds of multiplication by an odd number (a bijection
 * modulo 2^scale that carries low bits up), a right xorshift (a bijection that carries high
 * bits down) and an addition. Graph500 relabels vertices likewise, so that the hubs, all
 * near vertex 0 in R-MAT's labels, land anywhere.
 */
static uint32_t rmat_scramble(const rmat_generator *g, uint32_t v) {
  uint64_t x = v;
  for (int round = 0; round < 2; round++) {
    x = (x * g->multiply[round]) & g->mask;
    x ^= x >> g->shift;
    x = (x + g->add[round]) & g->mask;
  }
  return (uint32_t)x;
}

/* Edge k: at each of `scale` levels, a quadrant of the adjacency matrix with probabilities
 * a, b, c, d picks one more bit of the row u (c, d: 1) and of the column v (b, d: 1), most
 * significant first. Low labels win at every level, hence the skew toward vertex 0. */
static void rmat_edge(const rmat_generator *g, long long k, uint32_t *u_out, uint32_t *v_out) {
  uint64_t counter = g->base + (uint64_t)k * (uint64_t)g->words * SPLITMIX_GAMMA;
  uint64_t bits = 0;
  uint32_t u = 0, v = 0;
  for (int level = 0; level < g->scale; level++) {
    uint32_t r;
    if (level % 2 == 0) {
      bits = splitmix64(counter);
      counter += SPLITMIX_GAMMA;
      r = (uint32_t)bits;
    } else {
      r = (uint32_t)(bits >> 32);
    }
    /* Quadrant a: r < below_a; b: up to below_ab; c: up to below_abc; d: above. The column
     * bit (b or d) is the parity of the thresholds passed, which needs no branch: a branch
     * per level mispredicts a third of the time and halved the generator's speed. */
    uint32_t above_a = r >= g->below_a, above_ab = r >= g->below_ab, above_abc = r >= g->below_abc;
    uint32_t row_bit = above_ab;
    uint32_t col_bit = above_a ^ above_ab ^ above_abc;
    u = u << 1 | row_bit;
    v = v << 1 | col_bit;
  }
  if (g->scramble) {
    u = rmat_scramble(g, u);
    v = rmat_scramble(g, v);
  }
  *u_out = u;
  *v_out = v;
}

/* Edges first .. first + RMAT_BATCH - 1 (fewer at the end) into u, v; returns how many.
 * Generating a batch before touching the rows lets the rows' random (cache-missing) accesses
 * overlap in the processor instead of waiting each behind the generator's arithmetic. */
enum { RMAT_BATCH = 1024 };
static int rmat_batch(const rmat_generator *g, long long first, long long nedges, uint32_t u[], uint32_t v[]) {
  int count = nedges - first < RMAT_BATCH ? (int)(nedges - first) : RMAT_BATCH;
  for (int e = 0; e < count; e++) rmat_edge(g, first + e, &u[e], &v[e]);
  return count;
}

/*
 * The symmetric pattern of the R-MAT graph into spec's mtx fields, in O(edges) and without
 * sorting: (1) count each vertex's entries, (2) regenerate the edges and scatter both
 * directions into rows (in edge order, unsorted), (3) transpose: walking rows in order and
 * appending i to row j puts every row in ascending order, and as the pattern is symmetric
 * the transpose is the same pattern, (4) drop the duplicates, now adjacent.
 * Peak memory: two column arrays of 2 * edges ints and two row arrays of 2^scale + 1.
 */
static int rmat_generate(topospec *spec, char *err, size_t errlen) {
  int rc = 1;
  rmat_generator g;
  rmat_generator_init(spec, &g);
  int n = 1 << spec->rmat_scale;
  long long nedges = (long long)spec->rmat_ef << spec->rmat_scale;
  long long *rowptr = calloc((size_t)n + 1, sizeof(long long));
  long long *fill = malloc(((size_t)n + 1) * sizeof(long long));
  int *scattered = NULL, *colind = NULL;
  if (rowptr == NULL || fill == NULL) {
    fail(err, errlen, "out of memory for the %d vertices of '%s'", n, spec->text);
    goto cleanup;
  }

  long long generated = 0, loops = 0; /* generated: what the batches gave, for the tests */
  uint32_t u[RMAT_BATCH], v[RMAT_BATCH];
  for (long long first = 0; first < nedges; first += RMAT_BATCH) {
    int count = rmat_batch(&g, first, nedges, u, v);
    generated += count;
    for (int e = 0; e < count; e++) {
      if (u[e] == v[e]) {
        loops++;
        continue;
      }
      rowptr[u[e] + 1]++;
      rowptr[v[e] + 1]++;
    }
  }
  for (int i = 0; i < n; i++) rowptr[i + 1] += rowptr[i];
  long long nentries = rowptr[n];

  scattered = alloc_ints((size_t)nentries);
  colind = alloc_ints((size_t)nentries);
  if (scattered == NULL || colind == NULL) {
    fail(err, errlen, "out of memory for the %lld matrix entries of '%s'", nentries, spec->text);
    goto cleanup;
  }
  memcpy(fill, rowptr, ((size_t)n + 1) * sizeof(long long));
  for (long long first = 0; first < nedges; first += RMAT_BATCH) {
    int count = rmat_batch(&g, first, nedges, u, v);
    for (int e = 0; e < count; e++) {
      if (u[e] == v[e]) continue;
      scattered[fill[u[e]]++] = (int)v[e];
      scattered[fill[v[e]]++] = (int)u[e];
    }
  }

  /* Row j of the transpose has as many entries as row j (the multiset is symmetric). */
  memcpy(fill, rowptr, ((size_t)n + 1) * sizeof(long long));
  for (int i = 0; i < n; i++)
    for (long long k = rowptr[i]; k < rowptr[i + 1]; k++) colind[fill[scattered[k]]++] = i;
  free(scattered);
  scattered = NULL;

  /* Compact each row without its duplicates (duplicate edges are harmless to the halo
   * code, which counts distinct x entries, but they would inflate mtx_nnz). */
  long long write = 0;
  for (int i = 0; i < n; i++) {
    long long begin = rowptr[i], end = rowptr[i + 1];
    rowptr[i] = write;
    for (long long k = begin; k < end; k++)
      if (k == begin || colind[k] != colind[k - 1]) colind[write++] = colind[k];
  }
  rowptr[n] = write;
  int *shrunk = realloc(colind, (size_t)(write > 0 ? write : 1) * sizeof(int));
  if (shrunk != NULL) colind = shrunk;

  spec->rmat_edges = generated;
  spec->rmat_loops = loops;
  spec->mtx_rows = spec->mtx_cols = n;
  spec->mtx_rowptr = rowptr;
  spec->mtx_colind = colind;
  spec->mtx_nnz = write;
  rowptr = NULL;
  colind = NULL;
  rc = 0;
cleanup:
  free(rowptr);
  free(fill);
  free(scattered);
  free(colind);
  return rc;
}

/* ------------------------------------------------------------------------------------- */
/* topospec_parse                                                                         */
/* ------------------------------------------------------------------------------------- */

int topospec_parse(const char *spec, topospec *out, char *err, size_t errlen) {
  int rc = 1;
  char params[sizeof out->text];
  memset(out, 0, sizeof *out);
  if (spec == NULL || spec[0] == '\0') {
    fail(err, errlen, "empty topology SPEC");
    goto cleanup;
  }
  if (strlen(spec) >= sizeof out->text) {
    fail(err, errlen, "topology SPEC longer than %zu characters", sizeof out->text - 1);
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
      fail(err, errlen, "'%s': er needs density=D", spec);
      goto cleanup;
    }
  } else if ((kind_len == 5 && strncmp(spec, "moore", 5) == 0) ||
             (kind_len == 10 && strncmp(spec, "vonneumann", 10) == 0)) {
    out->kind = kind_len == 5 ? TOPOSPEC_MOORE : TOPOSPEC_VONNEUMANN;
    out->periodic = 1;
    if (parse_params(params, &ctx, handle_grid_param) != 0) goto cleanup;
    if ((ctx.seen & (SEEN_D | SEEN_R)) != (SEEN_D | SEEN_R)) {
      fail(err, errlen, "'%s': grid neighborhoods need d=D and r=R", spec);
      goto cleanup;
    }
  } else if (kind_len == 3 && strncmp(spec, "mtx", 3) == 0) {
    out->kind = TOPOSPEC_MTX;
    if (rest[0] == '\0') {
      fail(err, errlen, "'%s': mtx needs a file, as mtx:PATH", spec);
      goto cleanup;
    }
    if (read_mtx(rest, out, err, errlen) != 0) goto cleanup;
  } else if (kind_len == 4 && strncmp(spec, "rmat", 4) == 0) {
    out->kind = TOPOSPEC_RMAT;
    out->seed = 1;
    out->rmat_ef = 16;
    if (parse_params(params, &ctx, handle_rmat_param) != 0) goto cleanup;
    if (!(ctx.seen & SEEN_SCALE)) {
      fail(err, errlen, "'%s': rmat needs scale=S", spec);
      goto cleanup;
    }
    if (rmat_generate(out, err, errlen) != 0) goto cleanup;
  } else {
    fail(err, errlen,
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
  uint64_t h = splitmix64(splitmix64(splitmix64(spec->seed) ^ (uint64_t)(uint32_t)from) ^ (uint64_t)(uint32_t)to);
  double uniform = (double)(h >> 11) * 0x1.0p-53; /* in [0, 1) */
  return uniform < spec->density;
}

static int er_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  out->sources = alloc_ints((size_t)nranks);
  out->destinations = alloc_ints((size_t)nranks);
  if (out->sources == NULL || out->destinations == NULL)
    return fail(err, errlen, "out of memory for %d rank%s", nranks, cli_plural(nranks));
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
  s.divisors = alloc_ints((size_t)capacity);
  if (s.divisors == NULL) return fail(err, errlen, "out of memory factoring %d", nranks);
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
      return fail(err, errlen, "'%s': too many offsets ((2r+1)^d - 1 above %d)", spec->text, TOPOSPEC_MAX_OFFSETS);
  }
  int *offsets = alloc_ints((size_t)(cube * d));
  if (offsets == NULL) return fail(err, errlen, "out of memory for %lld offset%s", cube, cli_plural(cube));
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
  out->sources = alloc_ints((size_t)out->noffsets);
  out->destinations = alloc_ints((size_t)out->noffsets);
  if (out->sources == NULL || out->destinations == NULL)
    return fail(err, errlen, "out of memory for %d neighbor%s", out->noffsets, cli_plural(out->noffsets));
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
/* Matrix halo                                                                            */
/* ------------------------------------------------------------------------------------- */

/* Contiguous block split of n items over nranks: rank r owns [begin(r), begin(r + 1)). */
static long long block_begin(long long n, int nranks, int r) { return n * r / nranks; }

/* The rank whose block holds item j: the largest q with block_begin(q) <= j. */
static int block_owner(long long n, int nranks, long long j) { return (int)(((j + 1) * nranks - 1) / n); }

/* First position in the sorted columns [begin, end) whose value is >= value. */
static long long lower_bound(const int *colind, long long begin, long long end, int value) {
  while (begin < end) {
    long long mid = begin + (end - begin) / 2;
    if (colind[mid] < value)
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

/* Sources: owners of the distinct off-rank columns of my rows, with how many of each. */
static int mtx_receive_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  long long row_begin = block_begin(spec->mtx_rows, nranks, rank);
  long long row_end = block_begin(spec->mtx_rows, nranks, rank + 1);
  long long col_begin = block_begin(spec->mtx_cols, nranks, rank);
  long long col_end = block_begin(spec->mtx_cols, nranks, rank + 1);
  long long span = spec->mtx_rowptr[row_end] - spec->mtx_rowptr[row_begin];
  int *needed = alloc_ints((size_t)span);
  if (needed == NULL) {
    fail(err, errlen, "out of memory for %lld matrix entr%s", span, span == 1 ? "y" : "ies");
    goto cleanup;
  }
  long long nneeded = 0;
  for (long long k = spec->mtx_rowptr[row_begin]; k < spec->mtx_rowptr[row_end]; k++) {
    int j = spec->mtx_colind[k];
    if (j < col_begin || j >= col_end) needed[nneeded++] = j;
  }
  qsort(needed, (size_t)nneeded, sizeof(int), compare_int);

  /* Owners are non-decreasing in the column, so distinct columns group by owner. */
  int max_sources = nneeded < nranks ? (int)nneeded : nranks;
  out->sources = alloc_ints((size_t)max_sources);
  out->recv_elems = alloc_ints((size_t)max_sources);
  if (out->sources == NULL || out->recv_elems == NULL) {
    fail(err, errlen, "out of memory for %d source%s", max_sources, cli_plural(max_sources));
    goto cleanup;
  }
  for (long long k = 0; k < nneeded; k++) {
    if (k > 0 && needed[k] == needed[k - 1]) continue;
    int owner = block_owner(spec->mtx_cols, nranks, needed[k]);
    if (out->indegree == 0 || out->sources[out->indegree - 1] != owner) {
      out->sources[out->indegree] = owner;
      out->recv_elems[out->indegree] = 0;
      out->indegree++;
    }
    out->recv_elems[out->indegree - 1]++;
  }
  rc = 0;
cleanup:
  free(needed);
  return rc;
}

/* Destinations: ranks whose rows reference my x entries, with how many distinct ones each.
 * Rows are sorted by column, so each row's part in my column block is found by bisection. */
static int mtx_send_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  long long col_begin = block_begin(spec->mtx_cols, nranks, rank);
  long long col_end = block_begin(spec->mtx_cols, nranks, rank + 1);
  /* last_reader[j - col_begin]: the last rank found to read x_j, so each counts once. */
  int *last_reader = alloc_ints((size_t)(col_end - col_begin));
  out->destinations = alloc_ints((size_t)nranks);
  out->send_elems = alloc_ints((size_t)nranks);
  if (last_reader == NULL || out->destinations == NULL || out->send_elems == NULL) {
    fail(err, errlen, "out of memory for %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  for (long long j = 0; j < col_end - col_begin; j++) last_reader[j] = -1;
  if (col_end > col_begin) {
    for (int q = 0; q < nranks; q++) {
      if (q == rank) continue;
      int count = 0;
      long long row_end = block_begin(spec->mtx_rows, nranks, q + 1);
      for (long long i = block_begin(spec->mtx_rows, nranks, q); i < row_end; i++) {
        long long k = lower_bound(spec->mtx_colind, spec->mtx_rowptr[i], spec->mtx_rowptr[i + 1], (int)col_begin);
        for (; k < spec->mtx_rowptr[i + 1] && spec->mtx_colind[k] < col_end; k++) {
          int *reader = &last_reader[spec->mtx_colind[k] - col_begin];
          if (*reader != q) {
            *reader = q;
            count++;
          }
        }
      }
      if (count > 0) {
        out->destinations[out->outdegree] = q;
        out->send_elems[out->outdegree] = count;
        out->outdegree++;
      }
    }
  }
  rc = 0;
cleanup:
  free(last_reader);
  return rc;
}

/*
 * Both sides for a symmetric pattern with as many rows as columns (rmat), from my own rows
 * alone. Rows and columns then split alike, and what I send q, the x_j of my block that
 * q's rows read, are by symmetry my rows j with an entry in q's column block. That is
 * O(entries of my rows + nranks + columns / 64) per rank, where mtx_send_side scans the
 * rows of every rank: at 4096 ranks of rmat:scale=22, about 0.1 s per rank (7 minutes in
 * all, measured) instead of 1 s for all ranks.
 * The lists come out as mtx's: ascending owners, distinct x entries counted.
 */
static int symmetric_halo(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  long long n = spec->mtx_rows;
  long long row_begin = block_begin(n, nranks, rank), row_end = block_begin(n, nranks, rank + 1);
  int *recv_count = calloc((size_t)nranks, sizeof(int));
  int *send_count = calloc((size_t)nranks, sizeof(int));
  /* seen: the x entries already counted as received (rows share columns). */
  uint64_t *seen = calloc((size_t)(n + 63) / 64, sizeof(uint64_t));
  if (recv_count == NULL || send_count == NULL || seen == NULL) {
    fail(err, errlen, "out of memory for %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  for (long long i = row_begin; i < row_end; i++) {
    /* Columns ascend, so their owners do: owner q holds [q_begin, q_end), found anew only
     * when a column passes q_end (no division per entry); last: q already counted for i. */
    int q = -1, last = -1;
    long long q_end = 0;
    for (long long k = spec->mtx_rowptr[i]; k < spec->mtx_rowptr[i + 1]; k++) {
      int j = spec->mtx_colind[k];
      if (j >= q_end) {
        q = block_owner(n, nranks, j);
        q_end = block_begin(n, nranks, q + 1);
      }
      if (q == rank) continue;
      if (q != last) {
        send_count[q]++;
        last = q;
      }
      uint64_t bit = UINT64_C(1) << (j % 64);
      if (!(seen[j / 64] & bit)) {
        seen[j / 64] |= bit;
        recv_count[q]++;
      }
    }
  }
  /* Symmetry: I read from q exactly when q reads from me, so both lists hold the same ranks. */
  int degree = 0;
  for (int q = 0; q < nranks; q++) degree += recv_count[q] > 0;
  out->sources = alloc_ints((size_t)degree);
  out->recv_elems = alloc_ints((size_t)degree);
  out->destinations = alloc_ints((size_t)degree);
  out->send_elems = alloc_ints((size_t)degree);
  if (out->sources == NULL || out->recv_elems == NULL || out->destinations == NULL || out->send_elems == NULL) {
    fail(err, errlen, "out of memory for %d neighbor%s", degree, cli_plural(degree));
    goto cleanup;
  }
  for (int q = 0; q < nranks; q++) {
    if (recv_count[q] > 0) {
      out->sources[out->indegree] = q;
      out->recv_elems[out->indegree++] = recv_count[q];
    }
    if (send_count[q] > 0) {
      out->destinations[out->outdegree] = q;
      out->send_elems[out->outdegree++] = send_count[q];
    }
  }
  rc = 0;
cleanup:
  free(recv_count);
  free(send_count);
  free(seen);
  return rc;
}

/* ------------------------------------------------------------------------------------- */
/* topospec_for_rank                                                                      */
/* ------------------------------------------------------------------------------------- */

int topospec_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  memset(out, 0, sizeof *out);
  if (spec == NULL) {
    fail(err, errlen, "no topology SPEC");
    goto cleanup;
  }
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    fail(err, errlen, "rank %d out of range for %d rank%s", rank, nranks, cli_plural(nranks));
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
      rc =
          mtx_receive_side(spec, rank, nranks, out, err, errlen) || mtx_send_side(spec, rank, nranks, out, err, errlen);
      break;
    case TOPOSPEC_RMAT:
      rc = symmetric_halo(spec, rank, nranks, out, err, errlen);
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
