/*
 * The in-process transport on which virtual ranks run the library's engine (src/engine) in
 * one process: nhood-sim's exact-delivery check (sim_exec.c) and the engine's unit test
 * (tests/unit/test_engine.c) both use it.
 *
 * Messages are buffered eagerly and matched per destination by (source, tag) in FIFO order,
 * MPI's non-overtaking rule (sim_mailbox.h). Sends complete at once; a receive completes when
 * its message is matched, at its post or at the matching send. Only receives can be
 * outstanding, and the engine posts one round at a time, so a rank's round is done when none
 * of its receives waits.
 *
 * Data is MPI_BYTE only (counts are bytes): no MPI call is ever made. Reductions are refused
 * (neighborhood collectives do not reduce); a caller that wants them wraps the transport.
 */
#ifndef NHOOD_SIM_NET_H
#define NHOOD_SIM_NET_H

#include <stddef.h>

#include "engine/engine.h"
#include "sim_mailbox.h"

/* What the virtual ranks of one run share. */
typedef struct sim_net {
  int nranks;
  sim_mailbox mailbox;
  /* Data of messages that arrived before their receive was posted; mailbox items hold
   * offsets into it, so that it may grow. */
  unsigned char *parked;
  size_t parked_len, parked_capacity;
  int *pending;     /* per rank: posted receives still without a message */
  long long events; /* matches and round changes: a sweep that adds none is stuck */
  int sabotage;     /* nonzero: flip one bit of the next non-empty delivered message */
  char *problem;    /* the first thing found wrong, for the user */
  size_t problemlen;
} sim_net;

/* The transport context of one virtual rank: {net, rank}. */
typedef struct sim_port {
  sim_net *net;
  int rank;
} sim_port;

/* The transport; its context is a sim_port. */
extern const nhood_transport sim_net_transport;

/* An empty net of nranks ranks that reports into problem (cleared here, also on failure).
 * scheds: the ranks' schedules, a hint for the mailbox's size, or NULL. 0, or -1 when out of
 * memory (not reported; sim_net_free is still due). */
int sim_net_init(sim_net *net, int nranks, const nhood_sched *scheds, char *problem, size_t problemlen);
void sim_net_free(sim_net *net);

#if defined(__GNUC__)
void sim_net_report(sim_net *net, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
/* Writes the problem, unless one was already written: later ones are usually its
 * consequences. */
void sim_net_report(sim_net *net, const char *fmt, ...);

/* Starts execs[r] (initialized with sim_net_transport on rank r's port, or a wrapper of it)
 * with tag_base for every rank r, then tests the unfinished ones round-robin until all are
 * done. 0 when all completed; 1 on a deadlock (a sweep in which no message is matched and no
 * rank enters a new round) or an engine error, reported. */
int sim_net_run(sim_net *net, nhood_exec *execs, int tag_base);

/* After a run: 1, reported, when a message was never received; else 0. */
int sim_net_report_leftover(sim_net *net);

#endif
