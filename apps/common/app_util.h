/* What the applications share: allocation and nhood calls that give up loudly (an
 * application has no use for running on without memory, and one process failing alone would
 * leave the others waiting in a collective), and MPI_UNWEIGHTED through a variable. */
#ifndef NHOOD_APPS_APP_UTIL_H
#define NHOOD_APPS_APP_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "nhood.h"

/* The program's name in messages; each application sets it first thing. */
static const char *app_name = "nhood-app";

/* MPI_UNWEIGHTED, stored at run time by app_init: Open MPI defines it as the constant
 * (int *)2, which GCC 12 reports as reading from a region of size 0 wherever it reaches an
 * array parameter. */
static const int *volatile app_unweighted;

static inline void app_init(const char *name) {
  app_name = name;
  app_unweighted = MPI_UNWEIGHTED;
}

static inline void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "%s: out of memory (%zu bytes)\n", app_name, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* An nhood call that must succeed: otherwise its message, and the job ends. */
static inline void check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char msg[NHOOD_MAX_ERROR_STRING];
  NHOOD_Error_message(msg, NULL);
  fprintf(stderr, "%s: %s failed: %s\n", app_name, what, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#endif
