/*
 * Tasks: what a request runs (api/request.h), behind one interface whatever does the work:
 *
 * - a schedule over the MPI transport (engine/sched_task.h);
 * - MPI's own collective on a distributed-graph communicator (engine/native_task.h);
 * - a chain (below): a task, then a task built from what the first one computed; a
 *   two-stage request (api/two_stage.h) is the chain of a size pass and the data schedule.
 *
 * Compare UCC's ucc_coll_task_t and its schedules (src/schedule/ucc_schedule.h): there a
 * task's completion event runs the handlers that its dependents subscribed with
 * ucc_task_subscribe_dep. A chain is that with one dependent, whose handler may also build it.
 *
 * A task runs any number of times, one run at a time: begin starts a run in a tag window of
 * the task's ntags tags (reserved by the caller, the same on every process); progress
 * advances it without blocking and says when it completed; wait completes it. A failure
 * ends the run: it is returned, with the message of common/errors.h, once the run has
 * completed (*done = 1), and the task may be begun again (persistent requests). progress on
 * a task that is not running (completed, or never begun) reports it done. Only a task made
 * for a blocking call may complete its whole run in begin.
 *
 * So a progress engine may call progress on every task it holds, from any call, and a chain
 * resolves its dependency there, without blocking. A request of another interface (MPI
 * requests mapped onto nhood's by an interposition layer) needs begin, progress or wait, and
 * release, and the tag window its caller reserves.
 *
 * The caller keeps what a task reads while it lives: the communicator it was made for (a
 * request retains its context) and the buffers of the call.
 */
#ifndef NHOOD_ENGINE_TASK_H
#define NHOOD_ENGINE_TASK_H

#include "schedule/collargs.h"
#include "schedule/schedule.h"

/* How a call runs, which decides what its task may read in place: a blocking call's task
 * runs before the call returns (the caller's lists, arrays and datatypes, in place); the
 * others keep what later runs need (a persistent request's, every run after init). */
typedef enum { NHOOD_BLOCKING, NHOOD_NONBLOCKING, NHOOD_PERSISTENT } nhood_mode;

typedef struct nhood_task nhood_task;

typedef struct nhood_task_ops {
  /* Starts a run in the tag window [tag_base, tag_base + ntags). */
  int (*begin)(nhood_task *t, int tag_base);
  /* Advances the run; *done = 1 once it completed (also after a failure). Never blocks. */
  int (*progress)(nhood_task *t, int *done);
  /* Completes the run. */
  int (*wait)(nhood_task *t);
  /* Optional: begin and wait in one (a blocking call's run). */
  int (*run)(nhood_task *t, int tag_base);
  /* The schedule a run executes now, which names the algorithm (error messages,
   * NHOOD_Request_schedule_info): for a chain, the first task's until the next one exists. */
  const nhood_sched *(*schedule)(const nhood_task *t);
  /* For a task that reads a blocking call's arguments in place: points it at those of a
   * repeat of the call (the call cache), equal in content. NULL where a task reads none (a
   * schedule holds offsets and datatypes, not the caller's arrays). */
  void (*rebind)(nhood_task *t, const nhood_coll_args *a);
  /* Frees the task and what it holds; not while a run is in flight. */
  void (*release)(nhood_task *t);
} nhood_task_ops;

struct nhood_task {
  const nhood_task_ops *ops;
  int ntags; /* the tag window a run uses; 0 for a task that sends nothing on the context's
              * communicator (MPI's own collective) */
};

static inline int nhood_task_begin(nhood_task *t, int tag_base) { return t->ops->begin(t, tag_base); }
static inline int nhood_task_progress(nhood_task *t, int *done) { return t->ops->progress(t, done); }
static inline int nhood_task_wait(nhood_task *t) { return t->ops->wait(t); }
static inline int nhood_task_run(nhood_task *t, int tag_base) {
  if (t->ops->run) return t->ops->run(t, tag_base);
  int rc = t->ops->begin(t, tag_base);
  return rc == MPI_SUCCESS ? t->ops->wait(t) : rc;
}
static inline const nhood_sched *nhood_task_schedule(const nhood_task *t) { return t->ops->schedule(t); }
static inline void nhood_task_rebind(nhood_task *t, const nhood_coll_args *a) {
  if (t->ops->rebind) t->ops->rebind(t, a);
}
/* NULL is ignored. */
void nhood_task_release(nhood_task *t);

/*
 * A chain: `first` runs; when it completes, `then` (the dependency handler) builds the task
 * that continues from its result, which the chain begins at once, in the tag window after
 * first's. The handler runs once: later runs (a persistent request's starts) run the task it
 * built and not first; while it fails (or is not reached), runs begin with first again. A
 * chain of more than two tasks is a chain whose next task is a chain.
 *
 * then(user, first, &next) gets the completed first task and leaves *next NULL on failure;
 * next may use at most next_ntags tags (the chain reserves first's and those). The chain
 * owns first, next and user (free_user frees it, after first and next; NULL: not freed),
 * also when creating it fails.
 */
typedef int (*nhood_chain_then)(void *user, nhood_task *first, nhood_task **next);
int nhood_chain_create(nhood_task *first, int next_ntags, nhood_chain_then then, void *user, void (*free_user)(void *),
                       nhood_task **chain);

#endif
