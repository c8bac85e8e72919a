/* The Matrix Market reader behind mtx: SPECs (tools/common/topospec_mtx.c): a matrix or an error,
 * and for a matrix the halo exchange of every rank on 1 to 4 ranks, never a crash. */
#include <mpi.h>

#include "fuzz_input.h"
#include "topospec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char spec_text[96], err[256];
  snprintf(spec_text, sizeof spec_text, "mtx:%s", fuzz_file(data, size));
  topospec spec;
  if (topospec_parse(spec_text, &spec, err, sizeof err) == 0) {
    for (int nranks = 1; nranks <= 4; nranks++)
      for (int rank = 0; rank < nranks; rank++) {
        topospec_rank r;
        if (topospec_for_rank(&spec, rank, nranks, &r, err, sizeof err) == 0) topospec_rank_free(&r);
      }
    topospec_free(&spec);
  }
  return 0;
}
