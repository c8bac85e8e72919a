/*
 * Where each call goes: whether nhood handles it (NHOOD_INTERPOSE; a cold communicator's calls
 * go to MPI's own until nhood's set-up pays back, selection/cold.h), the state it keeps on a
 * communicator (comm_table.c) from the first call to the communicator's freeing, and
 * MPI_Finalize. The asking and the probation are in probation.c, NHOOD_STATS in stats.c, errors
 * in errors.c.
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

#define IP_COLL_NAME(name, NAME, SHAPE) #name,
const char *const ip_coll_names[IP_NCOLLS] = {IP_NEIGHBOR_COLLECTIVES(IP_COLL_NAME)};

_Thread_local ip_route_memo ip_memo NHOOD_FAST_TLS;
atomic_uint ip_generation = 1;

/* comm's state c, out of the table, before MPI frees comm (or at MPI_Finalize). */
static void drop_state(MPI_Comm comm, ip_comm *c) {
  atomic_fetch_add(&ip_generation, 1);
  /* An asking in flight: every process frees comm at the same call, so its allreduce completes. */
  (void)ip_settle_ask(c, 1);
  ip_record_unjudged(comm, c);
  /* Its life forecasts the next one's of its shape (nhood_topo_payback_life), unless no call
   * on it could gain: nothing to forecast. */
  if (c->asked && c->topo != NHOOD_TOPO_NULL && !(c->next == LONG_MAX && !c->hot))
    (void)nhood_topo_payback_life(c->topo, comm, ip_coll_names[c->asked_coll], c->asked_block, c->calls);
  if (c->topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&c->topo);
  if (c->direct_topo != NHOOD_TOPO_NULL) NHOOD_Topo_free(&c->direct_topo);
  free(c);
}

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

long ip_cold_first_check(void) { return first_check; }
long ip_cold_ask_lag(void) { return ask_lag; }

NHOOD_HOT int ip_stats_on(void) {
  ensure_init();
  return stats;
}

NHOOD_HOT double ip_stats_clock(void) { return stats ? PMPI_Wtime() : 0; }

void ip_set_quick(ip_comm *c) {
  long until = c->window_from > 0 && c->window_from < c->next ? c->window_from : c->next;
  c->quick_until = c->hot || stats || c->stripped ? 0 : until;
}

/* comm's state, created at its first neighborhood collective (cold, no topology object yet;
 * where the cold path is on, what MPI's own gets right on comm: own_right.c). */
static int new_state(MPI_Comm comm, int kind, ip_comm **out) {
  /* malloc, not calloc: glibc's calloc skips the thread's cache of small blocks, several times
   * the cost, and a communicator called once costs little else of nhood's. */
  ip_comm *c = malloc(sizeof *c);
  if (c == NULL) return MPI_ERR_NO_MEM;
  *c = (ip_comm){.topo = NHOOD_TOPO_NULL,
                 .direct_topo = NHOOD_TOPO_NULL,
                 .ask_request = MPI_REQUEST_NULL,
                 .hot = first_check == 0,
                 .next = first_check,
                 .slot = stats ? ip_stats_slot(comm) : 0};
  int rc = c->hot ? MPI_SUCCESS : ip_own_right(comm, kind, c);
  ip_set_quick(c);
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

/* ip_route's every other case: the first call of a thread or communicator, a cold one, none. */
static NHOOD_NOINLINE ip_route_to route(MPI_Comm comm, int persistent, ip_comm **out, int *rc) {
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
  if (!persistent && !c->take_over && nhood_payback_idle_comm(comm)) return ip_known_idle(c);
  if ((*rc = derive_topo(comm, c)) != MPI_SUCCESS) {
    *rc = ip_raise(comm, *rc, "deriving the topology object");
    return IP_TO_NHOOD;
  }
  /* A persistent request has its starts ahead: its init is where the set-up belongs. */
  if (persistent) {
    /* An asking in flight has no use now: it completes where comm is freed, or at MPI_Finalize. */
    c->hot = 1;
    c->window_from = c->probe_at = 0;
    ip_set_quick(c);
    return IP_TO_NHOOD;
  }
  if (c->take_over) {
    ip_take_over_now(c);
    return IP_TO_NHOOD;
  }
  return IP_TO_ASK;
}

/* A repeated call on a communicator nhood runs, this thread's last: no call to make but a tail
 * call elsewhere, so that this path saves no registers. */
NHOOD_HOT ip_route_to ip_route(MPI_Comm comm, int persistent, ip_comm **out, int *rc) {
  if (atomic_load_explicit(&initialized, memory_order_acquire) && enabled && ip_memo.comm == comm &&
      ip_memo.generation == atomic_load_explicit(&ip_generation, memory_order_acquire) && ip_memo.state->hot) {
    ip_comm *c = ip_memo.state;
    *out = c;
    *rc = MPI_SUCCESS;
    long n = ++c->calls;
    return c->probe_at != 0 && n >= c->probe_at ? IP_TO_PROBE : IP_TO_NHOOD;
  }
  return route(comm, persistent, out, rc);
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

/* nhood's own frees inside this library (pmpi_calls.h): MPI's, never back through release. */
int ip_mpi_comm_free(MPI_Comm *comm) {
  ensure_init();
  return mpi_comm_free(comm);
}
int ip_mpi_comm_disconnect(MPI_Comm *comm) {
  ensure_init();
  return mpi_comm_disconnect(comm);
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
  if (ip_stats_on()) ip_stats_print();
  ip_own_right_finalize();
  ip_stripped_finalize();
  return PMPI_Finalize();
}
