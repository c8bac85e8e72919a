/*
 * nhood-bench's parts: its options (bench_options.c), its result rows as table lines and JSON
 * (bench_report.c), and the run itself: data, calls, timing and main (nhood_bench.c).
 */
#ifndef NHOOD_BENCH_H
#define NHOOD_BENCH_H

#include <nhood.h>

#include <mpi.h>

#include <stddef.h>
#include <stdio.h>

typedef enum { COLL_ALLGATHER, COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV, COLL_ALLTOALLW, NCOLLS } coll_kind;
extern const char *const coll_names[NCOLLS];

/* overlap: a non-blocking call posted, computation as long as the call's own latency, then
 * the wait (OSU's method); the row reports how much of the latency the computation hid. */
typedef enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, MODE_OVERLAP, NMODES } mode_kind;
extern const char *const mode_names[NMODES];

/* A failure's message: nhood's longest, and room for the call and the rank it came from. */
#define ERROR_LEN (NHOOD_MAX_ERROR_STRING + 64)

/* malloc and realloc that give up loudly: a benchmark has no use for running on without
 * memory, and failing on one rank only would leave the others waiting in a collective. */
void *xmalloc(size_t size);
void *xrealloc(void *p, size_t size);
void *xcalloc(size_t count, size_t size);

/* ------------------------------------------------------------------------------------- */
/* Options (bench_options.c)                                                              */
/* ------------------------------------------------------------------------------------- */

typedef struct options {
  int ntopos;
  const char **topos; /* point into argv */
  int ncolls;
  int colls[NCOLLS]; /* coll_kind */
  int nmodes;
  int modes[NMODES]; /* mode_kind */
  int nsizes;
  int *sizes;
  int nalgos;
  char **algos;
  int iters, warmup;
  int theta; /* 0: the library's default */
  const char *json_path;
  int help;
} options;

void print_usage(FILE *out);

/* Options as "--name value" or "--name=value", with the defaults of what was not given.
 * Returns 0, or 1 with a message in err. */
int parse_options(int argc, char **argv, options *opt, char *err, size_t errlen);

void free_options(options *opt);

/* ------------------------------------------------------------------------------------- */
/* Results (bench_report.c)                                                               */
/* ------------------------------------------------------------------------------------- */

/* Everything the whole run shares. */
typedef struct bench {
  options opt;
  int rank, size;
  FILE *json;
  char mpi_library[128];
  const char *progress;  /* nhood's asynchronous progress: "thread" or "off" (NHOOD_Progress_mode) */
  double compute_per_us; /* overlap mode: iterations of the compute kernel per microsecond */
  int algo_width;        /* of the table's algo column: the longest name it prints */
} bench;

typedef struct result_row {
  const char *topo, *coll, *mode, *algo, *algo_resolved;
  const char *selection; /* NHOOD_Selection_info of "auto", or NULL */
  int bytes, iters, warmup;
  int timed;               /* latencies below are meaningful */
  double median, min, max; /* microseconds: each call's slowest rank; median, min, max over calls */
  double rank_median;      /* microseconds: each rank's median over its calls, maximum over ranks */
  double mpi_median;       /* > 0: the row's latency is compared with it */
  int msgs, rounds;        /* < 0: not applicable */
  int validated;
  double us_per_nbr;          /* sched_build rows only, else < 0 */
  const char *mpi_persistent; /* "mpi" rows of persistent mode */
  /* overlap rows: the call alone, the computation alone, and the share of the call's latency
   * the computation hid, 100 (1 - (median - compute_us) / pure_us) clamped to [0, 100]; the
   * median is then post + compute + wait. overlap_pct < 0 elsewhere. */
  double pure_us, compute_us, overlap_pct;
  const char *progress;
  const char *error;
} result_row;

/* Rank 0: the table's column names. */
void print_table_header(const bench *b);

/* Rank 0: one table line on stdout and one JSON object in the --json file. */
void emit_row(const bench *b, const result_row *row);

/* Fills in the row's latencies from every rank's n samples, in seconds (collective; meaningful
 * on rank 0). Sorts the samples. */
void reduce_latency(double *samples, int n, result_row *row);

#endif
