/*
 * nhood-calibrate as a function, for a program that calibrates in the launch it measures in
 * (nhood-bench --calibrate): the same measurements and files as the tool, from its options.
 */
#ifndef NHOOD_CALIBRATE_RUN_H
#define NHOOD_CALIBRATE_RUN_H

/* Runs nhood-calibrate with argv[1..argc-1] as its options on MPI_COMM_WORLD, which MPI must
 * have been initialized for (it is left initialized); collective. Returns the tool's exit
 * status: 0, 1 (an output could not be written) or 2 (bad options). argv[0] is not read. */
int nhood_calibrate_run(int argc, char **argv);

#include <stddef.h>

/* nhood-calibrate's single calls (the points --sim-model fits nhood-sim's model to), for a
 * program that times them in turns with its own calls: on a machine whose speed changes
 * within seconds, a model fitted to calls made seconds apart from the calls it predicts
 * describes another machine (nhood-bench --sim-reference). */
typedef struct nhood_calib_reference nhood_calib_reference;
/* Collective on MPI_COMM_WORLD. base_path: a model file --sim-model wrote, whose noise, skew and
 * Gcopy the fits keep (its other values start them). NULL, with a message, where it cannot be
 * read on some rank. */
nhood_calib_reference *nhood_calib_reference_create(const char *base_path, char *err, size_t errlen);
int nhood_calib_reference_points(const nhood_calib_reference *r);
/* One blocking call of the point, collective (not timed; aborts on failure). */
void nhood_calib_reference_call(nhood_calib_reference *r, int point);
/* On one rank: fits the model to us[point] (each point's median time over `samples`, the slowest
 * rank's) and writes it to path as --sim-model does; *max_error: the fit's largest relative
 * error. 0, or 1 where the fit or the file failed. */
int nhood_calib_reference_fit(nhood_calib_reference *r, const double *us, int samples, const char *path,
                              double *max_error);
/* Collective. NULL is ignored. */
void nhood_calib_reference_free(nhood_calib_reference *r);

#endif
