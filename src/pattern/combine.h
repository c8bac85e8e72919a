/*
 * Common-neighborhood message combining, Phase 1: which processes pair up, and who forwards
 * what (after Mirsadeghi, Träff, Balaji, Afsahi, HiPC 2017), written as a bulk-synchronous
 * program (pattern/bsp.h) that depends on the topology only.
 *
 * Two processes ("friends") p and q with a set C of at least theta common destinations
 * exchange their blocks and split C: the lower rank serves the first half of C (sorted), the
 * higher one the rest, each sending one combined message [own block, partner's block]
 * instead of two. Targets are told which combined messages to expect. This repeats
 * ("steps") on the edges that are still direct, until a step pairs nobody.
 *
 * What differs from the paper, so that the cost does not grow with the number of processes:
 *   - No common-neighborhood matrix. Each target t sends each of its sources a small sample
 *     (sample_size) of its other sources, so a process estimates its overlap with others
 *     from what its own targets report: O(degree * sample_size) work and memory. At P = 4096
 *     and density 0.8 the paper's matrix would hold ~10^7 entries per process.
 *   - Exact common sets only with the few best candidates: a process sends its destination list
 *     to its top `candidates` estimates, which compute the exact intersection and reply with
 *     it; a process answers at most 2 * candidates such requests per step.
 *   - Matching: locally dominant (heaviest common set first, ties by rank) over those exact
 *     pairs, in a bounded number of propose/answer supersteps.
 *
 * Edges that take part: those listed exactly once by both ends, between distinct processes
 * (self loops, duplicate edges and MPI_PROC_NULL stay direct). The topology must be
 * consistent across processes (NHOOD_CHECK=1 verifies it).
 */
#ifndef NHOOD_PATTERN_COMBINE_H
#define NHOOD_PATTERN_COMBINE_H

#include <mpi.h>

#include "nhood.h"
#include "pattern/bsp.h"

typedef struct {
  int theta;            /* least common destinations for a pair (default 4) */
  int sample_size;      /* sources a target reports per step (default 16) */
  int candidates;       /* exact overlaps requested per process and step (default 4) */
  int max_steps;        /* combining steps at most (default 8) */
  int matching_rounds;  /* propose/answer supersteps per step (default 8) */
  unsigned long long seed;
} nhood_combine_params;

void nhood_combine_params_default(nhood_combine_params *p);

/* A pair this process belongs to. */
typedef struct {
  int partner;
  int nmine, ntheirs;
  int *mine;            /* targets this process sends [own block, partner's block] */
  int *theirs;          /* targets the partner sends [partner's block, own block] */
  int step;             /* the step that formed the pair */
} nhood_combine_pair;

/* A combined message this process receives: from agent, carrying [agent's, other's block]. */
typedef struct {
  int agent, other;
} nhood_combine_incoming;

typedef struct nhood_combine_pattern {
  int npairs;
  nhood_combine_pair *pairs;
  int nincoming;
  nhood_combine_incoming *incoming;
  int steps;            /* combining steps that ran */
} nhood_combine_pattern;

void nhood_combine_pattern_free(nhood_combine_pattern *p);

/* Phase 1 over MPI, collectively over comm (a communicator private to the library), for
 * this process's topology. stats is optional. */
int nhood_combine_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_combine_params *params,
                            nhood_combine_pattern *pattern, nhood_bsp_stats *stats);

/* Phase 1 in this process for nranks virtual ranks (topos[r] is rank r's topology);
 * patterns[r] receives rank r's pattern. Makes no MPI call. */
int nhood_combine_build_local(int nranks, const NHOOD_Topo topos[], const nhood_combine_params *params,
                              nhood_combine_pattern patterns[], nhood_bsp_stats *stats);

#endif
