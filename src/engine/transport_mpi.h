/* The engine's transport over MPI: nonblocking point-to-point on the library's private
 * communicator; local copies through memcpy or MPI_Pack/MPI_Unpack. */
#ifndef NHOOD_ENGINE_TRANSPORT_MPI_H
#define NHOOD_ENGINE_TRANSPORT_MPI_H

#include "engine/engine.h"

typedef struct {
  MPI_Comm comm;
  MPI_Request *requests; /* one per slot */
  MPI_Status *statuses;  /* one per slot: which one failed */
  int nslots;
} nhood_mpi_transport_ctx;

extern const nhood_transport nhood_mpi_transport;

/* Sizes the request array for a schedule; MPI_ERR_NO_MEM on failure. */
int nhood_mpi_transport_ctx_init(nhood_mpi_transport_ctx *ctx, MPI_Comm comm, int nslots);
void nhood_mpi_transport_ctx_free(nhood_mpi_transport_ctx *ctx);

#endif
