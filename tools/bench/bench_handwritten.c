/* nhood-bench's "isend": the exchange as an application writes it without neighborhood
 * collectives, the yardstick of nhood's direct (issue 37): one MPI_Irecv per source, one
 * MPI_Isend per destination, one MPI_Waitall, with the request array kept between calls as
 * such a program keeps it. The blocks are laid out as the exchange's per-block counts and
 * displacements say, for every collective (bench.h). */
#include "bench.h"

#include <stdlib.h>

int handwritten_call(const neighborhood *nb, const exchange *x) {
  static MPI_Request *requests;
  static int capacity;
  const topospec_rank *l = &nb->lists;
  int n = l->indegree + l->outdegree, rc = MPI_SUCCESS;
  if (n > capacity) {
    requests = xrealloc(requests, (size_t)n * sizeof *requests);
    capacity = n;
  }
  for (int i = 0; i < l->indegree && rc == MPI_SUCCESS; i++)
    rc = MPI_Irecv(x->recvbuf + x->rdispls[i], x->recvcounts[i], MPI_BYTE, l->sources[i], 0, nb->graph_comm,
                   &requests[i]);
  for (int j = 0; j < l->outdegree && rc == MPI_SUCCESS; j++) {
    int gather = x->coll == COLL_ALLGATHER || x->coll == COLL_ALLGATHERV; /* one block for all */
    rc = MPI_Isend(gather ? x->sendbuf : x->sendbuf + x->sdispls[j], gather ? x->sendcount : x->sendcounts[j], MPI_BYTE,
                   l->destinations[j], 0, nb->graph_comm, &requests[l->indegree + j]);
  }
  /* Through a volatile object, as unweighted(): MPICH's MPI_STATUSES_IGNORE is a constant
   * address that GCC 12 takes for an empty array (-Wstringop-overflow). */
  MPI_Status *volatile ignore = MPI_STATUSES_IGNORE;
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, requests, ignore);
  return rc;
}
