/*
 * The library's private state for one user communicator, cached on it as an attribute:
 * a private duplicate that carries all of nhood's traffic (so user point-to-point messages,
 * even with MPI_ANY_SOURCE/MPI_ANY_TAG, never match ours) and a tag counter that gives each
 * collective call its own window of tags. Calls on one communicator are ordered the same on
 * every process (collective semantics), so every process hands out the same windows.
 *
 * The context is reference counted: the attribute holds one reference (dropped when the user
 * frees the communicator) and every request holds one, so a persistent request outlives
 * MPI_Comm_free of its communicator, as MPI's do. Contexts still attached when MPI_Finalize
 * begins (MPI_COMM_WORLD's, and those of communicators the program never freed) are detached
 * then, so that their duplicates are freed before MPI goes away.
 */
#ifndef NHOOD_COMMON_COMMCTX_H
#define NHOOD_COMMON_COMMCTX_H

#include <mpi.h>
#include <stdatomic.h>

#include "common/cost_model.h"
#include "common/nodes.h"

/* Where the processes of a communicator run: "auto" prices schedules with parameters that
 * fit it (selection/cost.h). */
typedef struct nhood_placement {
  int known;      /* 0 until nhood_commctx_placement filled it */
  int one_node;   /* every process of the communicator shares one node */
  int node_procs; /* processes of the communicator on this process's node */
  int cpus;       /* CPUs online on this process's node */
} nhood_placement;

typedef struct nhood_commctx {
  MPI_Comm comm; /* private duplicate, MPI_ERRORS_RETURN */
  int rank, size;
  int tag_ub;   /* largest tag this MPI accepts */
  int next_tag; /* first tag of the next call's window */
  atomic_int refs;
  atomic_int attached;       /* 0 once the user's communicator was freed (its handle may be reused) */
  MPI_Comm user;             /* the communicator it is attached to, while it is */
  nhood_placement placement; /* filled by nhood_commctx_placement */
  /* The cost model's parameters on this communicator, chosen once from the placement (by
   * selection/learned.c: the selection layer chooses, this layer keeps them). */
  int params_known;
  nhood_cost_params params;
  int nodes_known; /* nodes filled by nhood_commctx_nodes */
  nhood_nodes nodes;
  struct nhood_commctx *prev_attached, *next_attached; /* the contexts attached now */
} nhood_commctx;

/* Looks up (or creates, collectively, on first use of comm: MPI_Comm_dup) the context of an
 * intracommunicator. The returned pointer is borrowed; call nhood_commctx_retain to keep it
 * beyond the communicator's lifetime. */
int nhood_commctx_get(MPI_Comm comm, nhood_commctx **ctx);
void nhood_commctx_retain(nhood_commctx *ctx);
void nhood_commctx_release(nhood_commctx *ctx);

/* Reserves ntags consecutive tags for one call and returns the first (inline: every call
 * of a hot loop reserves its window). */
static inline int nhood_commctx_reserve_tags(nhood_commctx *ctx, int ntags) {
  if (ntags < 1) ntags = 1;
  if (ctx->next_tag > ctx->tag_ub - ntags + 1) ctx->next_tag = 0; /* wrap around */
  int first = ctx->next_tag;
  ctx->next_tag += ntags;
  return first;
}

/* The communicator's placement, found the first time (collective: MPI_Comm_split_type by
 * shared memory, at a call every process makes) and kept. */
int nhood_commctx_placement(nhood_commctx *ctx, const nhood_placement **out);

/* Which processes share a node, found the first time (collective: MPI_Comm_split_type by
 * shared memory and an allgather of each process's node leader, at a call every process
 * makes) and kept. NHOOD_RANKS_PER_NODE=k (the same on every process) emulates nodes of k
 * consecutive ranks instead, with no communication. An unusable value is MPI_ERR_ARG. */
int nhood_commctx_nodes(nhood_commctx *ctx, const nhood_nodes **out);

/* How many contexts exist now (for the soak test). */
int nhood_commctx_live(void);

#endif
