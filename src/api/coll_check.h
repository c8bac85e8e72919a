/* A collective call's argument checks without the call, for the interposition library: its
 * cold calls run MPI's own collective, and must fail where nhood's would (api/collectives.c). */
#ifndef NHOOD_API_COLL_CHECK_H
#define NHOOD_API_COLL_CHECK_H

#include "nhood.h"
#include "schedule/collargs.h"

/* MPI_SUCCESS where nhood would accept call `a` on topo (filling in a's extents and sizes), else
 * the error class nhood returns, its message set (NHOOD_Error_message). */
int nhood_coll_check(nhood_coll_args *a, NHOOD_Topo topo);

#endif
