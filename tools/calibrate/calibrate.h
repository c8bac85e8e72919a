/*
 * nhood-calibrate's parts: the fit of the cost model to the measured rounds
 * (calibrate_fit.c), the report and the files it writes (calibrate_report.c), the
 * measurements and nhood_calibrate_run (nhood_calibrate.c, whose opening comment says what is
 * measured and how it is fitted), the series for nhood-sim's model (calibrate_series.c), its
 * single calls (calibrate_calls.c) and its fit (calibrate_sim.c), those calls for another
 * program's launch (calibrate_reference.c, nhood_calibrate.h), and the tool's main
 * (calibrate_main.c).
 */
#ifndef NHOOD_CALIBRATE_H
#define NHOOD_CALIBRATE_H

#include "common/cost_model.h"
#include "loggp.h" /* tools/sim: the evaluator whose parameters --sim-model fits */
#include "schedule/schedule.h"
#include "selection/cost.h"

#include <mpi.h>
#include <nhood.h>

#include <stddef.h>
#include <stdio.h>

#define TOOL "nhood-calibrate"

/* The command line (calibrate_options.c). */
typedef struct options {
  const char *out_path;
  const char *json_path;
  const char *sim_model_path; /* --sim-model FILE: nhood-sim's model fitted here */
  int iters;                  /* 0: the default for the mode */
  int quick;
  int out_given;
  int save; /* --save: out_path is the library's file for this placement */
  char save_path[512];
  int help;
} options;
void calibrate_print_usage(FILE *out);
/* 0, or 1 with a message in err. */
int calibrate_parse_options(int argc, char **argv, options *opt, char *err, size_t errlen);
/* Makes the folders above path; 0, or 1 with a message. */
int make_parents(const char *path, char *err, size_t errlen);
/* 0 where path can be written (option names it in the message); else 1 with a message. */
int check_writable(const char *option, const char *path, char *err, size_t errlen);

#define EXIT_USAGE 2
#define DEFAULT_OUT "nhood-params.txt"
#define DEFAULT_ITERS 60
#define QUICK_ITERS 4
#define DEFAULT_ROUNDS 8
#define QUICK_ROUNDS 4
/* Without --iters, the samples are cut down (to no fewer than MIN_ITERS) where the warm-up
 * says that the default number would take longer than its share of BUDGET_S seconds: an
 * oversubscribed MPICH, which busy-polls, spends a scheduler time slice on every round. */
#define BUDGET_S 45.0
#define MIN_ITERS 8
#define SHARE_ROUNDS 0.5
#define SHARE_COPY 0.1
#define SHARE_MPI 0.3
#define SHARE_SETUP 0.1

#define MAX_POINTS 32
#define BYTES_PEERS 4         /* neighbours in the bytes series and the mpi comparison */
#define HANDSHAKE_BYTES 16384 /* the handshake series: above most eager limits */
#define COPY_MAX (4 << 20)
#define MPI_SMALL 8
#define MPI_MEDIUM 8192
#define FACTOR_MIN 0.5
#define FACTOR_MAX 2.0

/* The series' sizes and counts (nhood_calibrate.c). */
extern const int message_counts[5];
extern const int message_sizes[8];
extern const int copy_sizes[3];
extern const int mpi_sizes[2];
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A measured round: k sends and k receives of `bytes` each, us per round. */
typedef struct point {
  const char *series; /* latency, messages, bytes, handshake */
  int k, bytes;
  int repeated; /* destinations repeat (k >= P) */
  double us, model_us;
  int self;    /* call points: self loops beside the k neighbours (local copies) */
  int rounds;  /* call points: rounds of the k messages (0 or 1: one, as direct's) */
  int selfmsg; /* call points: messages to the process itself in each round, through MPI */
} point;

/* The step series: direct's one message each way, at sizes from 1 byte up, where an MPI's
 * protocol switch within shared memory shows as a step in time (calibrate_sim.c finds it). */
#define STEP_POINTS 8
extern const int step_sizes[STEP_POINTS];

#define MAX_UNKNOWNS 5

/* L, o (g = 0), G, eager and rdv from the round points; fills each point's model_us. Returns
 * the largest relative error of the model over the points. */
double fit_rounds(point *pts, int n, nhood_cost_params *p);

typedef struct results {
  int nranks, nodes, ranks_per_node, cores; /* ranks_per_node: the most on one node */
  char library[256];
  char date[64];
  int iters, warmup, rounds;               /* asked for */
  int iters_rounds, iters_copy, iters_mpi; /* taken (the least over the points) */
  int npoints;
  point points[MAX_POINTS];
  double max_error;
  double copy_us[NELEMS(copy_sizes)];
  int mpi_peers, bytes_peers;
  double mpi_us[NELEMS(mpi_sizes)], direct_us[NELEMS(mpi_sizes)];
  double raw_factor; /* before clamping */
  /* nhood's set-up on a new communicator of mpi_peers ring neighbours: us, the calls it spans,
   * samples taken */
  double setup_us;
  int setup_calls, iters_setup;
  nhood_cost_params params;
  /* skew: 1-byte rounds with one neighbour each way, each after a barrier and timed alone;
   * the quantiles of a process's delay at a call's start derived from them (calibrate_sim.c) */
  int skew_rounds;
  double skew_round_us;                   /* their median */
  double skew_excess[LOGGP_NOISE_POINTS]; /* quantiles of a round's time over the fastest */
  double skew[LOGGP_NOISE_POINTS];        /* a process's delay */
  /* noise: the rounds after the first of chains of NOISE_CHAIN such rounds, each the time
   * from the last rank's end of the round before to the last rank's end of this one; the
   * same quantiles. noise_from_skew: no common clock (several nodes), the skew's instead. */
  int noise_rounds, noise_from_skew;
  double noise_excess[LOGGP_NOISE_POINTS];
  double noise[LOGGP_NOISE_POINTS];
  /* --sim-model: single rounds of k messages of `bytes` each way, each after a barrier and
   * timed alone as nhood-bench times a call (the slowest rank's time, the median over
   * samples), and the LogGP evaluator fitted to them with that noise */
  int ncalls;
  point calls[MAX_POINTS];
  /* the step series (us per size of step_sizes), and the step found in it: messages above
   * step_bytes cost step_us more (0: none found) */
  double step_series[STEP_POINTS];
  double step_bytes, step_us;
  int sim_fitted, sim_points;
  loggp_params sim;
  double sim_error; /* its largest relative error over the points it was fitted to */
} results;

/* The skew and noise series: enough rounds for their 99.99th percentile (10 beyond it), as many
 * as fit in NOISE_BUDGET_S and no more than NOISE_GATHERED on all ranks together (rank 0 sorts
 * them). */
#define NOISE_ROUNDS 100000
#define QUICK_NOISE_ROUNDS 2000
#define MIN_NOISE_ROUNDS 200
#define NOISE_GATHERED 4000000
#define NOISE_BUDGET_S 5.0
#define NOISE_CHAIN 8 /* rounds per chain of the noise series */
#define SIM_SEEDS 9   /* noise draws per point in the fit of the LogGP evaluator */
#define CALL_SAMPLES 400
#define QUICK_CALL_SAMPLES 40
extern const int call_counts[4];
extern const int call_sizes[3];
extern const int call_self_sizes[2];
#define CALL_SELF_K 2            /* call points with self loops: this many neighbours each way, */
#define CALL_SELF 4              /* and this many self loops */
extern const int call_rounds[2]; /* call points of several rounds of one message each way */
#define CALL_SELFMSG_ROUNDS 2    /* call points with messages to oneself only: rounds, */
#define CALL_SELFMSG 2           /* and such messages per round */

/* The measurements' state (nhood_calibrate.c). */
typedef struct calib {
  MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD */
  int rank, size;
  int iters, warmup, rounds;
  int adaptive;     /* iters may be cut to fit BUDGET_S */
  double *samples;  /* iters per-sample times (s), this rank's */
  double *samples2; /* the second series of an interleaved comparison */
  unsigned char *sendbuf, *recvbuf;
  size_t buflen;
  unsigned char *copy_src, *copy_dst; /* COPY_MAX each */
  size_t copy;                        /* bytes ring_round copies after its messages (0: none) */
  size_t copy_turn;
  MPI_Request *requests;
  int sim; /* --sim-model: also the single calls and the noise */
} calib;

/* malloc that gives up loudly: failing on one rank only would leave the others waiting. */
void *calib_xmalloc(size_t size);
/* MPI_UNWEIGHTED through a volatile object (GCC 12 and Open MPI's (int *)2). */
int *calib_unweighted(void);
/* The j-th of k ring neighbours is at distance 1 + j mod (P-1). */
int calib_ring_distance(const calib *c, int j);
/* One round: k receives from rank-d_j and k sends to rank+d_j, `bytes` each, then Waitall. */
void calib_ring_round(calib *c, int k, int bytes);
/* --sim-model's single calls (calibrate_calls.c): res->calls gets the points. */
void calib_call_points(const calib *c, results *res);
/* Rank r's schedule of the point on P ranks: what the call runs, for the evaluator. 0, or 1
 * out of memory. */
int calib_call_schedule(int P, int r, const point *pt, nhood_sched *s);
/* A point as a call on c->comm between c->sendbuf and c->recvbuf, which must hold
 * calib_call_bytes of the point: a topology object, or an engine task. Failures abort. */
typedef struct calib_call {
  NHOOD_Topo topo;
  struct nhood_task *task;
  int bytes;
} calib_call;
size_t calib_call_bytes(const point *pt);
void calib_call_create(calib *c, const point *pt, calib_call *call);
void calib_call_run(calib *c, calib_call *call); /* collective; not timed */
void calib_call_free(calib_call *call);
/* --sim-model's series (calibrate_series.c): the single calls, the skew and the noise. */
void calib_time_calls(calib *c, int quick, results *res);
void calib_time_step(calib *c, int quick, results *res);
/* The step in res->step_series: between the two sizes where a line with a step fits best,
 * where the step is clear (calibrate_sim.c). */
void find_step(results *res);
void calib_time_skew(calib *c, int quick, results *res);
void calib_time_noise(calib *c, int quick, results *res);

/* From the pooled per-round excesses (each a round's time over its rank's fastest, n of them,
 * sorted in place): their quantiles at loggp_noise_p and a process's delay's (calibrate_sim.c). */
void noise_quantiles(double *excess, int n, double quantiles[LOGGP_NOISE_POINTS], double delay[LOGGP_NOISE_POINTS]);
/* Fits res->sim to res->calls (calibrate_sim.c); returns 0, or 1 where no point could be
 * used. */
int fit_sim_model(results *res);
/* Fits res->sim to res->calls from base (its noise, skew, Gcopy and step are kept; its L, o, G,
 * round, ocopy, oself, Gself, ostep, Lbyte and noise0 are where the search starts), O = G where
 * copies (one node); quick: one start of the search, not several. 0, or 1. */
int fit_sim_calls(results *res, const loggp_params *base, int copies, int quick);
/* Writes res->sim as nhood-sim's --model line, with a comment header; 0, or 1. */
int write_sim_model(const results *res, const char *path);
/* The --model line alone, newline-terminated. */
void write_sim_model_line(FILE *out, const loggp_params *m);

/* The library version's first line, tabs as spaces. */
void library_version(char *out, size_t outlen);
void now_string(char *out, size_t outlen);
/* Nodes (shared-memory domains), the most ranks on one, and that node's cores (rank 0's). */
void placement(results *res);
int oversubscribed(const results *res);
/* The comment lines at the top of the parameter file. */
void file_header(const results *res, const char *out_path, char *h, size_t hlen);
/* Rank 0: the points, the model's value at each, and the parameters. */
void print_results(const results *res);
/* The raw points and the parameters as JSON. 0, or 1 (reported). */
int write_json(const results *res, const char *path);
/* Rank 0 writes the files; every rank learns whether that worked. 0, or 1 (reported). */
int write_outputs(const results *res, const options *opt, int rank);

#endif
