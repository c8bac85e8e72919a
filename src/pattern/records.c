/* Record lists of the pattern programs (pattern/records.h). */
#include "pattern/records.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

/* ---- record lists ----------------------------------------------------------------------- */

void nhood_records_free(nhood_records *r) {
  free(r->words);
  memset(r, 0, sizeof *r);
}

int nhood_records_reserve(nhood_records *r, int more, int *capacity) {
  if (r->nwords + more <= *capacity) return MPI_SUCCESS;
  int cap = *capacity ? *capacity : 16;
  while (cap < r->nwords + more) cap *= 2;
  int *bigger = realloc(r->words, sizeof(int) * (size_t)cap);
  if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "out of memory for duty lists");
  r->words = bigger;
  *capacity = cap;
  return MPI_SUCCESS;
}

/* Appends a record whose list is the sorted merge of a[na] and b[nb] (either may be empty). */
int nhood_records_append(nhood_records *r, int *capacity, int key, const int *a, int na, const int *b, int nb) {
  int rc = nhood_records_reserve(r, 2 + na + nb, capacity);
  if (rc != MPI_SUCCESS) return rc;
  int *w = r->words + r->nwords, i = 0, j = 0, n = 2;
  w[0] = key;
  w[1] = na + nb;
  while (i < na || j < nb) w[n++] = (j >= nb || (i < na && a[i] < b[j])) ? a[i++] : b[j++];
  r->nwords += n;
  r->nrecords++;
  return MPI_SUCCESS;
}

/* Copies words[n] (records) into a fresh list. */
int nhood_records_from(nhood_records *r, const int *words, int nwords) {
  memset(r, 0, sizeof *r);
  if (nwords == 0) return MPI_SUCCESS;
  r->words = malloc(sizeof(int) * (size_t)nwords);
  if (!r->words) return nhood_error(MPI_ERR_NO_MEM, "out of memory for duty lists");
  memcpy(r->words, words, sizeof(int) * (size_t)nwords);
  r->nwords = nwords;
  for (const int *x = words; x < words + nwords; x += 2 + x[1]) r->nrecords++;
  return MPI_SUCCESS;
}

/* Whether the words hold well-formed records (a message from another rank is checked). */
int nhood_records_valid(const int *words, int nwords) {
  for (int k = 0; k < nwords;) {
    if (nwords - k < 2 || words[k + 1] < 0 || words[k + 1] > nwords - k - 2) return 0;
    k += 2 + words[k + 1];
  }
  return 1;
}

/* c = a merged with b by key (ascending in both); lists of equal keys are merged. */
int nhood_records_merge(const int *a, int na, const int *b, int nb, nhood_records *c) {
  int capacity = 0, rc = MPI_SUCCESS;
  memset(c, 0, sizeof *c);
  const int *x = a, *y = b, *xe = a + na, *ye = b + nb;
  while (rc == MPI_SUCCESS && (x < xe || y < ye)) {
    if (y >= ye || (x < xe && x[0] < y[0])) {
      rc = nhood_records_append(c, &capacity, x[0], x + 2, x[1], NULL, 0);
      x += 2 + x[1];
    } else if (x >= xe || y[0] < x[0]) {
      rc = nhood_records_append(c, &capacity, y[0], y + 2, y[1], NULL, 0);
      y += 2 + y[1];
    } else {
      rc = nhood_records_append(c, &capacity, x[0], x + 2, x[1], y + 2, y[1]);
      x += 2 + x[1];
      y += 2 + y[1];
    }
  }
  if (rc != MPI_SUCCESS) nhood_records_free(c);
  return rc;
}

/* Splits src by key: records whose key has bit `bit` equal to `value` go to `with`, the
 * others to `without`. */
int nhood_records_split(const nhood_records *src, int bit, int value, nhood_records *with, nhood_records *without) {
  int cap_with = 0, cap_without = 0, rc = MPI_SUCCESS;
  memset(with, 0, sizeof *with);
  memset(without, 0, sizeof *without);
  for (const int *x = src->words; rc == MPI_SUCCESS && x < NHOOD_RECORDS_END(*src); x += 2 + x[1]) {
    int match = ((x[0] >> bit) & 1) == value;
    rc = nhood_records_append(match ? with : without, match ? &cap_with : &cap_without, x[0], x + 2, x[1], NULL, 0);
  }
  if (rc != MPI_SUCCESS) {
    nhood_records_free(with);
    nhood_records_free(without);
  }
  return rc;
}
