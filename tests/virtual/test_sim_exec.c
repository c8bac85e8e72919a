/*
 * The exact-delivery check finds what it must: correct direct schedules verify, and each kind
 * of broken schedule (swapped duplicate edges, truncation, a deadlock, a message nobody
 * receives, a write into an MPI_PROC_NULL block) fails with a message that names it.
 */
#include <stdio.h>
#include <string.h>

#include "schedule/algorithms.h"
#include "sim_call.h"
#include "sim_exec.h"

#include "unit.h" /* tests/unit: CHECK and the "N passed, N failed" summary */

#define MAX_RANKS 3

/* Topologies, an alltoall of 4-byte blocks on them and the direct schedules of every rank. */
typedef struct fixture {
  int nranks;
  NHOOD_Topo topos[MAX_RANKS];
  sim_call call;
  nhood_sched scheds[MAX_RANKS];
} fixture;

static void fixture_init(fixture *f, int nranks, const int *indegree, const int *const *sources, const int *outdegree,
                         const int *const *destinations) {
  char err[256];
  f->nranks = nranks;
  for (int r = 0; r < nranks; r++)
    NHOOD_Topo_create_adjacent(indegree[r], sources[r], MPI_UNWEIGHTED, outdegree[r], destinations[r], MPI_UNWEIGHTED,
                               MPI_INFO_NULL, &f->topos[r]);
  CHECK(sim_call_init(&f->call, NHOOD_ALLTOALL, 4, 0, nranks, f->topos, err, sizeof err) == 0, "%s", err);
  for (int r = 0; r < nranks; r++)
    CHECK(nhood_build_direct(f->topos[r], &f->call.args[r], r, &f->scheds[r]) == MPI_SUCCESS, "build rank %d", r);
}

static void fixture_free(fixture *f) {
  for (int r = 0; r < f->nranks; r++) {
    nhood_sched_free(&f->scheds[r]);
    NHOOD_Topo_free(&f->topos[r]);
  }
  sim_call_free(&f->call);
}

static sim_verdict verify(fixture *f, char *problem, size_t len) {
  return sim_exec_verify(&f->call, f->scheds, 0, problem, len);
}

/* The k-th receive (or send) operation of a schedule. */
static nhood_op *nth_op(nhood_sched *s, nhood_op_kind kind, int k) {
  for (int i = 0; i < s->nops; i++)
    if (s->ops[i].kind == kind && k-- == 0) return &s->ops[i];
  return NULL;
}

/* A multigraph on three ranks: rank 0 sends two blocks to rank 1 (duplicate edges). */
static const int in3[] = {1, 2, 2}, out3[] = {3, 1, 1};
static const int src0[] = {2}, src1[] = {0, 0}, src2[] = {1, 0};
static const int dst0[] = {1, 1, 2}, dst1[] = {2}, dst2[] = {0};
static const int *const sources3[] = {src0, src1, src2};
static const int *const destinations3[] = {dst0, dst1, dst2};

static void test_direct_verifies(void) {
  fixture f;
  char problem[512];
  fixture_init(&f, 3, in3, sources3, out3, destinations3);
  CHECK(verify(&f, problem, sizeof problem) == SIM_VERIFIED, "direct: %s", problem);
  fixture_free(&f);
}

static void test_swapped_duplicates(void) {
  fixture f;
  char problem[512];
  fixture_init(&f, 3, in3, sources3, out3, destinations3);
  nhood_op *first = nth_op(&f.scheds[1], NHOOD_OP_RECV, 0);
  nhood_op *second = nth_op(&f.scheds[1], NHOOD_OP_RECV, 1);
  MPI_Aint offset = first->offset;
  first->offset = second->offset;
  second->offset = offset;
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG &&
            strstr(problem, "rank 1: receive block 0 (from rank 0, duplicate 0)"),
        "swapped duplicates: '%s'", problem);
  fixture_free(&f);
}

static void test_truncation(void) {
  fixture f;
  char problem[512];
  fixture_init(&f, 3, in3, sources3, out3, destinations3);
  nth_op(&f.scheds[2], NHOOD_OP_RECV, 0)->count = 2;
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG && strstr(problem, "into a receive of 2 bytes"),
        "truncation: '%s'", problem);
  nth_op(&f.scheds[2], NHOOD_OP_RECV, 0)->count = 1; /* one byte is "1 byte" */
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG && strstr(problem, "into a receive of 1 byte") &&
            !strstr(problem, "1 bytes"),
        "truncation into 1 byte: '%s'", problem);
  fixture_free(&f);
}

static void test_deadlock(void) {
  fixture f;
  char problem[512];
  fixture_init(&f, 3, in3, sources3, out3, destinations3);
  nth_op(&f.scheds[2], NHOOD_OP_RECV, 1)->peer = 1; /* a second message from rank 1 never comes */
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG &&
            strstr(problem, "deadlock: 1 rank(s) cannot progress; rank 2 waits in round 0"),
        "deadlock: '%s'", problem);
  fixture_free(&f);
}

static void test_message_never_received(void) {
  fixture f;
  char problem[512];
  fixture_init(&f, 3, in3, sources3, out3, destinations3);
  /* Rank 0 sends its block for rank 2 to rank 1 on another tag; rank 2's receive then waits
   * for rank 0 in vain, so let rank 2 not expect it either. */
  nth_op(&f.scheds[0], NHOOD_OP_SEND, 2)->peer = 1;
  nth_op(&f.scheds[0], NHOOD_OP_SEND, 2)->tag = 1;
  nth_op(&f.scheds[2], NHOOD_OP_RECV, 1)->peer = MPI_PROC_NULL;
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG &&
            strstr(problem,
                   "1 message(s) never received, the first from rank 0 to rank 1 "
                   "(tag 1, 4 bytes)"),
        "never received: '%s'", problem);
  fixture_free(&f);
}

static void test_proc_null_block_written(void) {
  static const int in[] = {2, 1}, out[] = {1, 2};
  static const int s0[] = {MPI_PROC_NULL, 1}, s1[] = {0}, d0[] = {1}, d1[] = {0, MPI_PROC_NULL};
  static const int *const sources[] = {s0, s1}, *const destinations[] = {d0, d1};
  fixture f;
  char problem[512];
  fixture_init(&f, 2, in, sources, out, destinations);
  CHECK(verify(&f, problem, sizeof problem) == SIM_VERIFIED, "MPI_PROC_NULL: %s", problem);
  nth_op(&f.scheds[0], NHOOD_OP_RECV, 0)->offset = 0; /* into block 0, MPI_PROC_NULL's */
  CHECK(verify(&f, problem, sizeof problem) == SIM_WRONG && strstr(problem, "(from MPI_PROC_NULL) was written"),
        "MPI_PROC_NULL block written: '%s'", problem);
  fixture_free(&f);
}

int main(void) {
  test_direct_verifies();
  test_swapped_duplicates();
  test_truncation();
  test_deadlock();
  test_message_never_received();
  test_proc_null_block_written();
  return unit_summary("test_sim_exec");
}
