/* The engine's transport over MPI: nonblocking point-to-point on the library's private
 * communicator; local copies through memcpy or MPI_Pack/MPI_Unpack. */
#ifndef NHOOD_ENGINE_TRANSPORT_MPI_H
#define NHOOD_ENGINE_TRANSPORT_MPI_H

#include "engine/engine.h"

/* What a local copy needs to know of a datatype. */
typedef struct {
  MPI_Count size;
  MPI_Aint true_lb;
  int contiguous; /* count elements occupy one byte range from the buffer plus true_lb */
} nhood_type_layout;

#define NHOOD_LAYOUT_CACHE 2

typedef struct {
  MPI_Comm comm;
  MPI_Request *requests; /* one per slot */
  MPI_Status *statuses;  /* one per slot: which one failed */
  int nslots;
  /* Layouts of the datatypes copied in this run: a schedule's copies mostly repeat one or
   * two types, and asking MPI three questions per copy cost more than the copy. Valid for
   * one run only (nhood_mpi_transport_ctx_new_run): a handle freed between runs may come
   * back as another type. */
  MPI_Datatype layout_types[NHOOD_LAYOUT_CACHE];
  nhood_type_layout layouts[NHOOD_LAYOUT_CACHE];
  int nlayouts;
} nhood_mpi_transport_ctx;

extern const nhood_transport nhood_mpi_transport;

/* Sizes the request array for a schedule; MPI_ERR_NO_MEM on failure. */
int nhood_mpi_transport_ctx_init(nhood_mpi_transport_ctx *ctx, MPI_Comm comm, int nslots);
void nhood_mpi_transport_ctx_free(nhood_mpi_transport_ctx *ctx);
/* After MPI_Waitall over the first nslots requests returned code (not MPI_SUCCESS): waits
 * for those still pending and returns the first failed slot's error, with *failed = its slot,
 * or an error naming MPI_Waitall with *failed = -1 where no one slot failed. */
int nhood_mpi_waitall_failed(nhood_mpi_transport_ctx *ctx, int nslots, int code, int *failed);
/* Forgets what the previous run learned of datatypes; call before each run. */
static inline void nhood_mpi_transport_ctx_new_run(nhood_mpi_transport_ctx *ctx) { ctx->nlayouts = 0; }

#endif
