/* The forwarding pattern as an object (pattern/combine.h): freeing it, the references requests
 * hold, and the check that it delivers what the topology says. Every kind of pattern
 * (combine, node, node-tree) makes one. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "pattern/combine.h"
#include "pattern/records.h"
#include "topology/topology.h"

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void nhood_combine_levels_free(nhood_combine_level *levels, int n) {
  for (int k = 0; levels && k < n; k++) {
    nhood_records_free(&levels[k].out);
    nhood_records_free(&levels[k].in);
  }
  free(levels);
}

void nhood_combine_pattern_free(nhood_combine_pattern *p) {
  nhood_combine_levels_free(p->levels, p->nlevels);
  nhood_records_free(&p->duties);
  nhood_records_free(&p->self);
  nhood_records_free(&p->incoming);
  memset(p, 0, sizeof *p);
}

void nhood_combine_pattern_retain(nhood_combine_pattern *p) { atomic_fetch_add(&p->extra_refs, 1); }

void nhood_combine_pattern_release(nhood_combine_pattern *p) {
  if (p == NULL || atomic_fetch_sub(&p->extra_refs, 1) > 0) return;
  nhood_combine_pattern_free(p);
  free(p);
}

/* The blocks the pattern brings to this process must be those of the sources it combines (each
 * listed once, neither itself nor MPI_PROC_NULL): on a consistent topology they are. Where
 * processes' lists disagree (p lists q as a destination, q does not list p as a source, or
 * with another multiplicity) they are not, and the exchange would leave a block unwritten or
 * a message unreceived: an error here, which the program's next reduction gives every process. */
int nhood_pattern_check_delivery(NHOOD_Topo t, int me, const nhood_combine_pattern *p) {
  int rc = MPI_SUCCESS, nexpected = 0, ndelivered = 0, n = p->self.nwords + p->incoming.nwords;
  int *expected = malloc(sizeof(int) * (size_t)(t->indegree + 1)), *delivered = malloc(sizeof(int) * (size_t)(n + 1));
  if (!expected || !delivered) {
    rc = nhood_error(MPI_ERR_NO_MEM, "combining: out of memory checking the pattern");
    goto cleanup;
  }
  memcpy(expected, t->sources, sizeof(int) * (size_t)t->indegree);
  qsort(expected, (size_t)t->indegree, sizeof(int), compare_ints);
  for (int i = 0, j; i < t->indegree; i = j) { /* keep the combined sources only, in place */
    for (j = i; j < t->indegree && expected[j] == expected[i];) j++;
    if (nhood_combine_eligible(expected[i], me, j - i)) expected[nexpected++] = expected[i];
  }
  const nhood_records *lists[2] = {&p->self, &p->incoming};
  for (int l = 0; l < 2; l++)
    for (const int *x = lists[l]->words; x < NHOOD_RECORDS_END(*lists[l]); x += 2 + x[1])
      for (int k = 0; k < x[1]; k++) delivered[ndelivered++] = x[2 + k];
  qsort(delivered, (size_t)ndelivered, sizeof(int), compare_ints);
  for (int i = 0; i < nexpected || i < ndelivered; i++) {
    if (i < nexpected && i < ndelivered && expected[i] == delivered[i]) continue;
    int missing = i < nexpected && (i >= ndelivered || expected[i] < delivered[i]);
    int peer = missing ? expected[i] : delivered[i];
    if (missing)
      rc = nhood_error(MPI_ERR_TOPOLOGY,
                       "inconsistent topology: rank %d lists rank %d as a source once, but rank %d does not list "
                       "rank %d as a destination once (NHOOD_CHECK=1 names every disagreement)",
                       me, peer, peer, me);
    else
      rc = nhood_error(MPI_ERR_TOPOLOGY,
                       "inconsistent topology: rank %d lists rank %d as a destination, but rank %d does not list "
                       "rank %d as a source once (NHOOD_CHECK=1 names every disagreement)",
                       peer, me, me, peer);
    break;
  }
cleanup:
  free(expected);
  free(delivered);
  return rc;
}
