/*
 * The kinds of forwarding pattern (pattern/combine.h's nhood_combine_pattern): one per
 * algorithm with a Phase 1, defined beside that Phase 1 (combine.c, node.c). A kind names the
 * algorithm its schedules are called by, says why the algorithm does not apply, is the key its
 * pattern hangs on a topology under, and runs its Phase 1 over MPI (the library, at first use)
 * or over virtual ranks (nhood-sim, nhood-info). The algorithm's registry entry points at its
 * kind (selection/select.c); no list or switch elsewhere names them.
 */
#ifndef NHOOD_PATTERN_KIND_H
#define NHOOD_PATTERN_KIND_H

#include <mpi.h>

#include "common/cost_model.h"
#include "common/nodes.h"
#include "pattern/bsp.h"
#include "topology/topology.h"

struct nhood_combine_pattern;
struct nhood_commctx;
struct nhood_pattern_kind;

/* What a Phase 1 is given by the layers above; `needs` says which of cost and nodes a kind
 * reads (finding them may be collective, so the caller fills only those). */
typedef struct nhood_phase1_env {
  MPI_Comm comm;                 /* over MPI: the library's private communicator */
  int tag;                       /* ... and a tag reserved for this run */
  const nhood_cost_params *cost; /* NHOOD_PHASE1_COST: the parameters "auto" prices with */
  const nhood_nodes *nodes;      /* NHOOD_PHASE1_NODES: which processes share a node */
  int theta;                     /* > 0: combining's friend threshold (nhood-sim's --theta) */
} nhood_phase1_env;
enum { NHOOD_PHASE1_COST = 1, NHOOD_PHASE1_NODES = 2 };

/* Phase 1 over MPI, collectively, for this process's topology; and in this process for
 * nranks virtual ranks (patterns[r] for topos[r], no MPI call). stats is optional. */
typedef int (*nhood_phase1_mpi)(const struct nhood_pattern_kind *kind, const nhood_phase1_env *env, NHOOD_Topo topo,
                                struct nhood_combine_pattern *pattern);
typedef int (*nhood_phase1_local)(const struct nhood_pattern_kind *kind, const nhood_phase1_env *env, int nranks,
                                  const NHOOD_Topo topos[], struct nhood_combine_pattern *patterns,
                                  nhood_bsp_stats *stats);

typedef struct nhood_pattern_kind {
  const char *algorithm; /* "combine": the name of its schedules and of its errors */
  const char *size_pass; /* "combine (size pass)": the first schedule of a v or w collective */
  const char *missing;   /* why the algorithm does not apply: no pattern attached */
  const char *empty;     /* ... a pattern without exchange rounds */
  nhood_topo_key key;    /* the attached pattern, below */
  unsigned needs;        /* NHOOD_PHASE1_*: what build_mpi and build_local read of their env */
  nhood_phase1_mpi build_mpi;
  nhood_phase1_local build_local;
} nhood_pattern_kind;

/* The key's destructor (attach.c), for the kinds' initializers. */
void nhood_pattern_detach(void *attached);

/* The pattern of a kind attached to a topology: by the API layer at the first use on a
 * communicator context (owner, retained; NULL for nhood-sim's virtual ranks). Attaching takes
 * the caller's reference to the pattern (NULL detaches; on failure the caller keeps it) and
 * releases what was attached. */
struct nhood_combine_pattern *nhood_pattern_of(const struct nhood_topo *t, nhood_pattern_kind *kind,
                                               const struct nhood_commctx **owner);
int nhood_pattern_attach(struct nhood_topo *t, nhood_pattern_kind *kind, struct nhood_combine_pattern *p,
                         struct nhood_commctx *owner);

#endif
