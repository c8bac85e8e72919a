/*
 * LogGP prediction of one collective call from its schedules (not from any measured time):
 * a deterministic evaluation of every virtual rank's rounds under the model below, which
 * docs/SIM.md states with its sources.
 *
 *   L      latency: from the end of injection to the arrival of the last byte
 *   o      CPU overhead of one message, at the sender and again at the receiver
 *   g      gap: minimum time between the starts of two injections of one rank
 *   G      time per byte of a message (bandwidth 1/G)
 *   Gcopy  time per byte of a local copy (default G/4)
 *
 * A rank runs its rounds in order. A round starts when the previous one ended (the first at
 * 0). Its local copies take bytes * Gcopy. Then its sends go out in schedule order: a send
 * of m bytes starts at max(CPU free, previous start + g + (m_prev - 1) G), keeps the CPU
 * busy o, has its last byte out at start + o + (m - 1) G and at the destination at
 * start + o + (m - 1) G + L. Then the CPU takes each of the round's receives in order of
 * arrival: done at max(CPU free, arrival) + o. The round ends when its receives are done and
 * its sends are out. The call takes as long as the slowest rank.
 *
 * Messages pair as MPI pairs them (per destination, source and tag, in order), and every
 * time depends only on the schedules, so the result does not depend on the order in which
 * ranks are evaluated. Counts are bytes: schedules must use MPI_BYTE.
 */
#ifndef NHOOD_SIM_LOGGP_H
#define NHOOD_SIM_LOGGP_H

#include <stddef.h>

#include "schedule/schedule.h"

typedef struct loggp_params {
  double L, o, g;  /* microseconds */
  double G, Gcopy; /* microseconds per byte */
  /* The library's rendezvous term (common/cost_model.h), taken from a preset (0 otherwise): the
   * evaluator here has none, nhood-info's cost model uses it. */
  double eager, rdv;
} loggp_params;

/* Parses "loggp:preset=NAME" (ib-edr, shm) or "loggp:L=..,o=..,g=..,G=.." (µs and µs per
 * byte), optionally with Gcopy=..; keys after a preset override it. 0, or 1 with a message. */
int loggp_parse(const char *spec, loggp_params *out, char *err, size_t errlen);

typedef struct loggp_prediction {
  double time_us;   /* finish time of the slowest rank */
  int slowest_rank; /* -1 when no rank has anything to do */
} loggp_prediction;

/* Evaluates scheds[0..nranks-1]. 0, or 1 with a message when the schedules cannot complete
 * (a receive without a matching send, a message nobody receives) or memory runs out. */
int loggp_predict(int nranks, const nhood_sched *scheds, const loggp_params *p, loggp_prediction *out, char *err,
                  size_t errlen);

#endif
