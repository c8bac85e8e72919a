/* What the fuzz targets share: the input as a string, or as a file a reader opens by path. */
#ifndef NHOOD_TESTS_FUZZ_INPUT_H
#define NHOOD_TESTS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input up to its first NUL, NUL-terminated (free it). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (s == NULL) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* The input written to one file of this process, whose path is returned (the same each time). */
static inline const char *fuzz_file(const uint8_t *data, size_t size) {
  static char path[64];
  if (path[0] == '\0') snprintf(path, sizeof path, "/tmp/nhood-fuzz-%ld", (long)getpid());
  FILE *f = fopen(path, "wb");
  if (f == NULL) abort();
  if (size > 0 && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

#endif
