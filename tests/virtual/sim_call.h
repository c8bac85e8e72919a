/*
 * One neighborhood collective call on every virtual rank: the arguments each rank would
 * pass (MPI_BYTE blocks, counts and displacements) and the rule that says which bytes each
 * block holds, so that the executor can fill send buffers and knows what MPI-4.1 puts into
 * every receive buffer.
 *
 * Counts follow nhood-bench: the v and w collectives move B or B/2 bytes per edge
 * (alltoallv, alltoallw) or per sender (allgatherv), chosen by a hash that both ends compute
 * alike. Blocks are packed one after the other in rank order of the lists. Alltoallw's blocks
 * are MPI_BYTE at byte displacements, as nhood-bench passes them: a derived datatype would
 * need MPI_Init, which nhood-sim does not call.
 */
#ifndef NHOOD_SIM_CALL_H
#define NHOOD_SIM_CALL_H

#include <nhood.h>

#include <stddef.h>
#include <stdint.h>

#include "schedule/collargs.h"

typedef struct sim_call {
  nhood_coll_kind kind;
  int bytes;     /* the block size asked for */
  int per_entry; /* > 0: alltoallv/w blocks of a weighted topology are weight * per_entry bytes */
  int nranks;
  const NHOOD_Topo *topos; /* per rank, not owned */
  /* Per rank: arguments with NULL buffers (schedules hold offsets only), and buffer sizes. */
  nhood_coll_args *args;
  size_t *sendlen, *recvlen;
  int *arrays;               /* every rank's counts and displacements, one allocation */
  MPI_Aint *byte_displs;     /* alltoallw: every rank's byte displacements, one allocation */
  MPI_Datatype *bytes_types; /* alltoallw: MPI_BYTE for every block, shared by all ranks */
} sim_call;

/* Supports allgather, allgatherv, alltoall, alltoallv and alltoallw. Returns 0, or 1 with a
 * message. */
int sim_call_init(sim_call *call, nhood_coll_kind kind, int bytes, int per_entry, int nranks, const NHOOD_Topo *topos,
                  char *err, size_t errlen);
void sim_call_free(sim_call *call);

/* The content key of a block sent by sender to receiver as the occurrence-th of its
 * duplicate edges to that receiver (0 for the first). Allgather blocks are the sender's one
 * send buffer, whatever the receiver. */
uint64_t sim_block_key(const sim_call *call, int sender, int receiver, int occurrence);
/* A block's content is blockdata_fill of its key (tools/common/blockdata.h): byte k depends
 * on the key and on k, so a wrong, shifted or truncated block differs from the expected one. */

#endif
