/* Error reporting: every failing function returns an MPI error class and leaves a message
 * naming the offending argument in a per-thread buffer (NHOOD_Error_message). */
#ifndef NHOOD_COMMON_ERRORS_H
#define NHOOD_COMMON_ERRORS_H

#include <mpi.h>

#if defined(__GNUC__)
#define NHOOD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NHOOD_PRINTF(f, a)
#endif

/* Records "fmt..." as this thread's last error and returns errclass. */
int nhood_error(int errclass, const char *fmt, ...) NHOOD_PRINTF(2, 3);

/* Puts "<context>: " before this thread's last message (the error it describes stays). */
void nhood_error_context(const char *fmt, ...) NHOOD_PRINTF(1, 2);

/* This thread's last message, to keep while other errors may overwrite it (NULL when out of
 * memory; free it), and to put back with nhood_error_restore. */
char *nhood_error_save(void);
int nhood_error_restore(int errclass, const char *saved);

/* For a failed MPI call: records "<what>: <MPI's error string>" and returns the error class
 * of code. */
int nhood_mpi_error(int code, const char *what);

/* Evaluates an MPI call; on failure records the call's text and jumps to `cleanup` with
 * `rc` set to the error class. Requires `int rc` and a `cleanup:` label in the function. */
#define NHOOD_MPI_CALL(call)                      \
  do {                                            \
    int nhood_mpi_rc_ = (call);                   \
    if (nhood_mpi_rc_ != MPI_SUCCESS) {           \
      rc = nhood_mpi_error(nhood_mpi_rc_, #call); \
      goto cleanup;                               \
    }                                             \
  } while (0)

/* Jumps to cleanup when `expr` (an nhood call returning an error class) fails. */
#define NHOOD_TRY(expr)                  \
  do {                                   \
    rc = (expr);                         \
    if (rc != MPI_SUCCESS) goto cleanup; \
  } while (0)

#endif
