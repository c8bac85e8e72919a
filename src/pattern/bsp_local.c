/* The in-process driver: all ranks of a bulk-synchronous program in one process. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/errors.h"
#include "pattern/bsp_drivers.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Inboxes of all ranks for one superstep, pointing into the previous outboxes. */
typedef struct {
  nhood_bsp_message *messages; /* all of them, grouped by destination */
  size_t *first;               /* rank r's are messages[first[r] .. first[r+1]) */
} inboxes;

/* Groups the outboxes' messages by destination; walking sources in rank order keeps each
 * inbox sorted by source and, per source, in sending order. */
static int deliver(int nranks, const nhood_bsp_outbox *outs, inboxes *in, int *recv_max) {
  size_t total = 0;
  memset(in->first, 0, sizeof(size_t) * ((size_t)nranks + 1));
  for (int r = 0; r < nranks; r++) {
    for (size_t w = 0; w < outs[r].nwords; w += 2 + (size_t)outs[r].words[w + 1]) {
      int dest = outs[r].words[w];
      if (dest < 0 || dest >= nranks)
        return nhood_error(MPI_ERR_RANK, "pattern program: rank %d sent to rank %d of %d", r, dest, nranks);
      in->first[dest + 1]++;
    }
    total += (size_t)outs[r].nmessages;
  }
  *recv_max = 0;
  for (int r = 0; r < nranks; r++) {
    if ((int)in->first[r + 1] > *recv_max) *recv_max = (int)in->first[r + 1];
    in->first[r + 1] += in->first[r];
  }
  free(in->messages);
  in->messages = malloc(sizeof(nhood_bsp_message) * (total ? total : 1));
  size_t *fill = malloc(sizeof(size_t) * (size_t)nranks);
  if (!in->messages || !fill) {
    free(fill);
    return nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory delivering %zu messages", total);
  }
  memcpy(fill, in->first, sizeof(size_t) * (size_t)nranks);
  for (int r = 0; r < nranks; r++)
    for (size_t w = 0; w < outs[r].nwords; w += 2 + (size_t)outs[r].words[w + 1]) {
      int dest = outs[r].words[w];
      in->messages[fill[dest]++] = (nhood_bsp_message){r, outs[r].words[w + 1], &outs[r].words[w + 2]};
    }
  free(fill);
  return MPI_SUCCESS;
}

static int record_step(nhood_bsp_stats *s, int msgs, int recv, long long bytes, double compute) {
  int n = s->nsteps_recorded + 1;
  int *m = realloc(s->step_msgs, sizeof(int) * (size_t)n);
  if (m) s->step_msgs = m;
  int *rm = realloc(s->step_recv_msgs, sizeof(int) * (size_t)n);
  if (rm) s->step_recv_msgs = rm;
  long long *b = realloc(s->step_bytes, sizeof(long long) * (size_t)n);
  if (b) s->step_bytes = b;
  double *c = realloc(s->step_compute_s, sizeof(double) * (size_t)n);
  if (c) s->step_compute_s = c;
  if (!m || !rm || !b || !c) return nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory for statistics");
  s->step_msgs[s->nsteps_recorded] = msgs;
  s->step_recv_msgs[s->nsteps_recorded] = recv;
  s->step_bytes[s->nsteps_recorded] = bytes;
  s->step_compute_s[s->nsteps_recorded] = compute;
  s->nsteps_recorded = n;
  s->msgs_max += msgs;
  s->recv_msgs_max += recv;
  s->bytes_max += bytes;
  s->compute_max_s += compute;
  return MPI_SUCCESS;
}

int nhood_bsp_run_local(int nranks, void *const states[], nhood_bsp_step_fn step, int max_supersteps,
                        nhood_bsp_stats *stats) {
  int rc = MPI_SUCCESS, any_vote = 0, recv_max = 0;
  double start = now();
  nhood_bsp_stats local_stats;
  memset(&local_stats, 0, sizeof local_stats);
  nhood_bsp_stats *st = stats ? stats : &local_stats;
  memset(st, 0, sizeof *st);
  /* Outboxes of the previous superstep feed this one's inboxes: two generations. */
  nhood_bsp_outbox *previous = calloc((size_t)nranks, sizeof *previous);
  nhood_bsp_outbox *current = calloc((size_t)nranks, sizeof *current);
  inboxes in = {NULL, calloc((size_t)nranks + 1, sizeof(size_t))};
  if (!previous || !current || !in.first) {
    rc = nhood_error(MPI_ERR_NO_MEM, "pattern program: out of memory for %d ranks", nranks);
    goto cleanup;
  }
  for (int superstep = 0;; superstep++) {
    if (superstep >= max_supersteps) {
      rc = nhood_error(MPI_ERR_OTHER, "pattern program did not end within %d supersteps", max_supersteps);
      goto cleanup;
    }
    NHOOD_TRY(deliver(nranks, previous, &in, &recv_max));
    int all_done = 1, vote = 0, msgs_max = 0;
    long long bytes_max = 0;
    double compute_max = 0;
    for (int r = 0; r < nranks; r++) {
      nhood_bsp_outbox *out = &current[r];
      out->nwords = 0;
      out->nmessages = 0;
      out->vote = out->done = 0;
      nhood_bsp_inbox inbox = {superstep, any_vote, in.messages + in.first[r], (int)(in.first[r + 1] - in.first[r])};
      double t0 = now();
      NHOOD_TRY(step(states[r], &inbox, out));
      double dt = now() - t0;
      if (dt > compute_max) compute_max = dt;
      all_done &= out->done;
      vote |= out->vote;
      if (out->nmessages > msgs_max) msgs_max = out->nmessages;
      long long bytes = (long long)(out->nwords - 2 * (size_t)out->nmessages) * (long long)sizeof(int);
      if (bytes > bytes_max) bytes_max = bytes;
    }
    NHOOD_TRY(record_step(st, msgs_max, recv_max, bytes_max, compute_max));
    st->supersteps = superstep + 1;
    any_vote = vote;
    nhood_bsp_outbox *swap = previous; /* this superstep's messages become the next inboxes */
    previous = current;
    current = swap;
    if (all_done && msgs_max == 0) break;
  }
cleanup:
  for (int r = 0; previous && r < nranks; r++) free(previous[r].words);
  for (int r = 0; current && r < nranks; r++) free(current[r].words);
  free(previous);
  free(current);
  free(in.messages);
  free(in.first);
  st->wall_s = now() - start;
  if (!stats) nhood_bsp_stats_free(&local_stats);
  return rc;
}
