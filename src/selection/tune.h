/*
 * Tuning overrides of "auto": rules that name the algorithm for a collective and a range of
 * block sizes, from the environment variable NHOOD_TUNE or the info key NHOOD_INFO_TUNE.
 *
 *   RULES := RULE { ";" RULE }
 *   RULE  := COLLS [ ":" RANGE ] "=" ALGO
 *   COLLS := "*" | COLL { "," COLL }         allgather, allgatherv, alltoall, alltoallv,
 *                                            alltoallw, reduce, scatter_reduce
 *   RANGE := SIZE | [ SIZE ] "-" [ SIZE ]    bytes per block, both ends included;
 *                                            SIZE := digits [ "K" | "M" | "G" ] (powers of 1024)
 *   ALGO  := an algorithm name, or "auto" (the cost model decides)
 *
 * e.g. NHOOD_TUNE="allgather:-2K=cart-dim-batch; allgather:2K-=direct; alltoallv=combine".
 * The first rule that matches wins; spaces are ignored. The block size is the one "auto"
 * decides by (selection/select.h), so the rules must be the same on every process.
 */
#ifndef NHOOD_SELECTION_TUNE_H
#define NHOOD_SELECTION_TUNE_H

#include "schedule/collargs.h"

/* The algorithm of the first rule in `rules` that matches (kind, bytes) into out (at least
 * NHOOD_ALGORITHM_NAME_MAX bytes), or "" when none does. Every rule is checked: a malformed
 * one, or an unknown collective or algorithm, is MPI_ERR_INFO with a message that names
 * `origin` (e.g. "NHOOD_TUNE") and the rule. */
int nhood_tune_lookup(const char *rules, const char *origin, nhood_coll_kind kind, double bytes, char *out);

#endif
