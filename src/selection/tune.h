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

#include "topology/topology.h"

/* Parsed rules: per rule the collectives it names (bit k for nhood_coll_kind k), its size
 * range and its algorithm ("auto" included). */
typedef struct nhood_tune_rule {
  unsigned colls;
  double lo, hi;
  char algorithm[NHOOD_ALGORITHM_NAME_MAX];
} nhood_tune_rule;

typedef struct nhood_tune_rules {
  int n;
  nhood_tune_rule *rule;
} nhood_tune_rules;

/* Parses `rules` into out. Every rule is checked: a malformed one, or an unknown collective or
 * algorithm, is MPI_ERR_INFO with a message that names `origin` (e.g. "NHOOD_TUNE") and the
 * rule, and out is left empty. */
int nhood_tune_parse(const char *rules, const char *origin, nhood_tune_rules *out);
/* The algorithm of the first rule that matches (kind, bytes), or NULL. */
const char *nhood_tune_match(const nhood_tune_rules *rules, nhood_coll_kind kind, double bytes);
void nhood_tune_free(nhood_tune_rules *rules);

/* The rules of NHOOD_INFO_TUNE in info (a topology's, at its creation), parsed and kept on
 * topo; nothing where info has none. */
int nhood_tune_attach(NHOOD_Topo topo, MPI_Info info);
/* The rules kept on topo, or NULL. */
const nhood_tune_rules *nhood_tune_rules_of(NHOOD_Topo topo);

/* The algorithm NHOOD_TUNE names for (kind, bytes) into out, as nhood_tune_lookup does. The
 * rules are parsed when the variable is first seen or has changed, not at every call. */
int nhood_tune_env_match(nhood_coll_kind kind, double bytes, char *out);

/* Parse and match in one: the algorithm into out (at least NHOOD_ALGORITHM_NAME_MAX bytes),
 * or "" when no rule matches. */
int nhood_tune_lookup(const char *rules, const char *origin, nhood_coll_kind kind, double bytes, char *out);

#endif
