#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_int(const char *option, const char *value, int min, int *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (value[0] == '\0' || *end != '\0' || errno != 0 || v < min || v > INT_MAX) {
    snprintf(err, errlen, "%s: '%s' is not an integer >= %d", option, value, min);
    return 1;
  }
  *out = (int)v;
  return 0;
}

int cli_parse_mode(const char *option, const char *value, int *persistent, char *err, size_t errlen) {
  if (strcmp(value, "blocking") != 0 && strcmp(value, "persistent") != 0) {
    snprintf(err, errlen, "%s: '%s' is neither blocking nor persistent", option, value);
    return 1;
  }
  *persistent = strcmp(value, "persistent") == 0;
  return 0;
}

int cli_option_with_value(int argc, char **argv, int *i, const char *const names[], size_t n, const char **name,
                          const char **value, char *err, size_t errlen) {
  const char *arg = argv[*i];
  *name = NULL;
  *value = NULL;
  for (size_t k = 0; k < n && *name == NULL; k++) {
    size_t len = strlen(names[k]);
    if (strncmp(arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
      *name = names[k];
      *value = arg[len] == '=' ? arg + len + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
    }
  }
  if (*name == NULL) {
    snprintf(err, errlen, "unknown argument '%s' (try --help)", arg);
    return 1;
  }
  if (*value == NULL || (*value)[0] == '\0') {
    snprintf(err, errlen, "%s needs a value", *name);
    return 1;
  }
  return 0;
}

void cli_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

int cli_compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cli_median(double *samples, int n) {
  qsort(samples, (size_t)n, sizeof(double), cli_compare_double);
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

double cli_sorted_quantile(const double *sorted, int n, double p) {
  double at = p * (n - 1);
  int i = (int)at;
  return i + 1 < n ? sorted[i] + (at - i) * (sorted[i + 1] - sorted[i]) : sorted[n - 1];
}
