/*
 * The cold path's two collective decisions on a communicator (docs/ARCHITECTURE.md, "The cold
 * communicators"): the asking, whether nhood's set-up pays back (ip_ask, its allreduce run
 * behind the program's calls), and the probation, whether nhood's calls after the take-over
 * are slower than MPI's own before it (ip_probe). Both are made at the same call count on every
 * process; what they decide is kept in the communicator's state (ip_comm).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "interpose/interpose.h"
#include "selection/trial.h"

/* The asking where every process knows the answer (nhood_payback_idle_comm): no call gains, so
 * comm stays MPI's own and is never asked again; no topology object, no allreduce. On a
 * process where finding out takes the topology's lists, ip_ask finds the same without an
 * allreduce (nhood_payback_begin). */
ip_route_to ip_known_idle(ip_comm *c) {
  c->next = LONG_MAX;
  if (ip_stats_on()) {
    char why[160];
    snprintf(why, sizeof why,
             "after %ld calls: at most 2 processes, one message each way: no call of any collective or size gains: "
             "MPI's own",
             c->calls);
    ip_stats_why(c->slot, why);
  }
  ip_set_quick(c);
  return IP_TO_MPI;
}

/* nhood runs comm's calls from this one on, on probation: its calls after the trial are timed. */
void ip_take_over_now(ip_comm *c) {
  c->hot = 1;
  c->time_from = c->calls; /* this call on: the set-up's calls */
  c->setup_seconds = 0;
  c->setup_calls = 0;
  c->window_from = c->calls + nhood_trial_span();
  c->probe_at = c->window_from + IP_PROBE_WINDOW;
  c->timed[1] = 0;
  ip_set_quick(c);
}

void ip_probe_record(ip_comm *c, int hot, double seconds) {
  if (hot && c->calls < c->window_from) { /* the set-up's calls */
    c->setup_seconds += seconds;
    c->setup_calls++;
    return;
  }
  c->seconds[hot][c->timed[hot]++ % IP_PROBE_WINDOW] = seconds;
}

static int compare_seconds(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of a window's timed calls (the last IP_PROBE_WINDOW), 0 without any. */
static double window_median(ip_comm *c, int hot) {
  int n = c->timed[hot] < IP_PROBE_WINDOW ? c->timed[hot] : IP_PROBE_WINDOW;
  if (n == 0) return 0;
  qsort(c->seconds[hot], (size_t)n, sizeof(double), compare_seconds);
  return n % 2 ? c->seconds[hot][n / 2] : (c->seconds[hot][n / 2 - 1] + c->seconds[hot][n / 2]) / 2;
}

/* nhood's set-up on c as timed: its calls from the take-over to the trial's end, less as many
 * calls of per_call seconds (0 where none was timed). */
static double setup_seconds(const ip_comm *c, double per_call) {
  return c->setup_calls > 0 && per_call > 0 ? fmax(0, c->setup_seconds - c->setup_calls * per_call) : 0;
}

/* A communicator freed after nhood took it over but before the probation judged it: its
 * set-up as far as it was timed (the set-up's calls less as many of nhood's calls after
 * them, or of MPI's own before them where none followed), so that the next communicator of
 * its shape is not taken over on the estimate alone (lives a little longer than the
 * take-over call each paid a set-up before their probation was due). Recorded on this process
 * only: the next asking agrees on it. */
void ip_record_unjudged(MPI_Comm comm, ip_comm *c) {
  if (!c->hot || c->window_from == 0 || c->setup_calls == 0 || c->topo == NHOOD_TOPO_NULL) return;
  double per_call = window_median(c, 1);
  if (per_call == 0) per_call = window_median(c, 0);
  (void)nhood_topo_payback_measured(c->topo, comm, ip_coll_names[c->asked_coll], c->asked_block,
                                    1e6 * setup_seconds(c, per_call), NAN);
}

ip_route_to ip_probe(MPI_Comm comm, ip_comm *c, int *rc) {
  /* Each window's median call on this process (a context switch inside one call does not
   * decide); the slowest process's decides. A window without a timed call (non-blocking calls
   * only) gives no verdict: nhood stays. */
  /* The set-up: what its calls took beyond as many of nhood's calls after it. */
  double m[3] = {window_median(c, 0), window_median(c, 1), 0};
  m[2] = setup_seconds(c, m[1]);
  long from = c->window_from;
  c->window_from = c->probe_at = 0;
  *rc = PMPI_Allreduce(MPI_IN_PLACE, m, 3, MPI_DOUBLE, MPI_MAX, comm);
  if (*rc != MPI_SUCCESS) {
    *rc = ip_raise(comm, *rc, "judging nhood's calls against MPI's own");
    return IP_TO_NHOOD;
  }
  int back = m[0] > 0 && m[1] > m[0];
  if (ip_stats_on()) {
    char why[256];
    snprintf(why, sizeof why,
             "calls %ld-%ld: median %.2f us per blocking call against MPI's own %.2f us, set-up %.1f us: %s", from,
             c->calls - 1, 1e6 * m[1], 1e6 * m[0], 1e6 * m[2], back ? "back to MPI's own" : "nhood stays");
    ip_stats_probation(c->slot, why);
  }
  if (back) {
    c->hot = 0;
    c->take_over = 0;
    c->next = LONG_MAX; /* measured: nhood's set-up does not pay here */
    ip_set_quick(c);
  }
  /* The next communicator of this shape is judged by what was measured here
   * (nhood_topo_payback_measured): no gain where nhood lost, else the set-up and gain seen. */
  if (m[0] > 0 && m[1] > 0) {
    int recorded = nhood_topo_payback_measured(c->topo, comm, ip_coll_names[c->asked_coll], c->asked_block, 1e6 * m[2],
                                               1e6 * (m[0] - m[1]));
    if (recorded != MPI_SUCCESS) *rc = ip_raise(comm, recorded, "recording what nhood was measured at");
  }
  return back ? IP_TO_MPI : IP_TO_NHOOD;
}

/* The verdict of c's completed asking after c->calls calls, its sentence for NHOOD_STATS. */
static int verdict(ip_comm *c, long *next, int *take_over) {
  char why[256];
  int rc = nhood_payback_end(&c->ask, c->calls, next, take_over, ip_stats_on() ? why : NULL, sizeof why);
  if (ip_stats_on()) ip_stats_why(c->slot, why);
  return rc;
}

/* Completes c's asking in flight, if any (at a call every process makes at the same count, or
 * where comm is freed); with `report`, its verdict goes to NHOOD_STATS only. */
int ip_settle_ask(ip_comm *c, int report) {
  if (c->ask_request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  int rc = PMPI_Wait(&c->ask_request, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && report && ip_stats_on()) {
    long next = 0;
    int take_over = 0;
    rc = verdict(c, &next, &take_over);
  }
  return rc;
}

/* The asking: whether nhood's set-up pays back on comm (nhood_topo_payback). On more than two
 * processes its allreduce is posted at this call and its verdict read `ip_cold_ask_lag()` calls later,
 * at the same call on every process, so that it runs behind the program's own calls instead of
 * making every process wait for the last (blocking, it showed in the churn benchmark at 30 and
 * 100 calls a communicator). Both halves' calls run MPI's own. */
ip_route_to ip_ask(MPI_Comm comm, ip_comm *c, ip_coll coll, double block_bytes, int *rc) {
  long next = 0;
  int take_over = 0, size = 0;
  if (c->ask_request == MPI_REQUEST_NULL) {
    /* Two processes: the allreduce is one exchange, cheaper blocking than what posting it
     * costs (Open MPI's libnbc), and the exchange of every call synchronizes them anyway. */
    int blocking = PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size <= 2;
    *rc = nhood_payback_begin(c->topo, comm, ip_coll_names[coll], block_bytes, &c->ask,
                              blocking ? NULL : &c->ask_request);
    if (*rc != MPI_SUCCESS) {
      c->ask_request = MPI_REQUEST_NULL;
      *rc = ip_raise(comm, *rc, "deciding whether nhood's set-up pays back");
      return IP_TO_NHOOD;
    }
    c->asked = 1;
    c->asked_coll = (int)coll;
    c->asked_block = block_bytes;
    if (!blocking && c->ask_request != MPI_REQUEST_NULL) {
      c->take_over = 0;
      c->next = c->calls + ip_cold_ask_lag();
      ip_set_quick(c);
      return IP_TO_MPI;
    }
    *rc = verdict(c, &next, &take_over);
  } else {
    *rc = ip_settle_ask(c, 0);
    if (*rc == MPI_SUCCESS) *rc = verdict(c, &next, &take_over);
  }
  if (*rc != MPI_SUCCESS) {
    *rc = ip_raise(comm, *rc, "deciding whether nhood's set-up pays back");
    return IP_TO_NHOOD;
  }
  /* Before nhood takes over, the probation times MPI's own last calls: a window of them, so
   * the take-over may come later than the library's verdict says. Cold calls are not timed
   * otherwise: a clock read is a tenth of a small call. */
  long at = take_over ? nhood_cold_take_over_call(c->calls, next, ip_cold_first_check()) : next;
  if (ip_stats_on() && at != next) {
    char note[96];
    snprintf(note, sizeof note, " (here call %ld: MPI's own calls timed first)", at);
    ip_stats_why_append(c->slot, note);
  }
  c->next = at;
  c->take_over = take_over;
  if (take_over) {
    c->window_from = c->time_from = at - nhood_cold_probe_window(ip_cold_first_check());
    c->timed[0] = 0;
  }
  ip_set_quick(c);
  return IP_TO_MPI;
}
