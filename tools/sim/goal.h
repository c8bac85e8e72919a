/*
 * GOAL schedules: the text input of LogGOPSim (Hoefler, Schneider, Lumsdaine), the field's
 * reference LogGOPS simulator, so that an independent simulator can predict what nhood-sim
 * builds. One file describes one call on every rank:
 *
 *   num_ranks P
 *   rank r {
 *   s1: send 64b to 3 tag 0        a message of 64 bytes to rank 3
 *   r1: recv 64b from 5 tag 0      one from rank 5
 *   c1: calc 1200                  local work of 1200 time units (nhood-sim's copies)
 *   s1 requires e0                 s1 starts once e0 completed
 *   }
 *
 * nhood's rounds become dependencies: round q's copies (one calc, bytes x Gcopy, plus the
 * model's round cost where the round has messages; its noise is not written) and receives
 * require the end of round q - 1, its sends require its copies, and the round's end (a calc
 * of 0) requires all of them, as nhood's engine runs a round (schedule/schedule.h). A call
 * that takes a size pass is the pass's rounds, then the data schedule's. Tags are nhood's
 * tags plus, for the data schedule after a pass, the pass's tag count, so that the two never
 * match each other's messages. Times are written in picoseconds (LogGOPSim takes integers;
 * nhood's G is a fraction of a nanosecond per byte); the script that runs LogGOPSim passes
 * L, o, g and G in the same unit.
 */
#ifndef NHOOD_SIM_GOAL_H
#define NHOOD_SIM_GOAL_H

#include <stdio.h>

#include "schedule/schedule.h"

/* Writes the call on nranks ranks: passes (NULL: none) then scheds, every count in bytes
 * (MPI_BYTE); gcopy_us_per_byte prices copies, round_us each round with messages. 0, or 1
 * with a message. */
int goal_write(FILE *out, int nranks, const nhood_sched *passes, const nhood_sched *scheds, double gcopy_us_per_byte,
               double round_us, char *err, size_t errlen);

/* Reads a GOAL file back (the subset goal_write writes) and checks it: every rank once,
 * every dependency naming a label of its rank, every send received by exactly one receive of
 * the same size (matched per source, destination and tag, in order) and every receive by one
 * send. *messages: the sends. 0, or 1 with a message. */
int goal_check(FILE *in, long long *messages, char *err, size_t errlen);

#endif
