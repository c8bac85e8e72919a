/*
 * libnhood-mpi: the interposition library. Unmodified programs that call MPI_Neighbor_*
 * get nhood through the MPI profiling interface: this library defines those functions (and
 * the request functions that must understand nhood's requests), runs them with nhood's
 * public API, and forwards everything else to PMPI_*. It is a layer above the API: it uses
 * nhood.h, and what the core gives this library alone through internal headers (the argument
 * checks and the large-count lowering, api/coll_check.h and api/large_count.h; the cold path's
 * questions, api/payback.h and selection/cold.h; common/hot.h's attributes). Its copy of nhood
 * calls the functions defined here by other names (pmpi_calls.h), so nhood's own traffic
 * never comes back through them.
 *
 *   functions.h    MPI's neighborhood collectives and their arguments: the one list the
 *                  entry points below (C and Fortran) and the renames of pmpi_calls.h are
 *                  generated from
 *   collectives.c  the neighborhood collectives: blocking, non-blocking, persistent
 *   large_count.c  their large-count forms (MPI_Neighbor_*_c)
 *   route.h        what every one of them does: its route, its body, its arguments' checks
 *   requests.c     MPI requests for nhood's requests, and every request function
 *   fortran.c      the Fortran request functions, MPI_COMM_FREE and MPI_FINALIZE (both MPIs)
 *   fortran_openmpi.c  Open MPI's Fortran collectives (MPICH's call the C names)
 *   fortran_mpich.c  MPICH's mpi_f08 collectives (their buffers come as gfortran descriptors)
 *   control.c      NHOOD_INTERPOSE, where a call goes, the state kept on a communicator from
 *                  its first call to its freeing, and MPI_Finalize
 *   probation.c    the cold path's asking (does nhood's set-up pay back?) and probation
 *   stats.c        NHOOD_STATS
 *   errors.c       errors raised as MPI raises them
 *   comm_table.c   the communicators' states, by handle
 *   own_right.c    where MPI's own collective is right on a cold communicator
 *   proc_null.c    distributed graphs with MPI_PROC_NULL neighbors, on Open MPI
 */
#ifndef NHOOD_INTERPOSE_INTERPOSE_H
#define NHOOD_INTERPOSE_INTERPOSE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "api/coll_check.h"  /* nhood_coll_check */
#include "api/large_count.h" /* nhood_coll_args_c */
#include "api/payback.h"     /* nhood_payback */
#include "common/hot.h"      /* NHOOD_FAST_TLS */
#include "common/mpi_util.h" /* NHOOD_OR_EMPTY */
#include "interpose/functions.h"
#include "interpose/mpi_own.h"
#include "nhood.h"
#include "selection/cold.h" /* NHOOD_COLD_PROBE_WINDOW */

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Neighbor_*_init */
#endif

/* The persistent neighborhood collectives: MPI-4's, or Open MPI 4's MPIX_ extension. */
#if defined(NHOOD_HAVE_MPI_NEIGHBOR_INIT)
#define IP_PERSISTENT(coll) MPI_Neighbor_##coll##_init
#define IP_PMPI_PERSISTENT(coll) PMPI_Neighbor_##coll##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define IP_PERSISTENT(coll) MPIX_Neighbor_##coll##_init
#define IP_PMPI_PERSISTENT(coll) PMPIX_Neighbor_##coll##_init
#endif

/* The collectives (functions.h's list), for statistics and the cold path's tables. */
#define IP_COLL_ENUM(name, NAME, SHAPE) IP_##NAME,
typedef enum { IP_NEIGHBOR_COLLECTIVES(IP_COLL_ENUM) IP_NCOLLS } ip_coll;
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
  /* While cold (own_right.c): this process's degrees, for the argument screen (ip_plain_*),
   * and the collectives (bits by ip_coll) whose MPI's own is not known to give the MPI-4.1
   * result on this communicator: those run nhood's direct on direct_topo instead. */
  int indegree, outdegree;
  unsigned own_wrong;
  /* Where MPI has this process's lists without their MPI_PROC_NULL entries (proc_null.c): what
   * the process gave, for MPI's own calls to be rewritten; NULL otherwise. */
  const struct ip_stripped *stripped;
  NHOOD_Topo direct_topo; /* with nhood_algorithm direct, derived at the first such call */
  int hot;                /* nhood runs its calls; until then they are MPI's own (cold) */
  long calls;             /* neighborhood collectives made on it: the same count on every process */
  long next;              /* the count at which the cold path asks again (or takes over, take_over) */
  int take_over;          /* the last verdict: nhood takes over at `next` */
  int asked;              /* the cold path asked about it at least once */
  int asked_coll;         /* ip_coll of the call that asked last, and its block size here */
  double asked_block;
  /* Probation (docs/ARCHITECTURE.md, "The cold path"): the blocking calls of two windows
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
  /* Calls counted below this one go straight to MPI's own (IP_COLD_TAKE): while cold, before
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

/* The cold call that needs nothing but its count (blocking and non-blocking): comm's state
 * where comm is this thread's last communicator (else NULL, and ip_route decides), and whether
 * its call, counted now, may go straight to MPI's own (the caller then checks that MPI's own is
 * right for it and its arguments plain, and counts it: c->calls++). Inlined into every
 * collective: the whole of nhood's cost on most calls of a program's short-lived
 * communicators. */
static inline ip_comm *ip_memo_state(MPI_Comm comm) {
  if (ip_memo.comm != comm || ip_memo.generation != atomic_load_explicit(&ip_generation, memory_order_acquire))
    return NULL;
  return ip_memo.state;
}
static inline int ip_cold_quick_state(const ip_comm *c) { return c->calls + 1 < c->quick_until; }
/* The whole test, counting the call where it passes: c (ip_memo_state's) quick, MPI's own right
 * for `coll` on it, and the arguments plain (an expression, read last). */
#define IP_COLD_TAKE(c, coll, plain) \
  ((c) != NULL && ip_cold_quick_state(c) && !((c)->own_wrong & (1u << (coll))) && (plain) && ((c)->calls++, 1))

/* Fills c's degrees and own_wrong from comm's topology (kind: MPI_Topo_test's): local queries,
 * and on a distributed graph, where this MPI gets a property of neighbor lists wrong, one
 * allreduce on comm so that every process finds the same. An MPI error code on failure. */
int ip_own_right(MPI_Comm comm, int kind, ip_comm *c);
/* Whether the library runs calls at all and starts communicators cold (ip_own_right is then
 * read at their first call); own_right.c's creation of distributed graphs asks. */
int ip_cold_path_on(void);
/* At MPI_Finalize: frees what own_right.c made of MPI's (the keyval of the agreement kept on
 * distributed graphs). */
void ip_own_right_finalize(void);

/* proc_null.c: a distributed graph made where this MPI's only fault with lists is MPI_PROC_NULL
 * (own_right.c decides): MPI gets this process's lists without MPI_PROC_NULL, the graph keeps
 * the lists as given. ip_stripped_of: what comm keeps (NULL: MPI has its lists as given).
 * ip_own_stripped: MPI's own collective `a` in `mode`, rewritten for MPI's lists (info and
 * request as the persistent and non-blocking forms take them). ip_stripped_finalize: at
 * MPI_Finalize. The functions nhood's copy calls instead of the interposed ones: mpi_own.h. */
struct ip_stripped;
int ip_stripped_create(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree,
                       const int destinations[], const int destweights[], MPI_Info info, int reorder,
                       MPI_Comm *comm_dist_graph);
const struct ip_stripped *ip_stripped_of(MPI_Comm comm);
/* ip_stripped_mark_unknown: marks a graph made from edges, whose lists MPI has as given (0 from
 * ip_stripped_lists_known, which is 1 for every other communicator). */
int ip_stripped_mark_unknown(MPI_Comm comm);
int ip_stripped_lists_known(MPI_Comm comm);
int ip_own_stripped(MPI_Comm comm, const struct ip_stripped *s, nhood_coll_args a, ip_mode mode, MPI_Info info,
                    MPI_Request *request);
/* Graphs are not stripped where MPI has the large-count forms (own_right.c), so a large-count
 * call never meets one: this one says so, as an internal error. */
int ip_own_stripped_c(MPI_Comm comm, const struct ip_stripped *s, nhood_coll_args_c a, ip_mode mode, MPI_Info info,
                      MPI_Request *request);
#define IP_OWN_STRIPPED(comm, s, a, mode, info, request) \
  _Generic((a), nhood_coll_args_c : ip_own_stripped_c, default : ip_own_stripped)(comm, s, a, mode, info, request)
void ip_stripped_finalize(void);

/* MPI's own function `name` (a PMPI name this library defines too, as `ours`): the next
 * definition after this library's. Aborts where there is none. */
typedef void ip_any_fn(void);
ip_any_fn *ip_mpi_own(const char *name, ip_any_fn *ours);

/* A cold call's arguments are plain where nhood's argument checks cannot fail on them: no
 * buffer NULL or MPI_IN_PLACE, no negative count, no array NULL, no datatype
 * MPI_DATATYPE_NULL. Calls that are not plain are checked in full before MPI's own may run
 * them (ip_check_cold). A few comparisons, and one pass over the counts of a v or w call. */
static inline int ip_plain_buffers(const void *sendbuf, const void *recvbuf) {
  return sendbuf != NULL && recvbuf != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE;
}
static inline int ip_plain_ints(const int *counts, int degree) {
  if (counts == NULL) return 0;
  for (int k = 0; k < degree; k++)
    if (counts[k] < 0) return 0;
  return 1;
}
static inline int ip_plain_counts_c(const MPI_Count *counts, int degree) {
  if (counts == NULL) return 0;
  for (int k = 0; k < degree; k++)
    if (counts[k] < 0) return 0;
  return 1;
}
/* Either kind of count array: int, or MPI_Count (the large-count forms). */
#define ip_plain_counts(counts, degree) \
  _Generic((counts), const MPI_Count *: ip_plain_counts_c, MPI_Count *: ip_plain_counts_c, default: ip_plain_ints)( \
      counts, degree)
static inline int ip_plain_types(const MPI_Datatype *types, int degree) {
  if (types == NULL) return 0;
  for (int k = 0; k < degree; k++)
    if (types[k] == MPI_DATATYPE_NULL) return 0;
  return 1;
}
/* Runs nhood's argument checks (with comm's topology object, derived now if need be) on a cold
 * call `a` that is not plain; an error is raised on comm as nhood's API
 * reports it, and returned. */
int ip_check_cold(MPI_Comm comm, ip_comm *c, nhood_coll_args a, const char *function);
/* The same for a large-count call (lowered first, api/large_count.h); IP_CHECK_COLD picks. */
int ip_check_cold_c(MPI_Comm comm, ip_comm *c, nhood_coll_args_c a, const char *function);
#define IP_CHECK_COLD(comm, c, a, function) \
  _Generic((a), nhood_coll_args_c : ip_check_cold_c, default : ip_check_cold)(comm, c, a, function)
/* The topology object a cold call of c runs nhood's direct on (derived at the first). */
int ip_direct_topo(MPI_Comm comm, ip_comm *c, NHOOD_Topo *topo);

/* Where a call goes: MPI's own, nhood, ask first (ip_ask) whether nhood's set-up pays, or judge
 * nhood's calls against MPI's own first (ip_probe); IP_TO_DIRECT is a cold call that MPI's own
 * would get wrong (own_wrong), which nhood's direct runs in its place. */
typedef enum { IP_TO_MPI, IP_TO_NHOOD, IP_TO_ASK, IP_TO_PROBE, IP_TO_DIRECT } ip_route_to;

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
/* probation.c, for ip_route and the freeing of a state (control.c): the asking's verdict where
 * every process knows it without an allreduce (no call can gain: MPI's own for good); nhood
 * taking over at this call, on probation; an asking in flight completed (its verdict to
 * NHOOD_STATS only, with `report`); and the set-up of a communicator freed before its probation
 * judged it, recorded for the next of its shape. */
ip_route_to ip_known_idle(ip_comm *c);
void ip_take_over_now(ip_comm *c);
int ip_settle_ask(ip_comm *c, int report);
void ip_record_unjudged(MPI_Comm comm, ip_comm *c);
/* control.c's settings, read once: NHOOD_COLD's first asking (0: no cold path) and the calls
 * from posting an asking to reading its verdict; c->quick_until after a change of c's route;
 * the collectives' names. */
long ip_cold_first_check(void);
long ip_cold_ask_lag(void);
void ip_set_quick(ip_comm *c);
extern const char *const ip_coll_names[IP_NCOLLS];

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

/* Statistics (NHOOD_STATS=1; stats.c): whether they are kept, the clock, and one call's record
 * on the communicator of statistics slot `slot` (ip_comm's; algorithm NULL: a cold call). A
 * communicator's slot, labelled with its topology; the sentences of its cold verdicts (why,
 * replaced or appended to) and of its probation; the table, printed by rank 0 at MPI_Finalize. */
int ip_stats_on(void);
double ip_stats_clock(void);
void ip_stats_record(int slot, ip_coll coll, ip_mode mode, const char *algorithm, double block_bytes, double seconds);
int ip_stats_slot(MPI_Comm comm);
void ip_stats_why(int slot, const char *why);
void ip_stats_why_append(int slot, const char *more);
void ip_stats_probation(int slot, const char *why);
void ip_stats_print(void);
/* How "auto" chose (NHOOD_Selection_info) where it measured: `where` says for what; each
 * pair is kept once. */
void ip_stats_selection(const char *where, const char *text);

/* An MPI request for nhood's request `nreq` (non-blocking, running; or persistent, inactive)
 * in *request. On failure nreq is freed. */
int ip_request_wrap(NHOOD_Request nreq, int persistent, MPI_Request *request);

#endif
