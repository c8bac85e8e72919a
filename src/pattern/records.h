/*
 * Record lists, the currency of the pattern programs (combine.h, node.h): records
 * (key, n, list[n]) one after another in one int array, keys ascending where a function
 * says so, each list ascending.
 */
#ifndef NHOOD_PATTERN_RECORDS_H
#define NHOOD_PATTERN_RECORDS_H

/* A list of records (key, n, list[n]) in one int array. */
typedef struct {
  int nrecords, nwords;
  int *words;
} nhood_records;

/* Iterates over records: for (const int *r = rec.words; r < rec.words + rec.nwords; r += 2 + r[1]) */
#define NHOOD_RECORDS_END(rec) ((rec).nwords ? (rec).words + (rec).nwords : (rec).words) /* no NULL + 0 */

void nhood_records_free(nhood_records *r);
/* Room for `more` words; *capacity is the list's allocated words. */
int nhood_records_reserve(nhood_records *r, int more, int *capacity);
/* Appends a record whose list is the sorted merge of a[na] and b[nb] (either may be empty). */
int nhood_records_append(nhood_records *r, int *capacity, int key, const int *a, int na, const int *b, int nb);
/* Copies words[n] (records) into a fresh list. */
int nhood_records_from(nhood_records *r, const int *words, int nwords);
/* Whether the words hold well-formed records (a message from another rank is checked). */
int nhood_records_valid(const int *words, int nwords);
/* c = a merged with b by key (ascending in both); lists of equal keys are merged. */
int nhood_records_merge(const int *a, int na, const int *b, int nb, nhood_records *c);
/* Splits src by key: records whose key has bit `bit` equal to `value` go to `with`, the
 * others to `without`. */
int nhood_records_split(const nhood_records *src, int bit, int value, nhood_records *with, nhood_records *without);

#endif
