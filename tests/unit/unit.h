/* A tiny assertion harness: CHECK records a failure and continues; main returns
 * unit_summary(), which prints "N passed, N failed" and fails the test on any failure. */
#ifndef NHOOD_TESTS_UNIT_H
#define NHOOD_TESTS_UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      unit_passed++;                                                           \
    } else {                                                                   \
      unit_failed++;                                                           \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

static int unit_summary(const char *name) {
  printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
  return unit_failed != 0;
}

#endif
