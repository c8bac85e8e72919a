/*
 * What the interposition library decides around each call: whether nhood handles it
 * (NHOOD_INTERPOSE), the topology object of a communicator (cached in an attribute, so that
 * MPI_Comm_free frees it and MPI_Comm_dup derives its own), errors raised as MPI raises them,
 * and what NHOOD_STATS prints at MPI_Finalize.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hot.h"
#include "interpose/interpose.h"

/* ---- NHOOD_INTERPOSE and the cached topology ------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int initialized; /* init_once ran: the fast test every call makes */
static int enabled = 1, stats = 0;
static int topo_keyval = MPI_KEYVAL_INVALID;

/*
 * The communicator a thread last called a collective on, with what its attribute holds, so
 * that a repeated call skips MPI's attribute lookup (several cache lines of MPI's hash tables,
 * cold after each context switch when processes share cores; common/hot.h). Freeing any
 * communicator that has the attribute advances `generation`, which voids every thread's
 * memo: a freed communicator's handle may come back for another one.
 */
typedef struct {
  MPI_Comm comm;
  unsigned generation; /* 0: empty (generation starts at 1) */
  NHOOD_Topo topo;
  int slot;
} route_memo;
static _Thread_local route_memo memo NHOOD_FAST_TLS;
static atomic_uint generation = 1;

/* What a communicator's attribute holds: its topology object and its row of statistics. */
typedef struct {
  NHOOD_Topo topo;
  int slot;
} cached_topo;

static int delete_topo(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  cached_topo *cached = value;
  atomic_fetch_add(&generation, 1);
  NHOOD_Topo_free(&cached->topo);
  free(cached);
  return MPI_SUCCESS;
}

static int stats_slot(MPI_Comm comm); /* below, with the statistics */

static int env_is(const char *name, const char *value) {
  const char *v = getenv(name);
  return v != NULL && strcmp(v, value) == 0;
}

static void init_once(void) {
  enabled = !(env_is("NHOOD_INTERPOSE", "off") || env_is("NHOOD_INTERPOSE", "0"));
  stats = env_is("NHOOD_STATS", "1");
  /* A duplicate of the communicator derives its own topology object at its first call
   * (MPI_COMM_NULL_COPY_FN): creating one is local and cheap. */
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_topo, &topo_keyval, NULL) != MPI_SUCCESS) enabled = 0;
  atomic_store(&initialized, 1);
}

NHOOD_HOT static void ensure_init(void) {
  if (!atomic_load_explicit(&initialized, memory_order_acquire)) pthread_once(&once, init_once);
}

/* NHOOD_ALGORITHM as the info key nhood_algorithm, for every topology derived here. */
static int derive_topo(MPI_Comm comm, cached_topo **out) {
  const char *algorithm = getenv("NHOOD_ALGORITHM");
  MPI_Info info = MPI_INFO_NULL;
  cached_topo *cached = calloc(1, sizeof *cached);
  if (cached == NULL) return MPI_ERR_NO_MEM;
  if (algorithm && *algorithm) {
    PMPI_Info_create(&info);
    PMPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithm);
  }
  int rc = NHOOD_Topo_create_from_comm(comm, info, &cached->topo);
  if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
  if (rc == MPI_SUCCESS) {
    cached->slot = stats ? stats_slot(comm) : 0;
    rc = PMPI_Comm_set_attr(comm, topo_keyval, cached);
    if (rc != MPI_SUCCESS) NHOOD_Topo_free(&cached->topo);
  }
  if (rc != MPI_SUCCESS) {
    free(cached);
    return rc;
  }
  *out = cached;
  return rc;
}

/* Remembers comm's topology for the next call of this thread. */
static void remember(MPI_Comm comm, unsigned current, const cached_topo *cached) {
  memo = (route_memo){.comm = comm, .generation = current, .topo = cached->topo, .slot = cached->slot};
}

NHOOD_HOT int ip_route(MPI_Comm comm, NHOOD_Topo *topo, int *slot, int *rc) {
  ensure_init();
  *rc = MPI_SUCCESS;
  if (!enabled) return 0;
  unsigned current = atomic_load_explicit(&generation, memory_order_acquire);
  if (memo.comm == comm && memo.generation == current) {
    *topo = memo.topo;
    *slot = memo.slot;
    return 1;
  }
  int found = 0, kind = MPI_UNDEFINED;
  void *value = NULL;
  if (comm != MPI_COMM_NULL && PMPI_Comm_get_attr(comm, topo_keyval, &value, &found) == MPI_SUCCESS && found) {
    remember(comm, current, value);
    *topo = ((cached_topo *)value)->topo;
    *slot = ((cached_topo *)value)->slot;
    return 1;
  }
  /* No topology (or not a valid communicator): MPI's own call reports it. */
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind == MPI_UNDEFINED) return 0;
  cached_topo *cached = NULL;
  *rc = derive_topo(comm, &cached);
  if (*rc == MPI_SUCCESS) {
    remember(comm, current, cached);
    *topo = cached->topo, *slot = cached->slot;
  } else
    *rc = ip_raise(comm, *rc, "deriving the topology object");
  return 1;
}

int ip_raise_message(MPI_Comm comm, int rc, const char *function, const char *message) {
  if (rc == MPI_SUCCESS) return rc;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  PMPI_Comm_get_errhandler(comm, &handler);
  /* MPI's fatal handler prints only the error class: say what nhood saw first. */
  if (handler == MPI_ERRORS_ARE_FATAL) fprintf(stderr, "nhood (%s): %s\n", function, message);
  if (handler != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&handler);
  PMPI_Comm_call_errhandler(comm, rc);
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
#define IP_MAX_COMMS 16
typedef double ip_counts[IP_MAX_COMMS][IP_NCOLLS][IP_NMODES][IP_MAX_ALGORITHMS + 1];
typedef struct {
  ip_counts calls, bytes, seconds;
} ip_stats_table;
static ip_stats_table table;
static int ncomms;
static char comm_label[IP_MAX_COMMS][96]; /* what the communicator was, as this process saw it */
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
  return IP_MAX_ALGORITHMS;
}

void ip_stats_record(int slot, ip_coll coll, ip_mode mode, const char *algorithm, double block_bytes, double seconds) {
  int k = algorithm_slot(algorithm);
  pthread_mutex_lock(&stats_lock);
  table.calls[slot][coll][mode][k] += 1;
  table.bytes[slot][coll][mode][k] += block_bytes;
  table.seconds[slot][coll][mode][k] += seconds;
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
        for (int k = 0; k <= IP_MAX_ALGORITHMS; k++) {
          double n = calls[slot][c][m][k];
          if (n == 0) continue;
          if (!header++)
            printf("  communicator %d: %s\n  %-10s %-12s %-16s %12s %14s %14s\n", slot + 1,
                   comm_label[slot][0] ? comm_label[slot] : "(not used by rank 0)", "collective", "mode", "algorithm",
                   "calls/proc", "bytes/block", "seconds (max)");
          const char *name = "other";
          if (k < count) NHOOD_Algorithm_get(k, &name, NULL);
          printf("  %-10s %-12s %-16s %12.0f %14.1f %14.6f\n", colls[c], modes[m], name, n / users[slot][c][m][k],
                 bytes[slot][c][m][k] / n, seconds[slot][c][m][k]);
          rows++;
        }
  }
  if (rows == 0) printf("  (none)\n");
  for (int k = 0; k < nselections; k++) printf("  auto, %s: %s\n", selections[k].where, selections[k].text);
  printf(
      "  communicators numbered in the order of their first neighborhood collective on each process;\n"
      "  time: blocking calls whole; non-blocking and persistent, the call that starts them\n");
  fflush(stdout);
}

int MPI_Finalize(void) {
  if (ip_stats_on()) print_stats();
  /* MPI keeps a keyval to the end of the process unless it is freed (LeakSanitizer); one still
   * attached to a communicator the program never freed is only marked. */
  if (topo_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&topo_keyval);
  return PMPI_Finalize();
}
