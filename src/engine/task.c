/* The task interface's common part, and chains (engine/task.h). */
#include "engine/task.h"

#include <stdlib.h>

#include "common/errors.h"

void nhood_task_release(nhood_task *t) {
  if (t) t->ops->release(t);
}

typedef struct {
  nhood_task task;
  nhood_task *first;
  nhood_task *next;    /* NULL until then built it */
  nhood_task *running; /* first, next, or NULL when the run failed between them or never began */
  int next_ntags;
  int tag_base; /* of the current run */
  nhood_chain_then then;
  void *user;
  void (*free_user)(void *);
} chain;

static int next_tag_base(const chain *c) { return c->tag_base + c->first->ntags; }

static int chain_begin(nhood_task *t, int tag_base) {
  chain *c = (chain *)t;
  c->tag_base = tag_base;
  if (c->next) {
    c->running = c->next;
    return nhood_task_begin(c->next, next_tag_base(c));
  }
  c->running = c->first;
  return nhood_task_begin(c->first, tag_base);
}

/* First completed: build next from its result and begin it. A failure ends the run. */
static int resolve(chain *c) {
  int rc = MPI_SUCCESS;
  c->running = NULL;
  NHOOD_TRY(c->then(c->user, c->first, &c->next));
  if (c->next->ntags > c->next_ntags) {
    rc = nhood_error(MPI_ERR_INTERN, "a chain's next task needs %d tags, more than the %d its chain reserved",
                     c->next->ntags, c->next_ntags);
    nhood_task_release(c->next);
    c->next = NULL;
    goto cleanup;
  }
  NHOOD_TRY(nhood_task_begin(c->next, next_tag_base(c)));
  c->running = c->next;
cleanup:
  return rc;
}

static int chain_progress(nhood_task *t, int *done) {
  chain *c = (chain *)t;
  int rc = MPI_SUCCESS;
  *done = 1;
  if (c->running == NULL) return MPI_SUCCESS;
  if (c->running == c->first) {
    rc = nhood_task_progress(c->first, done);
    if (rc == MPI_SUCCESS && !*done) return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = resolve(c);
    if (rc != MPI_SUCCESS) {
      c->running = NULL;
      *done = 1;
      return rc;
    }
  }
  return nhood_task_progress(c->running, done);
}

static int chain_wait(nhood_task *t) {
  chain *c = (chain *)t;
  if (c->running == c->first) {
    int rc = nhood_task_wait(c->first);
    if (rc == MPI_SUCCESS) rc = resolve(c);
    if (rc != MPI_SUCCESS) {
      c->running = NULL;
      return rc;
    }
  }
  return c->running ? nhood_task_wait(c->running) : MPI_SUCCESS;
}

static const nhood_sched *chain_schedule(const nhood_task *t) {
  const chain *c = (const chain *)t;
  return nhood_task_schedule(c->next ? c->next : c->first);
}

static void chain_release(nhood_task *t) {
  chain *c = (chain *)t;
  nhood_task_release(c->first);
  nhood_task_release(c->next);
  if (c->free_user) c->free_user(c->user);
  free(c);
}

static const nhood_task_ops chain_ops = {
    .begin = chain_begin,
    .progress = chain_progress,
    .wait = chain_wait,
    .schedule = chain_schedule,
    .rebind = NULL,
    .release = chain_release,
};

int nhood_chain_create(nhood_task *first, int next_ntags, nhood_chain_then then, void *user, void (*free_user)(void *),
                       nhood_task **out) {
  chain *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) {
    nhood_task_release(first);
    if (free_user) free_user(user);
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  }
  c->task.ops = &chain_ops;
  c->task.ntags = first->ntags + next_ntags;
  c->first = first;
  c->next_ntags = next_ntags;
  c->then = then;
  c->user = user;
  c->free_user = free_user;
  *out = &c->task;
  return MPI_SUCCESS;
}
