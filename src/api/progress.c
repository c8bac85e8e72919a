/* The progress thread (api/progress.h). */
#include "api/progress.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "api/request.h"
#include "api/threads.h"
#include "common/errors.h"

enum { MODE_UNKNOWN = -1, MODE_OFF = 0, MODE_THREAD = 1 };

static atomic_int mode = MODE_UNKNOWN;
static long interval_us = 0;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct nhood_request **listed; /* requests the thread advances */
static int nlisted, capacity;
static int running, stopping; /* under lock */
static pthread_t thread;

/* NHOOD_PROGRESS and NHOOD_PROGRESS_INTERVAL, read once. */
static int decide_mode(void) {
  const char *v = getenv("NHOOD_PROGRESS");
  if (v == NULL || v[0] == '\0' || strcmp(v, "off") == 0 || strcmp(v, "none") == 0) return MODE_OFF;
  if (strcmp(v, "thread") != 0) {
    fprintf(stderr, "nhood: NHOOD_PROGRESS='%s' is not 'thread' or 'off'; running without a progress thread\n", v);
    return MODE_OFF;
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) {
    fprintf(stderr,
            "nhood: NHOOD_PROGRESS=thread needs MPI_THREAD_MULTIPLE (MPI_Init_thread), but MPI was initialized at %s; "
            "running without a progress thread\n",
            nhood_thread_level_name(level));
    return MODE_OFF;
  }
  const char *iv = getenv("NHOOD_PROGRESS_INTERVAL");
  if (iv && iv[0]) {
    char *end = NULL;
    long us = strtol(iv, &end, 10);
    if (*end == '\0' && us >= 0 && us <= 1000000)
      interval_us = us;
    else
      fprintf(stderr, "nhood: NHOOD_PROGRESS_INTERVAL='%s' is not a number of microseconds (0-1000000); using %ld\n",
              iv, interval_us);
  }
  return MODE_THREAD;
}

int nhood_progress_on(void) {
  int m = atomic_load_explicit(&mode, memory_order_acquire), initialized = 0, finalized = 0;
  if (m != MODE_UNKNOWN) return m == MODE_THREAD;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return 0; /* not decided outside MPI's lifetime */
  pthread_mutex_lock(&lock);
  if ((m = atomic_load(&mode)) == MODE_UNKNOWN) atomic_store(&mode, m = decide_mode());
  pthread_mutex_unlock(&lock);
  return m == MODE_THREAD;
}

/* One pass over the listed requests that have been in flight for an interval, under lock: a
 * run that completes keeps its result. */
static void advance_all(double now) {
  for (int k = 0; k < nlisted; k++) {
    struct nhood_request *req = listed[k];
    if (req->bg_done || now < req->listed_at + interval_us * 1e-6) continue;
    int done = 0, rc = nhood_task_progress(req->task, &done);
    if (rc != MPI_SUCCESS) {
      done = 1;
      nhood_request_error_context(req);
    }
    if (done) {
      req->bg_done = 1;
      req->bg_rc = rc;
      req->bg_message = rc != MPI_SUCCESS ? nhood_error_save() : NULL;
    }
  }
}

/* The earliest time a listed request becomes the thread's (an interval after it was listed),
 * or a negative value where none is in flight. */
static double next_due(void) {
  double due = -1;
  for (int k = 0; k < nlisted; k++)
    if (!listed[k]->bg_done) {
      double at = listed[k]->listed_at + interval_us * 1e-6;
      if (due < 0 || at < due) due = at;
    }
  return due;
}

/* How long the thread keeps polling after the last request in flight completed before it sleeps
 * until the next one: a program that posts requests again and again then does not pay for
 * waking it. */
#define LINGER_S 0.002

static int sleeping; /* under lock: the thread waits for a request to be listed */

static void pause_unlocked(double seconds) {
  pthread_mutex_unlock(&lock);
  if (seconds > 0) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
  } else {
    sched_yield();
  }
  pthread_mutex_lock(&lock);
}

/* A pass every interval over the requests in flight for at least an interval (so that a call
 * waited for at once is the caller's alone: a pass takes the lock and the CPU the caller may
 * run on); while none is in flight it keeps polling for LINGER_S, then sleeps until one is. */
static void *progress_main(void *arg) {
  (void)arg;
  double idle_since = -1;
#if defined(PR_SET_TIMERSLACK)
  /* Linux lets a sleep overrun by the thread's timer slack, 50 us by default: longer than many
   * calls last. The thread asks for its interval to the microsecond. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  pthread_mutex_lock(&lock);
  while (!stopping) {
    double now = MPI_Wtime(), due = next_due();
    if (due >= 0 && now >= due) {
      advance_all(now);
      idle_since = -1;
    } else if (due < 0) { /* nothing in flight (none listed, or only runs it completed) */
      if (idle_since < 0) idle_since = now;
      if (now - idle_since > LINGER_S) {
        sleeping = 1;
        pthread_cond_wait(&wake, &lock);
        sleeping = 0;
        idle_since = -1;
        continue;
      }
    }
    double wait = interval_us * 1e-6;
    if (due > now && due - now < wait) wait = due - now;
    pause_unlocked(wait);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: the thread
 * stops there. */
static int stop_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)value, (void)extra;
  pthread_mutex_lock(&lock);
  int was_running = running;
  stopping = 1;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  if (was_running) pthread_join(thread, NULL);
  pthread_mutex_lock(&lock);
  running = 0;
  free(listed);
  listed = NULL;
  nlisted = capacity = 0;
  pthread_mutex_unlock(&lock);
  MPI_Comm_free_keyval(&keyval);
  return MPI_SUCCESS;
}

/* Under lock: starts the thread once. */
static int start_thread(void) {
  if (running) return MPI_SUCCESS;
  if (stopping) return nhood_error(MPI_ERR_OTHER, "the progress thread was stopped (MPI_Finalize)");
  int keyval = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_at_finalize, &keyval, NULL) != MPI_SUCCESS ||
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) != MPI_SUCCESS) {
    if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&keyval);
    return nhood_error(MPI_ERR_OTHER, "could not register the progress thread's stop at MPI_Finalize");
  }
  int err = pthread_create(&thread, NULL, progress_main, NULL);
  if (err != 0) return nhood_error(MPI_ERR_OTHER, "could not start the progress thread: %s", strerror(err));
  running = 1;
  return MPI_SUCCESS;
}

void nhood_progress_add(struct nhood_request *req) {
  pthread_mutex_lock(&lock);
  int rc = start_thread();
  if (rc == MPI_SUCCESS && nlisted == capacity) {
    int bigger = capacity ? 2 * capacity : 16;
    struct nhood_request **grown = realloc(listed, sizeof *grown * (size_t)bigger);
    if (grown) {
      listed = grown;
      capacity = bigger;
    } else {
      rc = nhood_error(MPI_ERR_NO_MEM, "out of memory listing a request for the progress thread");
    }
  }
  if (rc == MPI_SUCCESS) {
    req->listed = 1;
    req->bg_done = 0;
    req->bg_rc = MPI_SUCCESS;
    req->bg_message = NULL;
    req->listed_at = MPI_Wtime();
    listed[nlisted++] = req;
    if (sleeping) pthread_cond_signal(&wake);
  }
  pthread_mutex_unlock(&lock);
  if (rc != MPI_SUCCESS) {
    static atomic_flag told = ATOMIC_FLAG_INIT;
    char *message = nhood_error_save();
    if (!atomic_flag_test_and_set(&told))
      fprintf(stderr, "nhood: %s; requests progress in NHOOD_Test and NHOOD_Wait only\n",
              message ? message : "the progress thread could not take a request");
    free(message);
  }
}

/* Under lock: req leaves the list; its result, if the thread completed it, is restored. */
static int unlist(struct nhood_request *req, int *rc) {
  for (int k = 0; k < nlisted; k++)
    if (listed[k] == req) {
      listed[k] = listed[--nlisted];
      break;
    }
  req->listed = 0;
  if (!req->bg_done) return 0;
  *rc = req->bg_rc == MPI_SUCCESS ? MPI_SUCCESS : nhood_error_restore(req->bg_rc, req->bg_message);
  free(req->bg_message);
  req->bg_message = NULL;
  return 1;
}

int nhood_progress_test(struct nhood_request *req, int *done) {
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&lock);
  *done = 0;
  if (!req->bg_done) {
    rc = nhood_task_progress(req->task, done);
    if (rc != MPI_SUCCESS) {
      nhood_request_error_context(req);
      *done = 1;
    }
    if (*done) {
      req->bg_done = 1;
      req->bg_rc = rc;
      req->bg_message = rc != MPI_SUCCESS ? nhood_error_save() : NULL;
    }
  }
  if (req->bg_done) {
    *done = 1;
    unlist(req, &rc);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

int nhood_progress_take(struct nhood_request *req, int *rc) {
  pthread_mutex_lock(&lock);
  int completed = unlist(req, rc);
  pthread_mutex_unlock(&lock);
  return completed;
}

int NHOOD_Progress_mode(const char **mode) {
  if (mode == NULL) return nhood_error(MPI_ERR_ARG, "mode is NULL");
  *mode = nhood_progress_on() ? "thread" : "off";
  return MPI_SUCCESS;
}
