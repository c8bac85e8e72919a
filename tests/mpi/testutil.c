#define _GNU_SOURCE /* alarm, sigaction, write, fork, execvp; prctl's PR_SET_PTRACER */

#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "nhood.h"

void test_fatal(const char *file, int line, const char *what, int rc) {
  char mpimsg[MPI_MAX_ERROR_STRING] = "";
  char nhoodmsg[NHOOD_MAX_ERROR_STRING] = "";
  int len = 0, rank = -1;
  MPI_Error_string(rc, mpimsg, &len);
  NHOOD_Error_message(nhoodmsg, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "rank %d: FATAL %s:%d: %s returned %d (%s); nhood says: \"%s\"\n", rank, file, line, what, rc, mpimsg,
          nhoodmsg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2); /* MPI_Abort does not return; this keeps _Noreturn honest */
}

void *test_malloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p == NULL) test_fatal(__FILE__, __LINE__, "malloc", MPI_ERR_NO_MEM);
  return p;
}

void *test_calloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (p == NULL) test_fatal(__FILE__, __LINE__, "calloc", MPI_ERR_NO_MEM);
  return p;
}

const int *test_unweighted(void) { return MPI_UNWEIGHTED; }

/* Pre-formatted so that the signal handler only calls async-signal-safe write(). */
static char watchdog_message[512];
static size_t watchdog_message_length;
static unsigned watchdog_seconds;
static char watchdog_pid[24];
static int watchdog_stacks; /* print every thread's stack at a timeout (NHOOD_TEST_NO_STACKS unset) */

/* Where every thread is when a case hangs: gdb, where installed, attaches to this process and
 * prints each thread's stack (at most 30 s; nothing if gdb is missing or cannot attach). Only
 * async-signal-safe calls: prctl, fork, dup2, execvp, waitpid, _exit. */
static void print_stacks(void) {
#if defined(__linux__) && defined(PR_SET_PTRACER)
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama: a child may not attach otherwise */
#endif
  pid_t child = fork();
  if (child == 0) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    char *argv[] = {"timeout", "30", "gdb", "-q", "-nx", "-batch", "-p", watchdog_pid, "-ex", "thread apply all bt 20",
                    NULL};
    execvp("timeout", argv);
    _exit(127);
  }
  if (child > 0) waitpid(child, NULL, 0);
}

static void watchdog_fire(int signo) {
  (void)signo;
  ssize_t ignored = write(STDERR_FILENO, watchdog_message, watchdog_message_length);
  (void)ignored;
  if (watchdog_stacks) print_stacks();
  _exit(3);
}

void watchdog_arm(const char *case_description) {
  if (watchdog_seconds == 0) {
    const char *env = getenv("NHOOD_TEST_CASE_TIMEOUT");
    watchdog_seconds = env && atoi(env) > 0 ? (unsigned)atoi(env) : 60;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = watchdog_fire;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    snprintf(watchdog_pid, sizeof watchdog_pid, "%ld", (long)getpid());
    watchdog_stacks = getenv("NHOOD_TEST_NO_STACKS") == NULL;
  }
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = snprintf(watchdog_message, sizeof watchdog_message, "rank %d: TIMEOUT after %u s (a hang?) in: %s\n", rank,
                   watchdog_seconds, case_description);
  watchdog_message_length = n < 0 ? 0 : (size_t)n < sizeof watchdog_message ? (size_t)n : sizeof watchdog_message - 1;
  alarm(watchdog_seconds);
}

void watchdog_disarm(void) { alarm(0); }

int text_names_rank(const char *text, int rank) {
  char needle[32];
  snprintf(needle, sizeof needle, "rank %d", rank);
  size_t n = strlen(needle);
  for (const char *hit = strstr(text, needle); hit; hit = strstr(hit + 1, needle))
    if (hit[n] < '0' || hit[n] > '9') return 1;
  return 0;
}

int test_algorithms(int with_auto, const char *names[TEST_MAX_ALGORITHMS]) {
  int n = 0, count = 0;
  TEST_CHECK(NHOOD_Algorithm_count(&count));
  if (count + 1 > TEST_MAX_ALGORITHMS) test_fatal(__FILE__, __LINE__, "more than TEST_MAX_ALGORITHMS", MPI_ERR_ARG);
  if (with_auto) names[n++] = "auto";
  for (int k = 0; k < count; k++) TEST_CHECK(NHOOD_Algorithm_get(k, &names[n++], NULL));
  return n;
}

int test_selected(const char *name, const char *filter) {
  if (filter == NULL) return 1;
  size_t len = strlen(name);
  for (const char *p = filter; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == len && strncmp(p, name, n) == 0) return 1;
    if (n > 0 && p[n - 1] == '*' && n - 1 <= len && strncmp(p, name, n - 1) == 0) return 1; /* a prefix: cart-* */
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

int test_same_everywhere(const char *s) {
  char mine[256], root[256];
  snprintf(mine, sizeof mine, "%s", s);
  memcpy(root, mine, sizeof root);
  MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = strcmp(root, mine) == 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

int test_finish(const char *name, int failures) {
  int rank = 0, all = 0;
  watchdog_disarm();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s (%d failures)\n", name, all ? "FAILED" : "passed", all);
  MPI_Finalize();
  return all != 0;
}

void test_mpi_init(int *argc, char ***argv) {
  const char *progress = getenv("NHOOD_PROGRESS");
  if (progress == NULL || strcmp(progress, "thread") != 0) {
    MPI_Init(argc, argv);
    return;
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  const char *mode = NULL;
  if (provided != MPI_THREAD_MULTIPLE || NHOOD_Progress_mode(&mode) != MPI_SUCCESS || strcmp(mode, "thread") != 0) {
    fprintf(stderr, "NHOOD_PROGRESS=thread: MPI gave thread level %d, nhood's progress mode is %s\n", provided,
            mode ? mode : "unknown");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}
