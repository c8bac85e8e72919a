/*
 * What the interposition library decides around each call: whether nhood handles it
 * (NHOOD_INTERPOSE; cold communicators go to MPI's own until nhood's set-up pays back,
 * selection/cold.h), what it keeps on a communicator (comm_table.c) and where it is freed,
 * errors raised as MPI raises them, and what NHOOD_STATS prints at MPI_Finalize.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hot.h"
#include "interpose/interpose.h"
#include "selection/trial.h"

/* ---- NHOOD_INTERPOSE, cold communicators and the cached topology ------------------------ */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int initialized; /* init_once ran: the fast test every call makes */
static int enabled = 1, stats = 0;
static long first_check = NHOOD_COLD_FIRST_CHECK; /* 0: no cold path (NHOOD_COLD=off) */
static long ask_lag = 1;                          /* calls from posting an asking to its verdict */
static const char *algorithm_env;                 /* NHOOD_ALGORITHM, read once */

/* Probation: blocking calls timed per window, after the calls of the trial (its executions run
 * every candidate: nhood_trial_span). */
#define PROBE_WINDOW IP_PROBE_WINDOW
static void take_over_now(ip_comm *c);
static const char *const coll_names[IP_NCOLLS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
static void stats_probation(int slot, const char *why);
static void stats_why(int slot, const char *why); /* below, with the statistics */

_Thread_local ip_route_memo ip_memo NHOOD_FAST_TLS;
atomic_uint ip_generation = 1;

static void record_unjudged(MPI_Comm comm, ip_comm *c); /* below, with the probation */
static int settle_ask(ip_comm *c, int report);          /* below, with the asking */

/* comm's state c, out of the table, before MPI frees comm (or at MPI_Finalize). */
static void drop_state(MPI_Comm comm, ip_comm *c) {
  atomic_fetch_add(&ip_generation, 1);
  /* An asking in flight: every process frees comm at the same call, so its allreduce completes. */
  (void)settle_ask(c, 1);
  record_unjudged(comm, c);
  /* Its life forecasts the next one's of its shape (NHOOD_Topo_payback_life), unless no call
   * on it could gain: nothing to forecast. */
  if (c->asked && c->topo != NHOOD_TOPO_NULL && !(c->next == LONG_MAX && !c->hot))
    (void)NHOOD_Topo_payback_life(c->topo, comm, coll_names[c->asked_coll], c->asked_block, c->calls);
  if (c->topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&c->topo);
  if (c->direct_topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&c->direct_topo);
  free(c);
}

static int stats_slot(MPI_Comm comm); /* below, with the statistics */

static int env_is(const char *name, const char *value) {
  const char *v = getenv(name);
  return v != NULL && strcmp(v, value) == 0;
}

/* NHOOD_COLD: off (or 0) runs every call through nhood from the first; N > 0 asks first after N
 * calls; unset, on or anything else keeps the default. An explicit NHOOD_ALGORITHM other than
 * auto has no set-up to earn back: no cold path either. */
static long cold_first_check(void) {
  const char *v = getenv("NHOOD_COLD"), *algorithm = getenv("NHOOD_ALGORITHM");
  if (algorithm && *algorithm && strcmp(algorithm, "auto") != 0) return 0;
  if (v == NULL) return NHOOD_COLD_FIRST_CHECK;
  if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) return 0;
  char *end = NULL;
  long n = strtol(v, &end, 10);
  return end != v && *end == '\0' && n > 0 ? n : NHOOD_COLD_FIRST_CHECK;
}

/* MPI's own functions that free a communicator, by their PMPI names. */
typedef int comm_release_fn(MPI_Comm *comm);
static comm_release_fn *mpi_comm_free, *mpi_comm_disconnect;
int PMPI_Comm_free(MPI_Comm *comm);
int PMPI_Comm_disconnect(MPI_Comm *comm);

/* The next definition after this library's, else the first anywhere that is not this library's. */
ip_any_fn *ip_mpi_own(const char *name, ip_any_fn *ours) {
  ip_any_fn *f = NULL;
  void *found = dlsym(RTLD_NEXT, name);
  if (found == NULL) found = dlsym(RTLD_DEFAULT, name);
  if (found != NULL) memcpy(&f, &found, sizeof f);
  if (f == NULL || f == ours) {
    fprintf(stderr, "nhood: MPI's %s not found; link libnhood-mpi before the MPI library\n", name);
    abort();
  }
  return f;
}

static void init_once(void) {
  enabled = !(env_is("NHOOD_INTERPOSE", "off") || env_is("NHOOD_INTERPOSE", "0"));
  stats = env_is("NHOOD_STATS", "1");
  algorithm_env = getenv("NHOOD_ALGORITHM");
  first_check = cold_first_check();
  ask_lag = first_check > 1 ? (first_check + 1) / 2 : 1;
  if (ask_lag > IP_ASK_LAG) ask_lag = IP_ASK_LAG;
  mpi_comm_free = (comm_release_fn *)ip_mpi_own("PMPI_Comm_free", (ip_any_fn *)PMPI_Comm_free);
  mpi_comm_disconnect = (comm_release_fn *)ip_mpi_own("PMPI_Comm_disconnect", (ip_any_fn *)PMPI_Comm_disconnect);
  atomic_store(&initialized, 1);
}

NHOOD_HOT static void ensure_init(void) {
  if (!atomic_load_explicit(&initialized, memory_order_acquire)) pthread_once(&once, init_once);
}

int ip_cold_path_on(void) {
  ensure_init();
  return enabled && first_check != 0;
}

/* c->quick_until after a change of its route (interpose.h). */
static void set_quick(ip_comm *c) {
  long until = c->window_from > 0 && c->window_from < c->next ? c->window_from : c->next;
  c->quick_until = c->hot || stats || c->stripped ? 0 : until;
}

/* comm's state, created at its first neighborhood collective (cold, no topology object yet;
 * where the cold path is on, what MPI's own gets right on comm: own_right.c). */
static int new_state(MPI_Comm comm, int kind, ip_comm **out) {
  /* malloc, not calloc: glibc's calloc skips the thread's cache of small blocks (450
   * instructions against 60; a communicator called once costs about 800 of nhood's). */
  ip_comm *c = malloc(sizeof *c);
  if (c == NULL) return MPI_ERR_NO_MEM;
  *c = (ip_comm){.topo = NHOOD_TOPO_NULL,
                 .direct_topo = NHOOD_TOPO_NULL,
                 .ask_request = MPI_REQUEST_NULL,
                 .hot = first_check == 0,
                 .next = first_check,
                 .slot = stats ? stats_slot(comm) : 0};
  int rc = c->hot ? MPI_SUCCESS : ip_own_right(comm, kind, c);
  set_quick(c);
  if (rc == MPI_SUCCESS) rc = ip_table_add(comm, c);
  if (rc != MPI_SUCCESS) {
    free(c);
    return rc;
  }
  *out = c;
  return MPI_SUCCESS;
}

/* comm's topology object, derived at the first call that needs it; NHOOD_ALGORITHM as the
 * info key nhood_algorithm. */
static int derive_topo(MPI_Comm comm, ip_comm *c) {
  if (c->topo != NHOOD_TOPO_NULL) return MPI_SUCCESS;
  const char *algorithm = algorithm_env;
  MPI_Info info = MPI_INFO_NULL;
  if (algorithm && *algorithm) {
    PMPI_Info_create(&info);
    PMPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm);
  }
  int rc = NHOOD_Topo_create_from_comm(comm, info, &c->topo);
  if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
  return rc;
}

int ip_check_cold(MPI_Comm comm, ip_comm *c, nhood_coll_args a, const char *function) {
  int rc = derive_topo(comm, c);
  if (rc == MPI_SUCCESS) rc = nhood_coll_check(&a, c->topo);
  return ip_raise(comm, rc, function);
}

int ip_check_cold_c(MPI_Comm comm, ip_comm *c, nhood_coll_args_c a, const char *function) {
  nhood_lowered l;
  memset(&l, 0, sizeof l);
  int rc = derive_topo(comm, c);
  if (rc == MPI_SUCCESS) rc = nhood_coll_lower(&a, c->indegree, c->outdegree, &l);
  if (rc == MPI_SUCCESS) rc = nhood_coll_check(&l.args, c->topo);
  nhood_lowered_free(&l);
  return ip_raise(comm, rc, function);
}

int ip_direct_topo(MPI_Comm comm, ip_comm *c, NHOOD_Topo *topo) {
  if (c->direct_topo == NHOOD_TOPO_NULL) {
    MPI_Info info = MPI_INFO_NULL;
    int rc = PMPI_Info_create(&info);
    if (rc == MPI_SUCCESS) rc = PMPI_Info_set(info, NHOOD_INFO_ALGORITHM, "direct");
    if (rc == MPI_SUCCESS) rc = NHOOD_Topo_create_from_comm(comm, info, &c->direct_topo);
    if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS) return ip_raise(comm, rc, "deriving the topology object");
  }
  *topo = c->direct_topo;
  return MPI_SUCCESS;
}

/* The asking where every process knows the answer (nhood_payback_idle_comm): no call gains, so
 * comm stays MPI's own and is never asked again; no topology object, no allreduce. On a
 * process where finding out takes the topology's lists, ip_ask finds the same without an
 * allreduce (nhood_payback_begin). */
static ip_route_to known_idle(ip_comm *c) {
  c->next = LONG_MAX;
  if (stats) {
    char why[160];
    snprintf(why, sizeof why,
             "after %ld calls: at most 2 processes, one message each way: no call of any collective or size gains: "
             "MPI's own",
             c->calls);
    stats_why(c->slot, why);
  }
  set_quick(c);
  return IP_TO_MPI;
}

NHOOD_HOT ip_route_to ip_route(MPI_Comm comm, int persistent, ip_comm **out, int *rc) {
  ensure_init();
  *rc = MPI_SUCCESS;
  if (!enabled) return IP_TO_MPI;
  unsigned current = atomic_load_explicit(&ip_generation, memory_order_acquire);
  ip_comm *c = NULL;
  if (ip_memo.comm == comm && ip_memo.generation == current) {
    c = ip_memo.state;
  } else {
    int kind = MPI_UNDEFINED;
    if (comm == MPI_COMM_NULL || (c = ip_table_find(comm)) == NULL) {
      if (comm == MPI_COMM_NULL) {
        *rc = ip_raise_message(comm, MPI_ERR_COMM, "MPI_Neighbor_*", "comm is MPI_COMM_NULL");
        return IP_TO_NHOOD;
      }
      /* Not a valid communicator: MPI's own call reports it. */
      if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return IP_TO_MPI;
      if (kind == MPI_UNDEFINED) {
        *rc = ip_raise_message(comm, MPI_ERR_TOPOLOGY, "MPI_Neighbor_*",
                               "comm carries no process topology (MPI_Topo_test gives MPI_UNDEFINED)");
        return IP_TO_NHOOD;
      }
      if ((*rc = new_state(comm, kind, &c)) != MPI_SUCCESS) {
        *rc = ip_raise_message(comm, *rc, "MPI_Neighbor_*",
                               *rc == MPI_ERR_NO_MEM ? "out of memory for the communicator's state"
                                                     : "reading the communicator's topology");
        return IP_TO_NHOOD;
      }
      if (c->hot && (*rc = derive_topo(comm, c)) != MPI_SUCCESS) { /* no cold path */
        *rc = ip_raise(comm, *rc, "deriving the topology object");
        return IP_TO_NHOOD;
      }
    }
    ip_memo = (ip_route_memo){.comm = comm, .generation = current, .state = c};
  }
  *out = c;
  if (c->hot) {
    long n = ++c->calls;
    return c->probe_at != 0 && n >= c->probe_at ? IP_TO_PROBE : IP_TO_NHOOD;
  }
  /* Cold: every process counts the same calls (collectives are called in one order). */
  long n = ++c->calls;
  if (n < c->next && !persistent) return IP_TO_MPI;
  if (!persistent && !c->take_over && nhood_payback_idle_comm(comm)) return known_idle(c);
  if ((*rc = derive_topo(comm, c)) != MPI_SUCCESS) {
    *rc = ip_raise(comm, *rc, "deriving the topology object");
    return IP_TO_NHOOD;
  }
  /* A persistent request has its starts ahead: its init is where the set-up belongs. */
  if (persistent) {
    /* An asking in flight has no use now: it completes where comm is freed, or at MPI_Finalize. */
    c->hot = 1;
    c->window_from = c->probe_at = 0;
    set_quick(c);
    return IP_TO_NHOOD;
  }
  if (c->take_over) {
    take_over_now(c);
    return IP_TO_NHOOD;
  }
  return IP_TO_ASK;
}

/* nhood runs comm's calls from this one on, on probation: its calls after the trial are timed. */
static void take_over_now(ip_comm *c) {
  c->hot = 1;
  c->time_from = c->calls; /* this call on: the set-up's calls */
  c->setup_seconds = 0;
  c->setup_calls = 0;
  c->window_from = c->calls + nhood_trial_span();
  c->probe_at = c->window_from + PROBE_WINDOW;
  c->timed[1] = 0;
  set_quick(c);
}

void ip_probe_record(ip_comm *c, int hot, double seconds) {
  if (hot && c->calls < c->window_from) { /* the set-up's calls */
    c->setup_seconds += seconds;
    c->setup_calls++;
    return;
  }
  c->seconds[hot][c->timed[hot]++ % PROBE_WINDOW] = seconds;
}

static int compare_seconds(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of a window's timed calls (the last PROBE_WINDOW), 0 without any. */
static double window_median(ip_comm *c, int hot) {
  int n = c->timed[hot] < PROBE_WINDOW ? c->timed[hot] : PROBE_WINDOW;
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
 * its shape is not taken over on the estimate alone. At 16 processes of 15 neighbors each,
 * lives of 100 calls were taken over at call 73 and each paid a set-up of about 1 ms before
 * its probation was due (docs/PERFORMANCE.md). Recorded on this process only: the next
 * asking agrees on it. */
static void record_unjudged(MPI_Comm comm, ip_comm *c) {
  if (!c->hot || c->window_from == 0 || c->setup_calls == 0 || c->topo == NHOOD_TOPO_NULL) return;
  double per_call = window_median(c, 1);
  if (per_call == 0) per_call = window_median(c, 0);
  (void)NHOOD_Topo_payback_measured(c->topo, comm, coll_names[c->asked_coll], c->asked_block,
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
  if (stats) {
    char why[256];
    snprintf(why, sizeof why,
             "calls %ld-%ld: median %.2f us per blocking call against MPI's own %.2f us, set-up %.1f us: %s", from,
             c->calls - 1, 1e6 * m[1], 1e6 * m[0], 1e6 * m[2], back ? "back to MPI's own" : "nhood stays");
    stats_probation(c->slot, why);
  }
  if (back) {
    c->hot = 0;
    c->take_over = 0;
    c->next = LONG_MAX; /* measured: nhood's set-up does not pay here */
    set_quick(c);
  }
  /* The next communicator of this shape is judged by what was measured here
   * (NHOOD_Topo_payback_measured): no gain where nhood lost, else the set-up and gain seen. */
  if (m[0] > 0 && m[1] > 0) {
    int recorded = NHOOD_Topo_payback_measured(c->topo, comm, coll_names[c->asked_coll], c->asked_block, 1e6 * m[2],
                                               1e6 * (m[0] - m[1]));
    if (recorded != MPI_SUCCESS) *rc = ip_raise(comm, recorded, "recording what nhood was measured at");
  }
  return back ? IP_TO_MPI : IP_TO_NHOOD;
}

static void stats_why_append(int slot, const char *more); /* below, with the statistics */

/* The verdict of c's completed asking after c->calls calls, its sentence for NHOOD_STATS. */
static int verdict(ip_comm *c, long *next, int *take_over) {
  char why[256];
  int rc = nhood_payback_end(&c->ask, c->calls, next, take_over, stats ? why : NULL, sizeof why);
  if (stats) stats_why(c->slot, why);
  return rc;
}

/* Completes c's asking in flight, if any (at a call every process makes at the same count, or
 * where comm is freed); with `report`, its verdict goes to NHOOD_STATS only. */
static int settle_ask(ip_comm *c, int report) {
  if (c->ask_request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  int rc = PMPI_Wait(&c->ask_request, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && report && stats) {
    long next = 0;
    int take_over = 0;
    rc = verdict(c, &next, &take_over);
  }
  return rc;
}

/* The asking: whether nhood's set-up pays back on comm (NHOOD_Topo_payback). On more than two
 * processes its allreduce is posted at this call and its verdict read `ask_lag` calls later,
 * at the same call on every process, so that it runs behind the program's own calls instead of
 * making every process wait for the last: blocking, it cost the churn benchmark 3-6% more at
 * 30 and 100 calls a communicator on 4 processes (docs/PERFORMANCE.md). Both halves' calls run
 * MPI's own. */
ip_route_to ip_ask(MPI_Comm comm, ip_comm *c, ip_coll coll, double block_bytes, int *rc) {
  long next = 0;
  int take_over = 0, size = 0;
  if (c->ask_request == MPI_REQUEST_NULL) {
    /* Two processes: the allreduce is one exchange, cheaper blocking than what posting it
     * costs (Open MPI's libnbc), and the exchange of every call synchronizes them anyway. */
    int blocking = PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size <= 2;
    *rc = nhood_payback_begin(c->topo, comm, coll_names[coll], block_bytes, &c->ask, blocking ? NULL : &c->ask_request);
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
      c->next = c->calls + ask_lag;
      set_quick(c);
      return IP_TO_MPI;
    }
    *rc = verdict(c, &next, &take_over);
  } else {
    *rc = settle_ask(c, 0);
    if (*rc == MPI_SUCCESS) *rc = verdict(c, &next, &take_over);
  }
  if (*rc != MPI_SUCCESS) {
    *rc = ip_raise(comm, *rc, "deciding whether nhood's set-up pays back");
    return IP_TO_NHOOD;
  }
  /* Before nhood takes over, the probation times MPI's own last calls: a window of them, so
   * the take-over may come later than the library's verdict says. Cold calls are not timed
   * otherwise: a clock read is a tenth of a small call. */
  long at = take_over ? nhood_cold_take_over_call(c->calls, next, first_check) : next;
  if (stats && at != next) {
    char note[96];
    snprintf(note, sizeof note, " (here call %ld: MPI's own calls timed first)", at);
    stats_why_append(c->slot, note);
  }
  c->next = at;
  c->take_over = take_over;
  if (take_over) {
    c->window_from = c->time_from = at - nhood_cold_probe_window(first_check);
    c->timed[0] = 0;
  }
  set_quick(c);
  return IP_TO_MPI;
}

int ip_raise_message(MPI_Comm comm, int rc, const char *function, const char *message) {
  if (rc == MPI_SUCCESS) return rc;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  PMPI_Comm_get_errhandler(comm, &handler);
  /* MPI's fatal handler prints only the error class: say what nhood saw first. */
  if (handler == MPI_ERRORS_ARE_FATAL) fprintf(stderr, "nhood (%s): %s\n", function, message);
  /* MPI_ERRORS_RETURN does nothing but return: not called (Intel MPI 2021.19's standard-ABI
   * library aborts in MPI_Comm_call_errhandler with it). */
  int returns = handler == MPI_ERRORS_RETURN;
  if (handler != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&handler);
  if (!returns) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

NHOOD_HOT int ip_raise(MPI_Comm comm, int rc, const char *function) {
  if (rc == MPI_SUCCESS) return rc;
  char message[MPI_MAX_ERROR_STRING];
  int len = (int)sizeof message;
  if (NHOOD_Error_message(message, &len) != MPI_SUCCESS) message[0] = '\0';
  return ip_raise_message(comm, rc, function, message);
}

/* ---- NHOOD_STATS ----------------------------------------------------------------------- */

/* Per communicator (numbered in the order of its first neighborhood collective here; the
 * last row takes those beyond), collective, mode and algorithm (the registry's, then one slot
 * for an unknown name): calls, the sum of their block sizes, the time in them. */
#define IP_MAX_ALGORITHMS 31
#define IP_OTHER IP_MAX_ALGORITHMS      /* an algorithm name the registry does not know */
#define IP_COLD (IP_MAX_ALGORITHMS + 1) /* MPI's own on a cold communicator */
#define IP_MAX_COMMS 16
typedef double ip_counts[IP_MAX_COMMS][IP_NCOLLS][IP_NMODES][IP_MAX_ALGORITHMS + 2];
typedef struct {
  ip_counts calls, bytes, seconds;
} ip_stats_table;
static ip_stats_table table;
static int ncomms;
static char comm_label[IP_MAX_COMMS][96];      /* what the communicator was, as this process saw it */
static char comm_why[IP_MAX_COMMS][256];       /* the last cold verdict (every process has the same) */
static char comm_probation[IP_MAX_COMMS][256]; /* the probation's verdict */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

NHOOD_HOT int ip_stats_on(void) {
  ensure_init();
  return stats;
}

NHOOD_HOT double ip_stats_clock(void) { return stats ? PMPI_Wtime() : 0; }

/* The next row of statistics, labelled with the communicator's topology, size and name. */
static int stats_slot(MPI_Comm comm) {
  int kind = MPI_UNDEFINED, size = 0, len = 0;
  char name[MPI_MAX_OBJECT_NAME] = "";
  PMPI_Topo_test(comm, &kind);
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_get_name(comm, name, &len);
  pthread_mutex_lock(&stats_lock);
  int fresh = ncomms < IP_MAX_COMMS, slot = fresh ? ncomms++ : IP_MAX_COMMS - 1;
  if (fresh && slot < IP_MAX_COMMS - 1)
    snprintf(comm_label[slot], sizeof comm_label[slot], "%s, %d process%s%s%s%s",
             kind == MPI_CART    ? "Cartesian"
             : kind == MPI_GRAPH ? "graph"
                                 : "distributed graph",
             size, size == 1 ? "" : "es", len > 0 ? " (\"" : "", name, len > 0 ? "\")" : "");
  else
    snprintf(comm_label[slot], sizeof comm_label[slot], "and later communicators");
  pthread_mutex_unlock(&stats_lock);
  return slot;
}

static int algorithm_slot(const char *name) {
  int count = 0;
  const char *known = NULL;
  NHOOD_Algorithm_count(&count);
  if (count > IP_MAX_ALGORITHMS) count = IP_MAX_ALGORITHMS;
  for (int k = 0; name && k < count; k++)
    if (NHOOD_Algorithm_get(k, &known, NULL) == MPI_SUCCESS && strncmp(name, known, strlen(known)) == 0 &&
        (name[strlen(known)] == '\0' || name[strlen(known)] == ' '))
      return k; /* "combine (size pass)" counts as combine */
  return IP_OTHER;
}

void ip_stats_record(int slot, ip_coll coll, ip_mode mode, const char *algorithm, double block_bytes, double seconds) {
  int k = algorithm ? algorithm_slot(algorithm) : IP_COLD;
  pthread_mutex_lock(&stats_lock);
  table.calls[slot][coll][mode][k] += 1;
  table.bytes[slot][coll][mode][k] += block_bytes;
  table.seconds[slot][coll][mode][k] += seconds;
  pthread_mutex_unlock(&stats_lock);
}

static void stats_why(int slot, const char *why) {
  pthread_mutex_lock(&stats_lock);
  snprintf(comm_why[slot], sizeof comm_why[slot], "%s", why);
  pthread_mutex_unlock(&stats_lock);
}

static void stats_why_append(int slot, const char *more) {
  pthread_mutex_lock(&stats_lock);
  size_t used = strlen(comm_why[slot]);
  snprintf(comm_why[slot] + used, sizeof comm_why[slot] - used, "%s", more);
  pthread_mutex_unlock(&stats_lock);
}

static void stats_probation(int slot, const char *why) {
  pthread_mutex_lock(&stats_lock);
  snprintf(comm_probation[slot], sizeof comm_probation[slot], "%s", why);
  pthread_mutex_unlock(&stats_lock);
}

/* What measured selection decided, as this process saw it (every process agrees). */
#define IP_MAX_SELECTIONS 16
static struct { char where[64], text[256]; } selections[IP_MAX_SELECTIONS];
static int nselections;

void ip_stats_selection(const char *where, const char *text) {
  if (strncmp(text, "measured:", 9) != 0) return;
  pthread_mutex_lock(&stats_lock);
  int k = 0;
  while (k < nselections && (strcmp(selections[k].where, where) != 0 || strcmp(selections[k].text, text) != 0)) k++;
  if (k == nselections && nselections < IP_MAX_SELECTIONS) {
    snprintf(selections[k].where, sizeof selections[k].where, "%s", where);
    snprintf(selections[k].text, sizeof selections[k].text, "%s", text);
    nselections++;
  }
  pthread_mutex_unlock(&stats_lock);
}

static void print_stats(void) {
  static const char *const colls[IP_NCOLLS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
  static const char *const modes[IP_NMODES] = {"blocking", "non-blocking", "persistent"};
  int rank = 0, size = 1, initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Calls and bytes: summed over processes; time: the slowest process's; and how many
   * processes made each row's calls (users), for calls per process. */
  static ip_counts calls, bytes, seconds, used, users;
  enum { N = sizeof(ip_counts) / sizeof(double) };
  for (int k = 0; k < N; k++) (&used[0][0][0][0])[k] = (&table.calls[0][0][0][0])[k] > 0;
  PMPI_Reduce(table.calls, calls, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(table.bytes, bytes, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(table.seconds, seconds, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(used, users, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  int count = 0;
  NHOOD_Algorithm_count(&count);
  printf("nhood: neighborhood collectives on %d processes (NHOOD_STATS=1)\n", size);
  int rows = 0;
  for (int slot = 0; slot < IP_MAX_COMMS; slot++) {
    int header = 0;
    for (int c = 0; c < IP_NCOLLS; c++)
      for (int m = 0; m < IP_NMODES; m++)
        for (int k = 0; k <= IP_COLD; k++) {
          double n = calls[slot][c][m][k];
          if (n == 0) continue;
          if (!header++)
            printf("  communicator %d: %s\n  %-10s %-12s %-16s %12s %14s %14s\n", slot + 1,
                   comm_label[slot][0] ? comm_label[slot] : "(not used by rank 0)", "collective", "mode", "algorithm",
                   "calls/proc", "bytes/block", "seconds (max)");
          const char *name = k == IP_COLD ? "cold: MPI's own" : "other";
          if (k < count) NHOOD_Algorithm_get(k, &name, NULL);
          printf("  %-10s %-12s %-16s %12.0f %14.1f %14.6f\n", colls[c], modes[m], name, n / users[slot][c][m][k],
                 bytes[slot][c][m][k] / n, seconds[slot][c][m][k]);
          rows++;
        }
    if (header && slot < IP_MAX_COMMS - 1) {
      if (comm_why[slot][0])
        printf("  set-up against gain, %s\n", comm_why[slot]);
      else if (first_check > 0)
        printf("  set-up against gain: not asked (fewer than %ld calls, or a persistent request first)\n", first_check);
      if (comm_probation[slot][0]) printf("  on probation, %s\n", comm_probation[slot]);
    }
  }
  if (rows == 0) printf("  (none)\n");
  for (int k = 0; k < nselections; k++) printf("  auto, %s: %s\n", selections[k].where, selections[k].text);
  printf(
      "  communicators numbered in the order of their first neighborhood collective on each process;\n"
      "  time: blocking calls whole; non-blocking and persistent, the call that starts them;\n"
      "  cold: calls left to MPI's own until nhood's set-up pays back (NHOOD_COLD)\n");
  fflush(stdout);
}

/* Freeing a communicator, by any of the four names: its state goes first (its asking in
 * flight completes: every process frees it at the same call), then MPI's own frees it. With a
 * state kept in an attribute instead, MPICH would keep the communicator, nhood's state and the
 * asking's request until MPI_Finalize (it deletes a freed communicator once no request holds
 * it). A free that MPI then refuses leaves the communicator without its state: its next call
 * starts a new count, on this process alone; MPI refuses only an invalid handle, which has
 * none. */
static int release(MPI_Comm *comm, comm_release_fn *mpi_own) {
  if (comm != NULL && *comm != MPI_COMM_NULL && atomic_load_explicit(&ip_table_size, memory_order_acquire) > 0) {
    ip_comm *c = ip_table_remove(*comm);
    if (c != NULL) drop_state(*comm, c);
  }
  return mpi_own(comm);
}

int MPI_Comm_free(MPI_Comm *comm) {
  ensure_init();
  return release(comm, mpi_comm_free);
}
int PMPI_Comm_free(MPI_Comm *comm) __attribute__((alias("MPI_Comm_free")));

int MPI_Comm_disconnect(MPI_Comm *comm) {
  ensure_init();
  return release(comm, mpi_comm_disconnect);
}
int PMPI_Comm_disconnect(MPI_Comm *comm) __attribute__((alias("MPI_Comm_disconnect")));

int MPI_Finalize(void) {
  /* States of communicators the program never freed: their askings in flight complete (every
   * process posted them; MPI_Finalize must find no request pending), and their memory goes. */
  MPI_Comm comm = MPI_COMM_NULL;
  for (ip_comm *c; (c = ip_table_remove_any(&comm)) != NULL;) drop_state(comm, c);
  if (ip_stats_on()) print_stats();
  ip_own_right_finalize();
  ip_stripped_finalize();
  return PMPI_Finalize();
}
