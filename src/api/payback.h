/*
 * NHOOD_Topo_payback in two halves (api/cold.c), for a caller that starts the agreement at one
 * call and reads the verdict some calls later, so that the allreduce runs behind the calls in
 * between (the interposition library's cold path, interpose/control.c): nhood_payback_begin
 * makes this process's estimates and posts their MPI_Iallreduce on comm; once the request
 * completed, nhood_payback_end gives the answer NHOOD_Topo_payback gives.
 */
#ifndef NHOOD_API_PAYBACK_H
#define NHOOD_API_PAYBACK_H

#include <mpi.h>

#include "nhood.h"

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
 * allreduce and *request is MPI_REQUEST_NULL. Errors as NHOOD_Topo_payback's. */
int nhood_payback_begin(NHOOD_Topo topo, MPI_Comm comm, const char *collective, double block_bytes, nhood_payback *p,
                        MPI_Request *request);
/* 1 where, found from comm alone, every process of comm knows without a message that no call
 * gains (selection/cold.h, nhood_cold_known_idle): at most 2 processes, a distributed graph or
 * a graph of at most one neighbor each way on this process. 0 also where finding out takes
 * topo's lists (self loops, a Cartesian topology): nhood_payback_begin then finds it, and
 * costs no allreduce either. Local. */
int nhood_payback_idle_comm(MPI_Comm comm);

/* The verdict after `calls` neighborhood collectives (the same on every process), as
 * NHOOD_Topo_payback's; local. */
int nhood_payback_end(const nhood_payback *p, long calls, long *next, int *take_over, char *why, int len);

#endif
