/* A collective call's argument checks without the call, for the interposition library: its
 * cold calls run MPI's own collective, and must fail where nhood's would (api/collectives.c). */
#ifndef NHOOD_API_COLL_CHECK_H
#define NHOOD_API_COLL_CHECK_H

#include "engine/task.h" /* nhood_mode */
#include "nhood.h"
#include "schedule/collargs.h"

/* MPI_SUCCESS where nhood would accept call `a` on topo (filling in a's extents and sizes), else
 * the error class nhood returns, its message set (NHOOD_Error_message). */
int nhood_coll_check(nhood_coll_args *a, NHOOD_Topo topo);

/* The same without the topology's validation (the caller validated it). */
int nhood_coll_check_args(nhood_coll_args *a, NHOOD_Topo topo);

/* Runs call `a` as the API's entry points do (api/large_count.c's, after lowering). */
int nhood_coll_run(const nhood_coll_args *a, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, nhood_mode mode,
                   NHOOD_Request *request);

#endif
