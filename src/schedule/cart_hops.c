/*
 * The schedule of a plan of hops (cart_internal.h), shared by cart-bruck (cart_bruck.c) and
 * cart-2hop (cart_2hop.c), which differ only in their plans: per round, per hop, one message
 * with the blocks that take the hop, through the block table (cart_blocks.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "schedule/cart_internal.h"

static const int *hop_of(const hop_plan *h, int j) { return h->vec + (size_t)j * h->nd; }

typedef struct {
  const nhood_topo *t;
  const hop_plan *h;
  int nd, j;          /* the current hop */
  uint64_t round;     /* the hops of the current round */
  int from[MAX_DIMS]; /* the process that sends to X by hop j */
  block_table tab;
} hop_builder;

/* Whether the block of offset i, held at `holder` before hop j, moves at all: its source
 * (holder minus the hops it took before hop j, wrapping) and its target (source + C_i) exist
 * in the grid's own terms. Intermediate points wrap around every dimension, so a route never
 * passes a process that does not exist, periodic or not. */
static int hop_moves(const hop_builder *b, const int *holder, int i, int j) {
  const int *off = offset_of(b->t, i);
  int source[MAX_DIMS];
  memcpy(source, holder, sizeof(int) * (size_t)b->nd);
  for (int q = 0; q < j; q++)
    if (b->h->mask[i] >> q & 1)
      for (int k = 0; k < b->nd; k++) source[k] -= hop_of(b->h, q)[k];
  for (int k = 0; k < b->nd; k++) {
    if (b->t->periods[k]) continue;
    int d = b->t->dims[k], x = ((source[k] % d) + d) % d;
    if (x + off[k] < 0 || x + off[k] >= d) return 0;
  }
  return 1;
}

/* keys[i] = the smallest offset whose mask agrees with i's on hops < upto (alltoall: i). */
static void hop_keys(const hop_builder *b, int upto, int *keys) {
  uint64_t low = upto >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << upto) - 1);
  for (int i = 0; i < b->tab.n; i++) {
    keys[i] = i;
    if (b->tab.alltoall) continue;
    for (int q = 0; q < i; q++)
      if (((b->h->mask[i] ^ b->h->mask[q]) & low) == 0) {
        keys[i] = q;
        break;
      }
  }
}

static int hop_in_message(const void *ctx, int i, int incoming) {
  const hop_builder *b = ctx;
  return (b->h->mask[i] >> b->j & 1) && hop_moves(b, incoming ? b->from : b->t->coords, i, b->j);
}

static int hop_stays(const void *ctx, int i) {
  const hop_builder *b = ctx;
  return !(b->h->mask[i] & b->round);
}

static int hop_arrived(const void *ctx, int i) {
  const hop_builder *b = ctx;
  return hop_moves(b, b->t->coords, i, b->h->m);
}

/* The last plans made, by planner and offsets: a plan depends on nothing else, and one set-up
 * asks for each planner's several times (the candidates' fit, the cost model, the build), as
 * does every communicator of a program that creates the same stencil again, and cart-2hop's
 * search is costly for large stencils (Moore radius 2 on a 4-D grid, 120 offsets). Four slots, the oldest replaced:
 * cart-bruck's and cart-2hop's plans of one set-up alternate and both stay. */
#define PLAN_MEMOS 4
typedef struct {
  hop_planner plan; /* NULL: empty */
  int nd, n, result;
  int *offsets;
  hop_plan h; /* vec: MAX_HOPS x nd; mask: n + 1 */
} plan_memo;
static plan_memo plan_memos[PLAN_MEMOS];
static int plan_memo_next;
static pthread_mutex_t plan_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t vec_len(const nhood_topo *t) { return (size_t)MAX_HOPS * (size_t)(t->ndims > 0 ? t->ndims : 1); }

/* *dst = *src for t's plan, into dst's own vec and mask. */
static void copy_plan(hop_plan *dst, const hop_plan *src, const nhood_topo *t) {
  int *vec = dst->vec;
  uint64_t *mask = dst->mask;
  *dst = *src;
  dst->vec = vec, dst->mask = mask;
  memcpy(vec, src->vec, sizeof *vec * vec_len(t));
  memcpy(mask, src->mask, sizeof *mask * (size_t)(t->noffsets + 1));
}

static plan_memo *find_plan(const nhood_topo *t, hop_planner plan) {
  size_t n = (size_t)t->noffsets * (size_t)t->ndims;
  for (int k = 0; k < PLAN_MEMOS; k++) {
    plan_memo *m = &plan_memos[k];
    if (m->plan == plan && m->nd == t->ndims && m->n == t->noffsets &&
        (n == 0 || memcmp(m->offsets, t->offsets, sizeof(int) * n) == 0))
      return m;
  }
  return NULL;
}

/* Keeps h as a memo, in the oldest slot (nothing where memory is short: memos are optional). */
static void remember_plan(const nhood_topo *t, hop_planner plan, const hop_plan *h, int result) {
  size_t n = (size_t)t->noffsets * (size_t)t->ndims;
  int *offsets = malloc(sizeof(int) * (n ? n : 1)), *vec = malloc(sizeof(int) * vec_len(t));
  uint64_t *mask = malloc(sizeof(uint64_t) * (size_t)(t->noffsets + 1));
  if (offsets && vec && mask) {
    plan_memo *m = &plan_memos[plan_memo_next];
    plan_memo_next = (plan_memo_next + 1) % PLAN_MEMOS;
    free(m->offsets);
    free(m->h.vec);
    free(m->h.mask);
    memcpy(offsets, t->offsets, sizeof(int) * n);
    *m = (plan_memo){.plan = plan, .nd = t->ndims, .n = t->noffsets, .result = result, .offsets = offsets};
    m->h.vec = vec, m->h.mask = mask;
    copy_plan(&m->h, h, t);
    offsets = vec = NULL, mask = NULL;
  }
  free(offsets);
  free(vec);
  free(mask);
}

/* Runs the planner into h, or copies its answer for the same offsets (mask and vec allocated
 * here; free them): 1 planned, 0 no plan, -1 out of memory. */
static int make_plan(const nhood_topo *t, hop_planner plan, hop_plan *h) {
  h->mask = calloc((size_t)(t->noffsets + 1), sizeof *h->mask);
  h->vec = calloc(vec_len(t), sizeof *h->vec);
  if (!h->mask || !h->vec) return -1;
  pthread_mutex_lock(&plan_memo_lock);
  int result;
  const plan_memo *m = find_plan(t, plan);
  if (m) {
    copy_plan(h, &m->h, t);
    result = m->result;
  } else if ((result = plan(t, h)) >= 0) {
    remember_plan(t, plan, h, result);
  }
  pthread_mutex_unlock(&plan_memo_lock);
  return result;
}

const char *nhood_cart_hops_unfit(const nhood_topo *t, const nhood_coll_args *a, hop_planner plan) {
  const char *why = cart_unfit(t, a, 1);
  if (why || t->ndims > MAX_DIMS) return why ? why : "too many dimensions";
  hop_plan h = {.nd = t->ndims};
  int planned = make_plan(t, plan, &h);
  free(h.mask);
  free(h.vec);
  return planned == 0 ? "no plan of at most 64 hops (too many dimensions or offsets)" : NULL; /* no memory: the
                                                                                               * build will say */
}

int nhood_cart_build_hops(const nhood_topo *t, const nhood_coll_args *a, int me, nhood_sched *s, const char *name,
                          hop_planner plan) {
  (void)me; /* every process computes its schedule from its coordinates */
  if (cart_unfit(t, a, 1)) return nhood_error(MPI_ERR_INTERN, "%s built for a call it does not apply to", name);
  if (t->ndims > MAX_DIMS) return nhood_error(MPI_ERR_DIMS, "%s: at most %d dimensions", name, MAX_DIMS);
  int rc = MPI_SUCCESS, n = t->noffsets, nd = t->ndims;
  hop_plan h = {.nd = nd};
  hop_builder b = {.t = t, .h = &h, .nd = nd};
  int wrap[MAX_DIMS];
  for (int k = 0; k < nd; k++) wrap[k] = 1;
  memset(s, 0, sizeof *s); /* the cleanup path may free it before nhood_sched_init */
  NHOOD_TRY(nhood_cart_table_init(&b.tab, a, n, name));
  int planned = make_plan(t, plan, &h);
  if (planned <= 0) {
    rc = planned < 0 ? nhood_error(MPI_ERR_NO_MEM, "%s: out of memory building a schedule", name)
                     : nhood_error(MPI_ERR_INTERN, "%s built for offsets it finds no plan for", name);
    goto cleanup;
  }
  NHOOD_TRY(nhood_sched_init(s, name, 4 * n + 4, h.m > 0 ? h.m : 1));
  hop_keys(&b, 0, b.tab.key_now);
  for (int i = 0; i < n; i++) b.tab.now[b.tab.key_now[i]] = nhood_send_block(a, i);
  for (int r = 0, j = 0; r < h.nrounds; r++) {
    int end = h.round_end[r];
    b.round = (end >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << end) - 1) & ~(((uint64_t)1 << j) - 1);
    hop_keys(&b, end, b.tab.key_next);
    for (; j < end; j++) { /* no block takes two hops of a round, so each sees one message */
      int to[MAX_DIMS];
      b.j = j;
      for (int k = 0; k < nd; k++) {
        b.from[k] = t->coords[k] - hop_of(&h, j)[k];
        to[k] = t->coords[k] + hop_of(&h, j)[k];
      }
      NHOOD_TRY(nhood_cart_table_message(&b.tab, s, hop_in_message, &b, nhood_cart_rank_of(nd, t->dims, wrap, to),
                                         nhood_cart_rank_of(nd, t->dims, wrap, b.from), j, name));
    }
    NHOOD_TRY(nhood_sched_fence(s));
    nhood_cart_table_advance(&b.tab, hop_stays, &b);
  }
  b.j = h.m;
  NHOOD_TRY(nhood_cart_table_deliver(&b.tab, a, s, hop_arrived, &b));
cleanup:
  if (rc != MPI_SUCCESS) nhood_sched_free(s);
  nhood_cart_table_free(&b.tab);
  free(h.mask);
  free(h.vec);
  return rc;
}
