/*
 * nhood-bench's parts: its options (bench_options.c), its result rows as table lines and JSON
 * (bench_report.c), its neighborhoods and call buffers (bench_data.c), the rows of what
 * set-up costs (bench_setup.c), nhood-calibrate's calls in turns with the cases'
 * (bench_reference.c), and the run itself: calls, timing and main (nhood_bench.c).
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
 * the wait (OSU's method); the row reports how much of the latency the computation hid.
 * churn: communicators created, called N times (blocking) and freed, as real programs use
 * them (bench_churn.c). */
typedef enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, MODE_OVERLAP, MODE_CHURN, NMODES } mode_kind;
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
  int ncalls;
  int *calls; /* churn: calls per communicator */
  int comms;  /* churn: timed communicators per row */
  int theta;  /* 0: the library's default */
  const char *json_path;
  const char *calibrate;     /* --calibrate OPTS: nhood-calibrate's options, run first in this launch */
  const char *sim_reference; /* --sim-reference BASE: nhood-sim's model per case (bench_reference.c) */
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

typedef struct bench_reference bench_reference;

/* Everything the whole run shares. */
typedef struct bench {
  options opt;
  int rank, size;
  FILE *json;
  char mpi_library[128];
  const char *progress;  /* nhood's asynchronous progress: "thread" or "off" (NHOOD_Progress_mode) */
  double compute_per_us; /* overlap mode: iterations of the compute kernel per microsecond */
  int algo_width;        /* of the table's algo column: the longest name it prints */
  bench_reference *ref;  /* --sim-reference, or NULL */
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
  int calls; /* churn rows: calls per communicator (the table's mode column says churn/N); else 0 */
} result_row;

/* Rank 0: the table's column names. */
void print_table_header(const bench *b);

/* Rank 0: one table line on stdout and one JSON object in the --json file. */
void emit_row(const bench *b, const result_row *row);

/* Fills in the row's latencies from every rank's n samples, in seconds (collective; meaningful
 * on rank 0). Sorts the samples. */
void reduce_latency(double *samples, int n, result_row *row);

/* ------------------------------------------------------------------------------------- */
/* nhood-calibrate's calls in turns with each case's, for nhood-sim (bench_reference.c)    */
/* ------------------------------------------------------------------------------------- */

/* Collective; NULL with a message where BASE (a model file) cannot be read on some rank. */
bench_reference *bench_reference_create(const char *base, int iters, char *err, size_t errlen);
/* The calls a batch times beside the algorithms (0 for NULL). */
int bench_reference_points(const bench_reference *r);
/* Untimed calls of every point (NULL: none). */
void bench_reference_warm(bench_reference *r, int calls);
/* One timed call of point in batch, after a barrier, as the algorithms' turns. */
void bench_reference_turn(bench_reference *r, int point, int batch);
/* After a case's batches: the model fitted to them, written to BASE.N, and its row (rank 0).
 * Collective; NULL is ignored. */
void bench_reference_case_end(const bench *b, bench_reference *r, const char *topo, const char *coll, int bytes);
void bench_reference_free(bench_reference *r);

/* ------------------------------------------------------------------------------------- */
/* Neighborhoods, the buffers of one call, failures (bench_data.c)                        */
/* ------------------------------------------------------------------------------------- */

#include "topospec.h"

/* What an untouched receive block holds. */
#define SENTINEL 0xA5
/* The create row of stencils' NHOOD_Topo_create_cart_offsets. */
#define CART_OFFSETS_ROW "nhood-cart-offsets"

/* MPI_UNWEIGHTED, read so that GCC does not see the constant (bench_data.c says why). */
int *unweighted(void);

/* A neighborhood: the lists of this rank and the MPI communicator that carries them. */
typedef struct neighborhood {
  const char *spec_text;
  topospec_rank lists;
  MPI_Comm graph_comm;
  int real_destinations; /* destinations other than MPI_PROC_NULL */
  /* Over all ranks: some list holds MPI_PROC_NULL; some rank's indegree != outdegree. */
  int any_proc_null, any_unequal_degrees;
} neighborhood;

/* The MPI library's distributed-graph communicator of the lists, on MPI_COMM_WORLD's ranks. */
int graph_comm_create(const topospec_rank *lists, MPI_Comm *comm);
/* A stencil's Cartesian communicator without reordering: its ranks are MPI_COMM_WORLD's. */
int stencil_cart_create(const topospec_rank *lists, MPI_Comm *cart);
/* nhood's topology object of the lists: NHOOD_Topo_create_cart_offsets of a stencil's offsets
 * on *cart, or without a cart (NULL) NHOOD_Topo_create_adjacent. */
int nhood_topo_create(const topospec_rank *lists, const MPI_Comm *cart, MPI_Info info, NHOOD_Topo *topo);

typedef struct exchange {
  coll_kind coll;
  int bytes;
  int sendcount; /* allgather(v): the one block; alltoall: each block */
  /* Per block, for every collective (the fixed-size ones use them to lay out the data). */
  int *sendcounts, *sdispls, *recvcounts, *rdispls;
  MPI_Aint *sdispls_bytes, *rdispls_bytes; /* alltoallw */
  MPI_Datatype *types;                     /* alltoallw: MPI_BYTE for every block */
  unsigned char *sendbuf;
  unsigned char *recvbuf;  /* where the algorithms under test receive */
  unsigned char *expected; /* what MPI-4.1 says recvbuf holds afterwards */
  size_t sendlen, recvlen;
} exchange;

/* Buffers, counts, send data and expected receive data of one collective at one size.
 * Returns 0, or 1 when a buffer would exceed what an int displacement addresses. */
int exchange_init(exchange *x, coll_kind coll, int bytes, const neighborhood *nb, int rank);
void exchange_free(exchange *x);

/* Agrees over all ranks whether a step failed on any of them. Returns 1 if so; rank 0's
 * message is then the one of the lowest failing rank, so a failure elsewhere is reported. */
int agree_on_failure(const bench *b, int failed, char *message);
/* The message of a failed nhood call: `what`, the error class, nhood's explanation. */
void nhood_failure(char *message, const char *what, int rc);
/* agree_on_failure for an nhood call that returned rc, with a message naming `what`, the
 * error class and nhood's explanation. */
int agree_on_nhood_failure(const bench *b, int rc, const char *what, char *message);
int max_over_ranks(int value);

/* ------------------------------------------------------------------------------------- */
/* The calls (nhood_bench.c) and what set-up costs (bench_setup.c)                       */
/* ------------------------------------------------------------------------------------- */

/* One --algo entry on one topology. */
typedef struct algorithm {
  const char *name;
  int is_mpi;      /* MPI's own collective: "mpi", or "pmpi" (by the profiling names) */
  int profiling;   /* "pmpi" */
  int handwritten; /* "isend": MPI_Irecv/MPI_Isend/MPI_Waitall over the lists (blocking only) */
  MPI_Info info;   /* nhood: NHOOD_INFO_ALGORITHM = name */
  NHOOD_Topo topo; /* nhood: this algorithm's topology object */
  int failed;      /* creation failed on some rank: every case of it is an error row */
  char error[ERROR_LEN];
} algorithm;

/* The exchange's collective as `algo` makes it in `mode`: blocking, or the start of a
 * non-blocking call, or a persistent init, into *mpi_request ("mpi") or *nhood_request. */
int coll_call(const neighborhood *nb, const exchange *x, const algorithm *algo, mode_kind mode,
              MPI_Request *mpi_request, NHOOD_Request *nhood_request);

/* "isend": the blocking exchange as a program would write it by hand, MPI_Irecv from every
 * source, MPI_Isend to every destination, MPI_Waitall, on the graph communicator. */
int handwritten_call(const neighborhood *nb, const exchange *x);

/* Rows "create": MPI_Dist_graph_create_adjacent + MPI_Comm_free against nhood's local
 * topology objects. */
void bench_creation(const bench *b, const neighborhood *nb);
/* Rows "sched_build": each nhood algorithm's persistent init + free at the smallest size. */
void bench_schedule_build(const bench *b, const neighborhood *nb, algorithm *algos, coll_kind coll);

/* Rows of mode churn (bench_churn.c): per --algo, per --calls N, the median time of a
 * communicator's life: created, called N times, freed. */
void bench_churn(const bench *b, const neighborhood *nb, coll_kind coll, int bytes);

#endif
