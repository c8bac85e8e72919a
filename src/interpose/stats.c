/*
 * NHOOD_STATS=1: what the interposition library did, per communicator, collective, mode and
 * algorithm, kept on each process and printed by rank 0 at MPI_Finalize (interpose.h,
 * ip_stats_*), with each communicator's cold-path verdicts and what measured selection chose.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "interpose/interpose.h"

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

/* The next row of statistics, labelled with the communicator's topology, size and name. */
int ip_stats_slot(MPI_Comm comm) {
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

void ip_stats_why(int slot, const char *why) {
  pthread_mutex_lock(&stats_lock);
  snprintf(comm_why[slot], sizeof comm_why[slot], "%s", why);
  pthread_mutex_unlock(&stats_lock);
}

void ip_stats_why_append(int slot, const char *more) {
  pthread_mutex_lock(&stats_lock);
  size_t used = strlen(comm_why[slot]);
  snprintf(comm_why[slot] + used, sizeof comm_why[slot] - used, "%s", more);
  pthread_mutex_unlock(&stats_lock);
}

void ip_stats_probation(int slot, const char *why) {
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

void ip_stats_print(void) {
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
          printf("  %-10s %-12s %-16s %12.0f %14.1f %14.6f\n", ip_coll_names[c], modes[m], name,
                 n / users[slot][c][m][k], bytes[slot][c][m][k] / n, seconds[slot][c][m][k]);
          rows++;
        }
    if (header && slot < IP_MAX_COMMS - 1) {
      if (comm_why[slot][0])
        printf("  set-up against gain, %s\n", comm_why[slot]);
      else if (ip_cold_first_check() > 0)
        printf("  set-up against gain: not asked (fewer than %ld calls, or a persistent request first)\n",
               ip_cold_first_check());
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
