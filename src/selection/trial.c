#include "selection/trial.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

#define MAX_REPS 20

static int rounds_setting;
static void read_rounds(void) {
  const char *v = getenv("NHOOD_TRIAL");
  rounds_setting = 5;
  if (v == NULL || v[0] == '\0') return;
  if (strcmp(v, "off") == 0) {
    rounds_setting = 0;
    return;
  }
  char *end;
  long r = strtol(v, &end, 10);
  if (*end == '\0' && r >= 0 && r <= MAX_REPS)
    rounds_setting = (int)r;
  else
    fprintf(stderr, "nhood: NHOOD_TRIAL=\"%s\" is neither \"off\" nor 0 to %d; using 5\n", v, MAX_REPS);
}

int nhood_trial_rounds(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_rounds);
  return rounds_setting;
}

int nhood_trial_span(void) { return NHOOD_SHORTLIST_MAX * (nhood_trial_rounds() + 1) + 2; }

void nhood_trial_init(nhood_trial *tr, const nhood_algorithm *const list[], int n, int reps) {
  memset(tr, 0, sizeof *tr);
  tr->n = n < 1 ? 1 : n > NHOOD_SHORTLIST_MAX ? NHOOD_SHORTLIST_MAX : n;
  tr->reps = reps < 0 ? 0 : reps > MAX_REPS ? MAX_REPS : reps;
  for (int k = 0; k < tr->n; k++) tr->cand[k] = list[k];
  tr->winner = tr->n == 1 || tr->reps == 0 ? 0 : -1;
}

int nhood_trial_length(const nhood_trial *tr) { return tr->n * (tr->reps + 1); }

/* The candidate execution e runs: round e / n in the model's order when even, reversed when
 * odd (trial.h). */
static int candidate_of(const nhood_trial *tr, int e) {
  int pos = e % tr->n;
  return (e / tr->n) % 2 ? tr->n - 1 - pos : pos;
}

int nhood_trial_next(const nhood_trial *tr) { return tr->winner >= 0 ? tr->winner : candidate_of(tr, tr->executions); }
int nhood_trial_due(const nhood_trial *tr) { return tr->winner < 0 && tr->executions >= nhood_trial_length(tr); }

void nhood_trial_record(nhood_trial *tr, double seconds) {
  if (tr->winner < 0 && tr->executions < nhood_trial_length(tr)) tr->times[tr->executions++] = seconds;
}

/* The timed rounds follow the warm-up round of n executions. */
int nhood_trial_timed_count(const nhood_trial *tr) { return tr->n * tr->reps; }
const double *nhood_trial_timed(const nhood_trial *tr) { return tr->times + tr->n; }

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int nhood_trial_wins_needed(int reps) { return reps - reps / 4; }

void nhood_trial_decide(nhood_trial *tr, const double *maxima) {
  double samples[MAX_REPS], by_round[MAX_REPS][NHOOD_SHORTLIST_MAX];
  for (int i = 0; i < tr->n * tr->reps; i++) /* timed execution i is execution n + i, of timed round i / n */
    by_round[i / tr->n][candidate_of(tr, tr->n + i)] = maxima[i];
  for (int c = 0; c < tr->n; c++) {
    for (int r = 0; r < tr->reps; r++) samples[r] = by_round[r][c];
    qsort(samples, (size_t)tr->reps, sizeof *samples, compare);
    int h = tr->reps / 2;
    tr->median[c] = tr->reps % 2 ? samples[h] : 0.5 * (samples[h - 1] + samples[h]);
  }
  /* The first baseline stands unless the rounds overturn it (trial.h): another candidate, in
   * the model's order, replaces the one kept so far where its median is lower by more than
   * the tolerance and it was the faster of the two in all but a quarter of the rounds. */
  int kept = 0;
  for (int c = tr->n - 1; c >= 0; c--)
    if (nhood_algorithm_is_baseline(tr->cand[c])) kept = c;
  for (int c = 0; c < tr->n; c++) {
    if (c == kept) continue;
    int wins = 0;
    for (int r = 0; r < tr->reps; r++) wins += by_round[r][c] < by_round[r][kept];
    if (tr->median[c] * (1 + NHOOD_TRIAL_TOLERANCE) < tr->median[kept] && wins >= nhood_trial_wins_needed(tr->reps))
      kept = c;
  }
  tr->winner = kept;
}

void nhood_trial_describe(const nhood_trial *tr, char *text, size_t len) {
  size_t used = 0;
#define ADD(...)                                                              \
  do {                                                                        \
    int w_ = snprintf(text + used, len > used ? len - used : 0, __VA_ARGS__); \
    if (w_ > 0) used += (size_t)w_;                                           \
  } while (0)
  if (len == 0) return;
  text[0] = '\0';
  if (tr->n == 1 || tr->reps == 0) {
    ADD("cost model: %s", tr->cand[0]->name);
    return;
  }
  if (tr->winner < 0) {
    ADD("measuring (%d of %d calls):", tr->executions, nhood_trial_length(tr));
    for (int c = 0; c < tr->n; c++) ADD("%s %s", c ? "," : "", tr->cand[c]->name);
    return;
  }
  ADD("measured:");
  for (int c = 0; c < tr->n; c++) ADD("%s %s %.1f us", c ? "," : "", tr->cand[c]->name, tr->median[c] * 1e6);
  ADD(" (median of %d calls each, slowest process); kept %s", tr->reps, tr->cand[tr->winner]->name);
#undef ADD
}

/* ---- the trial task ------------------------------------------------------------------- */

typedef struct {
  nhood_task base;
  nhood_trial *trial; /* &own (a persistent request's), or a blocking call's size class's */
  nhood_trial own;
  int agree_at_end; /* a blocking call's: the agreement ends the run that completes the trial */
  nhood_task *cand[NHOOD_SHORTLIST_MAX];
  MPI_Comm comm;
  int cur;    /* the candidate this run executes; -1 before it began */
  int timing; /* this run is a trial execution, its candidate begun at t0 */
  double t0;
  int phase; /* what `pending` is: */
  MPI_Request pending;
  int tag_base; /* of this run, for a candidate begun after `pending` */
  int run_rc;   /* the candidate's result, returned once the agreement after it completed */
  double maxima[NHOOD_SHORTLIST_MAX * MAX_REPS];
} trial_task;

enum {
  RUNNING,
  SYNCING, /* an Ibarrier before a trial execution */
  AGREEING /* the Iallreduce, before (a persistent request's) or after (a blocking call's) the candidate */
};

static int post_agreement(trial_task *t) {
  int rc = MPI_SUCCESS;
  NHOOD_MPI_CALL(MPI_Iallreduce(nhood_trial_timed(t->trial), t->maxima, nhood_trial_timed_count(t->trial), MPI_DOUBLE,
                                MPI_MAX, t->comm, &t->pending));
  t->phase = AGREEING;
cleanup:
  return rc;
}

static int tt_begin(nhood_task *task, int tag_base) {
  trial_task *t = (trial_task *)task;
  int rc = MPI_SUCCESS;
  t->tag_base = tag_base;
  t->timing = 0;
  t->cur = -1;
  t->run_rc = MPI_SUCCESS;
  if (nhood_trial_due(t->trial)) {
    NHOOD_TRY(post_agreement(t));
  } else if (t->trial->winner < 0) {
    /* The candidate begins when every process started (its time is then its own, not the
     * skew the last execution left). */
    NHOOD_MPI_CALL(MPI_Ibarrier(t->comm, &t->pending));
    t->phase = SYNCING;
  } else {
    t->phase = RUNNING;
    t->cur = t->trial->winner;
    return nhood_task_begin(t->cand[t->cur], tag_base);
  }
cleanup:
  return rc;
}

/* The agreement completed: the winner from now on; a persistent request's losers' tasks are
 * freed (a blocking call's request is replaced at the next call, which builds the winner). */
static void decided(trial_task *t) {
  nhood_trial_decide(t->trial, t->maxima);
  for (int c = 0; c < t->trial->n && !t->agree_at_end; c++)
    if (c != t->trial->winner) {
      nhood_task_release(t->cand[c]);
      t->cand[c] = NULL;
    }
}

/* `pending` completed. After the barrier, the candidate the execution runs begins, timed;
 * after an agreement at a start, the winner begins. Returns 1 where the run is over (the
 * agreement that ended a blocking call's run). */
static int tt_continue(trial_task *t, int *rc) {
  int agreed = t->phase == AGREEING;
  t->phase = RUNNING;
  if (agreed) {
    decided(t);
    if (t->cur >= 0) return 1;
  } else {
    t->timing = 1;
    t->t0 = MPI_Wtime();
  }
  t->cur = nhood_trial_next(t->trial);
  *rc = nhood_task_begin(t->cand[t->cur], t->tag_base);
  return 0;
}

/* The candidate's run completed with rc: its time recorded (every process records every
 * execution, failed or not, so that all reach the agreement at the same run), then for a
 * blocking call's last execution the agreement. Returns 1 where the run is over. */
static int tt_ran(trial_task *t, int rc) {
  t->run_rc = rc;
  if (!t->timing) return 1;
  t->timing = 0;
  nhood_trial_record(t->trial, MPI_Wtime() - t->t0);
  if (!t->agree_at_end || !nhood_trial_due(t->trial)) return 1;
  int arc = post_agreement(t);
  if (arc != MPI_SUCCESS) {
    if (t->run_rc == MPI_SUCCESS) t->run_rc = arc;
    return 1;
  }
  return 0;
}

static int tt_progress(nhood_task *task, int *done) {
  trial_task *t = (trial_task *)task;
  int rc = MPI_SUCCESS;
  *done = 0;
  for (;;) {
    if (t->phase != RUNNING) {
      int flag = 0;
      NHOOD_MPI_CALL(MPI_Test(&t->pending, &flag, MPI_STATUS_IGNORE));
      if (!flag) return MPI_SUCCESS;
      if (tt_continue(t, &rc)) break;
      if (rc != MPI_SUCCESS) { /* the candidate could not begin: its run failed */
        if (tt_ran(t, rc)) break;
        continue;
      }
    }
    if (t->cur < 0) break;
    int ran = 0;
    rc = nhood_task_progress(t->cand[t->cur], &ran);
    if (!ran) return rc;
    if (tt_ran(t, rc)) break;
  }
  *done = 1;
  return t->run_rc;
cleanup:
  *done = 1;
  t->phase = RUNNING;
  return rc;
}

static int tt_wait(nhood_task *task) {
  trial_task *t = (trial_task *)task;
  int rc = MPI_SUCCESS;
  for (;;) {
    if (t->phase != RUNNING) {
      NHOOD_MPI_CALL(MPI_Wait(&t->pending, MPI_STATUS_IGNORE));
      if (tt_continue(t, &rc)) break;
      if (rc != MPI_SUCCESS) {
        if (tt_ran(t, rc)) break;
        continue;
      }
    }
    if (t->cur < 0 || tt_ran(t, nhood_task_wait(t->cand[t->cur]))) break;
  }
  return t->run_rc;
cleanup:
  t->phase = RUNNING;
  return rc;
}

static const nhood_sched *tt_schedule(const nhood_task *task) {
  const trial_task *t = (const trial_task *)task;
  int c = t->cur >= 0 ? t->cur : nhood_trial_next(t->trial);
  return nhood_task_schedule(t->cand[c]);
}

static void tt_release(nhood_task *task) {
  trial_task *t = (trial_task *)task;
  for (int c = 0; c < NHOOD_SHORTLIST_MAX; c++) nhood_task_release(t->cand[c]);
  free(t);
}

/* A blocking call's request kept for the trial's next executions: each candidate reads this
 * call's arguments (MPI's own collective does). */
static void tt_rebind(nhood_task *task, const nhood_coll_args *a) {
  trial_task *t = (trial_task *)task;
  for (int c = 0; c < NHOOD_SHORTLIST_MAX; c++)
    if (t->cand[c]) nhood_task_rebind(t->cand[c], a);
}

static const nhood_task_ops trial_ops = {
    .begin = tt_begin,
    .progress = tt_progress,
    .wait = tt_wait,
    .schedule = tt_schedule,
    .rebind = tt_rebind,
    .release = tt_release,
};

int nhood_trial_task_create(nhood_trial *tr, nhood_mode mode, nhood_task *cands[], MPI_Comm comm, nhood_task **task) {
  trial_task *t = calloc(1, sizeof *t);
  *task = NULL;
  if (t == NULL) {
    for (int c = 0; c < tr->n; c++) nhood_task_release(cands[c]);
    return nhood_error(MPI_ERR_NO_MEM, "out of memory for a trial's task");
  }
  t->base.ops = &trial_ops;
  if (mode == NHOOD_BLOCKING) {
    t->trial = tr;
    t->agree_at_end = 1;
  } else {
    t->own = *tr;
    t->trial = &t->own;
  }
  t->comm = comm;
  t->cur = -1;
  t->pending = MPI_REQUEST_NULL;
  for (int c = 0; c < tr->n; c++) {
    t->cand[c] = cands[c];
    if (cands[c] && cands[c]->ntags > t->base.ntags) t->base.ntags = cands[c]->ntags;
  }
  *task = &t->base;
  return MPI_SUCCESS;
}

nhood_task *nhood_trial_task_unwrap(nhood_task *task, char *text, size_t len) {
  trial_task *t = (trial_task *)task;
  if (task == NULL || task->ops != &trial_ops || t->trial->winner < 0 || t->phase != RUNNING || t->agree_at_end)
    return task;
  nhood_task *winner = t->cand[t->trial->winner];
  t->cand[t->trial->winner] = NULL;
  nhood_trial_describe(t->trial, text, len);
  tt_release(task);
  return winner;
}

const nhood_trial *nhood_trial_of_task(const nhood_task *task) {
  return task && task->ops == &trial_ops ? ((const trial_task *)task)->trial : NULL;
}
