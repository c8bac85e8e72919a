#include "selection/tune.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "selection/select.h"
#include "topology/topology.h"

#define RULE_MAX 256

/* Copies s without spaces into out (RULE_MAX); 1 when it does not fit. */
static int squeeze(const char *s, size_t n, char *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (isspace((unsigned char)s[i])) continue;
    if (k + 1 >= RULE_MAX) return 1;
    out[k++] = s[i];
  }
  out[k] = '\0';
  return 0;
}

/* A SIZE; 0, or 1 when text is not one. */
static int parse_size(const char *text, double *out) {
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)text[0])) return 1;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0) return 1;
  double scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1024.0, end++;
  else if (*end == 'M' || *end == 'm') scale = 1024.0 * 1024, end++;
  else if (*end == 'G' || *end == 'g') scale = 1024.0 * 1024 * 1024, end++;
  if (*end != '\0') return 1;
  *out = (double)v * scale;
  return 0;
}

/* RANGE into [lo, hi]; 0, or 1 when malformed. */
static int parse_range(char *text, double *lo, double *hi) {
  char *dash = strchr(text, '-');
  if (dash == NULL) {
    if (parse_size(text, lo)) return 1;
    *hi = *lo;
    return 0;
  }
  *dash = '\0';
  *lo = 0;
  *hi = 1e300;
  if (text[0] != '\0' && parse_size(text, lo)) return 1;
  if (dash[1] != '\0' && parse_size(dash + 1, hi)) return 1;
  return *lo > *hi;
}

/* 1 when the COLLS list names kind; -1 when it names something unknown. */
static int colls_match(char *list, nhood_coll_kind kind) {
  if (strcmp(list, "*") == 0) return 1;
  int match = 0;
  for (char *name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
    int known = 0;
    for (int k = 0; k < NHOOD_NCOLLS; k++)
      if (strcmp(name, nhood_coll_names[k]) == 0) {
        known = 1;
        match |= k == (int)kind;
      }
    if (!known) return -1;
  }
  return match;
}

int nhood_tune_lookup(const char *rules, const char *origin, nhood_coll_kind kind, double bytes, char *out) {
  out[0] = '\0';
  int index = 0;
  for (const char *p = rules; p != NULL && *p != '\0';) {
    size_t n = strcspn(p, ";");
    char rule[RULE_MAX], original[RULE_MAX];
    index++;
    if (squeeze(p, n, rule)) return nhood_error(MPI_ERR_INFO, "%s: rule %d is too long", origin, index);
    p += n + (p[n] == ';');
    if (rule[0] == '\0') continue; /* empty rule, e.g. a trailing ';' */
    strcpy(original, rule);
    char *eq = strchr(rule, '=');
    if (eq == NULL)
      return nhood_error(MPI_ERR_INFO, "%s: rule %d (\"%s\") has no '=ALGORITHM'", origin, index, original);
    *eq = '\0';
    const char *algo = eq + 1;
    if (strcmp(algo, "auto") != 0 && nhood_algorithm_by_name(algo) == NULL)
      return nhood_error(MPI_ERR_INFO, "%s: rule %d (\"%s\") names unknown algorithm \"%s\" (known: %s)", origin,
                         index, original, algo, nhood_algorithm_names());
    double lo = 0, hi = 1e300;
    char *colon = strchr(rule, ':');
    if (colon != NULL) {
      *colon = '\0';
      if (parse_range(colon + 1, &lo, &hi))
        return nhood_error(MPI_ERR_INFO,
                           "%s: rule %d (\"%s\") has a malformed size range (expected MIN-MAX bytes, e.g. 0-4K or 64K-)",
                           origin, index, original);
    }
    int match = colls_match(rule, kind);
    if (match < 0)
      return nhood_error(MPI_ERR_INFO, "%s: rule %d (\"%s\") names an unknown collective (known: *, allgather, "
                         "allgatherv, alltoall, alltoallv, alltoallw, reduce, scatter_reduce)", origin, index, original);
    if (match && out[0] == '\0' && bytes >= lo && bytes <= hi) {
      strncpy(out, algo, NHOOD_ALGORITHM_NAME_MAX - 1);
      out[NHOOD_ALGORITHM_NAME_MAX - 1] = '\0';
    }
  }
  return MPI_SUCCESS;
}
