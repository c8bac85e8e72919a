/* What a non-blocking or persistent collective keeps between calls. */
#ifndef NHOOD_API_REQUEST_H
#define NHOOD_API_REQUEST_H

#include "nhood.h"
#include "common/commctx.h"
#include "engine/engine.h"
#include "engine/transport_mpi.h"
#include "schedule/collargs.h"

typedef enum { NHOOD_BLOCKING, NHOOD_NONBLOCKING, NHOOD_PERSISTENT } nhood_mode;

struct nhood_request {
  nhood_mode mode;
  int active;
  int tag_base;               /* reserved once per request (per start for blocking calls) */
  nhood_commctx *ctx;         /* retained */
  nhood_sched sched;
  nhood_mpi_transport_ctx transport;
  nhood_exec exec;
  void *scratch;
};

/* Releases what a request holds (not the request memory itself). */
void nhood_request_release(struct nhood_request *req);

#endif
