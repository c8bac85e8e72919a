/*
 * Cold communicators: whether nhood's set-up on a topology pays back. The set-up is what a
 * topology's first call under "auto" costs: the private communicator, what it learns
 * collectively (patterns, nodes, the grid under a graph, MPI's own agreement), the decision's
 * allreduce and the trial. A communicator used a few times never earns it back, so through
 * the interposition library its calls go to MPI's own until the calls made so far, taken as
 * the forecast of those to come (each call predicts one more), times the largest gain a call
 * can have, cover the set-up.
 *
 * Both numbers are this process's, from the cost model (common/cost_model.h) without any
 * communication; the caller takes their maxima over the processes in one allreduce, so that
 * every process reaches the same verdict (docs/ARCHITECTURE.md, "The cold path"):
 *
 *   set-up  `setup` allreduces of the communicator, an allreduce priced as ceil(log2 p) rounds
 *           of one small message each way, plus the four rounds of neighbor messages that
 *           combining's Phase 1 exchanges (nhood-calibrate measures `setup`)
 *   gain    MPI's own call (mpi_factor times one message per neighbor) less the floor no
 *           schedule beats: one message per distinct neighbor in one round (duplicate edges
 *           merged), or, with fewer messages than that, two rounds of one message each way
 *           (forwarding needs a second round), with the bytes that must move (an allgather's
 *           block once; every block of the other collectives). Zero where neither floor is
 *           below MPI's own: no duplicates, and few neighbors or a latency that a second
 *           round does not repay.
 */
#ifndef NHOOD_SELECTION_COLD_H
#define NHOOD_SELECTION_COLD_H

#include "common/cost_model.h"
#include "schedule/collargs.h"
#include "topology/topology.h"

/* The call count at which the interposition library first asks nhood_topo_payback (api/payback.h) about a
 * communicator (NHOOD_COLD=N sets another). Each asking costs one allreduce, so it comes after
 * the few calls most short-lived communicators make: one allreduce is then at most a few
 * percent of the life of a communicator, whose creation is itself a collective. */
#define NHOOD_COLD_FIRST_CHECK 16

/* The interposition library's probation times this many of MPI's own calls before nhood takes
 * over a cold communicator, then as many of nhood's (docs/ARCHITECTURE.md, "The cold
 * communicators"). */
#define NHOOD_COLD_PROBE_WINDOW 16

/* The parameters the estimates use, found without communication: NHOOD_PARAMS where set, else
 * nhood-calibrate's file for `size` processes on this host, else the one-node rules of
 * common/cost_model.h for `size` processes on this host's CPUs. Errors as
 * nhood_cost_params_active. */
int nhood_cold_params(int size, nhood_cost_params *out);

/* This process's set-up estimate and the largest gain (µs) of one call of `kind` with blocks
 * of block_bytes (the mean of the send side for the v and w collectives) on topo, rank me of
 * `size` processes. */
void nhood_cold_estimate(NHOOD_Topo topo, int me, int size, const nhood_cost_params *p, nhood_coll_kind kind,
                         double block_bytes, double *setup, double *gain);

/* The `setup` parameter under which a set-up measured at measured_us (the slowest process's)
 * on `size` processes, each sending and receiving `sends` and `recvs` messages to and from
 * others, is what nhood_cold_estimate prices; at least 1. nhood-calibrate's inverse. */
double nhood_cold_setup_allreduces(const nhood_cost_params *p, int size, int sends, int recvs, double measured_us);

/* The largest gain (µs) of any call on topo: every collective, blocks of every size class
 * (nhood_cold_estimate's gain at the classes' sizes). Zero where no call can gain. */
double nhood_cold_any_gain(NHOOD_Topo topo, int me, const nhood_cost_params *p);

/* 1 where every process of the communicator knows, without a message, that no call on it
 * gains: on at most 2 processes, this process sending at most one message to the other and
 * receiving at most one. The other's remote edges are then this one's reversed, so it finds
 * the same. (Parameters are not consulted: at mpi_factor > 1 the model would price MPI's own
 * call of one message each way a little above nhood's, but the processes may have read
 * different parameters, and agreeing on them is the allreduce this saves.) */
int nhood_cold_known_idle(NHOOD_Topo topo, int me, int size);

/* The verdict after `calls` calls from the maxima over processes: at call count *next, nhood
 * takes over (*take_over = 1), or the question is asked again (0, where no call gains: four
 * times as many calls later, in case the calls change; LONG_MAX where no call of any
 * collective or size gains, any_gain being 0). Where the last communicator of this shape
 * lived `life` calls (0: not known) and the calls left of such a life pay for the set-up,
 * nhood takes over now; else at the ski-rental point, set-up / gain. */
void nhood_cold_verdict(double setup, double gain, double any_gain, long calls, long life, long *next, int *take_over);

/* The probation's window with NHOOD_COLD's first check at first_check: shorter where NHOOD_COLD
 * asks sooner than the window's length. */
long nhood_cold_probe_window(long first_check);

/* The call at which the interposition library takes over after a verdict of nhood taking over
 * at `next`, asked at call `asked` with NHOOD_COLD's first check at `first_check`: `next`, but
 * not before the probation has timed a window of MPI's own calls after the asking. */
long nhood_cold_take_over_call(long asked, long next, long first_check);

/* Measured outcomes: a caller that timed nhood on a communicator against MPI's own (the
 * interposition library's probation) records what nhood's set-up cost there (µs; 0 where not
 * measured) and what a call gained (µs, MPI's own less nhood's; 0 or less where nhood lost;
 * NaN where not measured), keyed by what this process can see alike on a later communicator of
 * the same shape: the number of processes, the collective, the block size class and this
 * process's messages to other processes. The record is this process's; nhood_topo_payback
 * agrees on it with the other estimates, so that a later communicator of that shape is judged
 * by the measurement where any process has one: the larger of the set-ups, the smaller of the
 * gains. */
void nhood_cold_record(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, double setup,
                       double gain);
/* A communicator of this shape was freed after `calls` neighborhood collectives: its life,
 * the forecast of the next one's (nhood_cold_verdict). Kept with the shape's measurements. */
void nhood_cold_record_life(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, long calls);
/* 1 with the record of this shape in *setup, *gain and *life, 0 where there is none. */
int nhood_cold_recorded(NHOOD_Topo topo, int me, int size, nhood_coll_kind kind, double block_bytes, double *setup,
                        double *gain, long *life);
#endif
