/*
 * The cost model behind "auto": a prediction of one process's time in a schedule, from the
 * schedule's operation arrays alone, under LogGP-like parameters.
 *
 *   L      latency of a round: from the first injection to the arrival of the last byte (µs)
 *   o      CPU overhead of one message, paid by the sender and again by the receiver (µs)
 *   g      gap between two injections of one process (µs)
 *   G      time per byte of a message (µs/byte); a round's byte time is G times the larger of
 *          the bytes it sends and the bytes it receives
 *   Gcopy  time per byte of a local copy or reduction (µs/byte)
 *   mpi_factor  MPI's own neighborhood collective relative to nhood's direct schedule (both
 *          post one send and one receive per neighbor in MPICH and Open MPI; a value below 1
 *          says the MPI library does that faster)
 *   eager  the largest message (bytes) that MPI sends eagerly; larger ones go by rendezvous,
 *          a handshake before the data (LogGPS's S)
 *   rdv    the extra time of a message larger than eager, at each end, like o (µs; 0: no
 *          rendezvous cost, whatever eager says)
 *   rdv_round  the extra time of a round in which at least one message is larger than eager:
 *          the wait for the handshake, which the round's messages share (µs; 0 in the presets)
 *
 * A round with s sends, r receives, local bytes c, communication bytes max(S, R), and s' sends
 * and r' receives larger than eager takes
 *
 *   Gcopy*c + [s + r > 0] * (L + o*(s + r) + g*max(s - 1, 0) + G*max(S, R))
 *           + rdv*(s' + r') + rdv_round*[s' + r' > 0]
 *
 * The rendezvous term is what lets the model see a schedule's messages cross the eager limit:
 * combining makes few large messages out of many small ones, and past the limit each of them
 * waits for a handshake that the direct schedule's small messages never need (Open MPI's
 * shared-memory limit is 4 KiB). When every message is past it, the schedule with fewer
 * messages pays fewer handshakes. A handshake costs in two ways: CPU work at both ends of each
 * message (rdv), and a wait for the other side to answer, which the messages of one round
 * share (rdv_round). nhood-calibrate tells them apart with rounds of 1 to 16 messages above
 * the limit.
 *
 * and a schedule takes the sum of its rounds. The library decides with the maximum of this
 * over processes (each process predicts its own schedule; an allreduce takes the maximum), a
 * critical-path estimate that ignores waiting between processes; nhood-sim's LogGP evaluator
 * (tools/sim/loggp.h) models that waiting and serves as the check on this simpler model.
 *
 * Parameters come from the file named by NHOOD_PARAMS (written by nhood-calibrate, or by
 * hand) or from the built-in defaults (the "ib-edr" preset). The file holds lines
 * "key = value" with the keys above or "preset = NAME" (ib-edr, shm) as a base that later
 * lines override; '#' starts a comment.
 */
#ifndef NHOOD_SELECTION_COST_H
#define NHOOD_SELECTION_COST_H

#include <stddef.h>
#include <stdio.h>

#include "schedule/schedule.h"

typedef struct nhood_cost_params {
  double L, o, g;    /* µs */
  double G, Gcopy;   /* µs per byte */
  double mpi_factor; /* dimensionless */
  double eager;      /* bytes */
  double rdv;        /* µs per message end */
  double rdv_round;  /* µs per round */
} nhood_cost_params;

/* The named preset (ib-edr: InfiniBand EDR-like; shm: shared memory-like); 0, or 1 when
 * no preset has that name. docs/SIM.md says where the numbers come from. */
int nhood_cost_preset(const char *name, nhood_cost_params *out);
/* "ib-edr, shm" for messages. */
const char *nhood_cost_preset_names(void);
/* The built-in defaults: the ib-edr preset, mpi_factor 1. */
void nhood_cost_params_default(nhood_cost_params *out);

/* Reads a parameter file over *out (keys it does not name keep their values). 0, or 1 with
 * a message naming the file, the line and the problem. */
int nhood_cost_params_read(const char *path, nhood_cost_params *out, char *err, size_t errlen);
/* Writes every parameter in the file format, after the comment lines in `header` (may be
 * NULL; each of its lines gets a "# "). 0, or 1 when writing fails. */
int nhood_cost_params_write(FILE *out, const nhood_cost_params *p, const char *header);

/* The parameters the library decides with: NHOOD_PARAMS's file, read once, or the defaults.
 * *source says which ("built-in (ib-edr)" or the file name). MPI_SUCCESS, or MPI_ERR_OTHER
 * with a message when the file cannot be read (the same answer on every later call). */
int nhood_cost_params_active(const nhood_cost_params **params, const char **source);

/* This process's predicted time (µs) in schedule s, every message and copy scaled by
 * `scale` bytes per schedule byte (schedules built for one-byte blocks predict any block
 * size). Counts of types other than MPI_BYTE are sized with MPI_Type_size. */
double nhood_cost_predict(const nhood_sched *s, const nhood_cost_params *p, double scale);

#endif
