/*
 * What the tools put in the blocks they exchange: nhood-bench and nhood-sim must agree, so
 * that a simulated case is the case the benchmark runs. Counts and contents are functions of
 * (sender, receiver, occurrence), so both ends of an edge know them without communicating.
 */
#ifndef NHOOD_TOOLS_BLOCKDATA_H
#define NHOOD_TOOLS_BLOCKDATA_H

#include <stdint.h>

/* Bytes the v/w collectives move from p to q: bytes or half of it (at least 1 when
 * bytes > 0), by a hash of the edge. */
int blockdata_edge_bytes(int p, int q, int bytes);
/* Bytes rank p contributes to allgatherv, the same way. */
int blockdata_rank_bytes(int p, int bytes);
/* Content keys: of p's allgather block, and of the occurrence-th block from p to q
 * (MPI-4.1 pairs the k-th duplicate edge of both ends). */
uint64_t blockdata_rank_key(int p);
uint64_t blockdata_edge_key(int p, int q, int occurrence);
/* A block's content: a counter-based stream of its key, so any prefix of it (the shorter
 * counts of the v collectives) is known to both ends. */
void blockdata_fill(unsigned char *dst, int len, uint64_t key);

#endif
