/*
 * Preloaded into MPICH's test processes: when UCX's progress function (which MPICH's ch4:ucx
 * device calls in every wait loop) finds nothing to do, the process yields its core.
 *
 * Why: MPICH busy-polls. With more ranks than cores, a rank that waits for a message spins
 * for its whole time slice while the rank that would send it is not running, and a test that
 * takes 0.2 s with yielding takes 9 s without (mpi.lifetime, 4 ranks on 2 cores). Open MPI
 * has this as a setting (mpi_yield_when_idle); MPICH 4.0's MPIR_CVAR_POLLS_BEFORE_YIELD does
 * not reach ch4:ucx's loops. It changes when processes run, nothing of what MPI does. Where
 * MPICH does not use UCX, nothing calls this and it has no effect.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker) {
  static progress_fn real;
  if (real == NULL) {
    void *symbol = dlsym(RTLD_NEXT, "ucp_worker_progress");
    /* An object pointer to a function pointer: what dlsym's interface requires (POSIX). */
    *(void **)&real = symbol;
  }
  unsigned events = real(worker);
  if (events == 0) sched_yield();
  return events;
}
