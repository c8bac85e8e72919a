#include "api/threads.h"

#include <stdatomic.h>

#include "common/errors.h"
#include "common/hot.h"

atomic_int nhood_thread_level = -1;                    /* asked at the first call */
static atomic_int inside;                              /* entry points in progress in this process, below MULTIPLE */
static _Thread_local int depth NHOOD_FAST_TLS;         /* this thread's nested entry points */
_Thread_local int nhood_thread_checked NHOOD_FAST_TLS; /* this thread was found allowed to call */

const char *nhood_thread_level_name(int l) {
  switch (l) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

/* MPI's thread level, asked once; an error when MPI is not running. */
static int query_level(int *l) {
  int rc = MPI_SUCCESS, initialized = 0, finalized = 0;
  NHOOD_MPI_CALL(MPI_Initialized(&initialized));
  NHOOD_MPI_CALL(MPI_Finalized(&finalized));
  if (!initialized || finalized)
    return nhood_error(MPI_ERR_OTHER, "MPI is %s; nhood's collectives run between MPI_Init and MPI_Finalize",
                       finalized ? "finalized" : "not initialized");
  NHOOD_MPI_CALL(MPI_Query_thread(l));
  atomic_store(&nhood_thread_level, *l);
cleanup:
  return rc;
}

/* The check at a thread's first call, and at every call under MPI_THREAD_SERIALIZED. Below
 * that level only the first call of a thread is checked (`nhood_thread_checked`), and nesting is counted
 * (`depth`) only at MPI_THREAD_SERIALIZED, for the calls in progress there. */
NHOOD_HOT int nhood_thread_enter_checked(int l) {
  int rc = MPI_SUCCESS;
  if (l < 0) {
    if ((rc = query_level(&l)) != MPI_SUCCESS) return rc;
    if (l == MPI_THREAD_MULTIPLE) return MPI_SUCCESS;
  }
  if (!nhood_thread_checked && l <= MPI_THREAD_FUNNELED) {
    int is_main = 0;
    NHOOD_MPI_CALL(MPI_Is_thread_main(&is_main));
    if (!is_main)
      return nhood_error(MPI_ERR_OTHER,
                         "called from a thread other than the one that initialized MPI, which provides %s only; "
                         "initialize MPI with MPI_Init_thread and MPI_THREAD_SERIALIZED (or MPI_THREAD_MULTIPLE "
                         "for calls from several threads at once)",
                         nhood_thread_level_name(l));
  }
  nhood_thread_checked = 1;
  /* Below MPI_THREAD_SERIALIZED only the main thread gets here: no other can be inside. */
  if (l != MPI_THREAD_SERIALIZED || depth++ > 0) return MPI_SUCCESS;
  if (atomic_fetch_add(&inside, 1) != 0) {
    atomic_fetch_sub(&inside, 1);
    depth--;
    return nhood_error(MPI_ERR_OTHER,
                       "called while another thread of this process is in an nhood call, but MPI provides %s only; "
                       "initialize MPI with MPI_Init_thread and MPI_THREAD_MULTIPLE for concurrent calls",
                       nhood_thread_level_name(l));
  }
cleanup:
  return rc;
}

NHOOD_HOT void nhood_thread_leave_serialized(void) {
  if (--depth == 0) atomic_fetch_sub(&inside, 1);
}
