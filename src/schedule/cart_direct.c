/*
 * cart-direct, the cart schedule without combining (cart_internal.h describes the cart
 * algorithms); where a combining one does not apply, the selection layer runs this one.
 *
 *   cart-direct     s rounds; in round i, send block i to X + C_i and receive block i from
 *                   X - C_i. Every process does the same in the same round, so no round waits
 *                   on one that has not started; it spreads the traffic over time.
 */
#include "common/errors.h"
#include "schedule/cart_internal.h"

const char *nhood_unfit_cart_direct(const nhood_topo *t, const nhood_coll_args *a) { return cart_unfit(t, a, 0); }

int nhood_build_cart_direct(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s) {
  if (!cart_applies(t)) return nhood_error(MPI_ERR_INTERN, "cart-direct built for a topology it does not apply to");
  int rc = MPI_SUCCESS;
  NHOOD_TRY(nhood_sched_init(s, "cart-direct", 2 * t->noffsets, 1));
  for (int i = 0; i < t->noffsets; i++) {
    if (t->sources[i] == me) { /* an offset that wraps to X itself: send block i is receive block i */
      NHOOD_TRY(nhood_sched_copy(s, nhood_send_block(a, i), nhood_recv_block(a, i)));
      continue;
    }
    /* One tag is enough: two messages between the same processes belong to offsets that are
     * equal on the grid, and both ends order them by offset index. */
    if (t->sources[i] != MPI_PROC_NULL) NHOOD_TRY(nhood_sched_recv(s, t->sources[i], 0, nhood_recv_block(a, i)));
    if (t->destinations[i] != MPI_PROC_NULL)
      NHOOD_TRY(nhood_sched_send(s, t->destinations[i], 0, nhood_send_block(a, i)));
    NHOOD_TRY(nhood_sched_fence(s));
  }
  NHOOD_TRY(nhood_sched_finish(s));
  return MPI_SUCCESS;
cleanup:
  nhood_sched_free(s);
  return rc;
}
