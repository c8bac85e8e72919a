/* The info values nhood reads (nhood_algorithm, nhood_assert_isomorphic_sizes, nhood_tune) at
 * topology creation and persistent init: an error with a message, or a topology and request
 * that run an allgather on MPI_COMM_SELF under what the values chose, never a crash.
 *
 * Input: up to four lines, the values of nhood_algorithm, nhood_assert_isomorphic_sizes and
 * nhood_tune at creation, and nhood_tune at persistent init; an empty or missing line leaves
 * that key unset. MPI is initialized once, before the first input, and never finalized: what
 * Open MPI keeps from MPI_Init is in the suppressions of tests/sanitizers/lsan.supp. */
#include <mpi.h>

#include "fuzz_input.h"
#include "nhood.h"

static const char *const keys[4] = {NHOOD_INFO_ALGORITHM, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, NHOOD_INFO_TUNE,
                                    NHOOD_INFO_TUNE};

/* The next line of *rest (NUL-terminated in place), advancing *rest past it; NULL at the end. */
static char *next_line(char **rest) {
  char *line = *rest;
  if (line == NULL) return NULL;
  char *end = strchr(line, '\n');
  *rest = end ? (*end = '\0', end + 1) : NULL;
  return line;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return MPI_Init(NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size), *rest = text;
  MPI_Info info[2];
  MPI_Info_create(&info[0]);
  MPI_Info_create(&info[1]);
  for (int k = 0; k < 4; k++) {
    char *v = next_line(&rest);
    if (v && v[0] != '\0' && strlen(v) < MPI_MAX_INFO_VAL) MPI_Info_set(info[k == 3], keys[k], v);
  }
  int x = 7, got[2] = {0, 0};
  const int twice[2] = {0, 0};
  NHOOD_Topo topo = NHOOD_TOPO_NULL;
  if (NHOOD_Topo_create_adjacent(2, twice, MPI_UNWEIGHTED, 2, twice, MPI_UNWEIGHTED, info[0], &topo) == MPI_SUCCESS) {
    if (NHOOD_Neighbor_allgather(&x, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_SELF, topo) == MPI_SUCCESS &&
        (got[0] != 7 || got[1] != 7))
      abort(); /* wrong data */
    NHOOD_Request req = NHOOD_REQUEST_NULL;
    if (NHOOD_Neighbor_allgather_init(&x, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_SELF, topo, info[1], &req) ==
        MPI_SUCCESS) {
      got[0] = got[1] = 0;
      if (NHOOD_Start(&req) != MPI_SUCCESS || NHOOD_Wait(&req) != MPI_SUCCESS || got[0] != 7 || got[1] != 7) abort();
      if (NHOOD_Request_free(&req) != MPI_SUCCESS) abort();
    }
    if (NHOOD_Topo_free(&topo) != MPI_SUCCESS) abort();
  }
  MPI_Info_free(&info[0]);
  MPI_Info_free(&info[1]);
  free(text);
  return 0;
}
