/* The task that runs a schedule (engine/task.h) over the MPI transport: the schedule, its
 * scratch, the transport's request slots and the engine's execution over the call's buffers. */
#ifndef NHOOD_ENGINE_SCHED_TASK_H
#define NHOOD_ENGINE_SCHED_TASK_H

#include <mpi.h>

#include "engine/flat_round.h"
#include "engine/task.h"

/* A task running *s (taken over: *s is left empty, also on failure) on comm, the context's
 * communicator, between sendbuf and recvbuf; ntags is the schedule's. */
int nhood_sched_task_create(nhood_sched *s, MPI_Comm comm, const void *sendbuf, void *recvbuf, nhood_task **task);

/* The scratch of a schedule task: what its last run received there (a size pass's sizes). */
const void *nhood_sched_task_scratch(const nhood_task *t);

/* The flat round of a schedule task's schedule between sendbuf and recvbuf (engine/flat_round.h),
 * on ctx, the context the task was made for; NULL for another task or where the schedule is not
 * one round of communication only. */
nhood_flat_round *nhood_sched_task_flatten(const nhood_task *t, nhood_commctx *ctx, const void *sendbuf, void *recvbuf,
                                           const char *call);

#endif
