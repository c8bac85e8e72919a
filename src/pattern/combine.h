/*
 * Common-neighborhood message combining, Phase 1: who forwards what for whom (after
 * Mirsadeghi, Träff, Balaji, Afsahi, HiPC 2017, made cumulative), written as a
 * bulk-synchronous program (pattern/bsp.h) that depends on the topology only.
 *
 * A process holds *duties*: "send to target t the blocks of sources S". At first every
 * process has one duty per out-neighbor, S = {itself}. In a combining level two partner
 * processes p and q compare their duties. If they share at least theta targets ("friends"),
 * they merge them: each target of either goes to the partner whose level bit matches the
 * target's rank bit, and a common target's two duties become one (S_p ∪ S_q), so the target
 * gets one message where it got two. The partner that gives a duty away sends its blocks in
 * the level's exchange message. Duties taken over are combined again in later levels (the
 * paper's "cumulative combining", its future work).
 *
 * Partners are hypercube neighbors: in level h, p pairs with p XOR 2^h (processes at or above
 * the largest power of two P2 first hand all their duties to p - P2, the "fold" level). This
 * pairing, rather than the paper's weighted matching of friends, is the design choice that
 * makes cumulative combining pay: after h levels every process holds the targets of one
 * residue class of rank mod 2^h for its group of 2^h processes, so the next partner holds the
 * same class and their common targets are most of both lists. Random graphs (density d, P
 * processes) drop from d*P messages per process to about (P/2^h)*(1-(1-d)^(2^h)) after h
 * levels. The matching needs no search: its cost per level is one message of the duty list.
 *
 * How many levels to use is a cost-model decision, not a fixed threshold: after each level
 * every process estimates the latency of a call stopped there (its exchange rounds so far,
 * then the final round and the unpack, each priced by common/cost_model.h's
 * nhood_cost_round, the function "auto" prices schedules with, for a reference block size),
 * the estimates are reduced (maximum over processes) and the cheapest depth is kept, which is
 * 0 (plain direct exchange) where combining does not pay.
 *
 * Edges that take part: those listed exactly once by both ends, between distinct processes
 * (self loops, duplicate edges and MPI_PROC_NULL stay direct). The topology must be
 * consistent across processes (NHOOD_CHECK=1 verifies it).
 *
 * Cost: 2 log2(P) + O(1) supersteps; in each, at most one message per process (its duty list,
 * about one int per edge), except the last, which tells each target what it will receive.
 */
#ifndef NHOOD_PATTERN_COMBINE_H
#define NHOOD_PATTERN_COMBINE_H

#include <mpi.h>
#include <stdatomic.h>

#include "common/cost_model.h"
#include "nhood.h"
#include "pattern/bsp.h"
#include "pattern/kind.h"
#include "pattern/records.h"

typedef struct {
  /* Least common targets for partners to merge in a level. Default 1, not the paper's 4:
   * a merge with few common targets still pays in later levels, because it aligns the
   * partners' targets (in nhood-sim no case was better with 4, and some were slower than
   * direct with it). */
  int theta;
  int max_levels;   /* levels at most; -1: as many as the hypercube has (default) */
  int force_levels; /* use this many levels (capped by those run); -1: the cost model chooses */
  /* The cost model that prices a call stopped after each level (common/cost_model.h; the
   * defaults, ib-edr, unless the caller sets others: the API layer gives "auto"'s). */
  nhood_cost_params cost;
  int block_bytes; /* reference block size the depth is chosen for (default 8) */
} nhood_combine_params;

void nhood_combine_params_default(nhood_combine_params *p);
/* Overrides from the environment, which must be the same on every process:
 * NHOOD_COMBINE_THETA (theta, >= 1) and NHOOD_COMBINE_LEVELS (force_levels, >= 0; tests use
 * a large value to combine as deep as the hypercube goes whatever the model says). */
void nhood_combine_params_from_env(nhood_combine_params *p);

/* One exchange of this process with one partner. combine has one per level (round = level);
 * node-aware aggregation (node.h) has several per round. A process's exchanges are ordered by
 * round; those of one round run together, so a block received in a round is forwarded in a
 * later one. */
typedef struct {
  int round;
  int partner;       /* -1: no exchange in this level */
  nhood_records out; /* duties handed to the partner: (target, n, sources), targets ascending */
  nhood_records in;  /* duties taken from the partner, the same way */
} nhood_combine_level;

/* A forwarding pattern: what a process hands on in which round, then one message per duty.
 * combine (below) and node-aware aggregation (node.h) make one; schedule/combine.c builds the
 * schedule of any of them. */
typedef struct nhood_combine_pattern {
  int nlevels; /* exchanges of this process (combine: levels in use, the same on every process) */
  nhood_combine_level *levels;
  int nrounds; /* exchange rounds, the same on every process (0: the algorithm does not apply) */
  const struct nhood_pattern_kind *kind; /* the algorithm that made it, which its schedules are named by */
  nhood_records duties;                  /* after the levels: (target, n, sources) sent in one message, target != me */
  nhood_records self;                    /* at most one record (me, n, sources): blocks for me held here */
  nhood_records incoming;                /* (owner, n, sources): the combined messages this process receives */
  double predicted_us[2];                /* the model's estimate without combining and with the chosen depth */
  /* References beyond the first, for a pattern on the heap (see retain / release). */
  atomic_int extra_refs;
} nhood_combine_pattern;

/* combine's kind of pattern (pattern/kind.h). */
extern nhood_pattern_kind nhood_combine_kind;

/* Frees what the pattern holds (not the struct itself). */
void nhood_combine_pattern_free(nhood_combine_pattern *p);
/* Frees n levels (and the array). */
void nhood_combine_levels_free(nhood_combine_level *levels, int n);
/* For a pattern allocated with malloc and attached to a topology: a request that builds a
 * schedule later (the size-pass calls, api/request.h) keeps the pattern it started with even
 * if the topology meanwhile drops it (freed, or used on another communicator). Release frees
 * contents and struct with the last reference. */
void nhood_combine_pattern_retain(nhood_combine_pattern *p);
void nhood_combine_pattern_release(nhood_combine_pattern *p);

/* Phase 1 over MPI, collectively over comm (a communicator private to the library), for
 * this process's topology. stats is optional. */
int nhood_combine_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_combine_params *params,
                            nhood_combine_pattern *pattern, nhood_bsp_stats *stats);

/* Phase 1 in this process for nranks virtual ranks (topos[r] is rank r's topology);
 * patterns[r] receives rank r's pattern. Makes no MPI call. */
int nhood_combine_build_local(int nranks, const NHOOD_Topo topos[], const nhood_combine_params *params,
                              nhood_combine_pattern patterns[], nhood_bsp_stats *stats);

/* The blocks a pattern brings to this process (its self and incoming records) must be those
 * of the sources it combines, each once: on a consistent topology they are. Where processes'
 * lists disagree the exchange would leave a block unwritten or a message unreceived, so this
 * is MPI_ERR_TOPOLOGY naming the disagreement. */
int nhood_pattern_check_delivery(NHOOD_Topo t, int me, const nhood_combine_pattern *p);

/* Whether an edge to or from `peer`, listed `occurrences` times by this process, may be
 * combined (the same rule on both ends of a consistent topology). */
static inline int nhood_combine_eligible(int peer, int me, int occurrences) {
  return peer != MPI_PROC_NULL && peer != me && occurrences == 1;
}

#endif
