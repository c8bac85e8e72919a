/* nhood-sim's options (sim_options.c): the usage text, and "--name value" or "--name=value"
 * parsed with the defaults of what was not given. */
#ifndef NHOOD_SIM_OPTIONS_H
#define NHOOD_SIM_OPTIONS_H

#include <nhood.h>

#include <stddef.h>
#include <stdio.h>

#include "loggp.h"
#include "schedule/collargs.h"
#include "topology/topology.h"

#define MAX_SIZES 64
#define MAX_ALGOS 16
#define DEFAULT_THETA 1 /* the library's default, src/pattern/combine.h */
#define DEFAULT_MODEL "loggp:preset=ib-edr"
/* The algo column's least width; a longer --algo name widens it. */
#define ALGO_WIDTH 10
/* The collectives nhood-sim runs. */
#define NCOLLS 5
extern const nhood_coll_kind supported_colls[NCOLLS];

typedef struct options {
  int nranks;
  int ntopos;
  const char **topos; /* point into argv */
  int ncolls;
  nhood_coll_kind colls[NCOLLS];
  int nsizes;
  int sizes[MAX_SIZES];
  int nalgos;
  char algos[MAX_ALGOS][NHOOD_ALGORITHM_NAME_MAX];
  int named[MAX_ALGOS];       /* given by name (not through all or applicable) */
  int conditional[MAX_ALGOS]; /* from applicable only: runs where it makes its own schedule */
  int theta;
  const char *model_spec; /* as given, or read from the file --model @FILE names */
  char model_text[1024];  /* the model read from that file */
  loggp_params model;
  int seeds;              /* --seeds N: N runs of the model's noise (seeds 1..N); 0: none drawn */
  const char *noise_from; /* --noise-from FILE: round, noise and skew of the model in FILE */
  int ranks_per_node;     /* --ranks-per-node K (>= 1), copied into model; 0 when not given: one level */
  int per_entry;          /* --per-entry B: alltoallv/w blocks of a halo are B bytes per entry; 0: not given */
  const char *json_path;
  const char *goal_prefix; /* --goal PREFIX: each case's schedules as GOAL (goal.h), PREFIX-N.goal */
  int verify;
  int bound;      /* --bound: print each call's lower bound (sim_bound.h) */
  int persistent; /* --mode persistent: a call is a persistent request's start (size pass at init) */
  int help;
  int algo_width; /* of the table's algo column: the longest --algo name */
} options;

void print_usage(FILE *out);
/* Returns 0, or 1 with a message in err. */
int parse_options(int argc, char **argv, options *opt, char *err, size_t errlen);

#endif
