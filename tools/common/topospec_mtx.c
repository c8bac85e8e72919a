/*
 * mtx: SPECs: the Matrix Market reader (gzip-compressed or not, through zlib), and the SpMV
 * halo of a sparse matrix split in contiguous row blocks over the ranks (mtx: and rmat:).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"
#include "topospec_internal.h"

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
    topospec_fail(err, errlen, "cannot open matrix file '%s': %s", path, errno ? strerror(errno) : "out of memory");
    goto cleanup;
  }
  size_t len = 0, cap = 1 << 16;
  text = malloc(cap);
  if (text == NULL) {
    topospec_fail(err, errlen, "out of memory reading '%s'", path);
    goto cleanup;
  }
  for (;;) {
    size_t want = cap - len - 1;
    int got = gzread(file, text + len, want > INT_MAX ? INT_MAX : (unsigned)want), zerr = Z_OK;
    const char *why = gzerror(file, &zerr);
    if (got < 0 || zerr != Z_OK) { /* a gzip stream cut short ends with Z_BUF_ERROR, not with -1 */
      topospec_fail(err, errlen, "error reading '%s' (truncated or corrupt?): %s", path,
                    zerr == Z_ERRNO ? strerror(errno) : why);
      goto cleanup;
    }
    len += (size_t)got;
    if (got == 0) break;
    if (len < cap - 1) continue;
    char *bigger = realloc(text, cap * 2);
    if (bigger == NULL) {
      topospec_fail(err, errlen, "out of memory reading '%s'", path);
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
    return topospec_fail(err, errlen,
                         "'%s' is not a Matrix Market file (no %%%%MatrixMarket matrix "
                         "banner)",
                         path);
  if (!take_word(&p, "coordinate"))
    return topospec_fail(err, errlen, "'%s': only the sparse 'coordinate' format is supported", path);
  if (!take_word(&p, "real") && !take_word(&p, "integer") && !take_word(&p, "pattern") && !take_word(&p, "complex"))
    return topospec_fail(err, errlen,
                         "'%s': unknown field (expected real, integer, pattern or "
                         "complex)",
                         path);
  if (take_word(&p, "general"))
    *symmetry = MTX_GENERAL;
  else if (take_word(&p, "symmetric") || take_word(&p, "skew-symmetric") || take_word(&p, "hermitian"))
    *symmetry = MTX_SYMMETRIC;
  else
    return topospec_fail(err, errlen,
                         "'%s': unknown symmetry (expected general, symmetric, "
                         "skew-symmetric or hermitian)",
                         path);
  *cursor = next_line(p);
  return 0;
}

/* Reads the next integer of the current line into *value; 0 when the line has none left, or
 * when it is not a decimal integer in range ending at a blank or the end of the text. Written
 * out rather than strtoll: a sanitizer build's strtoll measures the whole rest of the text at
 * every call, which made reading a large matrix quadratic (minutes). */
static int take_integer(const char **cursor, long long *value) {
  const char *p = *cursor;
  while (*p == ' ' || *p == '\t') p++;
  int negative = *p == '-';
  if (*p == '-' || *p == '+') p++;
  if (!isdigit((unsigned char)*p)) return 0;
  const unsigned long long limit = negative ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
  unsigned long long v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (limit - digit) / 10) return 0; /* out of range */
    v = v * 10 + digit;
  }
  if (*p != '\0' && !isspace((unsigned char)*p)) return 0;
  *value = !negative ? (long long)v : v == limit ? LLONG_MIN : -(long long)v;
  *cursor = p;
  return 1;
}

/*
 * Turns (row, col) pairs (0-based, possibly repeated) into compressed rows with sorted,
 * distinct column indices.
 */
int topospec_build_csr(int nrows, long long npairs, const int *rows, const int *cols, topospec *out, char *err,
                       size_t errlen) {
  long long *rowptr = calloc((size_t)nrows + 1, sizeof(long long));
  long long *fill = malloc(((size_t)nrows + 1) * sizeof(long long));
  int *colind = topospec_alloc_ints((size_t)npairs);
  if (rowptr == NULL || fill == NULL || colind == NULL) {
    free(rowptr);
    free(fill);
    free(colind);
    return topospec_fail(err, errlen, "out of memory for a matrix of %lld entr%s", npairs, npairs == 1 ? "y" : "ies");
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
    if (end - begin > 1) qsort(colind + begin, (size_t)(end - begin), sizeof(int), topospec_compare_int);
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

int topospec_read_mtx(const char *path, topospec *out, char *err, size_t errlen) {
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
    topospec_fail(err, errlen, "'%s': bad size line (expected: rows cols entries)", path);
    goto cleanup;
  }
  if (nrows < 1 || nrows > TOPOSPEC_MAX_MTX_ROWS || ncols < 1 || ncols > TOPOSPEC_MAX_MTX_ROWS || nentries < 0) {
    topospec_fail(err, errlen, "'%s': unsupported size %lld x %lld with %lld entr%s (at most %d rows and columns)",
                  path, nrows, ncols, nentries, nentries == 1 ? "y" : "ies", TOPOSPEC_MAX_MTX_ROWS);
    goto cleanup;
  }
  /* An entry takes at least 4 characters ("i j" and an end of line): a size line announcing
   * more than the file can hold is wrong, and must not size an allocation. */
  long long room = (long long)strlen(p) / 4 + 1;
  if (nentries > room) {
    topospec_fail(err, errlen, "'%s': the size line announces %lld entries, the file has room for at most %lld", path,
                  nentries, room);
    goto cleanup;
  }
  if (symmetry == MTX_SYMMETRIC && nrows != ncols) {
    topospec_fail(err, errlen, "'%s': a symmetric matrix must be square, not %lld x %lld", path, nrows, ncols);
    goto cleanup;
  }
  p = next_line(p);

  /* Symmetric files hold one triangle: room for the mirrored entries too. */
  long long capacity = symmetry == MTX_SYMMETRIC ? 2 * nentries : nentries;
  rows = topospec_alloc_ints((size_t)capacity);
  cols = topospec_alloc_ints((size_t)capacity);
  if (rows == NULL || cols == NULL) {
    topospec_fail(err, errlen, "'%s': out of memory for %lld entr%s", path, nentries, nentries == 1 ? "y" : "ies");
    goto cleanup;
  }
  long long npairs = 0;
  for (long long k = 0; k < nentries; k++) {
    p = skip_comments(p);
    long long i, j;
    if (*p == '\0') {
      topospec_fail(err, errlen, "'%s': expected %lld entr%s, found %lld", path, nentries, nentries == 1 ? "y" : "ies",
                    k);
      goto cleanup;
    }
    if (!take_integer(&p, &i) || !take_integer(&p, &j)) {
      topospec_fail(err, errlen, "'%s': entry %lld is not 'row col [value]'", path, k + 1);
      goto cleanup;
    }
    if (i < 1 || i > nrows || j < 1 || j > ncols) {
      topospec_fail(err, errlen, "'%s': entry %lld (%lld, %lld) is outside the %lld x %lld matrix", path, k + 1, i, j,
                    nrows, ncols);
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
    topospec_fail(err, errlen, "'%s': more entries than the %lld the size line announces", path, nentries);
    goto cleanup;
  }

  out->mtx_rows = (int)nrows;
  out->mtx_cols = (int)ncols;
  if (topospec_build_csr(out->mtx_rows, npairs, rows, cols, out, err, errlen) != 0) goto cleanup;
  rc = 0;
cleanup:
  free(text);
  free(rows);
  free(cols);
  return rc;
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
int topospec_mtx_receive_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err,
                              size_t errlen) {
  int rc = 1;
  long long row_begin = block_begin(spec->mtx_rows, nranks, rank);
  long long row_end = block_begin(spec->mtx_rows, nranks, rank + 1);
  long long col_begin = block_begin(spec->mtx_cols, nranks, rank);
  long long col_end = block_begin(spec->mtx_cols, nranks, rank + 1);
  long long span = spec->mtx_rowptr[row_end] - spec->mtx_rowptr[row_begin];
  int *needed = topospec_alloc_ints((size_t)span);
  if (needed == NULL) {
    topospec_fail(err, errlen, "out of memory for %lld matrix entr%s", span, span == 1 ? "y" : "ies");
    goto cleanup;
  }
  long long nneeded = 0;
  for (long long k = spec->mtx_rowptr[row_begin]; k < spec->mtx_rowptr[row_end]; k++) {
    int j = spec->mtx_colind[k];
    if (j < col_begin || j >= col_end) needed[nneeded++] = j;
  }
  qsort(needed, (size_t)nneeded, sizeof(int), topospec_compare_int);

  /* Owners are non-decreasing in the column, so distinct columns group by owner. */
  int max_sources = nneeded < nranks ? (int)nneeded : nranks;
  out->sources = topospec_alloc_ints((size_t)max_sources);
  out->recv_elems = topospec_alloc_ints((size_t)max_sources);
  if (out->sources == NULL || out->recv_elems == NULL) {
    topospec_fail(err, errlen, "out of memory for %d source%s", max_sources, cli_plural(max_sources));
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

/* The first row r in [i, end) with an entry at or after row i's first, or end: past a run of
 * empty rows by bisection (row pointers never decrease). */
static long long next_nonempty_row(const long long *rowptr, long long i, long long end) {
  long long lo = i, hi = end;
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (rowptr[mid + 1] > rowptr[i])
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Destinations: ranks whose rows reference my x entries, with how many distinct ones each.
 * Rows are sorted by column, so each row's part in my column block is found by bisection.
 * Runs of empty rows are skipped by bisection too: a tall matrix with few entries (a file of
 * four lines can announce 50 million rows) costs its entries, not its rows, per rank. */
int topospec_mtx_send_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  long long col_begin = block_begin(spec->mtx_cols, nranks, rank);
  long long col_end = block_begin(spec->mtx_cols, nranks, rank + 1);
  /* last_reader[j - col_begin]: the last rank found to read x_j, so each counts once. */
  int *last_reader = topospec_alloc_ints((size_t)(col_end - col_begin));
  out->destinations = topospec_alloc_ints((size_t)nranks);
  out->send_elems = topospec_alloc_ints((size_t)nranks);
  if (last_reader == NULL || out->destinations == NULL || out->send_elems == NULL) {
    topospec_fail(err, errlen, "out of memory for %d rank%s", nranks, cli_plural(nranks));
    goto cleanup;
  }
  for (long long j = 0; j < col_end - col_begin; j++) last_reader[j] = -1;
  if (col_end > col_begin) {
    for (int q = 0; q < nranks; q++) {
      if (q == rank) continue;
      int count = 0;
      long long row_end = block_begin(spec->mtx_rows, nranks, q + 1);
      for (long long i = block_begin(spec->mtx_rows, nranks, q); i < row_end; i++) {
        if (spec->mtx_rowptr[i] == spec->mtx_rowptr[i + 1]) {
          i = next_nonempty_row(spec->mtx_rowptr, i, row_end) - 1;
          continue;
        }
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

/* Sorts list[0..n) and turns it into (value, count) pairs, in place: *distinct of them. */
static void count_runs(int *list, long long n, int *counts, int *distinct) {
  qsort(list, (size_t)n, sizeof(int), topospec_compare_int);
  int d = 0;
  for (long long k = 0; k < n; k++) {
    if (d > 0 && list[d - 1] == list[k]) {
      counts[d - 1]++;
    } else {
      list[d] = list[k];
      counts[d++] = 1;
    }
  }
  *distinct = d;
}

/*
 * Both sides for a symmetric pattern with as many rows as columns (rmat), from my own rows
 * alone. Rows and columns then split alike, and what I send q, the x_j of my block that
 * q's rows read, are by symmetry my rows j with an entry in q's column block. That is
 * O(e log e) per rank for the e entries of my rows, where mtx_send_side scans the rows of
 * every rank, and nothing per rank grows with the ranks or the columns (at 262,144 ranks an
 * array per rank of every rank's count cost the whole run P^2).
 * The lists come out as mtx's: ascending owners, distinct x entries counted.
 */
int topospec_symmetric_halo(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen) {
  int rc = 1;
  long long n = spec->mtx_rows;
  long long row_begin = block_begin(n, nranks, rank), row_end = block_begin(n, nranks, rank + 1);
  long long e = spec->mtx_rowptr[row_end] - spec->mtx_rowptr[row_begin], ncols = 0, nrows = 0;
  /* cols: my rows' columns off my block (then their owners); rows: per row, each owner it reads once */
  int *cols = topospec_alloc_ints((size_t)e), *rows = topospec_alloc_ints((size_t)e);
  int *col_counts = topospec_alloc_ints((size_t)e), *row_counts = topospec_alloc_ints((size_t)e);
  if (!cols || !rows || !col_counts || !row_counts) {
    topospec_fail(err, errlen, "out of memory for %lld matrix entr%s", e, e == 1 ? "y" : "ies");
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
      if (q != last) rows[nrows++] = last = q;
      cols[ncols++] = j;
    }
  }
  /* Distinct columns, then their owners (ascending with the columns): received entries per owner. */
  int ndistinct = 0, nsources = 0, ndest = 0;
  count_runs(cols, ncols, col_counts, &ndistinct);
  for (int k = 0; k < ndistinct; k++) cols[k] = block_owner(n, nranks, cols[k]);
  count_runs(cols, ndistinct, col_counts, &nsources);
  count_runs(rows, nrows, row_counts, &ndest);
  /* Symmetry: I read from q exactly when q reads from me, so both lists hold the same ranks. */
  out->sources = topospec_alloc_ints((size_t)nsources);
  out->recv_elems = topospec_alloc_ints((size_t)nsources);
  out->destinations = topospec_alloc_ints((size_t)ndest);
  out->send_elems = topospec_alloc_ints((size_t)ndest);
  if (out->sources == NULL || out->recv_elems == NULL || out->destinations == NULL || out->send_elems == NULL) {
    topospec_fail(err, errlen, "out of memory for %d neighbor%s", nsources, cli_plural(nsources));
    goto cleanup;
  }
  for (int k = 0; k < nsources; k++) out->sources[k] = cols[k], out->recv_elems[k] = col_counts[k];
  for (int k = 0; k < ndest; k++) out->destinations[k] = rows[k], out->send_elems[k] = row_counts[k];
  out->indegree = nsources, out->outdegree = ndest;
  rc = 0;
cleanup:
  free(cols), free(rows), free(col_counts), free(row_counts);
  return rc;
}
