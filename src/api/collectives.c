/* Entry points of the neighborhood collectives: argument checks, then one path per mode
 * (run_blocking, run_with_request) that has the selection layer choose an algorithm and get
 * it ready (prepare), has the algorithm make its task (build_request, or reuses the
 * topology's cached one; under a trial, the trial's task around it) and hands it to the
 * engine. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/call_cache.h"
#include "api/coll_check.h"
#include "api/progress.h"
#include "api/request.h"
#include "api/threads.h"
#include "api/topologies.h"
#include "common/errors.h"
#include "common/handles.h"
#include "common/hot.h"
#include "engine/native_mpi.h"
#include "selection/auto.h"
#include "selection/learned.h"
#include "selection/select.h"
#include "selection/trial.h"
#include "topology/topology.h"

const char *const nhood_coll_names[NHOOD_NCOLLS] = {"allgather", "allgatherv", "alltoall",      "alltoallv",
                                                    "alltoallw", "reduce",     "scatter_reduce"};

/* NHOOD_CHECK=1 makes every collective verify topology consistency first. */
static int check_mode(void) {
  static atomic_int cached = -1; /* read once; threads racing here store the same value */
  int c = atomic_load_explicit(&cached, memory_order_relaxed);
  if (c < 0) {
    const char *v = getenv("NHOOD_CHECK");
    c = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    atomic_store_explicit(&cached, c, memory_order_relaxed);
  }
  return c;
}

/* ---- the common path ------------------------------------------------------------------- */

/* Validates a call (filling in extents and sizes) and chooses its algorithm (how says how;
 * "auto" may start a trial there). */
static int prepare(nhood_coll_args *a, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, nhood_mode mode,
                   nhood_commctx **ctx, const nhood_algorithm **alg, nhood_auto_how *how) {
  int rc = MPI_SUCCESS;
  char requested[NHOOD_ALGORITHM_NAME_MAX];
  NHOOD_TRY(nhood_topo_validate(topo, "topo"));
  NHOOD_TRY(nhood_commctx_get(comm, ctx));
  if (check_mode()) NHOOD_TRY(NHOOD_Topo_check(topo, comm));
  NHOOD_TRY(nhood_topo_check_ranks(topo, (*ctx)->size));
  NHOOD_TRY(nhood_coll_check_args(a, topo));
  strcpy(requested, topo->algorithm);
  NHOOD_TRY(nhood_info_algorithm(info, requested));
  if (a->huge) strcpy(requested, "direct"); /* api/large_count.h */
  a->isomorphic_sizes = topo->isomorphic_sizes;
  NHOOD_TRY(nhood_info_bool(info, NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES, &a->isomorphic_sizes));
  how->by = NHOOD_CHOSEN_BY_RULE;
  how->trial = NULL;
  if (strcmp(requested, "auto") == 0)
    NHOOD_TRY(nhood_auto_resolve(topo, *ctx, a, info, mode, alg, how));
  else if (!(*alg = nhood_algorithm_by_name(requested)))
    return nhood_error(MPI_ERR_INTERN, "unknown algorithm \"%s\" passed the info check", requested);
cleanup:
  return rc;
}

/* The request that runs call a with alg, ready on r: the task alg's family makes. Nothing to
 * release on failure. */
static int build_request(struct nhood_request *req, const nhood_coll_args *a, NHOOD_Topo topo, const nhood_ready *r,
                         nhood_commctx *ctx, const nhood_algorithm *alg, nhood_mode mode) {
  int rc = MPI_SUCCESS;
  memset(req, 0, sizeof *req);
  req->mode = mode;
  req->kind = a->kind;
  nhood_commctx_retain(ctx);
  req->ctx = ctx;
  NHOOD_TRY(nhood_algorithm_make_task(alg, r, topo, a, ctx, mode, &req->task));
  return MPI_SUCCESS;
cleanup:
  nhood_error_context("neighborhood %s (%s)", nhood_coll_names[a->kind], alg->name);
  nhood_request_release(req);
  return rc;
}

/* The request of a call under a trial (selection/trial.h): every candidate's task, each got
 * ready and built as for a call of its own, under the trial's task; a persistent request's
 * trial records what runs after a fallback. A blocking call builds them all too, whether its
 * request is kept for the trial's next executions or not (the call cache may be taken on one
 * process and free on another): getting a candidate ready may be collective the first time,
 * so every process does the same. */
static int build_trial_request(struct nhood_request *req, const nhood_coll_args *args, NHOOD_Topo topo,
                               nhood_commctx *ctx, nhood_trial *trial, nhood_mode mode) {
  int rc = MPI_SUCCESS;
  nhood_task *tasks[NHOOD_SHORTLIST_MAX] = {NULL};
  for (int c = 0; c < trial->n; c++) {
    nhood_coll_args a = *args;
    const nhood_algorithm *alg = trial->cand[c];
    nhood_ready ready;
    struct nhood_request one;
    NHOOD_TRY(nhood_algorithm_ready(topo, ctx, &a, mode, &alg, &ready));
    if (mode != NHOOD_BLOCKING) trial->cand[c] = alg;
    NHOOD_TRY(build_request(&one, &a, topo, &ready, ctx, alg, mode));
    tasks[c] = one.task;
    one.task = NULL;
    nhood_request_release(&one);
  }
  memset(req, 0, sizeof *req); /* selection stays empty until the trial decided (api/requests.c) */
  req->mode = mode;
  req->kind = args->kind;
  nhood_commctx_retain(ctx);
  req->ctx = ctx;
  rc = nhood_trial_task_create(trial, mode, tasks, ctx->comm, &req->task);
  if (rc != MPI_SUCCESS) nhood_request_release(req);
  return rc;
cleanup:
  for (int c = 0; c < NHOOD_SHORTLIST_MAX; c++) nhood_task_release(tasks[c]);
  return rc;
}

/* The request of a blocking call with alg, or of the executions of `trial` (alg NULL): the
 * held cache entry's where it was built for exactly this call, else built into the entry, or
 * into *local where no entry is held. */
static int blocking_request(nhood_call_cache *cache, struct nhood_request *local, const nhood_coll_args *a,
                            MPI_Comm comm, NHOOD_Topo topo, const nhood_ready *r, nhood_commctx *ctx,
                            const nhood_algorithm *alg, nhood_trial *trial, struct nhood_request **req) {
  int rc = MPI_SUCCESS;
  if (cache && (*req = nhood_call_cache_lookup(cache, a, topo, ctx, alg, trial))) return MPI_SUCCESS;
  struct nhood_request *into = cache ? nhood_call_cache_slot(cache) : local;
  if (trial)
    NHOOD_TRY(build_trial_request(into, a, topo, ctx, trial, NHOOD_BLOCKING));
  else
    NHOOD_TRY(build_request(into, a, topo, r, ctx, alg, NHOOD_BLOCKING));
  if (cache) {
    /* MPI's own collective's communicator, for a repeat to call it straight away */
    NHOOD_TRY(
        nhood_call_cache_store(cache, a, topo, comm, ctx, alg, trial, r && r->graph ? r->graph->comm : MPI_COMM_NULL));
    into = nhood_call_cache_lookup(cache, a, topo, ctx, alg, trial);
  }
  *req = into;
cleanup:
  return rc;
}

/* The algorithm of the calling thread's last blocking call that ran (NHOOD_Last_algorithm),
 * and how it was chosen (NHOOD_Selection_info), written where a call was prepared (a repeat
 * from the call cache runs the same choice). Where the last call repeated one of the thread's
 * memos, nhood_last_memo (api/call_cache.h) says both instead. */
static _Thread_local const char *last_blocking_algorithm NHOOD_FAST_TLS;
static _Thread_local char last_blocking_selection[NHOOD_SELECTION_TEXT_MAX];
/* The description last copied there: a repeated call compares numbers, not text. */
static _Thread_local unsigned last_blocking_selection_id NHOOD_FAST_TLS;
static atomic_uint selection_ids = 1;

int NHOOD_Last_algorithm(const char **algorithm) {
  if (algorithm == NULL) return nhood_error(MPI_ERR_ARG, "algorithm (the output) is NULL");
  *algorithm = nhood_last_memo ? nhood_call_memo_algorithm(nhood_last_memo) : last_blocking_algorithm;
  return MPI_SUCCESS;
}

/* Runs a blocking call's request, built for this call or for one with the same arguments (a
 * cached task may read the arguments of the call it was built for, MPI's own blocking call:
 * this call's are the same in content). A task that sends nothing on the context (MPI's own)
 * takes no tag window. */
NHOOD_HOT static int run_request(struct nhood_request *req, const nhood_coll_args *a) {
  nhood_task_rebind(req->task, a);
  if (nhood_request_ntags(req) > 0) req->tag_base = nhood_commctx_reserve_tags(req->ctx, nhood_request_ntags(req));
  int rc = nhood_request_run(req);
  if (rc != MPI_SUCCESS) nhood_request_error_context(req);
  return rc;
}

/* A repeat of the calling thread's blocking call remembered in memo (api/call_cache.h): where
 * MPI's own collective ran it, the arguments straight to the graph communicator `native`;
 * otherwise the memo's flat round where it has one (a v collective's one round: its arrays
 * were compared with the held entry's), else the held entry's request. Nothing is checked or
 * prepared again. */
NHOOD_HOT static int repeat_memo(const nhood_coll_args *a, nhood_call_cache *cache, MPI_Comm native,
                                 const nhood_call_memo *memo) {
  int rc;
  nhood_last_memo = memo;
  if (native != MPI_COMM_NULL) {
    rc = nhood_native_call(a, native, NHOOD_NATIVE_BLOCKING, NULL);
    if (rc != MPI_SUCCESS) nhood_error_context("neighborhood %s (mpi)", nhood_coll_names[a->kind]);
  } else if ((rc = nhood_call_memo_run_flat(memo)) < 0) {
    rc = run_request(nhood_call_cache_request(cache), a);
  }
  if (cache) nhood_call_cache_release(cache);
  return rc;
}

/* A blocking call. A repeat of the topology's previous blocking call runs its cached
 * schedule after comparing arguments only, and one the thread remembers without even that
 * (api/call_cache.h); a new call is checked and its schedule built, into the cache when that
 * is free. */
NHOOD_HOT static int run_blocking(const nhood_coll_args *args, MPI_Comm comm, NHOOD_Topo topo) {
  int rc = MPI_SUCCESS;
  nhood_coll_args a;
  nhood_commctx *ctx = NULL;
  const nhood_algorithm *alg = NULL;
  struct nhood_request local, *req = NULL;
  nhood_call_cache *cache = NULL;
  nhood_ready ready;
  nhood_auto_how how;
  how.trial = NULL;
  a = *args;
  NHOOD_TRY(nhood_topo_validate(topo, "topo"));
  cache = nhood_call_cache_acquire(topo, &a);
  if (cache && !check_mode()) req = nhood_call_cache_repeat(cache, &a, topo, comm);
  if (req == NULL) {
    NHOOD_TRY(prepare(&a, comm, topo, MPI_INFO_NULL, NHOOD_BLOCKING, &ctx, &alg, &how));
    if (how.trial) {
      /* One execution of a trial, described once it ran (below). Its request, every candidate
       * built, stays in the cache for the trial's next executions of this call: each then
       * times its candidate as later calls run it, and not a schedule just built (a blocking
       * trial that built its candidate for each execution measured it much slower than it
       * runs). Without the cache, each execution builds them again. */
      NHOOD_TRY(blocking_request(cache, &local, &a, comm, topo, NULL, ctx, NULL, how.trial, &req));
    } else {
      NHOOD_TRY(nhood_algorithm_ready(topo, ctx, &a, NHOOD_BLOCKING, &alg, &ready));
      /* A schedule that changes with other processes' counts is not cached. */
      if (cache && nhood_algorithm_needs_size_pass(alg, topo, &a)) {
        nhood_call_cache_release(cache);
        cache = NULL;
      }
      NHOOD_TRY(blocking_request(cache, &local, &a, comm, topo, &ready, ctx, alg, NULL, &req));
      nhood_auto_describe(&how, alg, req->selection, sizeof req->selection);
      req->selection_id = atomic_fetch_add_explicit(&selection_ids, 1, memory_order_relaxed);
    }
  }
  if (!how.trial && req->selection_id != last_blocking_selection_id) {
    memcpy(last_blocking_selection, req->selection, sizeof last_blocking_selection);
    last_blocking_selection_id = req->selection_id;
  }
  last_blocking_algorithm = nhood_task_schedule(req->task)->algorithm;
  nhood_last_memo = NULL;
  if (cache && !how.trial && req == nhood_call_cache_request(cache) && !check_mode())
    nhood_call_cache_remember(cache, topo, &a, comm);
  rc = run_request(req, &a);
  if (how.trial) {
    nhood_trial_describe(how.trial, last_blocking_selection, sizeof last_blocking_selection);
    last_blocking_selection_id = 0;
  }
  if (req == &local) nhood_request_release(&local);
cleanup:
  if (cache) nhood_call_cache_release(cache);
  return rc;
}

/* A non-blocking or persistent call: a new request handle in *request. */
static int run_with_request(const nhood_coll_args *args, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, nhood_mode mode,
                            NHOOD_Request *request) {
  int rc = MPI_SUCCESS;
  nhood_coll_args a = *args;
  nhood_commctx *ctx = NULL;
  const nhood_algorithm *alg = NULL;
  struct nhood_request *req = NULL;
  nhood_ready ready;
  nhood_auto_how how;
  if (request == NULL) return nhood_error(MPI_ERR_ARG, "request (the output handle) is NULL");
  NHOOD_TRY(prepare(&a, comm, topo, info, mode, &ctx, &alg, &how));
  if (!(req = malloc(sizeof *req))) return nhood_error(MPI_ERR_NO_MEM, "out of memory for a request");
  if (how.trial) {
    rc = build_trial_request(req, &a, topo, ctx, how.trial, mode);
  } else {
    rc = nhood_algorithm_ready(topo, ctx, &a, mode, &alg, &ready);
    if (rc == MPI_SUCCESS) rc = build_request(req, &a, topo, &ready, ctx, alg, mode);
    if (rc == MPI_SUCCESS) nhood_auto_describe(&how, alg, req->selection, sizeof req->selection);
  }
  if (rc != MPI_SUCCESS) {
    free(req);
    return rc;
  }
  req->tag_base = nhood_commctx_reserve_tags(ctx, nhood_request_ntags(req));
  if (mode == NHOOD_NONBLOCKING) {
    if ((rc = nhood_request_begin(req)) != MPI_SUCCESS) {
      nhood_request_error_context(req);
      goto cleanup;
    }
    req->active = 1;
  }
  NHOOD_TRY(nhood_handle_register(req, NHOOD_HANDLE_REQUEST));
  if (req->active && nhood_progress_on()) nhood_progress_add(req);
  *request = req;
  return MPI_SUCCESS;
cleanup:
  if (req) {
    nhood_request_release(req);
    free(req);
  }
  return rc;
}

int nhood_last_blocking_selection(char *text, size_t len) {
  if (last_blocking_algorithm == NULL && nhood_last_memo == NULL) return 0;
  snprintf(text, len, "%s", nhood_last_memo ? nhood_call_memo_selection(nhood_last_memo) : last_blocking_selection);
  return 1;
}

NHOOD_HOT int nhood_coll_run(const nhood_coll_args *a, MPI_Comm comm, NHOOD_Topo topo, MPI_Info info, nhood_mode mode,
                             NHOOD_Request *request) {
  /* A blocking call the thread remembers, before anything else (api/call_cache.h), with one
   * lookup. The thread passed the thread-level check when it made the call it repeats; MPI's
   * own collective needs no more, nhood's engine has the check again (nhood_thread_enter). */
  if (mode == NHOOD_BLOCKING) {
    MPI_Comm native;
    const nhood_call_memo *memo;
    nhood_call_cache *cache = nhood_call_cache_remembered(topo, a, comm, &native, &memo);
    if (native != MPI_COMM_NULL) return repeat_memo(a, cache, native, memo);
    if (cache) {
      int rc = nhood_thread_enter();
      if (rc == MPI_SUCCESS) {
        rc = repeat_memo(a, cache, native, memo);
        nhood_thread_leave();
      } else {
        nhood_call_cache_release(cache);
      }
      return rc;
    }
  }
  NHOOD_THREAD_GUARDED(mode == NHOOD_BLOCKING ? run_blocking(a, comm, topo)
                                              : run_with_request(a, comm, topo, info, mode, request));
}
