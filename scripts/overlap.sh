#!/usr/bin/env bash
# The overlap benchmark of issue 21 (nhood-bench --mode overlap, OSU's method): on 2 ranks
# (one per core) and on 8, each algorithm's non-blocking call alone, then posted, followed by
# as much computation, then waited for; without nhood's progress thread and with it
# (NHOOD_PROGRESS=thread, the default interval and NHOOD_PROGRESS_INTERVAL=${FAST:-5}).
# Topologies: a 1-D ring of radius 2 on 2 ranks, a 2-D Moore stencil of radius 1 on 8; blocks
# of 1 KiB and 64 KiB; algorithms of one round (direct, MPI's own) and of several (cart-dim,
# cart-dim-batch, cart-bruck).
#
#   scripts/overlap.sh            # both rank counts
#   NPS=2 ITERS=100 scripts/overlap.sh
#
# Results: out/overlap-np<N>-<progress>.json and the table lines on standard output. Uses the
# Release build of scripts/flagship.sh (nhood_release_build in scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
iters=${ITERS:-300}
nhood_ensure_deps "$flavor"
nhood_release_build "$flavor" nhood-bench
bench="build/flagship-$flavor/tools/bench/nhood-bench"
read -r -a flags <<<"$(nhood_mpiexec_flags "$flavor")"
# Threads may run on either core (Open MPI binds 2 ranks to a core each by default, and a
# progress thread would then share its rank's core with the computation).
[ "$flavor" = openmpi ] && flags+=(--bind-to none)
mkdir -p out

for np in ${NPS:-2 8}; do
  topo="moore:d=1,r=2"
  [ "$np" -gt 2 ] && topo="moore:d=2,r=1"
  for progress in off thread fast; do
    env_args=(NHOOD_PROGRESS=off)
    [ "$progress" = thread ] && env_args=(NHOOD_PROGRESS=thread)
    [ "$progress" = fast ] && env_args=(NHOOD_PROGRESS=thread "NHOOD_PROGRESS_INTERVAL=${FAST:-5}")
    echo "== $np ranks, $topo, progress $progress (${env_args[*]})"
    env "${env_args[@]}" "mpiexec.$flavor" -n "$np" "${flags[@]}" "$bench" --topo "$topo" \
      --coll allgather,alltoall --sizes 1024,65536 --algo mpi,direct,cart-dim,cart-dim-batch,cart-bruck \
      --mode nonblocking,overlap --iters "$iters" --warmup 20 --json "out/overlap-np$np-$progress.json" |
      grep -E '^(allgather|alltoall) '
  done
done
