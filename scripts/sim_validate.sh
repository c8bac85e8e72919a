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
# algorithm (bench), SEEDS noise draws (sim), CALIBRATIONS and LAUNCHES below. Writes
# out/validate/ (the calibrations, the bench and sim JSON, table.md) and prints the table.
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
# A launch here runs in one of several states, whatever the binding, and the state of the
# machine drifts over minutes: every round can take 1.5-3x what it takes at other times. So
# the model is calibrated in CALIBRATIONS launches taking turns with the LAUNCHES launches of
# nhood-bench (calibration, bench, calibration, ...), nhood-sim predicts with each calibrated
# model, and the band is the 10th-90th percentile of all their noise draws together; a
# case's measured value is the median over the bench launches (each its own median over
# calls). Run in two blocks, calibrations first, the two saw different machines.
calibrations=${CALIBRATIONS:-15}
launches=${LAUNCHES:-15}
for np in $nps $over; do
  echo "== $np processes ($(date +%H:%M:%S))"
  # shellcheck disable=SC2046
  run() { "mpiexec.$flavor" -n "$np" $(nhood_mpiexec_flags "$flavor" "$np") "$@"; }
  n=$calibrations m=$launches
  [ "$np" -le "$cores" ] || n=1 m=1
  for i in $(seq "$((n > m ? n : m))"); do
    if [ "$i" -le "$n" ]; then
      run "$dir/tools/calibrate/nhood-calibrate" --out "$out/params-$np-$i.txt" --json "$out/calibrate-$np-$i.json" \
        --sim-model "$out/model-$np-$i.txt" >"$out/calibrate-$np-$i.txt"
      grep '^  L = ' "$out/calibrate-$np-$i.txt"
    fi
    if [ "$i" -le "$m" ]; then
      run "$dir/tools/bench/nhood-bench" "${topos[@]}" --coll allgather,alltoallv --sizes 8,1024 --algo all \
        --iters "$iters" --warmup 40 --json "$out/bench-$np-$i.json" >"$out/bench-$np-$i.txt"
    fi
  done
  # nhood-sim with each model; this machine is one node, so --ranks-per-node is the process
  # count (node-aware algorithms then run direct, as they do here).
  for c in $(seq "$n"); do
    "$dir/tools/sim/nhood-sim" --ranks "$np" --ranks-per-node "$np" "${topos[@]}" --coll allgather,alltoallv \
      --sizes 8,1024 --algo all --model "@$out/model-$np-$c.txt" --seeds "$seeds" --json "$out/sim-$np-$c.json" \
      >"$out/sim-$np-$c.txt"
  done
done
python3 tools/plot/sim_validate.py --cores "$cores" --out "$out/table.md" "$out" $nps $over
