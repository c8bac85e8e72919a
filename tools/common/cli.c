#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

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
