#!/usr/bin/env bash
# Issue 37's item 2 timed on this machine: a repeated 4 B blocking allgather between 2
# processes, nhood's `direct` (API) against the hand-written loop (`isend`), and the call
# through the interposition library (NHOOD_ALGORITHM=direct) against PMPI_Neighbor_allgather.
# Each run times 30,000 calls after 1,000 (nhood-bench --json: nanosecond medians, where its
# table rounds to 10 ns); many short runs, because on 2 shared cores one run's ratio moves by
# 10-20%. With BASE, the runs alternate between the two builds (an A/B on the same machine
# state). The instruction counts behind these times: scripts/hot_instructions.sh.
#
#   scripts/hot_timed.sh                                     # 21 runs of build/flagship-openmpi
#   BASE=/tmp/base/build/flagship-openmpi RUNS=21 scripts/hot_timed.sh
#   NHOOD_MPI=mpich BASE=/tmp/base/build/flagship-mpich scripts/hot_timed.sh
#
# BUILD (default build/flagship-$NHOOD_MPI, made by scripts/flagship.sh or nhood_release_build)
# and BASE are Release builds with that MPI (NHOOD_MPI: openmpi, the default, or mpich). Prints,
# per build, the medians over the runs of direct/isend and of (interposed - pmpi) in µs.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs=${RUNS:-21}
flavor=${NHOOD_MPI:-openmpi}
builds=("${BUILD:-build/flagship-$flavor}")
[ -n "${BASE:-}" ] && builds+=("$BASE")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(--topo er:density=1.0 --coll allgather --sizes 4 --iters 30000 --warmup 1000)
# The medians of algorithms $2... in nhood-bench's JSON file $1, on one line.
medians() {
  python3 - "$@" <<'EOF'
import json, sys
m = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["coll"] == "allgather":
        m[d["algo"]] = d["lat_us_median"]
print(" ".join(str(m[a]) for a in sys.argv[2:]))
EOF
}
# nhood-bench times one algorithm's calls after the other's, and which goes first moved the
# ratio by 2-4% (median of 9 runs: direct/isend 1.071 after isend, 1.038 before it): the order
# alternates from run to run.
for r in $(seq 1 "$runs"); do
  if [ $((r % 2)) = 1 ]; then api=isend,direct ip=pmpi,mpi; else api=direct,isend ip=mpi,pmpi; fi
  for k in "${!builds[@]}"; do
    b=${builds[$k]}
    "mpiexec.$flavor" -n 2 "$b/tools/bench/nhood-bench" "${args[@]}" --algo $api --json "$out/api.json" >/dev/null
    NHOOD_ALGORITHM=direct NHOOD_MPI_LIBRARY=$(realpath "$b/libnhood-mpi.so") "$b/tools/run/nhood-run" \
      "mpiexec.$flavor" -n 2 "$b/tools/bench/nhood-bench" "${args[@]}" --algo $ip --json "$out/ip.json" >/dev/null
    read -r isend direct <<<"$(medians "$out/api.json" isend direct)"
    read -r pmpi mpi <<<"$(medians "$out/ip.json" pmpi mpi)"
    echo "$direct $isend $mpi $pmpi" | awk '{printf "%.4f %.4f\n", $1 / $2, $3 - $4}' >>"$out/build.$k"
  done
done
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "== the hot path timed, 2 processes, 4 B, $flavor; medians of $runs runs"
for k in "${!builds[@]}"; do
  echo "  ${builds[$k]}: direct/isend $(awk '{print $1}' "$out/build.$k" | median)," \
    "interposed - pmpi $(awk '{print $2}' "$out/build.$k" | median) us"
done
