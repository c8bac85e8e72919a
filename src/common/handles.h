/* A registry of live handles, so that a freed or never-created handle passed back to the
 * library is reported as an error instead of being dereferenced. Lookups are O(1) (open
 * addressing on the pointer value), without a lock; registering and unregistering take one. */
#ifndef NHOOD_COMMON_HANDLES_H
#define NHOOD_COMMON_HANDLES_H

#include <stdatomic.h>
#include <stddef.h>

typedef enum { NHOOD_HANDLE_TOPO = 1, NHOOD_HANDLE_REQUEST = 2 } nhood_handle_kind;

/* Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int nhood_handle_register(const void *handle, nhood_handle_kind kind);
void nhood_handle_unregister(const void *handle);
/* 1 when handle is live and of that kind. */
int nhood_handle_is_live(const void *handle, nhood_handle_kind kind);
/* What a thread remembers of its last call (api/call_cache.h) stands in for the handle check
 * and the lookups while this counter has not moved since: it advances whenever something such
 * a memo may point at goes away (a topology destroyed, a communicator's context detached, MPI's
 * graph communicator of a topology freed, a cached schedule replaced). */
extern atomic_uint nhood_handles_generation;
static inline void nhood_handles_advance(void) {
  atomic_fetch_add_explicit(&nhood_handles_generation, 1, memory_order_acq_rel);
}
/* How many handles of that kind are live (for the soak test; walks the table). */
size_t nhood_handle_count(nhood_handle_kind kind);

#endif
