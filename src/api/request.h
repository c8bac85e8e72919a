/* What a non-blocking or persistent collective keeps between calls (and what a blocking call
 * runs, kept by the call cache): how the call runs, its tag window and context, and the task
 * that does the work (engine/task.h). */
#ifndef NHOOD_API_REQUEST_H
#define NHOOD_API_REQUEST_H

#include <stddef.h>

#include "nhood.h"
#include "common/commctx.h"
#include "engine/task.h"
#include "selection/trial.h"

struct nhood_request {
  nhood_mode mode;
  nhood_coll_kind kind;
  int active;
  int tag_base;       /* reserved once per request (per start for blocking calls) */
  nhood_commctx *ctx; /* retained */
  nhood_task *task;   /* MPI's own collective, a schedule, a two-stage chain or a trial */
  /* How its algorithm was chosen, described (NHOOD_Selection_info); empty only for a
   * persistent request whose trial has not decided. */
  char selection[NHOOD_SELECTION_TEXT_MAX];
  unsigned selection_id; /* a number per description of a blocking call's (api/collectives.c) */
  /* The progress thread's (api/progress.h), under its lock: whether the request is listed
   * there, whether the thread completed its run, and the run's result and message. */
  int listed, bg_done, bg_rc;
  char *bg_message;
  double listed_at; /* when it was listed (MPI_Wtime): the thread leaves it alone for an interval */
};

/* How the calling thread's last blocking call chose its algorithm, into text; 0 before the
 * first (api/collectives.c). */
int nhood_last_blocking_selection(char *text, size_t len);

/* Tags the request's task uses per start. */
static inline int nhood_request_ntags(const struct nhood_request *req) { return req->task->ntags; }
/* Starts the request's task in its tag window. */
static inline int nhood_request_begin(struct nhood_request *req) { return nhood_task_begin(req->task, req->tag_base); }
/* Runs it to completion. */
static inline int nhood_request_wait(struct nhood_request *req) { return nhood_task_wait(req->task); }
/* Begins and completes it in one (a blocking call). */
static inline int nhood_request_run(struct nhood_request *req) { return nhood_task_run(req->task, req->tag_base); }

/* Puts "neighborhood <collective> (<algorithm>)" before the message of an error of req's run,
 * the algorithm of the schedule its task runs now. */
void nhood_request_error_context(const struct nhood_request *req);

/* Releases what a request holds (not the request memory itself). */
void nhood_request_release(struct nhood_request *req);

#endif
