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

#endif
