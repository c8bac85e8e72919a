/* Small helpers shared by the MPI tests: fatal-error checks and a per-case watchdog. */
#ifndef NHOOD_TESTS_MPI_TESTUTIL_H
#define NHOOD_TESTS_MPI_TESTUTIL_H

#include <mpi.h>
#include <stddef.h>

/* For calls that set up the test itself (reference communicators, datatypes, topology
 * objects): a failure means the test cannot go on, so it aborts with the call's text, the
 * MPI error string and nhood's last message. */
#define TEST_CHECK(call)                                                                      \
  do {                                                                                        \
    int test_check_rc_ = (call);                                                              \
    if (test_check_rc_ != MPI_SUCCESS) test_fatal(__FILE__, __LINE__, #call, test_check_rc_); \
  } while (0)

_Noreturn void test_fatal(const char *file, int line, const char *what, int rc);

/* MPI_Init, or MPI_Init_thread at MPI_THREAD_MULTIPLE where NHOOD_PROGRESS=thread asks for
 * nhood's progress thread, so that every test runs under it unchanged; with the thread
 * asked for, a process whose MPI does not give it (or nhood does not start it) fails. */
void test_mpi_init(int *argc, char ***argv);

/* Allocation that aborts the test when memory runs out; never returns NULL. */
void *test_malloc(size_t bytes);
void *test_calloc(size_t count, size_t size);

/* MPI_UNWEIGHTED, hidden behind a call: Open MPI defines it as the constant (int *)2, and
 * GCC 12 reports "accessing 4 bytes in a region of size 0" wherever that constant reaches
 * an array parameter. */
const int *test_unweighted(void);

/* The watchdog turns a hang into a diagnosis: when a case runs longer than the limit
 * (environment NHOOD_TEST_CASE_TIMEOUT, seconds, default 60), the process prints the case
 * it is stuck in, every thread's stack where gdb is installed (NHOOD_TEST_NO_STACKS=1: not),
 * and exits with status 3. watchdog_arm restarts the clock. */
void watchdog_arm(const char *case_description);
void watchdog_disarm(void);

/* The end of a test program: disarms the watchdog, sums the processes' failures, prints
 * "<name>: passed" or "FAILED" on rank 0, finalizes MPI; returns main's exit status. */
int test_finish(const char *name, int failures);

/* 1 when every process of MPI_COMM_WORLD holds the same string (its first 255 characters,
 * compared with rank 0's). Collective. */
int test_same_everywhere(const char *s);

/* 1 when the decimal number `rank` occurs in text as "rank <rank>" (not followed by a
 * digit): used to check that error messages name the ranks involved. */
int text_names_rank(const char *text, int rank);

/* Fills names with "auto" (if with_auto) and every algorithm of nhood's registry
 * (NHOOD_Algorithm_*); returns how many (at most TEST_MAX_ALGORITHMS). */
#define TEST_MAX_ALGORITHMS 64
int test_algorithms(int with_auto, const char *names[TEST_MAX_ALGORITHMS]);

/* 1 when filter is NULL (everything) or a comma-separated list that holds name exactly or a
 * prefix of it followed by '*' ("cart-*": every isomorphic algorithm of the registry). */
int test_selected(const char *name, const char *filter);

#endif
