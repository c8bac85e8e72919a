#include "pattern/bsp.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

int *nhood_bsp_send_reserve(nhood_bsp_outbox *out, int dest, int count) {
  size_t needed = out->nwords + 2 + (size_t)count;
  if (needed > out->capacity) {
    size_t capacity = out->capacity ? out->capacity : 64;
    while (capacity < needed) capacity *= 2;
    int *bigger = realloc(out->words, capacity * sizeof(int));
    if (!bigger) return NULL;
    out->words = bigger;
    out->capacity = capacity;
  }
  int *record = out->words + out->nwords;
  record[0] = dest;
  record[1] = count;
  out->nwords = needed;
  out->nmessages++;
  return record + 2;
}

int nhood_bsp_send(nhood_bsp_outbox *out, int dest, const int *data, int count) {
  int *payload = nhood_bsp_send_reserve(out, dest, count);
  if (!payload) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a pattern message of %d ints", count);
  if (count) memcpy(payload, data, sizeof(int) * (size_t)count);
  return MPI_SUCCESS;
}

void nhood_bsp_stats_free(nhood_bsp_stats *stats) {
  free(stats->step_msgs);
  free(stats->step_recv_msgs);
  free(stats->step_bytes);
  free(stats->step_compute_s);
  memset(stats, 0, sizeof *stats);
}
