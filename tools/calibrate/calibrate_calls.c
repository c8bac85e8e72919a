/*
 * nhood-calibrate's single calls, the points nhood-sim's model is fitted to (calibrate.h):
 *   - nhood's own blocking alltoall under "direct": one round of k messages of `bytes` each way
 *     with ring neighbours, for every (k, bytes) of call_counts x call_sizes, and the same
 *     with self loops (the local copies of direct's round); repeated, each runs as the
 *     thread's flat round (engine/flat_round.h), as direct's calls do;
 *   - schedules of several rounds, of one message each way with the ring neighbour or of
 *     messages to the process itself only (through MPI, as the Cartesian schedules forward
 *     within a dimension of size 1 or 2), run by nhood's engine as a blocking call of such a
 *     schedule is (a task, engine/sched_task.h): a round of the first kind waits for the
 *     neighbour's message, one of the second does not, which tells the latency from the cost
 *     of a round, and a message to oneself's cost.
 * calib_call_schedule gives the evaluator the same schedules.
 */
#include "calibrate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/sched_task.h"

void calib_call_points(const calib *c, results *res) {
  res->ncalls = 0;
  for (int i = 0; i < NELEMS(call_counts); i++)
    for (int j = 0; j < NELEMS(call_sizes); j++)
      res->calls[res->ncalls++] =
          (point){"call", call_counts[i], call_sizes[j], call_counts[i] > c->size - 1, 0, 0, .self = 0};
  for (int j = 0; j < NELEMS(call_self_sizes); j++)
    res->calls[res->ncalls++] =
        (point){"call", CALL_SELF_K, call_self_sizes[j], CALL_SELF_K > c->size - 1, 0, 0, .self = CALL_SELF};
  for (int i = 0; i < NELEMS(call_rounds); i++)
    for (int j = 0; j < NELEMS(call_self_sizes); j++)
      res->calls[res->ncalls++] = (point){"rounds", 1, call_self_sizes[j], 0, 0, 0, .rounds = call_rounds[i]};
  for (int j = 0; j < NELEMS(call_self_sizes); j++)
    res->calls[res->ncalls++] =
        (point){"self", 0, call_self_sizes[j], 0, 0, 0, .rounds = CALL_SELFMSG_ROUNDS, .selfmsg = CALL_SELFMSG};
}

static int engine_point(const point *pt) { return pt->rounds > 1 || pt->selfmsg > 0; }

int calib_call_schedule(int P, int r, const point *pt, nhood_sched *s) {
  int k = pt->k, m = pt->selfmsg, n = k + m, rounds = pt->rounds > 1 ? pt->rounds : 1, b = pt->bytes;
  if (nhood_sched_init(s, "calibrate", 2 * (rounds * n + pt->self), rounds * n) != 0) return 1;
  int rc = 0;
  for (int j = 0; j < pt->self; j++) /* direct's local copies, into blocks of their own */
    rc |= nhood_sched_copy(s, (nhood_region){0, MPI_BYTE, b, NHOOD_BUF_SEND, 0},
                           (nhood_region){(MPI_Aint)(n + j) * b, MPI_BYTE, b, NHOOD_BUF_RECV, 0});
  for (int round = 0; round < rounds; round++) {
    if (round > 0) rc |= nhood_sched_fence(s);
    for (int j = 0; j < n; j++) {
      int d = j < k ? 1 + j % (P - 1) : 0; /* calib_ring_distance; 0: a message to oneself */
      rc |= nhood_sched_recv(s, (r - d + P) % P, round * n + j,
                             (nhood_region){(MPI_Aint)j * b, MPI_BYTE, b, NHOOD_BUF_RECV, 0});
    }
    for (int j = 0; j < n; j++) {
      int d = j < k ? 1 + j % (P - 1) : 0;
      rc |= nhood_sched_send(s, (r + d) % P, round * n + j, (nhood_region){0, MPI_BYTE, b, NHOOD_BUF_SEND, 0});
    }
  }
  return rc != 0 || nhood_sched_finish(s) != 0;
}

/* A topology object under "direct" with k ring neighbours each way (in from rank-d_j, out
 * to rank+d_j, as ring_round) and `self` self loops, which direct copies locally. */
static NHOOD_Topo call_topology(const calib *c, int k, int self) {
  int n = k + self, *sources = calib_xmalloc((size_t)n * sizeof *sources),
      *destinations = calib_xmalloc((size_t)n * sizeof *sources);
  for (int j = 0; j < n; j++) {
    int d = j < k ? calib_ring_distance(c, j) : 0;
    sources[j] = (c->rank - d + c->size) % c->size;
    destinations[j] = (c->rank + d) % c->size;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, NHOOD_INFO_ALGORITHM, "direct");
  NHOOD_Topo topo = NHOOD_TOPO_NULL;
  if (NHOOD_Topo_create_adjacent(n, sources, calib_unweighted(), n, destinations, calib_unweighted(), info, &topo) !=
      MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Info_free(&info);
  free(sources);
  free(destinations);
  return topo;
}

size_t calib_call_bytes(const point *pt) { return (size_t)(pt->k + pt->self + pt->selfmsg) * (size_t)pt->bytes; }

void calib_call_create(calib *c, const point *pt, calib_call *call) {
  memset(call, 0, sizeof *call);
  call->bytes = pt->bytes;
  if (!engine_point(pt)) {
    call->topo = call_topology(c, pt->k, pt->self);
    return;
  }
  nhood_sched s;
  if (calib_call_schedule(c->size, c->rank, pt, &s) != 0 ||
      nhood_sched_task_create(&s, c->comm, c->sendbuf, c->recvbuf, &call->task) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void calib_call_run(calib *c, calib_call *call) {
  int rc = call->task ? nhood_task_run(call->task, 0)
                      : NHOOD_Neighbor_alltoall(c->sendbuf, call->bytes, MPI_BYTE, c->recvbuf, call->bytes, MPI_BYTE,
                                                c->comm, call->topo);
  if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
}

void calib_call_free(calib_call *call) {
  if (call->topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&call->topo);
  nhood_task_release(call->task);
  call->task = NULL;
}
