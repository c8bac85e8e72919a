/* A task's own copy of a call's arguments: count, displacement and datatype arrays, and
 * duplicates of derived datatypes, so that the caller may free or reuse them once the
 * initiating call returned (MPI's own persistent request, two-stage requests). */
#ifndef NHOOD_ENGINE_OWNED_ARGS_H
#define NHOOD_ENGINE_OWNED_ARGS_H

#include "schedule/collargs.h"

typedef struct nhood_owned_args {
  nhood_coll_args args; /* points into the copies below */
  void *arrays[6];
  MPI_Datatype *sendtypes, *recvtypes;
  MPI_Datatype *dups;
  int ndups;
} nhood_owned_args;

/* Copies a (blocks: indeg received, outdeg sent) into o, zeroed by the caller. On failure o
 * holds what was copied so far: free it. */
int nhood_owned_args_init(nhood_owned_args *o, const nhood_coll_args *a, int indeg, int outdeg);
void nhood_owned_args_free(nhood_owned_args *o);

#endif
