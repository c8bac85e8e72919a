/* Choosing among the registry's entries for one call (selection/select.h): the fallback
 * where an algorithm does not apply, and "auto"'s choice and short list from its prices. */
#include "selection/select.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"

/* NHOOD_FALLBACK: "error" (2), "print" (1), else silent (0); read once. */
static int fallback_mode(void) {
  static atomic_int mode = -1;
  int m = atomic_load(&mode);
  if (m < 0) {
    const char *v = getenv("NHOOD_FALLBACK");
    m = v && strcmp(v, "error") == 0 ? 2 : v && strcmp(v, "print") == 0 ? 1 : 0;
    atomic_store(&mode, m);
  }
  return m;
}

const nhood_algorithm *nhood_algorithm_resolve(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                                               const nhood_coll_args *a) {
  const char *why = why_not ? why_not : nhood_algorithm_unfit(alg, t, a);
  for (int hops = 0; why != NULL && alg->fallback != NULL && hops < nhood_algorithm_count(); hops++) {
    alg = nhood_algorithm_by_name(alg->fallback);
    why = nhood_algorithm_unfit(alg, t, a);
  }
  return why ? NULL : alg;
}

int nhood_select_fallback(const nhood_algorithm *alg, const char *why_not, const nhood_topo *t,
                          const nhood_coll_args *a, const nhood_algorithm **ran) {
  const char *why = why_not ? why_not : nhood_algorithm_unfit(alg, t, a);
  if (why == NULL) {
    *ran = alg;
    return MPI_SUCCESS;
  }
  if (fallback_mode() == 2)
    return nhood_error(MPI_ERR_ARG, "algorithm \"%s\" does not apply to this %s: %s (NHOOD_FALLBACK=error)", alg->name,
                       nhood_coll_names[a->kind], why);
  const nhood_algorithm *next = nhood_algorithm_resolve(alg, why, t, a);
  if (next == NULL) return nhood_error(MPI_ERR_INTERN, "no algorithm applies after \"%s\"'s fallbacks", alg->name);
  if (fallback_mode() == 1)
    fprintf(stderr, "nhood: %s runs as %s: \"%s\" does not apply (%s)\n", nhood_coll_names[a->kind], next->name,
            alg->name, why_not ? why_not : nhood_algorithm_unfit(alg, t, a));
  *ran = next;
  return MPI_SUCCESS;
}

int nhood_select(const char *requested, const nhood_topo *t, const nhood_coll_args *a, const nhood_algorithm **chosen) {
  const nhood_algorithm *alg = nhood_algorithm_by_name(requested);
  if (alg == NULL)
    return nhood_error(MPI_ERR_INFO, "unknown algorithm \"%s\" (known: %s)", requested, nhood_algorithm_names());
  return nhood_select_fallback(alg, NULL, t, a, chosen);
}

/* ---- auto ------------------------------------------------------------------------------ */

int nhood_size_class(double bytes) {
  if (bytes < 1) return 0;
  int cls = 1 + (int)floor(log2(bytes));
  return cls < NHOOD_SIZE_CLASSES ? cls : NHOOD_SIZE_CLASSES - 1;
}

double nhood_size_class_bytes(int cls) { return cls == 0 ? 0 : ldexp(1.4142135623730951, cls - 1); }

double nhood_call_block_bytes(const nhood_coll_args *a, const nhood_topo *t) {
  if (a->kind != NHOOD_ALLTOALLV && a->kind != NHOOD_ALLTOALLW) return (double)a->sendcount * a->send_type_size;
  double total = 0;
  for (int j = 0; j < t->outdegree; j++) {
    int size = a->send_type_size;
    if (a->kind == NHOOD_ALLTOALLW && nhood_type_size(a->sendtypes[j], &size) != MPI_SUCCESS) size = 0;
    total += (double)a->sendcounts[j] * size;
  }
  return t->outdegree > 0 ? total / t->outdegree : 0;
}

/* What auto would pay for table entry k: INFINITY where it cannot run (for a persistent
 * request, its persistent row says so). */
static double price(const double *costs, int k, int cls) { return costs[(size_t)k * NHOOD_SIZE_CLASSES + cls]; }

static int is_baseline(int k) { return nhood_algorithm_is_baseline(nhood_algorithm_at(k)); }

static int cheapest(const double *costs, int cls, int baseline_only, int skip[]) {
  int best = -1;
  double best_cost = INFINITY;
  for (int k = 0; k < nhood_algorithm_count(); k++) {
    double c = price(costs, k, cls);
    if ((baseline_only && !is_baseline(k)) || (skip && skip[k])) continue;
    if (c < best_cost) best = k, best_cost = c;
  }
  return best;
}

static int choose_index(const double *costs, int cls, double margin) {
  int best = cheapest(costs, cls, 0, NULL), base = cheapest(costs, cls, 1, NULL);
  if (best < 0) return 0; /* nothing priced: direct always runs */
  if (base >= 0 && !is_baseline(best) && price(costs, best, cls) * (1 + margin) > price(costs, base, cls)) return base;
  return best;
}

const nhood_algorithm *nhood_auto_choose(const double *costs, int cls, double margin) {
  return nhood_algorithm_at(choose_index(costs, cls, margin));
}

int nhood_auto_shortlist(const double *costs, int cls, double margin,
                         const nhood_algorithm *list[NHOOD_SHORTLIST_MAX]) {
  int taken[NHOOD_ALGORITHMS_MAX] = {0}, n = 0;
  int first = choose_index(costs, cls, margin);
  double first_cost = price(costs, first, cls);
  taken[first] = 1;
  list[n++] = nhood_algorithm_at(first);
  /* The baselines next: direct and MPI's own send the same messages, but their
   * implementations differ measurably (docs/PERFORMANCE.md), and MPI's own is what "auto"
   * must not lose to. */
  for (int base; n < NHOOD_SHORTLIST_MAX && (base = cheapest(costs, cls, 1, taken)) >= 0;) {
    taken[base] = 1;
    list[n++] = nhood_algorithm_at(base);
  }
  while (n < NHOOD_SHORTLIST_MAX) {
    int next = cheapest(costs, cls, 0, taken);
    if (next < 0 || !(price(costs, next, cls) <= NHOOD_SHORTLIST_SPREAD * first_cost)) break;
    taken[next] = 1;
    list[n++] = nhood_algorithm_at(next);
  }
  return n;
}
