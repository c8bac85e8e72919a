/* Topology creation from adjacency lists (NHOOD_Topo_create_adjacent), with whatever degrees,
 * ranks and weights the input holds, invalid ones included: a topology object that answers
 * every query and reverses, or an error, never a crash. No MPI call is made on this path.
 *
 * Input: byte 0 the in-degree, byte 1 the out-degree (each taken from -2 to 61), byte 2 flags
 * (bit 0: source weights, bit 1: destination weights, bit 2: NULL lists), then 16-bit
 * little-endian values for the lists and weights, read as signed and cycling if short. */
#include <mpi.h>

#include "fuzz_input.h"
#include "nhood.h"

static int value_at(const uint8_t *data, size_t size, size_t *pos) {
  if (size == 0) return 0;
  int lo = data[*pos % size], hi = data[(*pos + 1) % size];
  *pos += 2;
  return (int16_t)(lo | hi << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  int indeg = data[0] % 64 - 2, outdeg = data[1] % 64 - 2, flags = data[2];
  int lists[4][64];
  size_t pos = 3;
  for (int l = 0; l < 4; l++)
    for (int k = 0; k < 64; k++) lists[l][k] = value_at(data + 3, size - 3, &pos);
  for (int k = 0; k < 64; k++) /* some ranks MPI_PROC_NULL */
    if (lists[0][k] == -3) lists[0][k] = MPI_PROC_NULL;
  int null_lists = flags & 4;
  const int *sources = null_lists ? NULL : lists[0], *destinations = null_lists ? NULL : lists[1];
  const int *sw = flags & 1 ? lists[2] : MPI_UNWEIGHTED, *dw = flags & 2 ? lists[3] : MPI_UNWEIGHTED;
  NHOOD_Topo topo = NHOOD_TOPO_NULL, reverse = NHOOD_TOPO_NULL;
  if (NHOOD_Topo_create_adjacent(indeg, sources, sw, outdeg, destinations, dw, MPI_INFO_NULL, &topo) != MPI_SUCCESS)
    return 0;
  int in = 0, out = 0, weighted = 0, s[64], d[64], w1[64], w2[64];
  for (int proc_null = 0; proc_null < 2; proc_null++) {
    if (NHOOD_Topo_degrees(topo, proc_null, &in, &out, &weighted) != MPI_SUCCESS) abort();
    if (in > 64 || out > 64) abort();
    if (NHOOD_Topo_neighbors(topo, proc_null, in, s, w1, out, d, w2) != MPI_SUCCESS) abort();
  }
  if (NHOOD_Topo_reverse(topo, &reverse) != MPI_SUCCESS) abort();
  if (NHOOD_Topo_free(&reverse) != MPI_SUCCESS || NHOOD_Topo_free(&topo) != MPI_SUCCESS) abort();
  return 0;
}
