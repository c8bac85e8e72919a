/* What the topology SPECs' self-tests share (topospec_selftest.c, topospec_selftest_rmat.c):
 * the neighborhoods of every rank, and checks that they agree with each other. */
#ifndef NHOOD_TOPOSPEC_CHECK_H
#define NHOOD_TOPOSPEC_CHECK_H

#include "topospec.h"

#include <mpi.h> /* MPI_PROC_NULL only */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h" /* tests/unit: CHECK and the "N passed, N failed" summary */

/* The neighborhoods of all ranks of one SPEC at one rank count. */
typedef struct all_ranks {
  int nranks;
  topospec_rank *rank;
} all_ranks;

static inline int build_all(const topospec *spec, int nranks, all_ranks *all) {
  char err[256];
  all->nranks = nranks;
  all->rank = calloc((size_t)nranks, sizeof *all->rank);
  if (all->rank == NULL) {
    CHECK(0, "out of memory");
    return 1;
  }
  for (int r = 0; r < nranks; r++) {
    if (topospec_for_rank(spec, r, nranks, &all->rank[r], err, sizeof err) != 0) {
      CHECK(0, "%s, rank %d of %d: %s", spec->text, r, nranks, err);
      return 1;
    }
  }
  return 0;
}

static inline void free_all(all_ranks *all) {
  for (int r = 0; r < all->nranks && all->rank != NULL; r++) topospec_rank_free(&all->rank[r]);
  free(all->rank);
  all->rank = NULL;
}

static inline int count_of(const int *list, int n, int value) {
  int count = 0;
  for (int i = 0; i < n; i++) count += list[i] == value;
  return count;
}

/* Both ends agree on every edge, and on the element counts of matrix halos. */
static inline void check_symmetric_lists(const topospec *spec, const all_ranks *all) {
  int P = all->nranks;
  for (int p = 0; p < P; p++) {
    const topospec_rank *me = &all->rank[p];
    for (int j = 0; j < me->outdegree; j++) {
      int q = me->destinations[j];
      if (q == MPI_PROC_NULL) continue;
      CHECK(q >= 0 && q < P, "%s P=%d: rank %d has destination %d", spec->text, P, p, q);
      if (q < 0 || q >= P) continue;
      const topospec_rank *peer = &all->rank[q];
      int sent = count_of(me->destinations, me->outdegree, q);
      int listed = count_of(peer->sources, peer->indegree, p);
      CHECK(sent == listed,
            "%s P=%d: %d lists %d as destination %d times, %d lists %d as "
            "source %d times",
            spec->text, P, p, q, sent, q, p, listed);
      if (spec->kind == TOPOSPEC_MTX || spec->kind == TOPOSPEC_RMAT) {
        for (int i = 0; i < peer->indegree; i++)
          if (peer->sources[i] == p)
            CHECK(peer->recv_elems[i] == me->send_elems[j], "%s P=%d: %d sends %d elements to %d, which expects %d",
                  spec->text, P, p, me->send_elems[j], q, peer->recv_elems[i]);
      }
    }
    /* The reverse direction: every source lists me back. */
    for (int i = 0; i < me->indegree; i++) {
      int q = me->sources[i];
      if (q == MPI_PROC_NULL) continue;
      CHECK(q >= 0 && q < P, "%s P=%d: rank %d has source %d", spec->text, P, p, q);
      if (q >= 0 && q < P)
        CHECK(count_of(all->rank[q].destinations, all->rank[q].outdegree, p) == count_of(me->sources, me->indegree, q),
              "%s P=%d: source %d of %d does not list it back", spec->text, P, q, p);
    }
  }
}

/* Graph kinds (er, mtx): lists ascending, distinct, without self loops or MPI_PROC_NULL. */
static inline void check_sorted_lists(const topospec *spec, const all_ranks *all) {
  for (int p = 0; p < all->nranks; p++) {
    const topospec_rank *me = &all->rank[p];
    for (int i = 0; i < me->indegree; i++)
      CHECK(me->sources[i] != p && me->sources[i] >= 0 && (i == 0 || me->sources[i] > me->sources[i - 1]),
            "%s P=%d: sources of %d not ascending/distinct at %d", spec->text, all->nranks, p, i);
    for (int j = 0; j < me->outdegree; j++)
      CHECK(me->destinations[j] != p && me->destinations[j] >= 0 &&
                (j == 0 || me->destinations[j] > me->destinations[j - 1]),
            "%s P=%d: destinations of %d not ascending/distinct at %d", spec->text, all->nranks, p, j);
  }
}

static inline int parse_or_fail(const char *text, topospec *spec) {
  char err[512];
  if (topospec_parse(text, spec, err, sizeof err) != 0) {
    CHECK(0, "'%s' does not parse: %s", text, err);
    return 1;
  }
  return 0;
}

/* The halo of every rank from a dense "rank q needs x_j" table, built independently of
 * topospec's bisection and owner formula. */
static inline void check_halo_brute_force(const topospec *spec, const all_ranks *all) {
  int P = all->nranks, n = spec->mtx_rows, m = spec->mtx_cols;
  int *row_owner = malloc((size_t)n * sizeof(int));
  int *col_owner = malloc((size_t)m * sizeof(int));
  char *needs = calloc((size_t)P * m, 1);
  int *count = calloc((size_t)P, sizeof(int));
  if (row_owner == NULL || col_owner == NULL || needs == NULL || count == NULL) {
    CHECK(0, "out of memory");
    goto cleanup;
  }
  for (int q = 0; q < P; q++) {
    for (long long i = (long long)q * n / P; i < (long long)(q + 1) * n / P; i++) row_owner[i] = q;
    for (long long j = (long long)q * m / P; j < (long long)(q + 1) * m / P; j++) col_owner[j] = q;
  }
  for (int i = 0; i < n; i++)
    for (long long k = spec->mtx_rowptr[i]; k < spec->mtx_rowptr[i + 1]; k++) {
      int j = spec->mtx_colind[k];
      if (col_owner[j] != row_owner[i]) needs[(size_t)row_owner[i] * m + j] = 1;
    }
  for (int r = 0; r < P; r++) {
    const topospec_rank *me = &all->rank[r];
    /* Receive side: x entries r needs, grouped by owner. */
    memset(count, 0, (size_t)P * sizeof(int));
    for (int j = 0; j < m; j++) count[col_owner[j]] += needs[(size_t)r * m + j];
    int i = 0;
    for (int q = 0; q < P; q++) {
      if (count[q] == 0) continue;
      CHECK(i < me->indegree && me->sources[i] == q && me->recv_elems[i] == count[q],
            "%s P=%d: rank %d should receive %d from %d", spec->text, P, r, count[q], q);
      i++;
    }
    CHECK(i == me->indegree, "%s P=%d: rank %d indegree %d, expected %d", spec->text, P, r, me->indegree, i);
    /* Send side: my x entries each other rank needs. */
    memset(count, 0, (size_t)P * sizeof(int));
    for (int q = 0; q < P; q++)
      for (int j = 0; j < m; j++) count[q] += needs[(size_t)q * m + j] && col_owner[j] == r;
    int o = 0;
    for (int q = 0; q < P; q++) {
      if (count[q] == 0) continue;
      CHECK(o < me->outdegree && me->destinations[o] == q && me->send_elems[o] == count[q],
            "%s P=%d: rank %d should send %d to %d", spec->text, P, r, count[q], q);
      o++;
    }
    CHECK(o == me->outdegree, "%s P=%d: rank %d outdegree %d, expected %d", spec->text, P, r, me->outdegree, o);
  }
cleanup:
  free(row_owner);
  free(col_owner);
  free(needs);
  free(count);
}

#endif
