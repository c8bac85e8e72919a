/*
 * The cold path's questions about a topology (api/cold.c), asked by the interposition library:
 * whether nhood's set-up pays back on a communicator (nhood_topo_payback, or in two halves,
 * nhood_payback_begin and _end), and what nhood was measured at there (_measured, _life,
 * _lost). Internal: no program calls them.
 *
 * nhood_topo_payback in two halves, for a caller that starts the agreement at one
 * call and reads the verdict some calls later, so that the allreduce runs behind the calls in
 * between (the interposition library's cold path, interpose/control.c): nhood_payback_begin
 * makes this process's estimates and posts their MPI_Iallreduce on comm; once the request
 * completed, nhood_payback_end gives the answer nhood_topo_payback gives.
 */
#ifndef NHOOD_API_PAYBACK_H
#define NHOOD_API_PAYBACK_H

#include <mpi.h>

#include "nhood.h"

/*
 * Cold communicators (docs/TUNING.md, "Cold communicators"): whether nhood's set-up on topo
 * (its first call under "auto": the private communicator, what it learns, the decision, the
 * trial) pays back on comm, for a caller that runs a communicator's calls elsewhere until it
 * does (the interposition library runs them as MPI's own).
 *
 * `calls` neighborhood collectives were made on comm, the last of them `collective` (as for
 * NHOOD_Topo_algorithm_applies) with blocks of block_bytes on this process (the mean block of
 * the send side for the v and w collectives). The calls made so far are taken as the forecast
 * of those to come. The answer: at call count *next (calls or later) nhood should take over
 * (*take_over = 1), or the question be asked again (0: the estimate found no call that
 * gains; *next is LONG_MAX where no call of any collective at any block size can gain on
 * this topology). why (may be NULL) receives a sentence with the estimates, at most len bytes.
 *
 * Collective over comm: one MPI_Allreduce on comm itself (every process must pass the same
 * `calls`), nothing else, so every process gets the same answer; none where every process
 * knows the answer without it (two processes, at most one message each way between them:
 * no call gains).
 * @return MPI_ERR_ARG (unknown collective, NULL output, calls < 0), MPI_ERR_TOPOLOGY, MPI_ERR_COMM.
 */
int nhood_topo_payback(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, long calls,
                       long *next, int *take_over, char *why, int len);

/*
 * Tells nhood_topo_payback what nhood was measured at on topo and comm: its set-up (µs beyond
 * what its calls cost afterwards; 0 where not measured) and the gain of one call of
 * `collective` with blocks of block_bytes (µs, MPI's own less nhood's; 0 or less where nhood
 * was slower; NaN where not measured). Later communicators of the same shape (process count,
 * collective, block size class, this process's messages) are then judged by the measurement
 * where any process has one: the largest set-up (estimate or measurement) and the smallest
 * measured gain, else the estimated one; with no gain they stay with MPI's own. A shape
 * measured again keeps its latest record. Local: no communication; each process may record
 * its own values, and the next nhood_topo_payback agrees on them.
 * @return MPI_ERR_ARG (unknown collective, a negative or not finite set-up, an infinite gain),
 *         MPI_ERR_TOPOLOGY, MPI_ERR_COMM.
 */
int nhood_topo_payback_measured(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes,
                                double setup_us, double gain_us);

/*
 * Tells nhood_topo_payback that a communicator of topo's shape on comm (as for
 * nhood_topo_payback_measured; `collective` and block_bytes those of its last asking) made
 * `calls` neighborhood collectives in its life. The next asking of that shape takes the last
 * life as the forecast of its own: where the calls left of such a life pay for the set-up,
 * nhood takes over at once, instead of where the calls made so far would (largest life
 * among the processes' records). Local: no communication.
 * @return MPI_ERR_ARG (unknown collective, calls < 0), MPI_ERR_TOPOLOGY, MPI_ERR_COMM.
 */
int nhood_topo_payback_life(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, long calls);

/*
 * nhood_topo_payback_measured with no set-up measured and no gain: nhood's calls of
 * `collective` on topo and comm were slower than MPI's own.
 * @return as nhood_topo_payback_measured.
 */
int nhood_topo_payback_lost(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes);

typedef struct {
  double v[7];            /* the estimates and records, reduced in place (api/cold.c) */
  int local_rc;           /* this process's failure to read its parameters: the error comes at the end */
  const char *collective; /* nhood's static name of it */
  double block_bytes;
} nhood_payback;

/* Collective over comm (every process posts it at the same call): the request completes the
 * agreement; it must be completed (MPI_Wait, MPI_Test) before nhood_payback_end, and p must
 * stay in place until then. request NULL: a blocking MPI_Allreduce instead, done on return.
 * Where every process knows the answer (selection/cold.h, nhood_cold_known_idle) there is no
 * allreduce and *request is MPI_REQUEST_NULL. Errors as nhood_topo_payback's. */
int nhood_payback_begin(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, nhood_payback *p,
                        MPI_Request *request);
/* 1 where, found from comm alone, every process of comm knows without a message that no call
 * gains (selection/cold.h, nhood_cold_known_idle): at most 2 processes, a distributed graph or
 * a graph of at most one neighbor each way on this process. 0 also where finding out takes
 * topo's lists (self loops, a Cartesian topology): nhood_payback_begin then finds it, and
 * costs no allreduce either. Local. */
int nhood_payback_idle_comm(MPI_Comm comm);

/* The verdict after `calls` neighborhood collectives (the same on every process), as
 * nhood_topo_payback's; local. */
int nhood_payback_end(const nhood_payback *p, long calls, long *next, int *take_over, char *why, int len);

#endif
