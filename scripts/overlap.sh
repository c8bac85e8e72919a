#!/usr/bin/env bash
# The overlap benchmark of issue 21 (nhood-bench --mode overlap, OSU's method): on 2 ranks
# (one per core) and on 8, each algorithm's non-blocking call alone, then posted, followed by
# as much computation, then waited for; without nhood's progress thread and with it
# (NHOOD_PROGRESS=thread: yielding between passes, and sleeping NHOOD_PROGRESS_INTERVAL=${SLEEP:-20}
# us between them).
# Topologies: a 1-D ring of radius 2 on 2 ranks, a 2-D Moore stencil of radius 1 on 8; blocks
# of 1 KiB and 64 KiB; algorithms of one round (direct, MPI's own) and of several (cart-dim,
# cart-dim-batch, cart-bruck).
#
#   scripts/overlap.sh            # both rank counts
#   NPS=2 ITERS=100 scripts/overlap.sh
#   MPICC=mpicc MPIEXEC=mpiexec MPIEXEC_FLAGS="--bind-to none" scripts/overlap.sh
#                                 # any other MPI (a machine with cores to spare)
#
# Results: out/overlap-np<N>-<progress>.json and the table lines on standard output. Uses the
# Release build of scripts/flagship.sh (nhood_release_build in scripts/deps.sh), or with MPICC
# a Release build of its own in build/overlap-custom.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

iters=${ITERS:-300}
mkdir -p build
if [ -n "${MPICC:-}" ]; then
  cmake -S . -B build/overlap-custom -DCMAKE_BUILD_TYPE=Release -DNHOOD_BUILD_TESTS=OFF -DMPI_C_COMPILER="$MPICC" \
    -DMPIEXEC_EXECUTABLE="$(command -v "${MPIEXEC:-mpiexec}")" >build/overlap-custom.configure.log 2>&1 ||
    { cat build/overlap-custom.configure.log; exit 1; }
  cmake --build build/overlap-custom -j"$(nproc)" --target nhood-bench >/dev/null
  bench=build/overlap-custom/tools/bench/nhood-bench
  launcher=${MPIEXEC:-mpiexec}
  read -r -a flags <<<"${MPIEXEC_FLAGS:-}"
else
  flavor=${NHOOD_MPI:-openmpi}
  nhood_ensure_deps "$flavor"
  nhood_release_build "$flavor" nhood-bench
  bench="build/flagship-$flavor/tools/bench/nhood-bench"
  launcher="mpiexec.$flavor"
  read -r -a flags <<<"$(nhood_mpiexec_flags "$flavor")"
  # Threads may run on either core (Open MPI binds 2 ranks to a core each by default, and a
  # progress thread would then share its rank's core with the computation).
  [ "$flavor" = openmpi ] && flags+=(--bind-to none)
fi
mkdir -p out "${OUT_DIR:-out}"

for np in ${NPS:-2 8}; do
  topo="moore:d=1,r=2"
  [ "$np" -gt 2 ] && topo="moore:d=2,r=1"
  for progress in off thread sleep; do
    env_args=(NHOOD_PROGRESS=off)
    [ "$progress" = thread ] && env_args=(NHOOD_PROGRESS=thread)
    [ "$progress" = sleep ] && env_args=(NHOOD_PROGRESS=thread "NHOOD_PROGRESS_INTERVAL=${SLEEP:-20}")
    echo "== $np ranks, $topo, progress $progress (${env_args[*]})"
    env "${env_args[@]}" "$launcher" -n "$np" "${flags[@]}" "$bench" --topo "$topo" \
      --coll allgather,alltoall --sizes 1024,65536 --algo mpi,direct,cart-dim,cart-dim-batch,cart-bruck \
      --mode nonblocking,overlap --iters "$iters" --warmup 20 --json "${OUT_DIR:-out}/overlap-np$np-$progress.json" |
      grep -E '^(allgather|alltoall) '
  done
done
