/* A forwarding pattern on its topology, under its kind's key (pattern/kind.h). */
#include <stdlib.h>

#include "common/commctx.h"
#include "common/errors.h"
#include "pattern/combine.h"
#include "pattern/kind.h"

typedef struct {
  nhood_combine_pattern *pattern;
  nhood_commctx *owner;
} attached_pattern;

void nhood_pattern_detach(void *value) {
  attached_pattern *a = value;
  nhood_combine_pattern_release(a->pattern);
  if (a->owner) nhood_commctx_release(a->owner);
  free(a);
}

nhood_combine_pattern *nhood_pattern_of(const struct nhood_topo *t, nhood_pattern_kind *kind,
                                        const nhood_commctx **owner) {
  const attached_pattern *a = kind ? nhood_topo_attr((struct nhood_topo *)t, &kind->key) : NULL;
  if (owner) *owner = a ? a->owner : NULL;
  return a ? a->pattern : NULL;
}

int nhood_pattern_attach(struct nhood_topo *t, nhood_pattern_kind *kind, nhood_combine_pattern *p,
                         nhood_commctx *owner) {
  attached_pattern *a = NULL;
  if (kind == NULL) return nhood_error(MPI_ERR_INTERN, "attaching a pattern of no kind");
  if (p != NULL) {
    if (!(a = malloc(sizeof *a))) return nhood_error(MPI_ERR_NO_MEM, "out of memory attaching a pattern");
    a->pattern = p;
    a->owner = owner;
    if (owner) nhood_commctx_retain(owner);
  }
  int rc = nhood_topo_attr_set(t, &kind->key, a);
  if (rc != MPI_SUCCESS && a) { /* the caller keeps its pattern */
    if (owner) nhood_commctx_release(owner);
    free(a);
  }
  return rc;
}
