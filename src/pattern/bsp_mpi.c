/*
 * The MPI driver of bulk-synchronous programs. Each superstep is a sparse exchange by the
 * "non-blocking consensus" method (Hoefler, Siebert, Lumsdaine, PPoPP 2010): synchronous
 * sends, probe-and-receive until all of one's sends were matched, then a non-blocking barrier
 * whose completion proves every message of the superstep was received. Then one small
 * allreduce carries the votes and whether anything is still going on. A superstep costs
 * O(messages + log P) per process, never O(P).
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mpi_util.h"
#include "pattern/bsp_drivers.h"

/* A received message and its arrival number: sorting by (source, arrival) keeps each
 * source's messages in sending order (MPI does not overtake between a pair). */
typedef struct {
  nhood_bsp_message m;
  int arrival;
} arrived;

typedef struct {
  arrived *arrivals;
  nhood_bsp_message *messages; /* arrivals sorted, as the inbox sees them */
  int nmessages, capacity;
} received;

static int receive_one(MPI_Comm comm, int tag, MPI_Status *status, received *in) {
  int rc = MPI_SUCCESS, count = 0;
  int *data = NULL;
  NHOOD_MPI_CALL(MPI_Get_count(status, MPI_INT, &count));
  data = malloc(sizeof(int) * (size_t)(count ? count : 1));
  if (!data) return nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory for a message");
  NHOOD_MPI_CALL(MPI_Recv(data, count, MPI_INT, status->MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE));
  if (in->nmessages == in->capacity) {
    int capacity = in->capacity ? 2 * in->capacity : 16;
    arrived *bigger = realloc(in->arrivals, sizeof *bigger * (size_t)capacity);
    nhood_bsp_message *sorted = bigger ? realloc(in->messages, sizeof *sorted * (size_t)capacity) : NULL;
    if (bigger) in->arrivals = bigger;
    if (!bigger || !sorted) {
      rc = nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory for messages");
      goto cleanup;
    }
    in->messages = sorted;
    in->capacity = capacity;
  }
  in->arrivals[in->nmessages] = (arrived){{status->MPI_SOURCE, count, data}, in->nmessages};
  in->nmessages++;
  return MPI_SUCCESS;
cleanup:
  free(data);
  return rc;
}

static int by_source_then_arrival(const void *a, const void *b) {
  const arrived *x = a, *y = b;
  if (x->m.source != y->m.source) return x->m.source < y->m.source ? -1 : 1;
  return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

static void free_received(received *in) {
  for (int k = 0; k < in->nmessages; k++) free((void *)in->arrivals[k].m.data);
  in->nmessages = 0;
}

/* One sparse exchange: sends everything in out, receives everything sent to this process. */
static int exchange(MPI_Comm comm, int tag, const nhood_bsp_outbox *out, received *in) {
  int rc = MPI_SUCCESS, nsent = 0, sends_done = 0, barrier_started = 0, barrier_done = 0;
  MPI_Request *sends = malloc(sizeof(MPI_Request) * (size_t)(out->nmessages ? out->nmessages : 1));
  MPI_Request barrier = MPI_REQUEST_NULL;
  if (!sends) return nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory for requests");
  for (size_t w = 0; w < out->nwords; w += 2 + (size_t)out->words[w + 1])
    NHOOD_MPI_CALL(
        MPI_Issend(&out->words[w + 2], out->words[w + 1], MPI_INT, out->words[w], tag, comm, &sends[nsent++]));
  while (!barrier_done) {
    int flag = 0;
    MPI_Status status;
    NHOOD_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &status));
    if (flag) {
      NHOOD_TRY(receive_one(comm, tag, &status, in));
      continue;
    }
    if (!barrier_started) {
      NHOOD_MPI_CALL(nhood_testall(nsent, sends, &sends_done));
      if (sends_done) {
        NHOOD_MPI_CALL(MPI_Ibarrier(comm, &barrier));
        barrier_started = 1;
      }
    } else {
      NHOOD_MPI_CALL(MPI_Test(&barrier, &barrier_done, MPI_STATUS_IGNORE));
    }
  }
  /* qsort's array may not be NULL, even with no elements (UBSan). */
  if (in->nmessages > 0) qsort(in->arrivals, (size_t)in->nmessages, sizeof *in->arrivals, by_source_then_arrival);
  for (int k = 0; k < in->nmessages; k++) in->messages[k] = in->arrivals[k].m;
cleanup:
  free(sends);
  return rc;
}

int nhood_bsp_run_mpi(MPI_Comm comm, int tag, void *state, nhood_bsp_step_fn step, int max_supersteps,
                      nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, any_vote = 0;
  long long totals[2] = {0, 0}; /* messages and bytes this process sent */
  double start = MPI_Wtime();
  received in = {NULL, NULL, 0, 0};
  nhood_bsp_outbox out;
  memset(&out, 0, sizeof out);
  for (int superstep = 0;; superstep++) {
    if (superstep >= max_supersteps) {
      rc = nhood_error(MPI_ERR_OTHER, "pattern program did not end within %d supersteps", max_supersteps);
      goto cleanup;
    }
    out.nwords = 0;
    out.nmessages = 0;
    out.vote = out.done = 0;
    nhood_bsp_inbox inbox = {superstep, any_vote, in.messages, in.nmessages};
    int step_rc = step(state, &inbox, &out);
    free_received(&in);
    /* Every process takes part in the reductions, so a failure on one stops all. */
    int flags[3] = {step_rc, out.vote, !out.done || out.nmessages > 0}, any[3];
    NHOOD_MPI_CALL(MPI_Allreduce(flags, any, 3, MPI_INT, MPI_MAX, comm));
    if (any[0] != MPI_SUCCESS) { /* the others report the (largest) error class of the failed ones */
      rc = step_rc != MPI_SUCCESS ? step_rc
                                  : nhood_error(any[0], "pattern program failed on another process (see its error)");
      goto cleanup;
    }
    totals[0] += out.nmessages;
    totals[1] += (long long)(out.nwords - 2 * (size_t)out.nmessages) * (long long)sizeof(int);
    NHOOD_TRY(exchange(comm, tag, &out, &in));
    any_vote = any[1];
    if (stats) stats->supersteps = superstep + 1;
    if (!any[2]) break;
  }
  if (stats) {
    long long max[2];
    NHOOD_MPI_CALL(MPI_Allreduce(totals, max, 2, MPI_LONG_LONG, MPI_MAX, comm));
    stats->msgs_max = max[0];
    stats->bytes_max = max[1];
    stats->wall_s = MPI_Wtime() - start;
  }
cleanup:
  free_received(&in);
  free(in.arrivals);
  free(in.messages);
  free(out.words);
  return rc;
}
