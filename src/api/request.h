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
  int tag_base;               /* persistent: reserved once at init */
  nhood_commctx *ctx;         /* retained */
  nhood_sched sched;
  nhood_mpi_transport_ctx transport;
  nhood_exec exec;
  void *scratch;
};

/* Validates the call, selects and builds the schedule into req (caller storage) and, for
 * blocking and non-blocking calls, starts it. On failure req holds nothing to release. */
int nhood_coll_begin(const nhood_coll_args *a, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info,
                     nhood_mode mode, struct nhood_request *req);
/* Releases what nhood_coll_begin acquired (not the request memory itself). */
void nhood_request_release(struct nhood_request *req);

#endif
