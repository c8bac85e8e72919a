/* Topology SPECs of the tools (tools/common/topospec.c), other than mtx: (fuzz_mtx): a SPEC or
 * an error, and for a SPEC every rank's neighborhood on 1 to 9 ranks, never a crash. */
#include <mpi.h>

#include "fuzz_input.h"
#include "topospec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size), err[256];
  topospec spec;
  if (strncmp(text, "mtx:", 4) != 0 && topospec_parse(text, &spec, err, sizeof err) == 0) {
    for (int nranks = 1; nranks <= 9; nranks += 4)
      for (int rank = 0; rank < nranks; rank++) {
        topospec_rank r;
        if (topospec_for_rank(&spec, rank, nranks, &r, err, sizeof err) == 0) topospec_rank_free(&r);
      }
    topospec_free(&spec);
  }
  free(text);
  return 0;
}
