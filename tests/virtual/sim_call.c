#include "sim_call.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockdata.h"
#include "cli.h"
#include "topology/topology.h"

uint64_t sim_block_key(const sim_call *call, int sender, int receiver, int occurrence) {
  if (call->kind == NHOOD_ALLGATHER || call->kind == NHOOD_ALLGATHERV) return blockdata_rank_key(sender);
  return blockdata_edge_key(sender, receiver, occurrence);
}

/* Displacements of blocks laid out one after the other, into displs (in elements, which are
 * bytes) or bdispls (in bytes, alltoallw's); 1 when the total exceeds an int. */
static int pack(int n, const int *counts, int *displs, MPI_Aint *bdispls, size_t *total) {
  long long offset = 0;
  for (int i = 0; i < n; i++) {
    if (displs != NULL) displs[i] = (int)offset;
    if (bdispls != NULL) bdispls[i] = (MPI_Aint)offset;
    offset += counts[i];
    if (offset > INT_MAX) return 1;
  }
  *total = (size_t)offset;
  return 0;
}

/* The bytes of each send and receive block of rank r in alltoallv and alltoallw: a hash both
 * ends compute (blockdata.h); MPI_PROC_NULL blocks keep their nominal size. With per_entry > 0
 * on a weighted topology (a halo), each edge's weight times per_entry: the halo's own sizes. */
static void edge_counts(const struct nhood_topo *t, int r, int bytes, int per_entry, int *sendcounts, int *recvcounts) {
  int halo = per_entry > 0 && t->destweights && t->sourceweights;
  for (int j = 0; j < t->outdegree; j++) {
    int q = t->destinations[j];
    sendcounts[j] = halo                 ? t->destweights[j] * per_entry
                    : q == MPI_PROC_NULL ? bytes
                                         : blockdata_edge_bytes(r, q, bytes);
  }
  for (int i = 0; i < t->indegree; i++) {
    int q = t->sources[i];
    recvcounts[i] = halo                 ? t->sourceweights[i] * per_entry
                    : q == MPI_PROC_NULL ? bytes
                                         : blockdata_edge_bytes(q, r, bytes);
  }
}

/* Fills one rank's arguments; its count and displacement arrays start at *cursor (its byte
 * displacements, alltoallw's, at *bcursor). */
static int init_rank(sim_call *call, int r, int **cursor, MPI_Aint **bcursor) {
  const struct nhood_topo *t = call->topos[r];
  int bytes = call->bytes, in = t->indegree, out = t->outdegree;
  nhood_coll_args *a = &call->args[r];
  *a = (nhood_coll_args){.kind = call->kind,
                         .sendtype = MPI_BYTE,
                         .recvtype = MPI_BYTE,
                         .send_extent = 1,
                         .recv_extent = 1,
                         .send_type_size = 1,
                         .recv_type_size = 1};
  switch (call->kind) {
    case NHOOD_ALLGATHER:
    case NHOOD_ALLTOALL:
      a->sendcount = a->recvcount = bytes;
      call->sendlen[r] = (size_t)bytes * (call->kind == NHOOD_ALLGATHER ? 1 : (size_t)out);
      call->recvlen[r] = (size_t)bytes * (size_t)in;
      return call->sendlen[r] > INT_MAX || call->recvlen[r] > INT_MAX;
    case NHOOD_ALLGATHERV: {
      int *recvcounts = *cursor, *rdispls = recvcounts + in;
      *cursor = rdispls + in;
      for (int i = 0; i < in; i++) {
        int q = t->sources[i];
        recvcounts[i] = q == MPI_PROC_NULL ? bytes : blockdata_rank_bytes(q, bytes);
      }
      a->sendcount = blockdata_rank_bytes(r, bytes);
      a->recvcounts = recvcounts;
      a->rdispls = rdispls;
      call->sendlen[r] = (size_t)a->sendcount;
      return pack(in, recvcounts, rdispls, NULL, &call->recvlen[r]);
    }
    case NHOOD_ALLTOALLW: { /* alltoallv's counts, MPI_BYTE blocks at byte displacements */
      int *sendcounts = *cursor, *recvcounts = sendcounts + out;
      MPI_Aint *sdispls = *bcursor, *rdispls = sdispls + out;
      *cursor = recvcounts + in;
      *bcursor = rdispls + in;
      edge_counts(t, r, bytes, call->per_entry, sendcounts, recvcounts);
      a->sendcounts = sendcounts;
      a->sdispls_bytes = sdispls;
      a->sendtypes = call->bytes_types;
      a->recvcounts = recvcounts;
      a->rdispls_bytes = rdispls;
      a->recvtypes = call->bytes_types;
      return pack(out, sendcounts, NULL, sdispls, &call->sendlen[r]) ||
             pack(in, recvcounts, NULL, rdispls, &call->recvlen[r]);
    }
    default: { /* alltoallv */
      int *sendcounts = *cursor, *sdispls = sendcounts + out;
      int *recvcounts = sdispls + out, *rdispls = recvcounts + in;
      *cursor = rdispls + in;
      edge_counts(t, r, bytes, call->per_entry, sendcounts, recvcounts);
      a->sendcounts = sendcounts;
      a->sdispls = sdispls;
      a->recvcounts = recvcounts;
      a->rdispls = rdispls;
      return pack(out, sendcounts, sdispls, NULL, &call->sendlen[r]) ||
             pack(in, recvcounts, rdispls, NULL, &call->recvlen[r]);
    }
  }
}

int sim_call_init(sim_call *call, nhood_coll_kind kind, int bytes, int per_entry, int nranks, const NHOOD_Topo *topos,
                  char *err, size_t errlen) {
  memset(call, 0, sizeof *call);
  call->kind = kind;
  call->bytes = bytes;
  call->per_entry = per_entry;
  call->nranks = nranks;
  call->topos = topos;
  /* Counts and displacements: per receive block for allgatherv, per block on both sides
   * for alltoallv and alltoallw (whose displacements are MPI_Aint), none for the fixed-size
   * collectives. Alltoallw's types: MPI_BYTE, as many as the largest degree. */
  size_t nints = 0, naints = 0, ntypes = 0;
  for (int r = 0; r < nranks; r++) {
    size_t in = (size_t)topos[r]->indegree, out = (size_t)topos[r]->outdegree;
    if (kind == NHOOD_ALLGATHERV)
      nints += 2 * in;
    else if (kind == NHOOD_ALLTOALLV)
      nints += 2 * (in + out);
    else if (kind == NHOOD_ALLTOALLW) {
      nints += in + out;
      naints += in + out;
      ntypes = in > ntypes ? in : ntypes;
      ntypes = out > ntypes ? out : ntypes;
    }
  }
  call->args = malloc((size_t)nranks * sizeof *call->args);
  call->sendlen = malloc((size_t)nranks * sizeof *call->sendlen);
  call->recvlen = malloc((size_t)nranks * sizeof *call->recvlen);
  call->arrays = malloc((nints > 0 ? nints : 1) * sizeof *call->arrays);
  call->byte_displs = malloc((naints > 0 ? naints : 1) * sizeof *call->byte_displs);
  call->bytes_types = malloc((ntypes > 0 ? ntypes : 1) * sizeof *call->bytes_types);
  if (!call->args || !call->sendlen || !call->recvlen || !call->arrays || !call->byte_displs || !call->bytes_types) {
    snprintf(err, errlen, "out of memory for the arguments of %d rank%s", nranks, cli_plural(nranks));
    sim_call_free(call);
    return 1;
  }
  for (size_t k = 0; k < ntypes; k++) call->bytes_types[k] = MPI_BYTE;
  int *cursor = call->arrays;
  MPI_Aint *bcursor = call->byte_displs;
  for (int r = 0; r < nranks; r++)
    if (init_rank(call, r, &cursor, &bcursor) != 0) {
      snprintf(err, errlen, "rank %d: a buffer of %s with %d-byte blocks exceeds int displacements", r,
               nhood_coll_names[kind], bytes);
      sim_call_free(call);
      return 1;
    }
  return 0;
}

void sim_call_free(sim_call *call) {
  free(call->args);
  free(call->sendlen);
  free(call->recvlen);
  free(call->arrays);
  free(call->byte_displs);
  free(call->bytes_types);
  memset(call, 0, sizeof *call);
}
