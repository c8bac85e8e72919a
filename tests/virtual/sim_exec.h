/*
 * Exact-delivery check: runs every virtual rank's schedule with the library's engine
 * (src/engine) over an in-process transport, each rank with its own send, receive and
 * scratch buffers, then compares every receive buffer with what MPI-4.1 puts there.
 *
 * The transport (sim_net.h) buffers messages eagerly and matches them per destination by
 * (source, tag) in FIFO order (sim_mailbox.h). Ranks progress round-robin: every sweep tests
 * each unfinished rank once, and a sweep in which no message is matched and no rank enters a
 * new round is a deadlock.
 *
 * Schedules must move MPI_BYTE data only (counts are bytes); nhood-sim checks that.
 */
#ifndef NHOOD_SIM_EXEC_H
#define NHOOD_SIM_EXEC_H

#include <stddef.h>

#include "schedule/schedule.h"
#include "sim_call.h"

typedef enum {
  SIM_VERIFIED,  /* every byte where MPI puts it, nothing left over, no deadlock */
  SIM_WRONG,     /* the first discrepancy is described */
  SIM_CANNOT_RUN /* out of memory: nothing was checked */
} sim_verdict;

/* Runs scheds[r] (built for call->args[r]) on every rank r. sabotage != 0 flips one bit of
 * the first non-empty delivered message, to show that the check can fail. */
sim_verdict sim_exec_verify(const sim_call *call, const nhood_sched *scheds, int sabotage, char *problem,
                            size_t problemlen);

/* Runs scheds[r] on every rank r with the caller's buffers (send[r] and scratch[r], which must
 * hold scheds[r].scratch_bytes; no receive buffer), checking only that all complete and no
 * message is left over. For the combine algorithm's size pass, whose result is its scratch.
 * 0 on success, else 1 with a message. */
int sim_exec_run(int nranks, const nhood_sched *scheds, void *const send[], void *const scratch[], char *problem,
                 size_t problemlen);

#endif
