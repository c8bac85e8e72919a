/*
 * Schedules are data: a flat array of operations grouped into rounds, built once for one
 * call's buffers, counts and datatypes, then executed by the engine any number of times
 * (persistent requests re-run the same schedule).
 *
 * Round semantics, relied on by every algorithm: when round r begins, its local operations
 * (copy, reduce) run first, in array order; then its sends and receives are posted; the round
 * ends when all of them complete. So a round's local operations may read what earlier rounds
 * received and prepare what this round sends. A final round may hold only local operations.
 *
 * Buffers are named, not addressed: (user send buffer | user receive buffer | scratch,
 * byte offset), resolved by the engine at start, so a schedule never holds user pointers
 * and one scratch allocation per execution suffices.
 */
#ifndef NHOOD_SCHEDULE_SCHEDULE_H
#define NHOOD_SCHEDULE_SCHEDULE_H

#include <mpi.h>
#include <stdint.h>

typedef enum {
  NHOOD_OP_SEND,
  NHOOD_OP_RECV,
  NHOOD_OP_COPY,   /* source region; the next entry (NHOOD_OP_TARGET) is the target */
  NHOOD_OP_REDUCE, /* the same, with reduce_ops[tag] as the operation */
  NHOOD_OP_TARGET
} nhood_op_kind;
typedef enum { NHOOD_BUF_SEND = 0, NHOOD_BUF_RECV = 1, NHOOD_BUF_SCRATCH = 2, NHOOD_NBUFS = 3 } nhood_buf_id;

/* A typed region of one of the buffers. */
typedef struct {
  MPI_Aint offset; /* bytes from the buffer's base */
  MPI_Datatype type;
  int count;
  int buf;   /* nhood_buf_id */
  int block; /* 1 + the index of the caller's block this region is (send block in the send
              * buffer, receive block in the receive buffer); 0 for other memory. Only for
              * error messages. */
} nhood_region;

/* Largest block index + 1 a schedule entry records (larger ones are reported as unknown). */
#define NHOOD_BLOCK_UNKNOWN UINT16_MAX

/* One entry of a schedule: 32 bytes, so that posting a round reads little memory (with
 * many processes per core, every cache line a call touches is paid again after each context
 * switch). A local operation takes two entries: its source, then its target. */
typedef struct {
  MPI_Aint offset;
  MPI_Datatype type;
  int count;
  int peer;       /* send / recv: rank in the communicator */
  int tag;        /* send / recv: offset in the call's tag window; reduce: index into reduce_ops */
  uint8_t kind;   /* nhood_op_kind */
  uint8_t buf;    /* nhood_buf_id */
  uint16_t block; /* nhood_region's block, NHOOD_BLOCK_UNKNOWN when it does not fit */
} nhood_op;

_Static_assert(sizeof(nhood_op) <= 32, "schedule entries should stay within 32 bytes");

typedef struct nhood_sched {
  const char *algorithm;
  nhood_op *ops;
  int nops, ops_capacity;
  /* Round r holds entries [r ? round_end[r-1] : 0, round_end[r]); nhood_sched_finish
   * orders each round's local operations first, and its communication from comm_begin[r]
   * (receives, then sends). */
  int *round_end, *comm_begin;
  int nrounds, rounds_capacity;
  MPI_Op *reduce_ops;
  int nreduce_ops, reduce_ops_capacity;
  int ntags; /* size of the tag window a call needs: the same on every process, as the
              * windows of later calls follow from it */
  MPI_Aint scratch_bytes;
  /* Summary, filled by nhood_sched_finish. */
  int nsends, nrecvs, comm_rounds;
  int max_comm_per_round; /* sizes the engine's request array */
  /* Derived datatypes the schedule holds duplicates of (see nhood_sched_own_types). */
  MPI_Datatype *owned_types;
  int nowned;
} nhood_sched;

/* Starts an empty schedule with room for about expected_ops operations. */
int nhood_sched_init(nhood_sched *s, const char *algorithm, int expected_ops, int ntags);
int nhood_sched_send(nhood_sched *s, int peer, int tag, nhood_region data);
int nhood_sched_recv(nhood_sched *s, int peer, int tag, nhood_region data);
int nhood_sched_copy(nhood_sched *s, nhood_region from, nhood_region to);
int nhood_sched_reduce(nhood_sched *s, nhood_region from, nhood_region to, MPI_Op op);
/* Ends the current round; the next operation starts a new one. */
int nhood_sched_fence(nhood_sched *s);
/* Closes the last round, orders each round's entries as they run (local operations, then
 * receives, then sends, keeping the order within each group) and computes the summary. */
int nhood_sched_finish(nhood_sched *s);
/* After finish, for the process whose rank the schedule's peers call `self`: each round's
 * messages to itself become local copies, the i-th receive of a tag from the i-th send of it
 * (as MPI matches them), the round's copies running before its messages as local operations
 * do. MPI runs a message to oneself as any other (matching, and above its eager limit a
 * handshake: Open MPI's is 1 KiB); a copy is a memcpy. A round whose messages to itself do not
 * all pair within it is left as it is. MPI_ERR_NO_MEM, or MPI_SUCCESS. */
int nhood_sched_local_messages(nhood_sched *s, int self);
/* Replaces every derived datatype in the schedule by a duplicate it owns, so the caller may
 * free its datatypes while the schedule lives on (persistent requests). Call after finish. */
int nhood_sched_own_types(nhood_sched *s);
void nhood_sched_free(nhood_sched *s);

#endif
