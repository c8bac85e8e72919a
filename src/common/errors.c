#include "common/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hot.h"
#include "nhood.h"

static _Thread_local char last_message[NHOOD_MAX_ERROR_STRING];

int nhood_error(int errclass, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return errclass;
}

void nhood_error_context(const char *fmt, ...) {
  char context[NHOOD_MAX_ERROR_STRING], both[2 * NHOOD_MAX_ERROR_STRING + 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof context, fmt, ap);
  va_end(ap);
  snprintf(both, sizeof both, "%s: %s", context, last_message);
  memcpy(last_message, both, sizeof last_message - 1); /* cut to the message's length */
  last_message[sizeof last_message - 1] = '\0';
}

char *nhood_error_save(void) {
  size_t n = strnlen(last_message, sizeof last_message - 1);
  char *copy = malloc(n + 1);
  if (copy) {
    memcpy(copy, last_message, n);
    copy[n] = '\0';
  }
  return copy;
}

NHOOD_HOT int nhood_error_restore(int errclass, const char *saved) {
  if (saved) snprintf(last_message, sizeof last_message, "%s", saved);
  return errclass;
}

int nhood_mpi_error(int code, const char *what) {
  char mpimsg[MPI_MAX_ERROR_STRING];
  int len = 0, errclass = MPI_ERR_INTERN;
  if (MPI_Error_string(code, mpimsg, &len) != MPI_SUCCESS) snprintf(mpimsg, sizeof mpimsg, "error code %d", code);
  if (MPI_Error_class(code, &errclass) != MPI_SUCCESS) errclass = MPI_ERR_INTERN;
  return nhood_error(errclass, "%s failed: %s", what, mpimsg);
}

int NHOOD_Error_message(char *msg, int *resultlen) {
  if (msg == NULL) return nhood_error(MPI_ERR_ARG, "NHOOD_Error_message: msg is NULL");
  size_t n = strnlen(last_message, sizeof last_message - 1);
  memcpy(msg, last_message, n);
  msg[n] = '\0';
  if (resultlen) *resultlen = (int)n;
  return MPI_SUCCESS;
}
