#include "selection/tune.h"

#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
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
  if (*end == 'K' || *end == 'k')
    scale = 1024.0, end++;
  else if (*end == 'M' || *end == 'm')
    scale = 1024.0 * 1024, end++;
  else if (*end == 'G' || *end == 'g')
    scale = 1024.0 * 1024 * 1024, end++;
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

/* The collectives a COLLS list names, as a mask (bit k for nhood_coll_kind k); -1 when it
 * names something unknown. (No strtok: rules are parsed from several threads.) */
static long colls_mask(const char *list) {
  if (strcmp(list, "*") == 0) return (1L << NHOOD_NCOLLS) - 1;
  long mask = 0;
  for (const char *name = list;; name++) {
    size_t n = strcspn(name, ",");
    int known = 0;
    for (int k = 0; k < NHOOD_NCOLLS; k++)
      if (strlen(nhood_coll_names[k]) == n && strncmp(name, nhood_coll_names[k], n) == 0) {
        known = 1;
        mask |= 1L << k;
      }
    if (!known) return -1;
    name += n;
    if (*name == '\0') return mask;
  }
}

/* Parses and checks every rule into out (allocated; nhood_tune_free releases it). */
int nhood_tune_parse(const char *rules, const char *origin, nhood_tune_rules *out) {
  int rc = MPI_SUCCESS, index = 0, cap = 0;
  out->n = 0;
  out->rule = NULL;
  for (const char *p = rules; p != NULL && *p != '\0';) {
    size_t n = strcspn(p, ";");
    char rule[RULE_MAX], original[RULE_MAX];
    index++;
    if (squeeze(p, n, rule)) {
      rc = nhood_error(MPI_ERR_INFO, "%s: rule %d is too long", origin, index);
      goto cleanup;
    }
    p += n + (p[n] == ';');
    if (rule[0] == '\0') continue; /* empty rule, e.g. a trailing ';' */
    strcpy(original, rule);
    char *eq = strchr(rule, '=');
    if (eq == NULL) {
      rc = nhood_error(MPI_ERR_INFO, "%s: rule %d (\"%s\") has no '=ALGORITHM'", origin, index, original);
      goto cleanup;
    }
    *eq = '\0';
    const char *algo = eq + 1;
    if (strcmp(algo, "auto") != 0 && nhood_algorithm_by_name(algo) == NULL) {
      rc = nhood_error(MPI_ERR_INFO, "%s: rule %d (\"%s\") names unknown algorithm \"%s\" (known: %s)", origin, index,
                       original, algo, nhood_algorithm_names());
      goto cleanup;
    }
    double lo = 0, hi = 1e300;
    char *colon = strchr(rule, ':');
    if (colon != NULL) {
      *colon = '\0';
      if (parse_range(colon + 1, &lo, &hi)) {
        rc = nhood_error(MPI_ERR_INFO,
                         "%s: rule %d (\"%s\") has a malformed size range (expected MIN-MAX bytes, e.g. 0-4K or 64K-)",
                         origin, index, original);
        goto cleanup;
      }
    }
    long colls = colls_mask(rule);
    if (colls < 0) {
      rc = nhood_error(MPI_ERR_INFO,
                       "%s: rule %d (\"%s\") names an unknown collective (known: *, allgather, allgatherv, "
                       "alltoall, alltoallv, alltoallw, reduce, scatter_reduce)",
                       origin, index, original);
      goto cleanup;
    }
    if (out->n == cap) {
      cap = cap ? 2 * cap : 4;
      nhood_tune_rule *grown = realloc(out->rule, sizeof *grown * (size_t)cap);
      if (!grown) {
        rc = nhood_error(MPI_ERR_NO_MEM, "%s: out of memory for the tuning rules", origin);
        goto cleanup;
      }
      out->rule = grown;
    }
    nhood_tune_rule *r = &out->rule[out->n++];
    r->colls = (unsigned)colls;
    r->lo = lo;
    r->hi = hi;
    snprintf(r->algorithm, sizeof r->algorithm, "%s", algo); /* known names fit */
  }
cleanup:
  if (rc != MPI_SUCCESS) nhood_tune_free(out);
  return rc;
}

const char *nhood_tune_match(const nhood_tune_rules *rules, nhood_coll_kind kind, double bytes) {
  for (int i = 0; rules != NULL && i < rules->n; i++) {
    const nhood_tune_rule *r = &rules->rule[i];
    if ((r->colls >> kind & 1u) && bytes >= r->lo && bytes <= r->hi) return r->algorithm;
  }
  return NULL;
}

void nhood_tune_free(nhood_tune_rules *rules) {
  free(rules->rule);
  rules->rule = NULL;
  rules->n = 0;
}

int nhood_tune_lookup(const char *rules, const char *origin, nhood_coll_kind kind, double bytes, char *out) {
  nhood_tune_rules parsed;
  int rc = nhood_tune_parse(rules, origin, &parsed);
  out[0] = '\0';
  if (rc != MPI_SUCCESS) return rc;
  const char *algo = nhood_tune_match(&parsed, kind, bytes);
  if (algo) snprintf(out, NHOOD_ALGORITHM_NAME_MAX, "%s", algo);
  nhood_tune_free(&parsed);
  return MPI_SUCCESS;
}

/* NHOOD_TUNE's text and its parsed rules (or the parse's error), kept until the text changes:
 * a call compares the variable with the text it was parsed from instead of parsing it again,
 * and a program that changes the variable between calls (setenv) still gets its new rules.
 * A spin lock guards the cache for MPI_THREAD_MULTIPLE programs. */
static atomic_flag env_lock = ATOMIC_FLAG_INIT;
static int env_cached; /* env_text, env_rules and env_error are current */
static char *env_text; /* the text parsed; NULL when NHOOD_TUNE is unset */
static nhood_tune_rules env_rules;
static int env_error; /* the parse's error class, or MPI_SUCCESS */
static char env_failure[NHOOD_MAX_ERROR_STRING];

int nhood_tune_env_match(nhood_coll_kind kind, double bytes, char *out) {
  const char *env = getenv("NHOOD_TUNE");
  int rc = MPI_SUCCESS;
  out[0] = '\0';
  while (atomic_flag_test_and_set_explicit(&env_lock, memory_order_acquire)) {}
  if (!env_cached || (env == NULL) != (env_text == NULL) || (env != NULL && strcmp(env, env_text) != 0)) {
    nhood_tune_free(&env_rules);
    free(env_text);
    env_text = NULL;
    env_error = MPI_SUCCESS;
    env_cached = env == NULL || (env_text = strdup(env)) != NULL; /* out of memory: try again next call */
    if (!env_cached) {
      env_error = MPI_ERR_NO_MEM;
      snprintf(env_failure, sizeof env_failure, "NHOOD_TUNE: out of memory");
    } else if (env != NULL && (env_error = nhood_tune_parse(env, "NHOOD_TUNE", &env_rules)) != MPI_SUCCESS) {
      NHOOD_Error_message(env_failure, NULL);
    }
  }
  if (env_error != MPI_SUCCESS) {
    rc = env_error;
  } else {
    const char *algo = nhood_tune_match(&env_rules, kind, bytes);
    if (algo) snprintf(out, NHOOD_ALGORITHM_NAME_MAX, "%s", algo);
  }
  atomic_flag_clear_explicit(&env_lock, memory_order_release);
  return rc == MPI_SUCCESS ? MPI_SUCCESS : nhood_error(rc, "%s", env_failure);
}

/* ---- the tuning rules of NHOOD_INFO_TUNE, kept on the topology ---------------------------- */

static void free_rules(void *rules) {
  nhood_tune_free(rules);
  free(rules);
}

static nhood_topo_key tune_key = NHOOD_TOPO_KEY("tuning rules", free_rules);

const nhood_tune_rules *nhood_tune_rules_of(NHOOD_Topo topo) { return nhood_topo_attr(topo, &tune_key); }

int nhood_tune_attach(NHOOD_Topo topo, MPI_Info info) {
  int rc = MPI_SUCCESS, flag = 0;
  char rules[MPI_MAX_INFO_VAL + 1];
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Info_get(info, NHOOD_INFO_TUNE, MPI_MAX_INFO_VAL, rules, &flag));
  if (!flag) return MPI_SUCCESS;
  nhood_tune_rules *parsed = malloc(sizeof *parsed);
  if (!parsed) return nhood_error(MPI_ERR_NO_MEM, "out of memory for the tuning rules");
  rc = nhood_tune_parse(rules, "info key " NHOOD_INFO_TUNE, parsed);
  if (rc != MPI_SUCCESS) {
    free(parsed);
    return rc;
  }
  return nhood_topo_attr_set(topo, &tune_key, parsed);
cleanup:
  return rc;
}
