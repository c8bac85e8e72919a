#!/usr/bin/env bash
# How close "auto" comes to the best algorithm and to MPI's own, on the matrix of issue 19:
# allgather at 11 block sizes (1 B to 1 MiB) on a random graph, a 2-D Moore stencil and the
# SpMV halos of two real matrices, blocking and persistent; alltoallv at 4 B, 1 KiB and
# 64 KiB on two of them. Every algorithm is timed in the same run (nhood-bench, 100 calls per
# point, median of each call's slowest rank), then tools/plot/nhood_auto_report.py lists
# auto/best and auto/mpi and flags what exceeds 1.05. "pmpi" is MPI's own collective a second
# time (by its profiling names: the same code as "mpi"), timed as a control: where it lands
# above 1.05, the run cannot tell 5% apart.
#
#   scripts/auto_check.sh                    # once, without NHOOD_PARAMS (out of the box)
#   RUNS=3 scripts/auto_check.sh             # three separate runs
#   PARAMS=out/nhood-params.txt scripts/auto_check.sh    # with a calibration file
#   NP=16 ITERS=50 scripts/auto_check.sh     # smaller
#   MPIEXEC=/opt/mpi/bin/mpiexec BUILD=build/other scripts/auto_check.sh
#                                            # another MPI and an existing build of nhood-bench
#                                            # (no install, no build; MPIEXEC_FLAGS as needed)
#
# Results: out/auto-check-<label>-<run>.json and the report on standard output. Uses the
# Release build of scripts/flagship.sh (nhood_release_build in scripts/deps.sh). Takes long:
# about NP x sizes x algorithms x ITERS calls per run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
np=${NP:-32}
iters=${ITERS:-100}
runs=${RUNS:-1}
params=${PARAMS:-}
sizes=1,4,16,64,256,1024,4096,16384,65536,262144,1048576
matrices=data/matrices

if [ -n "${BUILD:-}" ]; then
  dir=$BUILD
  launcher=${MPIEXEC:?MPIEXEC names the launcher of the MPI that BUILD was built with}
  launcher_flags=${MPIEXEC_FLAGS:-}
else
  nhood_ensure_deps "$flavor"
  dir="build/flagship-$flavor"
  nhood_release_build "$flavor" nhood-bench
  launcher="mpiexec.$flavor"
  launcher_flags=$(nhood_mpiexec_flags "$flavor")
fi

label=default
env_args=()
if [ -n "$params" ]; then
  label=params
  NHOOD_PARAMS=$(realpath "$params")
  export NHOOD_PARAMS
  case "$("$launcher" --version 2>&1)" in *"Open MPI"*) env_args=(-x NHOOD_PARAMS) ;; esac # MPICH passes it on
else
  unset NHOOD_PARAMS
fi
topos=(--topo er:density=0.2,seed=1 --topo moore:d=2,r=2)
for m in delaunay_n15 rgg_n_2_15_s0; do
  nhood_need_file "$matrices/$m.mtx.gz"
  topos+=(--topo "mtx:$matrices/$m.mtx.gz")
done
# shellcheck disable=SC2046
bench() {
  "$launcher" -n "$np" $launcher_flags "${env_args[@]}" "$dir/tools/bench/nhood-bench" "$@" \
    --algo all,pmpi --iters "$iters" --warmup 10 >out/auto-check.log 2>&1 ||
    { tail -30 out/auto-check.log; echo "error: nhood-bench failed (out/auto-check.log)" >&2; return 1; }
}

mkdir -p out
files=()
for run in $(seq 1 "$runs"); do
  out="out/auto-check-$label-$run.json"
  echo "== run $run of $runs ($label, $np ranks, $(date +%H:%M:%S))"
  bench "${topos[@]}" --coll allgather --sizes "$sizes" --mode blocking,persistent --json "$out.allgather"
  bench --topo er:density=0.2,seed=1 --topo moore:d=2,r=2 --coll alltoallv --sizes 4,1024,65536 \
    --mode blocking,persistent --json "$out.alltoallv"
  cat "$out.allgather" "$out.alltoallv" >"$out" && rm -f "$out.allgather" "$out.alltoallv"
  files+=("$out")
done
py=${NHOOD_PYTHON:-python3}
status=0
for f in "${files[@]}"; do
  echo "== $f"
  "$py" tools/plot/nhood_auto_report.py --limit 1.05 "$f" || status=1
done
echo "== issue 37's acceptance over the ${#files[@]} run(s)"
"$py" tools/plot/nhood_auto_report.py --acceptance "${files[@]}" || status=1
exit $status
