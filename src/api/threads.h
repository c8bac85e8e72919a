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

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE": a thread level's name, for messages. */
const char *nhood_thread_level_name(int level);

/* At the start of an entry point: MPI_SUCCESS (then nhood_thread_leave must follow) or the
 * error, recorded. Calls nest (an entry point calling another counts once). */
int nhood_thread_enter(void);
void nhood_thread_leave(void);

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
