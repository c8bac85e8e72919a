#!/usr/bin/env bash
# nhood-sim's predictions beside measurements of the same calls on this machine (issue 58):
# for each process count, nhood-calibrate fits nhood-sim's model where it runs (--sim-model:
# L, o, G, the cost of a round, the noise of a round and the skew of a call's start), then
# nhood-bench times every algorithm on a few topologies, and nhood-sim predicts the same cases
# with that model and SEEDS draws of its noise. tools/plot/sim_validate.py writes the table:
# measured median, predicted median and 10th-90th percentile band, whether the median lies
# in the band, and each algorithm's ratio to direct, measured and predicted.
#
#   scripts/sim_validate.sh                     # Open MPI, 2 processes, and 8 as the check
#   NPS="4 8 16" OVER= scripts/sim_validate.sh  # a machine with 16 cores
#   NHOOD_MPI=mpich scripts/sim_validate.sh
#
# NPS: process counts with a core each; OVER: counts above the cores, run only to show that
# the model does not describe them (its rows are marked; empty: none). ITERS timed calls per
# algorithm (bench), SEEDS noise draws (sim). Writes out/validate/ (the calibration, the
# bench and sim JSON, table.md) and prints the table.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
nps=${NPS:-2}
over=${OVER-8}
iters=${ITERS:-400}
seeds=${SEEDS:-41}
out=out/validate
topos=(--topo moore:d=2,r=1 --topo moore:d=1,r=3 --topo vonneumann:d=3,r=1 --topo mtx:data/matrices/can_1054.mtx.gz)
nhood_need_file data/matrices/can_1054.mtx.gz

nhood_ensure_deps "$flavor"
nhood_release_build "$flavor" nhood-bench nhood-sim nhood-calibrate
dir="build/flagship-$flavor"
rm -rf "$out" && mkdir -p "$out"
cores=$(nproc)
for np in $nps $over; do
  echo "== $np processes ($(date +%H:%M:%S))"
  # shellcheck disable=SC2046
  run() { "mpiexec.$flavor" -n "$np" $(nhood_mpiexec_flags "$flavor") "$@"; }
  run "$dir/tools/calibrate/nhood-calibrate" --out "$out/params-$np.txt" --json "$out/calibrate-$np.json" \
    --sim-model "$out/model-$np.txt" | sed -n '/^noise:/,$p'
  run "$dir/tools/bench/nhood-bench" "${topos[@]}" --coll allgather,alltoallv --sizes 8,1024 --algo all \
    --iters "$iters" --warmup 40 --json "$out/bench-$np.json" >"$out/bench-$np.txt"
  "$dir/tools/sim/nhood-sim" --ranks "$np" "${topos[@]}" --coll allgather,alltoallv --sizes 8,1024 --algo all \
    --model "@$out/model-$np.txt" --seeds "$seeds" --json "$out/sim-$np.json" >"$out/sim-$np.txt"
done
python3 tools/plot/sim_validate.py --cores "$cores" --out "$out/table.md" "$out" $nps $over
