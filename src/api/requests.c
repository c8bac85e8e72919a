/* Completion and lifetime of non-blocking and persistent requests: the request's mode and
 * state; the work is its task's (engine/task.h). */
#include <stdio.h>
#include <stdlib.h>

#include "api/progress.h"
#include "api/request.h"
#include "api/threads.h"
#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"

/* `what` names the argument; index >= 0 appends [index] (for request arrays). */
NHOOD_HOT static int validate_at(NHOOD_Request req, const char *what, int index) {
  if (nhood_handle_is_live(req, NHOOD_HANDLE_REQUEST)) return MPI_SUCCESS;
  if (index >= 0)
    return nhood_error(MPI_ERR_REQUEST, "%s[%d] is not a valid request (freed, completed or never created)", what,
                       index);
  return nhood_error(MPI_ERR_REQUEST, "%s is not a valid request (freed, completed or never created)", what);
}

NHOOD_HOT static int validate(NHOOD_Request req, const char *what) { return validate_at(req, what, -1); }

void nhood_request_error_context(const struct nhood_request *req) {
  nhood_error_context("neighborhood %s (%s)", nhood_coll_names[req->kind], nhood_task_schedule(req->task)->algorithm);
}

void nhood_request_release(struct nhood_request *req) {
  nhood_task_release(req->task);
  req->task = NULL;
  if (req->ctx) nhood_commctx_release(req->ctx);
  req->ctx = NULL;
}

static void destroy(NHOOD_Request *request) {
  nhood_handle_unregister(*request);
  nhood_request_release(*request);
  free(*request);
  *request = NHOOD_REQUEST_NULL;
}

/* After the schedule finished: non-blocking requests are freed, persistent ones go idle; a
 * persistent request whose trial decided runs its winner's task from now on, unwrapped. */
NHOOD_HOT static void complete(NHOOD_Request *request) {
  NHOOD_Request req = *request;
  req->active = 0;
  if (req->mode == NHOOD_NONBLOCKING)
    destroy(request);
  else if (req->selection[0] == '\0') /* a trial's: its winner once decided */
    req->task = nhood_trial_task_unwrap(req->task, req->selection, sizeof req->selection);
}

NHOOD_HOT static int req_start(NHOOD_Request *request) {
  if (request == NULL) return nhood_error(MPI_ERR_ARG, "request is NULL");
  int rc = validate(*request, "*request");
  if (rc != MPI_SUCCESS) return rc;
  NHOOD_Request req = *request;
  if (req->mode != NHOOD_PERSISTENT)
    return nhood_error(MPI_ERR_REQUEST, "*request is not persistent; only requests from *_init can be started");
  if (req->active)
    return nhood_error(MPI_ERR_REQUEST, "*request is already active; wait for it before starting it again");
  rc = nhood_request_begin(req);
  if (rc == MPI_SUCCESS) {
    req->active = 1;
    if (nhood_progress_on()) nhood_progress_add(req);
  } else {
    nhood_request_error_context(req);
  }
  return rc;
}

static int req_startall(int count, NHOOD_Request requests[]) {
  if (count < 0) return nhood_error(MPI_ERR_COUNT, "count is negative (%d)", count);
  if (count > 0 && requests == NULL) return nhood_error(MPI_ERR_ARG, "requests is NULL");
  for (int k = 0; k < count; k++) {
    int rc = req_start(&requests[k]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

NHOOD_HOT static int req_wait(NHOOD_Request *request) {
  if (request == NULL) return nhood_error(MPI_ERR_ARG, "request is NULL");
  if (*request == NHOOD_REQUEST_NULL) return MPI_SUCCESS;
  int rc = validate(*request, "*request");
  if (rc != MPI_SUCCESS || !(*request)->active) return rc;
  /* The progress thread's request becomes the caller's again, unless the thread finished it. */
  if (!(*request)->listed || !nhood_progress_take(*request, &rc)) {
    rc = nhood_request_wait(*request);
    if (rc != MPI_SUCCESS) nhood_request_error_context(*request);
  }
  complete(request);
  return rc;
}

static int req_waitall(int count, NHOOD_Request requests[]) {
  if (count < 0) return nhood_error(MPI_ERR_COUNT, "count is negative (%d)", count);
  if (count > 0 && requests == NULL) return nhood_error(MPI_ERR_ARG, "requests is NULL");
  int first_error = MPI_SUCCESS;
  for (int k = 0; k < count; k++) { /* every request is completed even after a failure */
    int rc = req_wait(&requests[k]);
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  }
  return first_error;
}

/* Advances a request without completing it; *done = 1 when its schedule finished. A failure
 * ends the request's run (as MPI completes a failed request), described by its collective. */
NHOOD_HOT static int progress(NHOOD_Request req, int *done) {
  if (req == NHOOD_REQUEST_NULL || !req->active) {
    *done = 1;
    return MPI_SUCCESS;
  }
  if (req->listed) return nhood_progress_test(req, done);
  int rc = nhood_task_progress(req->task, done);
  if (rc != MPI_SUCCESS) {
    nhood_request_error_context(req);
    *done = 1;
  }
  return rc;
}

NHOOD_HOT static int req_test(NHOOD_Request *request, int *flag) {
  if (request == NULL) return nhood_error(MPI_ERR_ARG, "request is NULL");
  if (flag == NULL) return nhood_error(MPI_ERR_ARG, "flag is NULL");
  *flag = 0;
  if (*request != NHOOD_REQUEST_NULL) {
    int rc = validate(*request, "*request");
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = progress(*request, flag);
  if (*flag && *request != NHOOD_REQUEST_NULL && (*request)->active) complete(request);
  return rc;
}

static int req_testall(int count, NHOOD_Request requests[], int *flag) {
  if (count < 0) return nhood_error(MPI_ERR_COUNT, "count is negative (%d)", count);
  if (count > 0 && requests == NULL) return nhood_error(MPI_ERR_ARG, "requests is NULL");
  if (flag == NULL) return nhood_error(MPI_ERR_ARG, "flag is NULL");
  int all_done = 1;
  for (int k = 0; k < count; k++) {
    if (requests[k] == NHOOD_REQUEST_NULL) continue;
    int rc = validate_at(requests[k], "requests", k), done = 0;
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = progress(requests[k], &done)) != MPI_SUCCESS) { /* as MPI_Testall: the failed one completes */
      complete(&requests[k]);
      *flag = 0;
      return rc;
    }
    all_done &= done;
  }
  /* As MPI_Testall: requests complete only together. */
  if (all_done)
    for (int k = 0; k < count; k++)
      if (requests[k] != NHOOD_REQUEST_NULL && requests[k]->active) complete(&requests[k]);
  *flag = all_done;
  return MPI_SUCCESS;
}

static int request_free(NHOOD_Request *request) {
  if (request == NULL) return nhood_error(MPI_ERR_ARG, "request is NULL");
  int rc = validate(*request, "*request");
  if (rc != MPI_SUCCESS) return rc;
  if ((*request)->active) return nhood_error(MPI_ERR_REQUEST, "*request is active; wait for it before freeing it");
  destroy(request);
  return MPI_SUCCESS;
}

/* ---- entry points: the checks of api/threads.h around the work above ------------------- */

NHOOD_HOT int NHOOD_Start(NHOOD_Request *request) { NHOOD_THREAD_GUARDED(req_start(request)); }
int NHOOD_Startall(int count, NHOOD_Request requests[]) { NHOOD_THREAD_GUARDED(req_startall(count, requests)); }
NHOOD_HOT int NHOOD_Wait(NHOOD_Request *request) { NHOOD_THREAD_GUARDED(req_wait(request)); }
int NHOOD_Waitall(int count, NHOOD_Request requests[]) { NHOOD_THREAD_GUARDED(req_waitall(count, requests)); }
NHOOD_HOT int NHOOD_Test(NHOOD_Request *request, int *flag) { NHOOD_THREAD_GUARDED(req_test(request, flag)); }
int NHOOD_Testall(int count, NHOOD_Request requests[], int *flag) {
  NHOOD_THREAD_GUARDED(req_testall(count, requests, flag));
}
int NHOOD_Request_free(NHOOD_Request *request) { NHOOD_THREAD_GUARDED(request_free(request)); }

int NHOOD_Request_schedule_info(NHOOD_Request request, const char **algorithm, int *rounds, int *sends, int *recvs,
                                MPI_Aint *scratch_bytes) {
  int rc = validate(request, "request");
  if (rc != MPI_SUCCESS) return rc;
  const nhood_sched *s = nhood_task_schedule(request->task);
  if (algorithm) *algorithm = s->algorithm;
  if (rounds) *rounds = s->comm_rounds;
  if (sends) *sends = s->nsends;
  if (recvs) *recvs = s->nrecvs;
  if (scratch_bytes) *scratch_bytes = s->scratch_bytes;
  return MPI_SUCCESS;
}

int NHOOD_Selection_info(NHOOD_Request request, char *text, int len) {
  if (text == NULL) return nhood_error(MPI_ERR_ARG, "text is NULL");
  if (len < 1) return nhood_error(MPI_ERR_ARG, "len is %d; it must be at least 1", len);
  text[0] = '\0';
  if (request == NHOOD_REQUEST_NULL) {
    if (!nhood_last_blocking_selection(text, (size_t)len)) snprintf(text, (size_t)len, "none: no blocking call yet");
    return MPI_SUCCESS;
  }
  int rc = validate(request, "request");
  if (rc != MPI_SUCCESS) return rc;
  const nhood_trial *trial = nhood_trial_of_task(request->task);
  if (trial)
    nhood_trial_describe(trial, text, (size_t)len);
  else
    snprintf(text, (size_t)len, "%s", request->selection);
  return MPI_SUCCESS;
}
