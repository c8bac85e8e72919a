/*
 * A lower bound on the time of any schedule of one call under nhood-sim's LogGP model
 * (loggp.h), from what the call must move and not from any schedule: what lets a reader
 * tell "no algorithm found yet" from "no algorithm can". Primes are the cheaper of the two
 * levels (G' = min(G, node_G), likewise o', g', L'). Two things every schedule must do,
 * whatever it forwards through whom:
 *
 *   A rank's own bytes leave it: in alltoall(v/w) every block for another rank, in
 *   allgather(v) its block once if anyone else needs it. A send of m bytes has its last
 *   byte out o' + (m - 1) G' after its start, the next send starts g' + (m - 1) G' later at
 *   the earliest, and the last message still has to cross and be received: V bytes in k
 *   messages take at least 2 o' + L' + (V - k) G' + (k - 1) g', which is at least
 *   2 o' + L' + (V - 1) G' where g' >= G' (the rank term; `valid` says whether g' >= G'
 *   and o' >= G' hold, as they do in the presets by far).
 *
 *   Bytes cross node boundaries: every alltoall block between two nodes leaves its node's
 *   interface and enters the other's at least once; an allgather block leaves its node once
 *   if another node needs it, and enters each node that needs it once. An interface side
 *   serves one message at a time, nic_o + m nic_G each, starting no earlier than o after the
 *   call began, and its last message still needs L and the receiver's o: at least
 *   2 o + L + nic_o + bytes nic_G (the interface term, for the busier side of the busiest
 *   node).
 *
 * The bound is the larger of the two terms. It leaves out everything else a schedule pays
 * (the receive overheads of all but one message, rounds, copies), so schedules stay above it.
 */
#ifndef NHOOD_SIM_BOUND_H
#define NHOOD_SIM_BOUND_H

#include "loggp.h"
#include "sim_call.h"

typedef struct sim_bound {
  double us;                   /* the bound: max(rank_us, nic_us) */
  double rank_us;              /* the busiest rank's own bytes */
  int rank;                    /* that rank; -1 when no rank has bytes for another */
  long long rank_bytes;        /* its bytes */
  double nic_us;               /* the busiest interface side; 0 with one level */
  int node;                    /* its node; -1 when nothing crosses nodes */
  long long node_out, node_in; /* that node's bytes out and in */
  int valid;                   /* g' >= G' and o' >= G': the rank term is a bound */
} sim_bound;

/* The bound of call under p (p->ranks_per_node 0: one level, no interface term). Types must
 * be MPI_BYTE, as nhood-sim's calls are. 0, or 1 with a message when memory runs out. */
int sim_bound_compute(const sim_call *call, const loggp_params *p, sim_bound *out, char *err, size_t errlen);

#endif
