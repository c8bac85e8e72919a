/*
 * libnhood-mpi: the interposition library. Unmodified programs that call MPI_Neighbor_*
 * get nhood through the MPI profiling interface: this library defines those functions (and
 * the request functions that must understand nhood's requests), runs them with nhood's
 * public API, and forwards everything else to PMPI_*. It is a layer above the API: it uses
 * nhood.h only (and common/hot.h's compiler attributes). Its copy of nhood calls MPI by the PMPI names of the functions
 * defined here (pmpi_calls.h), so nhood's own traffic never comes back through them.
 *
 *   collectives.c  the neighborhood collectives: blocking, non-blocking, persistent
 *   requests.c     MPI requests for nhood's requests, and every request function
 *   fortran.c      the Fortran request functions, MPI_COMM_FREE and MPI_FINALIZE (both MPIs)
 *   fortran_openmpi.c  Open MPI's Fortran collectives (MPICH's call the C names)
 *   fortran_mpich.c  MPICH's mpi_f08 collectives (their buffers come as gfortran descriptors)
 *   control.c      NHOOD_INTERPOSE, cold communicators and the topology cached on one, errors
 *                  as MPI raises them, NHOOD_STATS, freeing a communicator and MPI_Finalize
 *   comm_table.c   the communicators' states, by handle
 */
#ifndef NHOOD_INTERPOSE_INTERPOSE_H
#define NHOOD_INTERPOSE_INTERPOSE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "api/payback.h" /* nhood_payback */
#include "common/hot.h"  /* NHOOD_FAST_TLS */
#include "nhood.h"
#include "selection/cold.h" /* NHOOD_COLD_PROBE_WINDOW */

/* The collectives, for statistics. */
typedef enum { IP_ALLGATHER, IP_ALLGATHERV, IP_ALLTOALL, IP_ALLTOALLV, IP_ALLTOALLW, IP_NCOLLS } ip_coll;
typedef enum { IP_BLOCKING, IP_NONBLOCKING, IP_PERSISTENT, IP_NMODES } ip_mode;

/* The most calls between posting an asking's allreduce and reading its verdict (control.c,
 * ip_ask): half of NHOOD_COLD's first check, at most this. */
#define IP_ASK_LAG 8

/* Blocking calls timed per window of the probation (control.c). */
#define IP_PROBE_WINDOW NHOOD_COLD_PROBE_WINDOW

/* What the interposition library keeps on a communicator with a process topology, from its
 * first neighborhood collective (in comm_table.c, by handle: every way of freeing a
 * communicator frees it, control.c; a duplicate has a handle of its own and starts afresh). */
typedef struct ip_comm {
  NHOOD_Topo topo; /* derived from the communicator when first needed; NHOOD_TOPO_NULL before */
  int slot;        /* its row of statistics */
  int hot;         /* nhood runs its calls; until then they are MPI's own (cold) */
  long calls;      /* neighborhood collectives made on it: the same count on every process */
  long next;       /* the count at which the cold path asks again (or takes over, take_over) */
  int take_over;   /* the last verdict: nhood takes over at `next` */
  int asked;       /* the cold path asked about it at least once */
  int asked_coll;  /* ip_coll of the call that asked last, and its block size here */
  double asked_block;
  /* Probation (docs/DESIGN-NOTES.md, "Cold communicators"): the blocking calls of two windows
   * timed on this process, MPI's own just before nhood took over and nhood's once its trial is
   * over; at call `probe_at` (0: none pending) one allreduce judges them. */
  long window_from; /* the windows' calls are counted from here on (0: none) */
  long probe_at;
  double seconds[2][IP_PROBE_WINDOW]; /* MPI's own, nhood's: the last calls timed, in a ring */
  int timed[2];
  /* nhood's set-up, measured: its blocking calls from the take-over up to its window (the
   * first call's set-up and the trial), timed, their sum and number. */
  long time_from; /* calls counted from here on are timed: window_from, or the take-over */
  double setup_seconds;
  int setup_calls;
  /* Calls counted below this one go straight to MPI's own (ip_cold_quick): while cold, before
   * the next asking and the probation's timing, without NHOOD_STATS; 0 otherwise. */
  long quick_until;
  /* The asking in flight (control.c, ip_ask): its allreduce was posted at one call and is
   * completed at `next`, a few calls later, or where comm is freed, or at MPI_Finalize;
   * MPI_REQUEST_NULL when none. */
  MPI_Request ask_request;
  nhood_payback ask;
} ip_comm;

/* The states by handle (comm_table.c), thread-safe. A communicator's state is added at its
 * first neighborhood collective and removed before MPI frees it (control.c intercepts
 * MPI_Comm_free and MPI_Comm_disconnect under both their names, so that a library calling
 * PMPI_Comm_free directly cannot leave a state behind for the next communicator given the
 * same handle: that one's calls would be counted from the old count on some processes only,
 * and the cold path's decisions, taken at counts, would differ between them).
 * ip_table_add fails with MPI_ERR_NO_MEM only; ip_table_remove_any takes some state and its
 * handle out (NULL once empty; the table's memory goes with the last). */
ip_comm *ip_table_find(MPI_Comm comm);
int ip_table_add(MPI_Comm comm, ip_comm *state);
ip_comm *ip_table_remove(MPI_Comm comm);
ip_comm *ip_table_remove_any(MPI_Comm *comm);
extern atomic_size_t ip_table_size; /* how many states: 0 lets a free skip the lock */

/* The communicator a thread last called a collective on, with its state, so that a repeated
 * call skips the table's lookup and its lock (cold after each context switch when processes
 * share cores; common/hot.h). Freeing any communicator that has a state advances
 * ip_generation, which voids every thread's memo: a freed communicator's handle may come back
 * for another one. */
typedef struct {
  MPI_Comm comm;
  unsigned generation; /* 0: empty (ip_generation starts at 1) */
  ip_comm *state;
  /* comm's Fortran handle once a Fortran call named it, as IP_F_KEY makes it (0: none), so that
   * a repeated call from Fortran skips MPI_Comm_f2c (fortran_openmpi.c): the handle stays comm's
   * until comm is freed, which advances ip_generation since comm has a state. */
  uint64_t fortran;
} ip_route_memo;
extern _Thread_local ip_route_memo ip_memo NHOOD_FAST_TLS;
extern atomic_uint ip_generation;

/* The cold call that needs nothing but its count (blocking and non-blocking): 1 where comm is
 * this thread's last communicator and its call, counted now, goes straight to MPI's own;
 * else 0, and ip_route decides (ip_cold_quick_state: the count alone, where the caller has
 * checked the memo). Inlined into every collective: the whole of nhood's cost on
 * most calls of a program's short-lived communicators. */
static inline int ip_cold_quick_state(ip_comm *c) {
  if (c->calls + 1 >= c->quick_until) return 0;
  c->calls++;
  return 1;
}
static inline int ip_cold_quick(MPI_Comm comm) {
  if (ip_memo.comm != comm || ip_memo.generation != atomic_load_explicit(&ip_generation, memory_order_acquire))
    return 0;
  return ip_cold_quick_state(ip_memo.state);
}

/* Where a call goes: MPI's own, nhood, ask first (ip_ask) whether nhood's set-up pays, or judge
 * nhood's calls against MPI's own first (ip_probe). */
typedef enum { IP_TO_MPI, IP_TO_NHOOD, IP_TO_ASK, IP_TO_PROBE } ip_route_to;

/* Where comm's call goes, with comm's state in *c (except for IP_TO_MPI without a topology):
 * IP_TO_MPI where NHOOD_INTERPOSE=off, where comm has no process topology (MPI then reports the
 * error as it does) and on a cold communicator (selection/cold.h; NHOOD_COLD); IP_TO_NHOOD
 * once nhood runs comm's calls (a persistent init makes it so), with c->topo derived; IP_TO_ASK
 * at the call count where the cold path asks. A failure (deriving the topology, memory) is
 * raised on comm and returned in *rc with IP_TO_NHOOD. */
ip_route_to ip_route(MPI_Comm comm, int persistent, ip_comm **c, int *rc);
/* For IP_TO_ASK: agrees with the other processes (one allreduce on comm) whether nhood's
 * set-up pays back, this call being `coll` with blocks of block_bytes here (the mean for v and
 * w). The asking call itself stays MPI's own (IP_TO_MPI) whatever the verdict: where nhood is
 * to take over, it does so at c->next, after a window of MPI's own calls timed for the
 * probation. A failure is raised on comm and returned in *rc with IP_TO_NHOOD (the caller then
 * returns *rc). */
ip_route_to ip_ask(MPI_Comm comm, ip_comm *c, ip_coll coll, double block_bytes, int *rc);
/* For IP_TO_PROBE: agrees (one allreduce on comm) whether nhood's timed calls were slower than
 * MPI's own; if so comm goes back to MPI's own for good and this call is MPI's own
 * (IP_TO_MPI), else nhood runs it (IP_TO_NHOOD). A failure is raised on comm and returned in
 * *rc with IP_TO_NHOOD. */
ip_route_to ip_probe(MPI_Comm comm, ip_comm *c, int *rc);
/* Whether this blocking call on c is timed for the probation, and its record (hot: nhood ran
 * it; before nhood's window, a call of its set-up). */
static inline int ip_probing(const ip_comm *c) { return c != NULL && c->window_from > 0 && c->calls >= c->time_from; }
void ip_probe_record(ip_comm *c, int hot, double seconds);

/* Reports rc (an MPI error class from nhood, with NHOOD_Error_message) as MPI would: through
 * comm's error handler. With MPI_ERRORS_ARE_FATAL the program stops after nhood's message is
 * printed; with MPI_ERRORS_RETURN rc comes back. MPI_SUCCESS passes through. */
int ip_raise(MPI_Comm comm, int rc, const char *function);
/* The same with a message of the caller's (errors found here, not by nhood). */
int ip_raise_message(MPI_Comm comm, int rc, const char *function, const char *message);

/* Statistics (NHOOD_STATS=1): whether they are kept, the clock, and one call's record on the
 * communicator of statistics slot `slot` (ip_comm's; algorithm NULL: a cold call). */
int ip_stats_on(void);
double ip_stats_clock(void);
void ip_stats_record(int slot, ip_coll coll, ip_mode mode, const char *algorithm, double block_bytes, double seconds);
/* How "auto" chose (NHOOD_Selection_info) where it measured: `where` says for what; each
 * pair is kept once. */
void ip_stats_selection(const char *where, const char *text);

/* An MPI request for nhood's request `nreq` (non-blocking, running; or persistent, inactive)
 * in *request. On failure nreq is freed. */
int ip_request_wrap(NHOOD_Request nreq, int persistent, MPI_Request *request);

#endif
