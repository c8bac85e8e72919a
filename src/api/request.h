/* What a non-blocking or persistent collective keeps between calls. */
#ifndef NHOOD_API_REQUEST_H
#define NHOOD_API_REQUEST_H

#include "nhood.h"
#include "common/commctx.h"
#include "engine/engine.h"
#include "engine/native_mpi.h"
#include "engine/transport_mpi.h"
#include "api/owned_args.h"
#include "schedule/collargs.h"

typedef enum { NHOOD_BLOCKING, NHOOD_NONBLOCKING, NHOOD_PERSISTENT } nhood_mode;

struct nhood_request {
  nhood_mode mode;
  nhood_coll_kind kind;
  int active;
  int tag_base;       /* reserved once per request (per start for blocking calls) */
  nhood_commctx *ctx; /* retained */
  nhood_sched sched;
  nhood_mpi_transport_ctx transport;
  nhood_exec exec;
  void *scratch;
  struct nhood_two_stage *two_stage; /* NULL unless the schedule waits for a size pass */
  /* The algorithm "mpi": the MPI library's request on graph (persistent: created at init;
   * from copies of the arguments, as nhood's own persistent requests allow the caller to free
   * datatypes after init; non-blocking: started from the caller's arguments, which MPI lets
   * the caller change only after completion). sched then only names the algorithm and
   * summarizes the exchange. */
  int native;
  nhood_native_graph *graph; /* retained */
  MPI_Request native_request;
  nhood_owned_args args;
};

/*
 * Two-stage requests: calls whose schedule depends on other processes' block sizes (the
 * combine algorithm's v and w collectives, schedule/algorithms.h). The request holds the size
 * pass's schedule and what is needed to build the data schedule when the pass completes: its
 * own copies of the neighbor lists, of the count, displacement and datatype arguments
 * (derived datatypes duplicated, as the caller may free them once the call returns) and a
 * reference to the combining pattern (a blocking call, which completes before it returns,
 * uses the caller's lists and arguments in place). Blocking and non-blocking calls run the
 * pass every time; a persistent request runs it at its first start only (its counts are fixed
 * at init, on every process) and then reuses the data schedule.
 */
/* Sets req up for a two-stage call; req->sched stays empty until the pass completes. */
int nhood_two_stage_init(struct nhood_request *req, NHOOD_Topo topo, const nhood_coll_args *a);
void nhood_two_stage_free(struct nhood_two_stage *ts);

/* Tags a request uses per start (both stages of a two-stage one). */
int nhood_request_ntags(const struct nhood_request *req);
/* Starts the request's work (the size pass first when its data schedule is not built yet). */
int nhood_request_begin(struct nhood_request *req);
/* Advances it; *done = 1 when everything completed. */
int nhood_request_progress(struct nhood_request *req, int *done);
/* Runs it to completion. */
int nhood_request_wait(struct nhood_request *req);

/* The schedule a start runs now: the data schedule, or a two-stage request's size pass while
 * its data schedule is not built. */
const nhood_sched *nhood_request_schedule(const struct nhood_request *req);

/* Allocates scratch and the transport for req->sched and prepares its execution over the
 * call's buffers; shared by one-stage requests and the second stage of two-stage ones. */
int nhood_request_prepare_exec(struct nhood_request *req, const void *sendbuf, void *recvbuf);

/* Puts "neighborhood <collective> (<algorithm>)" before the message of an error of req's run. */
void nhood_request_error_context(const struct nhood_request *req);

/* Releases what a request holds (not the request memory itself). */
void nhood_request_release(struct nhood_request *req);

#endif
