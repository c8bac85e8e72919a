/* NHOOD_TUNE rules and the nhood_tune info value (selection/tune.c): a valid rule set or an
 * error with a message, never a crash; a parsed set answers every collective and size. */
#include <mpi.h>

#include "fuzz_input.h"
#include "selection/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *rules = fuzz_string(data, size);
  nhood_tune_rules parsed;
  if (nhood_tune_parse(rules, "NHOOD_TUNE", &parsed) == MPI_SUCCESS) {
    static const double sizes[] = {0, 1, 1023, 1024, 65536, 1e9, 1e300};
    for (int k = 0; k < NHOOD_NCOLLS; k++)
      for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++) (void)nhood_tune_match(&parsed, k, sizes[b]);
    nhood_tune_free(&parsed);
  }
  char name[NHOOD_ALGORITHM_NAME_MAX];
  (void)nhood_tune_lookup(rules, "info key nhood_tune", NHOOD_ALLGATHER, 4, name);
  free(rules);
  return 0;
}
