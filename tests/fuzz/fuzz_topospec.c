/* Topology SPECs of the tools (tools/common/topospec.c), other than mtx: (fuzz_mtx): a SPEC or
 * an error, and for a SPEC every rank's neighborhood on 1 to 9 ranks, never a crash. rmat:
 * generates its graph while it parses, 16 * 2^scale edges by default: scales above 12 take
 * seconds, so the fuzzer's inputs keep below (the selftest covers the parser's range checks). */
#include <mpi.h>

#include "fuzz_input.h"
#include "topospec.h"

static int too_large(const char *text) {
  if (strncmp(text, "rmat:", 5) != 0) return 0;
  for (const char *at = strstr(text, "scale="); at; at = strstr(at + 1, "scale="))
    if (atoi(at + 6) > 12 || strlen(at + 6) > 2) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size), err[256];
  topospec spec;
  if (strncmp(text, "mtx:", 4) != 0 && !too_large(text) && topospec_parse(text, &spec, err, sizeof err) == 0) {
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
