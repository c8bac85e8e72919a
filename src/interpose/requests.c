/*
 * MPI requests for nhood's requests, and the request functions that understand them
 * (docs/ARCHITECTURE.md, "Requests in the drop-in"). A run in flight is a generalized request,
 * completed as soon as nhood's request completes; a persistent request's handle is a
 * persistent send of nothing on MPI_COMM_SELF that is never started (inactive, MPI treats it
 * as an inactive persistent request should be), replaced by its start's generalized request
 * while one is in flight. Every request function advances every nhood request in flight
 * before asking MPI; with none in flight it goes straight to MPI. Freeing an active request
 * lets its run finish (no peer hangs); cancelling one is MPI_ERR_REQUEST.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"

typedef struct ip_request {
  NHOOD_Request nreq;
  int persistent;
  MPI_Request handle; /* persistent: what the program holds */
  MPI_Request run;    /* the generalized request of the run in flight, or MPI_REQUEST_NULL */
  MPI_Request greq;   /* the same, kept for MPI_Grequest_complete (the program may free run) */
  int running;        /* nhood's request has not completed yet */
  int error;          /* the run's result */
  int orphaned;       /* freed by the program while a run was in flight */
} ip_request;

/* Runs in flight (nhood's request not complete) and live persistent requests. A recursive
 * lock, held across MPI calls (NHOOD_Test, MPI_Grequest_complete). */
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static ip_request **running, **persistent;
static int nrunning_cap, npersistent_cap;
static atomic_int nrunning, npersistent;

static void lock_init(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &attr);
  pthread_mutexattr_destroy(&attr);
}
static void take(void) {
  pthread_once(&lock_once, lock_init);
  pthread_mutex_lock(&lock);
}
static void give(void) { pthread_mutex_unlock(&lock); }

/* Guards each request's run and orphaned fields, and is never held across an MPI call: MPI
 * calls free_fn while it holds a lock of its own (MPICH's global one, with
 * MPI_THREAD_MULTIPLE), so free_fn must not wait for a thread that waits for MPI, as one
 * holding `lock` may. Taken after `lock` where both are held. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static MPI_Request run_of(ip_request *r) {
  pthread_mutex_lock(&run_lock);
  MPI_Request run = r->run;
  pthread_mutex_unlock(&run_lock);
  return run;
}

/* Adds r to list (under the lock). */
static int list_add(ip_request ***list, int *cap, atomic_int *n, ip_request *r) {
  int count = atomic_load(n);
  if (count == *cap) {
    int grown = *cap ? 2 * *cap : 16;
    ip_request **bigger = realloc(*list, (size_t)grown * sizeof *bigger);
    if (!bigger) return MPI_ERR_NO_MEM;
    *list = bigger, *cap = grown;
  }
  (*list)[count] = r;
  atomic_store(n, count + 1);
  return MPI_SUCCESS;
}
static void list_remove(ip_request **list, atomic_int *n, ip_request *r) {
  int count = atomic_load(n);
  for (int k = 0; k < count; k++)
    if (list[k] == r) {
      list[k] = list[count - 1];
      atomic_store(n, count - 1);
      return;
    }
}

/* Whether anything of nhood's is about: else every function goes straight to MPI. */
static int none_of_ours(void) { return atomic_load(&nrunning) == 0 && atomic_load(&npersistent) == 0; }

/* The request of *list whose handle (by_run: whose run's generalized request) is h, or NULL. */
static ip_request *find(ip_request ***list, atomic_int *n, int by_run, MPI_Request h) {
  if (atomic_load(n) == 0 || h == MPI_REQUEST_NULL) return NULL;
  ip_request *found = NULL;
  take();
  for (int k = 0; k < atomic_load(n) && !found; k++)
    if ((by_run ? run_of((*list)[k]) : (*list)[k]->handle) == h) found = (*list)[k];
  give();
  return found;
}

/* The live persistent request whose handle is h; the run in flight whose request is h. */
static ip_request *persistent_of(MPI_Request h) { return find(&persistent, &npersistent, 0, h); }
static ip_request *running_of(MPI_Request h) { return find(&running, &nrunning, 1, h); }

/* ---- generalized requests -------------------------------------------------------------- */

static int query_fn(void *extra, MPI_Status *status) {
  ip_request *r = extra;
  /* A collective's status: no source, tag or elements. */
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = r->error;
  return r->error;
}

static void release(ip_request *r) {
  if (r->persistent && r->nreq != NHOOD_REQUEST_NULL && ip_stats_on()) {
    char text[256];
    if (NHOOD_Selection_info(r->nreq, text, sizeof text) == MPI_SUCCESS)
      ip_stats_selection("a persistent request", text);
  }
  if (r->nreq != NHOOD_REQUEST_NULL) NHOOD_Request_free(&r->nreq);
  free(r);
}

/* MPI frees the run's generalized request: a non-blocking call's ends here, a persistent
 * request becomes inactive (or goes, if the program freed it meanwhile). */
static int free_fn(void *extra) {
  ip_request *r = extra;
  if (!r->persistent) {
    release(r);
    return MPI_SUCCESS;
  }
  pthread_mutex_lock(&run_lock);
  r->run = MPI_REQUEST_NULL;
  int orphaned = r->orphaned;
  pthread_mutex_unlock(&run_lock);
  if (orphaned) release(r);
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS; /* runs are not cancelled (MPI_Cancel of ours is refused before this) */
}

static void progress_all(void);

#if defined(MPICH_NUMVERSION)
/* MPICH's extended generalized requests: MPI's own wait and test functions call poll_fn while
 * a run is in flight, so a run moves even where the program waits through PMPI_* and never
 * reaches the functions below. MPICH's mpi_f08 bindings do: MPI_Waitall from Fortran is
 * PMPI_Waitall, and with a plain generalized request it waited forever. */
static int poll_fn(void *extra, MPI_Status *status) {
  (void)extra, (void)status;
  progress_all();
  return MPI_SUCCESS;
}
static int wait_fn(int count, void **states, double timeout, MPI_Status *status) {
  (void)count, (void)states, (void)timeout;
  return poll_fn(NULL, status); /* one pass; MPICH calls it again until the request completes */
}
static int grequest_start(ip_request *r, MPI_Request *run) {
  return PMPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, r, run);
}
#else
static int grequest_start(ip_request *r, MPI_Request *run) {
  return PMPI_Grequest_start(query_fn, free_fn, cancel_fn, r, run);
}
#endif

/* Starts tracking a run of r: its generalized request, and r in the list of runs. */
static int begin_run(ip_request *r) {
  MPI_Request run = MPI_REQUEST_NULL;
  int rc = grequest_start(r, &run);
  if (rc != MPI_SUCCESS) return rc;
  pthread_mutex_lock(&run_lock);
  r->run = r->greq = run;
  pthread_mutex_unlock(&run_lock);
  r->running = 1;
  r->error = MPI_SUCCESS;
  take();
  rc = list_add(&running, &nrunning_cap, &nrunning, r);
  give();
  return rc;
}

/* Completes the generalized request of a run whose nhood request completed. A run the
 * program freed meanwhile is freed now (MPICH forgets a generalized request freed before it
 * completed, so the program's MPI_Request_free only marked it): that may free r. */
static atomic_uint completions; /* runs finished: the hand-over below, as ThreadSanitizer sees it */

/* After MPI says a request completed: what the thread that finished an nhood run wrote (its
 * last round's local copies into the program's buffers) is visible to this one. MPI orders it
 * already, through its own atomics that ThreadSanitizer cannot see; this acquire pairs with
 * finish_run's release, so the race detector sees the same order. */
static inline int synced(int rc) {
  (void)atomic_load_explicit(&completions, memory_order_acquire);
  return rc;
}

static void finish_run(ip_request *r) {
  MPI_Request greq = r->greq;
  int orphaned = r->orphaned;
  atomic_fetch_add_explicit(&completions, 1, memory_order_release);
  PMPI_Grequest_complete(greq);
  if (orphaned) PMPI_Request_free(&greq);
}

/* Advances every run in flight once; completes the generalized requests of those that
 * finished. A thread that finds another one doing it goes on (it will be done). */
static _Thread_local int progressing; /* this thread is in progress_all (MPI may poll from inside it) */

static void progress_all(void) {
  if (atomic_load(&nrunning) == 0 || progressing) return;
  pthread_once(&lock_once, lock_init);
  if (pthread_mutex_trylock(&lock) != 0) return;
  progressing = 1;
  for (int k = 0; k < atomic_load(&nrunning);) {
    ip_request *r = running[k];
    int flag = 0, rc = NHOOD_Test(&r->nreq, &flag);
    if (!flag && rc == MPI_SUCCESS) {
      k++;
      continue;
    }
    r->error = rc;
    r->running = 0;
    list_remove(running, &nrunning, r); /* moves the last one to k */
    finish_run(r);
  }
  progressing = 0;
  give();
}

/* After a call that found nothing to do: let the other ranks of an oversubscribed node run. */
static void idle(int *spins) {
  if (++*spins > 64) sched_yield();
}

/* ---- wrapping nhood's requests --------------------------------------------------------- */

int ip_request_wrap(NHOOD_Request nreq, int is_persistent, MPI_Request *request) {
  ip_request *r = calloc(1, sizeof *r);
  int rc = MPI_ERR_NO_MEM;
  if (!r) {
    NHOOD_Request_free(&nreq);
    return rc;
  }
  r->nreq = nreq;
  r->persistent = is_persistent;
  r->run = r->handle = MPI_REQUEST_NULL;
  if (!is_persistent) {
    if ((rc = begin_run(r)) != MPI_SUCCESS) goto fail;
    *request = r->run;
    return MPI_SUCCESS;
  }
  rc = PMPI_Send_init(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &r->handle); /* never started (see the top) */
  if (rc != MPI_SUCCESS) goto fail;
  take();
  rc = list_add(&persistent, &npersistent_cap, &npersistent, r);
  give();
  if (rc != MPI_SUCCESS) goto fail;
  *request = r->handle;
  return MPI_SUCCESS;
fail:
  if (r->handle != MPI_REQUEST_NULL) PMPI_Request_free(&r->handle);
  release(r);
  return rc;
}

/* What MPI is handed for the program's request h: a persistent request's run in flight, or h. */
static MPI_Request stand_in(MPI_Request h, ip_request **mine) {
  ip_request *r = persistent_of(h);
  if (mine) *mine = r;
  MPI_Request run = r ? run_of(r) : MPI_REQUEST_NULL;
  return run != MPI_REQUEST_NULL ? run : h;
}

/* The stand-ins of n requests, in local when they fit. */
static MPI_Request *stand_ins(int n, const MPI_Request reqs[], MPI_Request local[], int nlocal) {
  MPI_Request *tmp = n <= nlocal ? local : malloc((size_t)n * sizeof *tmp);
  if (!tmp) return NULL;
  for (int k = 0; k < n; k++) tmp[k] = stand_in(reqs[k], NULL);
  return tmp;
}

/* Back into the program's array what MPI changed, except persistent handles of ours. */
static void write_back(int n, MPI_Request reqs[], MPI_Request tmp[], MPI_Request local[]) {
  for (int k = 0; k < n; k++)
    if (!persistent_of(reqs[k])) reqs[k] = tmp[k];
  if (tmp != local) free(tmp);
}

/* ---- the request functions ------------------------------------------------------------- */

#define LOCAL_REQUESTS 64

int MPI_Start(MPI_Request *request) {
  ip_request *r = request ? persistent_of(*request) : NULL;
  if (!r) return PMPI_Start(request);
  if (run_of(r) != MPI_REQUEST_NULL)
    return ip_raise_message(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Start",
                            "the request is active (a neighborhood collective); wait for it before starting it again");
  int rc = NHOOD_Start(&r->nreq);
  if (rc != MPI_SUCCESS) return ip_raise(MPI_COMM_WORLD, rc, "MPI_Start");
  if ((rc = begin_run(r)) != MPI_SUCCESS) return ip_raise(MPI_COMM_WORLD, rc, "MPI_Start");
  return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  if (atomic_load(&npersistent) == 0 || count < 0 || requests == NULL) return PMPI_Startall(count, requests);
  for (int k = 0; k < count; k++) {
    int rc = MPI_Start(&requests[k]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

/* When the run of h is the only one in flight, waits for it in MPI (no spinning): nothing
 * else of nhood's needs to move meanwhile. The run leaves the list first, so the lock is not
 * held while it waits (another thread's runs go on meanwhile). */
static void wait_alone(MPI_Request h) {
  ip_request *r = running_of(h);
  if (!r) return;
  take();
  int alone = atomic_load(&nrunning) == 1 && r->running;
  if (alone) list_remove(running, &nrunning, r);
  give();
  if (!alone) return;
  r->error = NHOOD_Wait(&r->nreq);
  r->running = 0;
  finish_run(r);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (none_of_ours() || request == NULL) return synced(PMPI_Wait(request, status));
  ip_request *mine = NULL;
  MPI_Request tmp = stand_in(*request, &mine);
  int rc = MPI_SUCCESS, flag = 0, spins = 0;
  wait_alone(tmp);
  for (;;) {
    if (atomic_load(&nrunning) == 0) {
      rc = PMPI_Wait(&tmp, status);
      break;
    }
    progress_all();
    rc = PMPI_Test(&tmp, &flag, status);
    if (flag || rc != MPI_SUCCESS) break;
    idle(&spins);
  }
  if (!mine) *request = tmp;
  return synced(rc);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (none_of_ours() || request == NULL) return synced(PMPI_Test(request, flag, status));
  progress_all();
  ip_request *mine = NULL;
  MPI_Request tmp = stand_in(*request, &mine);
  int rc = PMPI_Test(&tmp, flag, status);
  if (!mine) *request = tmp;
  return synced(rc);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  if (none_of_ours()) return synced(PMPI_Request_get_status(request, flag, status));
  progress_all();
  return synced(PMPI_Request_get_status(stand_in(request, NULL), flag, status));
}

/* The array functions share one shape: advance nhood's runs, then ask MPI about the stand-ins;
 * the waits repeat that until MPI says done, or call MPI's own wait once no run is left. */
#define ARRAY_CALL(pmpi_call)                                                                     \
  MPI_Request local[LOCAL_REQUESTS];                                                              \
  int rc;                                                                                         \
  MPI_Request *tmp = stand_ins(count, requests, local, LOCAL_REQUESTS);                           \
  if (!tmp) return ip_raise_message(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "requests", "out of memory"); \
  rc = pmpi_call;                                                                                 \
  write_back(count, requests, tmp, local);                                                        \
  return synced(rc)

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (none_of_ours() || count <= 0 || requests == NULL) return synced(PMPI_Testall(count, requests, flag, statuses));
  progress_all();
  ARRAY_CALL(PMPI_Testall(count, tmp, flag, statuses));
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  if (none_of_ours() || count <= 0 || requests == NULL)
    return synced(PMPI_Testany(count, requests, index, flag, status));
  progress_all();
  ARRAY_CALL(PMPI_Testany(count, tmp, index, flag, status));
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  int count = incount;
  if (none_of_ours() || count <= 0 || requests == NULL)
    return synced(PMPI_Testsome(incount, requests, outcount, indices, statuses));
  progress_all();
  ARRAY_CALL(PMPI_Testsome(count, tmp, outcount, indices, statuses));
}

static int waitall_loop(int count, MPI_Request tmp[], MPI_Status statuses[]) {
  int flag = 0, spins = 0;
  for (;;) {
    if (atomic_load(&nrunning) == 0) return PMPI_Waitall(count, tmp, statuses);
    progress_all();
    int rc = PMPI_Testall(count, tmp, &flag, statuses);
    if (flag || rc != MPI_SUCCESS) return rc;
    idle(&spins);
  }
}

static int waitany_loop(int count, MPI_Request tmp[], int *index, MPI_Status *status) {
  int flag = 0, spins = 0;
  for (;;) {
    if (atomic_load(&nrunning) == 0) return PMPI_Waitany(count, tmp, index, status);
    progress_all();
    int rc = PMPI_Testany(count, tmp, index, &flag, status);
    if (flag || rc != MPI_SUCCESS) return rc;
    idle(&spins);
  }
}

static int waitsome_loop(int count, MPI_Request tmp[], int *outcount, int indices[], MPI_Status statuses[]) {
  int spins = 0;
  for (;;) {
    if (atomic_load(&nrunning) == 0) return PMPI_Waitsome(count, tmp, outcount, indices, statuses);
    progress_all();
    int rc = PMPI_Testsome(count, tmp, outcount, indices, statuses);
    if (*outcount != 0 || rc != MPI_SUCCESS) return rc;
    idle(&spins);
  }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (none_of_ours() || count <= 0 || requests == NULL) return synced(PMPI_Waitall(count, requests, statuses));
  ARRAY_CALL(waitall_loop(count, tmp, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (none_of_ours() || count <= 0 || requests == NULL) return synced(PMPI_Waitany(count, requests, index, status));
  ARRAY_CALL(waitany_loop(count, tmp, index, status));
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  int count = incount;
  if (none_of_ours() || count <= 0 || requests == NULL)
    return synced(PMPI_Waitsome(incount, requests, outcount, indices, statuses));
  ARRAY_CALL(waitsome_loop(count, tmp, outcount, indices, statuses));
}

int MPI_Request_free(MPI_Request *request) {
  ip_request *r = request ? persistent_of(*request) : NULL;
  if (!r) {
    ip_request *running_run = request ? running_of(*request) : NULL;
    if (!running_run) return PMPI_Request_free(request);
    /* A non-blocking run still in flight: freed once it completes (finish_run). */
    take();
    int still = running_run->running;
    if (still) running_run->orphaned = 1;
    give();
    if (!still) return PMPI_Request_free(request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  take();
  list_remove(persistent, &npersistent, r);
  pthread_mutex_lock(&run_lock);
  MPI_Request run = r->run;
  int in_flight = run != MPI_REQUEST_NULL, running_now = in_flight && r->running;
  if (in_flight) r->orphaned = 1; /* free_fn releases it when the run is done */
  pthread_mutex_unlock(&run_lock);
  give();
  PMPI_Request_free(&r->handle);
  if (!in_flight)
    release(r);
  else if (!running_now) /* nhood's part is done: MPI frees the run now */
    PMPI_Request_free(&run);
  /* else finish_run frees the run when it completes */
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request) {
  if (request == NULL || (!persistent_of(*request) && !running_of(*request))) return PMPI_Cancel(request);
  return ip_raise_message(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel",
                          "a neighborhood collective cannot be cancelled (MPI defines cancel for point-to-point "
                          "requests only)");
}
