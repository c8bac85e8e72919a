#!/usr/bin/env bash
# The main job: builds nhood (Release) and runs the flagship comparison on this machine:
# nhood's algorithms against the MPI library's own MPI_Neighbor_* collectives, on a random
# graph, a 2-D Moore stencil and the halo exchange of a real sparse matrix, for small,
# medium and large messages, plus topology-creation cost.
#
#   scripts/flagship.sh                 # Open MPI, 16 ranks
#   NP=64 scripts/flagship.sh           # more ranks (oversubscribed)
#   NHOOD_MPI=mpich NP=4 scripts/flagship.sh
#
# Prints a table; JSON lines go to out/flagship.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
np=${NP:-16}
iters=${ITERS:-200}
nhood_ensure_deps "$flavor"

dir="build/flagship-$flavor"
mkdir -p build out
echo "== building nhood (Release, $flavor) in $dir"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DNHOOD_BUILD_TESTS=OFF \
  -DMPI_C_COMPILER="mpicc.$flavor" -DMPIEXEC_EXECUTABLE="$(command -v "mpiexec.$flavor")" >"$dir.configure.log" 2>&1 \
  || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j"$(nproc)" --target nhood-bench >/dev/null

topos=(--topo er:density=0.1,seed=1 --topo moore:d=2,r=2)
matrix=../shared/matrices/delaunay_n15.mtx
if [ -f "$matrix" ]; then topos+=(--topo "mtx:$matrix"); else echo "note: $matrix not found, skipping the SpMV halo pattern"; fi

rm -f out/flagship.json
echo "== nhood-bench on $np ranks ($flavor): allgather and alltoallv at 4 B, 1 KiB, 64 KiB"
# shellcheck disable=SC2046
"mpiexec.$flavor" -n "$np" $(nhood_mpiexec_flags "$flavor") "$dir/tools/bench/nhood-bench" \
  "${topos[@]}" --coll allgather,alltoallv --sizes 4,1024,65536 --algo mpi,direct \
  --iters "$iters" --warmup 20 --json out/flagship.json
echo "== done: JSON lines in out/flagship.json"
