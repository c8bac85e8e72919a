/*
 * Two-stage tasks, the forwarding family's (selection/families/forwarding.c): calls whose schedule depends on other
 * processes' block sizes (the v and w collectives of combine and node, schedule/algorithms.h). A chain (engine/task.h)
 * of the size pass's schedule and the data schedule, which its dependency handler builds from the sizes the pass
 * received. For that build the task keeps its own copies of the neighbor lists, of the count, displacement and datatype
 * arguments (derived datatypes duplicated, as the caller may free them once the call returns) and a reference to the
 * algorithm's pattern (a blocking call, which completes before it returns, uses the caller's lists and arguments in
 * place). Blocking and non-blocking calls run the pass every time; a persistent request runs it at its first start only
 * (its counts are fixed at init, on every process) and then reuses the data schedule, as a chain does. The data
 * schedule takes as many tags as the pass: the task's window is twice the pass's.
 */
#ifndef NHOOD_SELECTION_TWO_STAGE_H
#define NHOOD_SELECTION_TWO_STAGE_H

#include "nhood.h"
#include "common/commctx.h"
#include "engine/task.h"
#include "pattern/kind.h"
#include "schedule/algorithms.h"

/* A task for the call a on topo over ctx's communicator, which must outlive it, with the
 * topology's pattern of kind. */
int nhood_two_stage_create(NHOOD_Topo topo, nhood_pattern_kind *kind, const nhood_coll_args *a,
                           const nhood_commctx *ctx, nhood_mode mode, nhood_task **task);

#endif
