/*
 * Asynchronous progress (NHOOD_PROGRESS=thread): a thread that advances every non-blocking
 * and persistent request in flight, so that a schedule of several rounds moves on while the
 * program computes instead of only inside NHOOD_Test and NHOOD_Wait.
 *
 * Off by default. It needs MPI_THREAD_MULTIPLE (the thread calls MPI while the program does);
 * below that level nhood says so once on stderr and runs without it. The thread starts at the
 * first request begun with the mode on and is stopped and joined when MPI_Finalize begins.
 * While requests are in flight, and for 2 ms after the last, it passes over them again and
 * again, yielding the CPU between passes (NHOOD_PROGRESS_INTERVAL=us: sleeping that long
 * instead, and leaving a request alone for its first interval); otherwise it sleeps until a
 * request is begun. A call lasts microseconds and Linux wakes a sleeping thread tens of
 * microseconds late, so only the yielding thread keeps up with it, on a core of its own.
 *
 * A request in flight is either the thread's (listed here) or the caller's. The thread and a
 * caller's NHOOD_Test take one lock to advance a listed request, so its task is never advanced
 * by two threads at once; NHOOD_Wait takes the request off the list first and then waits in
 * MPI as without the thread. A run the thread completed keeps its result and error message
 * until the caller collects it.
 */
#ifndef NHOOD_API_PROGRESS_H
#define NHOOD_API_PROGRESS_H

struct nhood_request;

/* Whether the progress thread is in use (NHOOD_PROGRESS=thread at MPI_THREAD_MULTIPLE);
 * decided at the first call and fixed for the process. */
int nhood_progress_on(void);

/* A request whose run has just begun: the thread advances it from now on. Starts the thread
 * at the first call. Where the thread cannot start, the request stays the caller's (the error
 * is reported on stderr once). */
void nhood_progress_add(struct nhood_request *req);

/* For a listed request: advances it once unless the thread completed it; *done = 1 once its
 * run completed, and then it leaves the list and the return value is its result (the error's
 * message restored in the calling thread). */
int nhood_progress_test(struct nhood_request *req, int *done);

/* Takes a listed request off the list. Returns 1 when the thread had completed its run (*rc
 * its result, message restored), else 0: the caller completes the run. */
int nhood_progress_take(struct nhood_request *req, int *rc);

#endif
