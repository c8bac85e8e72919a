/*
 * The staggered algorithm: direct's messages (one per edge, one round), but each process sends
 * first to the ranks just after its own, in rank order, wrapping around (r + 1, r + 2, ...,
 * then 0, 1, ..., r - 1), as pairwise all-to-all exchanges do. With direct, every process
 * sends in the order of its list, usually by rank: all of them start with the lowest ranks,
 * whose node's network interface then takes everyone's first messages while the others wait
 * (incast). Staggered, the first messages head for as many processes and nodes as there are
 * senders. Edges to one destination keep their order (MPI's pairing within a channel).
 */
#include "schedule/algorithms.h"

/* Ranks above me come first, by distance; then those below, from rank 0 up. */
static long long after_me(const nhood_topo *t, const nhood_coll_args *a, int me, int q) {
  (void)a;
  const long long wrap = (long long)(t->max_rank > me ? t->max_rank : me) + 1;
  return q > me ? q - me : q + wrap - me;
}

int nhood_build_staggered(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  return nhood_build_direct_ordered(t, a, me, "staggered", after_me, s);
}
