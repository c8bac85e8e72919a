/*
 * Measured selection: "auto" for calls that repeat.
 *
 * The cost model (select.h) is the first filter, but on a real machine its errors are often
 * larger than the gaps it decides (docs/PERFORMANCE.md). A call that repeats - a persistent
 * request's starts, a blocking call made again with blocks of the same size class - can
 * afford to measure: the model names a short list (nhood_auto_shortlist: its choice, the
 * plain one-message-per-neighbor schedule, the next cheapest), the next executions run the
 * candidates in turn, each process times its own executions, one allreduce (MAX) gives every
 * execution's slowest process, and every process keeps the candidate with the smallest
 * median. Every process reduces the same vector the same way, so they agree without another
 * message, and every execution of the trial delivers the collective's result: only the
 * schedule differs. Blocking calls and persistent requests run their trials through the same
 * task (below).
 *
 * A trial of n candidates and R timed rounds (NHOOD_TRIAL, default 5) takes n * (R + 1)
 * executions, round by round, each round running every candidate once: even rounds in the
 * model's order, odd rounds in reverse, so that each candidate follows itself and the others
 * alike (an execution pays for what the one before it left unfinished; in a fixed order the
 * second candidate always paid for the first's). The first round warms up (first contact
 * between processes, cold caches) and is not counted. The agreement is one allreduce of
 * n * R doubles, non-blocking, on the communicator's private duplicate. Its place keeps
 * collectives in the same order on every process: a blocking call's trial task posts it at
 * the end of the execution that completes the trial, inside that call (program order); a
 * persistent request's posts it at the next start, since processes may see the request's
 * runs complete in different orders relative to other requests, but start them in the same
 * one. That start runs the winner once the agreement completed. Every trial execution
 * begins after a non-blocking barrier, so that its time is its own and not the skew the
 * previous one left (a blocking or persistent collective may synchronize). The first
 * baseline in the list (direct or MPI's own, nhood_algorithm_is_baseline) stands unless the
 * rounds overturn it: walking the model's order, a candidate replaces the one kept so far
 * where its median is more than NHOOD_TRIAL_TOLERANCE below the kept one's and it ran faster
 * than the kept one in all but a quarter of the rounds (4 of 5). Each round runs both back to
 * back, so the comparison is paired: drift that slows a whole round slows both. As with the
 * model's margin, a schedule of more rounds than the baselines' must show its gain. Why not
 * the smallest median: docs/TUNING.md (measured selection).
 *
 * What a trial measures is the time from the start of an execution to its completion as this
 * process sees it: exact for blocking calls, and for a request waited for right after its
 * start; a program that computes between start and wait measures its own work in every
 * candidate alike, and the model's choice then wins the tie.
 */
#ifndef NHOOD_SELECTION_TRIAL_H
#define NHOOD_SELECTION_TRIAL_H

#include "engine/task.h"
#include "selection/select.h"

/* Timed rounds per candidate from NHOOD_TRIAL: "off" or "0": none (the model decides alone);
 * 1 to 20; default 5. Read once. */
int nhood_trial_rounds(void);

/* The blocking calls from a topology's first under "auto" until its trial is over at the
 * latest: the longest trial's executions (NHOOD_SHORTLIST_MAX candidates) and two more, the
 * call whose agreement completes it and the first that runs the winner. */
int nhood_trial_span(void);

typedef struct nhood_trial {
  int n, reps; /* candidates, timed rounds */
  const nhood_algorithm *cand[NHOOD_SHORTLIST_MAX];
  int executions;                         /* executions timed so far */
  int winner;                             /* index into cand; -1 while the trial runs */
  double times[NHOOD_SHORTLIST_MAX * 21]; /* this process's seconds, per execution */
  double median[NHOOD_SHORTLIST_MAX];     /* agreed: medians of the slowest process's */
} nhood_trial;

/* A trial over the candidates of list (n of them, the model's order) with reps timed
 * rounds; with one candidate, or reps 0, it is decided at once (winner 0). */
void nhood_trial_init(nhood_trial *tr, const nhood_algorithm *const list[], int n, int reps);
/* Executions the trial takes before its agreement. */
int nhood_trial_length(const nhood_trial *tr);
/* The candidate the next execution runs (index into cand): the winner once decided. */
int nhood_trial_next(const nhood_trial *tr);
/* Records the time of the execution nhood_trial_next named. */
void nhood_trial_record(nhood_trial *tr, double seconds);
/* 1 when every execution of the trial is recorded and the agreement is due. */
int nhood_trial_due(const nhood_trial *tr);
/* The values an agreement reduces (MAX over processes): count and pointer, for
 * MPI_(I)allreduce in place or into nhood_trial_decide's input. */
int nhood_trial_timed_count(const nhood_trial *tr);
const double *nhood_trial_timed(const nhood_trial *tr);
/* Decides from the reduced values (the same on every process, so the same winner). */
void nhood_trial_decide(nhood_trial *tr, const double *maxima);
/* The rounds of reps that a candidate must win against the one kept to replace it. */
int nhood_trial_wins_needed(int reps);
#define NHOOD_SELECTION_TEXT_MAX 256
#define NHOOD_TRIAL_TOLERANCE 0.05
/* One line for people: "measured: cart-dim-batch 306 us, direct 285 us (3 calls each); kept
 * direct", or "measuring (5 of 12 calls): cart-dim-batch, direct". */
void nhood_trial_describe(const nhood_trial *tr, char *text, size_t len);

/* The task that runs executions of trial *tr, made for comm (the context's duplicate, where
 * the barrier and the agreement run), the candidates' tasks in cands (the order of tr->cand):
 * - mode NHOOD_BLOCKING: one execution, in a blocking call: cands holds the task of the
 *   candidate nhood_trial_next names (NULL elsewhere), *tr is the size class's trial and
 *   stays the caller's (the execution is recorded there);
 * - otherwise a persistent request's: cands holds every candidate's task, *tr is copied, and
 *   the losers are freed once the trial decided.
 * The task owns the tasks of cands; on failure they are freed. */
int nhood_trial_task_create(nhood_trial *tr, nhood_mode mode, nhood_task *cands[], MPI_Comm comm, nhood_task **task);
/* Once a persistent request's trial task decided and its run completed: its winner's task, the trial described in
 * text, and the trial task freed (later runs need no wrapper); else task itself. */
nhood_task *nhood_trial_task_unwrap(nhood_task *task, char *text, size_t len);
/* The trial of a task made by nhood_trial_task_create, else NULL. */
const nhood_trial *nhood_trial_of_task(const nhood_task *task);

#endif
