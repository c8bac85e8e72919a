/* NHOOD_PARAMS files (common/cost_model.c): parameters or an error naming the line, never a
 * crash; what parses is checked for validity and priced. */
#include <mpi.h>

#include "common/cost_model.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nhood_cost_params p;
  char err[256];
  nhood_cost_params_default(&p);
  if (nhood_cost_params_read(fuzz_file(data, size), &p, err, sizeof err) == 0 && nhood_cost_params_valid(&p))
    (void)nhood_cost_round(&p, &(nhood_cost_round_load){.sends = 4,
                                                        .recvs = 4,
                                                        .sent = 4096,
                                                        .received = 4096,
                                                        .copied = 1024,
                                                        .sends_rdv = 1,
                                                        .recvs_rdv = 1,
                                                        .node_sends = 2,
                                                        .node_recvs = 2,
                                                        .node_sent = 512,
                                                        .node_received = 512});
  return 0;
}
