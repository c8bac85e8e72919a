/*
 * The kinds of forwarding pattern (pattern/combine.h's nhood_combine_pattern): one per
 * algorithm with a Phase 1, defined beside that Phase 1 (combine.c, node.c). A kind names the
 * algorithm its schedules are called by, says why the algorithm does not apply, and is the key
 * its pattern hangs on a topology under. The algorithm's registry entry points at its kind
 * (selection/select.c); no list or switch elsewhere names them.
 */
#ifndef NHOOD_PATTERN_KIND_H
#define NHOOD_PATTERN_KIND_H

#include "topology/topology.h"

struct nhood_combine_pattern;
struct nhood_commctx;

typedef struct nhood_pattern_kind {
  const char *algorithm; /* "combine": the name of its schedules and of its errors */
  const char *size_pass; /* "combine (size pass)": the first schedule of a v or w collective */
  const char *missing;   /* why the algorithm does not apply: no pattern attached */
  const char *empty;     /* ... a pattern without exchange rounds */
  nhood_topo_key key;    /* the attached pattern, below */
} nhood_pattern_kind;

void nhood_pattern_detach(void *attached);
#define NHOOD_PATTERN_KIND(algorithm, missing, empty)              \
  {                                                                \
    (algorithm), algorithm " (size pass)", (missing), (empty),     \
        NHOOD_TOPO_KEY(algorithm " pattern", nhood_pattern_detach) \
  }

/* The pattern of a kind attached to a topology: by the API layer at the first use on a
 * communicator context (owner, retained; NULL for nhood-sim's virtual ranks). Attaching takes
 * the caller's reference to the pattern (NULL detaches; on failure the caller keeps it) and
 * releases what was attached. */
struct nhood_combine_pattern *nhood_pattern_of(const struct nhood_topo *t, nhood_pattern_kind *kind,
                                               const struct nhood_commctx **owner);
int nhood_pattern_attach(struct nhood_topo *t, nhood_pattern_kind *kind, struct nhood_combine_pattern *p,
                         struct nhood_commctx *owner);

#endif
