/*
 * find_step (calibrate_sim.c) on series made by hand: a line with a step between 256 and
 * 512 bytes, as Open MPI 4.1 has on one node; a line without one; a step down; and noise
 * of the size measured here around a step. No MPI_Init: find_step only reads the series.
 */
#include "calibrate.h"

#include <math.h>

#include "unit.h" /* tests/unit: CHECK and the "N passed, N failed" summary */

/* res->step_series as a + b * bytes, plus c above split bytes, plus noise[i]. */
static void series(results *res, double a, double b, double c, int split, const double *noise) {
  for (int i = 0; i < STEP_POINTS; i++)
    res->step_series[i] = a + b * step_sizes[i] + (step_sizes[i] > split ? c : 0) + (noise ? noise[i] : 0);
}

int main(void) {
  static results res;
  series(&res, 0.7, 0.00025, 0.4, 256, NULL);
  find_step(&res);
  CHECK(res.step_bytes == 256 && fabs(res.step_us - 0.4) < 1e-9, "a step of 0.4 above 256: got %g above %g",
        res.step_us, res.step_bytes);
  series(&res, 0.7, 0.00025, 0, 0, NULL);
  find_step(&res);
  CHECK(res.step_bytes == 0 && res.step_us == 0, "a line: no step, got %g above %g", res.step_us, res.step_bytes);
  series(&res, 0.7, 0.00025, -0.4, 256, NULL);
  find_step(&res);
  CHECK(res.step_bytes == 0 && res.step_us == 0, "a step down: none, got %g above %g", res.step_us, res.step_bytes);
  /* A launch of scripts/sim_validate.sh: 64 bytes slower than 128, the step still clear. */
  const double measured[STEP_POINTS] = {0.688, 0.672, 0.890, 0.853, 0.978, 1.364, 1.577, 1.864};
  for (int i = 0; i < STEP_POINTS; i++) res.step_series[i] = measured[i];
  find_step(&res);
  CHECK(res.step_bytes == 256 && res.step_us > 0.3, "measured: a step above 256, got %g above %g", res.step_us,
        res.step_bytes);
  /* Bumps alone, as large as that launch's at 64 and 256 bytes: the best split (above 8 bytes,
   * 0.09 us up) is not significant, no step. */
  const double bumps[STEP_POINTS] = {0, 0, 0.15, 0, 0.15, 0, 0, 0};
  series(&res, 0.7, 0.00025, 0, 0, bumps);
  find_step(&res);
  CHECK(res.step_bytes == 0, "bumps without a step: none, got %g above %g", res.step_us, res.step_bytes);
  return unit_summary("test_step");
}
