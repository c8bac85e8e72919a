/*
 * What nhood needs of MPI's thread level, checked where it is used.
 *
 * nhood calls MPI only from the thread that called nhood, and its own shared state (handles,
 * communicator contexts, caches) is safe for concurrent use. So a program needs of MPI what
 * its own use of nhood needs: calls from a thread other than the one that initialized MPI
 * need MPI_THREAD_SERIALIZED, calls from two threads at the same time MPI_THREAD_MULTIPLE.
 * Below MPI_THREAD_MULTIPLE the entry points that call MPI check both (the first per thread,
 * the second at every call, by counting the calls in progress) and fail with MPI_ERR_OTHER and
 * a message naming the level, before calling MPI, instead of racing in MPI. At
 * MPI_THREAD_MULTIPLE the check is one load.
 */
#ifndef NHOOD_API_THREADS_H
#define NHOOD_API_THREADS_H

#include <mpi.h>
#include <stdatomic.h>

#include "common/hot.h"

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE": a thread level's name, for messages. */
const char *nhood_thread_level_name(int level);

/* At the start of an entry point: MPI_SUCCESS (then nhood_thread_leave must follow) or the
 * error, recorded. Calls nest (an entry point calling another counts once). Inline: after a
 * thread's first call, below MPI_THREAD_SERIALIZED, it is one load and one thread-local read. */
extern atomic_int nhood_thread_level;                         /* MPI_Query_thread's, -1 before the first call */
extern _Thread_local int nhood_thread_checked NHOOD_FAST_TLS; /* this thread was found allowed to call */
int nhood_thread_enter_checked(int level);
void nhood_thread_leave_serialized(void);
/* 1 where this thread's call needs no check and no nhood_thread_leave (the fast test of
 * nhood_thread_enter, for a path that takes its slow branch elsewhere). */
static inline int nhood_thread_free(void) {
  int l = atomic_load_explicit(&nhood_thread_level, memory_order_relaxed);
  return l == MPI_THREAD_MULTIPLE || (nhood_thread_checked && l != MPI_THREAD_SERIALIZED);
}
static inline int nhood_thread_enter(void) {
  return nhood_thread_free()
             ? MPI_SUCCESS
             : nhood_thread_enter_checked(atomic_load_explicit(&nhood_thread_level, memory_order_relaxed));
}
static inline void nhood_thread_leave(void) {
  if (atomic_load_explicit(&nhood_thread_level, memory_order_relaxed) == MPI_THREAD_SERIALIZED)
    nhood_thread_leave_serialized();
}

/* The body of an entry point: returns call's result between the two, or the check's error. */
#define NHOOD_THREAD_GUARDED(call)                      \
  do {                                                  \
    int guarded_rc_ = nhood_thread_enter();             \
    if (guarded_rc_ != MPI_SUCCESS) return guarded_rc_; \
    guarded_rc_ = (call);                               \
    nhood_thread_leave();                               \
    return guarded_rc_;                                 \
  } while (0)

#endif
