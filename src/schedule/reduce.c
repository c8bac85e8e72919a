/*
 * Reduce and scatter-reduce over a neighborhood (the isomorphic issue's "reduce" collectives,
 * which work on any topology): process X receives one vector from each source, as allgather
 * (reduce) or alltoall (scatter-reduce) would deliver it, and reduces them all with a
 * commutative op into its receive vector.
 *
 * Any algorithm's exchange serves: nhood_build_reduce builds the algorithm's allgather or
 * alltoall schedule for the same send side, moves its receive blocks from the user's receive
 * buffer into scratch, and appends one round of local operations: copy the first received
 * block into the receive vector, reduce every later one into it. So the messages are as few
 * as the algorithm makes them (combining carries several sources' blocks in one message), and
 * each process reduces only what it receives. Reducing on the way, where blocks bound for the
 * same target meet, would also cut the volume; it needs routes keyed by target instead of by
 * source and is left for later.
 *
 * Blocks from MPI_PROC_NULL sources do not exist and take no part; a process with no existing
 * source leaves its receive vector as it was. A source listed twice contributes twice.
 */
#include "common/errors.h"
#include "schedule/algorithms.h"
#include "topology/topology.h"

int nhood_build_reduce(nhood_exchange_builder build, const void *algorithm, const nhood_topo *t,
                       const nhood_coll_args *a, int me, nhood_sched *s) {
  int rc = MPI_SUCCESS;
  nhood_coll_args exchange = *a;
  exchange.kind = a->kind == NHOOD_REDUCE ? NHOOD_ALLGATHER : NHOOD_ALLTOALL;
  NHOOD_TRY(build(algorithm, t, &exchange, me, s));
  /* Receive block i lies at i * count * extent from a base in scratch, placed so that the
   * datatype's true lower bound (possibly negative) stays inside the allocation. */
  MPI_Aint true_lb = 0, true_extent = 0, stride = (MPI_Aint)a->recvcount * a->recv_extent;
  NHOOD_MPI_CALL(MPI_Type_get_true_extent(a->recvtype, &true_lb, &true_extent));
  MPI_Aint base = (s->scratch_bytes + 15) / 16 * 16 + (true_lb < 0 ? -true_lb : 0);
  MPI_Aint span = (MPI_Aint)t->indegree * (stride < 0 ? -stride : stride) + (true_lb > 0 ? true_lb : 0) + true_extent;
  for (int k = 0; k < s->nops; k++)
    if (s->ops[k].buf == NHOOD_BUF_RECV) {
      s->ops[k].buf = NHOOD_BUF_SCRATCH;
      s->ops[k].offset += base;
    }
  s->scratch_bytes = base + span;
  int first = 1;
  nhood_region result = nhood_recv_block(a, 0);
  for (int i = 0; i < t->indegree; i++) {
    if (t->sources[i] == MPI_PROC_NULL) continue;
    int at = a->recv_slot ? a->recv_slot[i] : i; /* where the exchange put it (collargs.h) */
    nhood_region block = {base + at * stride, a->recvtype, a->recvcount, NHOOD_BUF_SCRATCH, at + 1};
    NHOOD_TRY(first ? nhood_sched_copy(s, block, result) : nhood_sched_reduce(s, block, result, a->op));
    first = 0;
  }
  /* The appended operations form one more round, after every exchange round. */
  NHOOD_TRY(nhood_sched_finish(s));
  return MPI_SUCCESS;
cleanup:
  nhood_sched_free(s);
  return rc;
}
