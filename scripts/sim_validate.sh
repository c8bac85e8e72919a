#!/usr/bin/env bash
# nhood-sim's predictions beside measurements of the same calls on this machine (issue 58):
# for each process count, each launch of nhood-bench first runs nhood-calibrate's measurement
# of nhood-sim's model (--calibrate "... --sim-model": L, o, G, O, the cost of a round, the
# noise of a round and the skew of a call's start), then times every algorithm on a few
# topologies, with nhood-calibrate's single calls in turns with each case's (--sim-reference:
# the model refitted per case to calls of the same seconds); nhood-sim predicts each case
# with its model and SEEDS draws of its noise. tools/plot/sim_validate.py writes the table: measured median, predicted median
# and 10th-90th percentile band, in how many launches the measured median lay in its own
# band, and each algorithm's ratio to direct, measured and predicted.
#
#   scripts/sim_validate.sh                     # Open MPI, 2 processes, and 8 as the check
#   NPS="4 8 16" OVER= scripts/sim_validate.sh  # a machine with 16 cores
#   NHOOD_MPI=mpich scripts/sim_validate.sh
#
# NPS: process counts with a core each; OVER: counts above the cores, run only to show that
# the model does not describe them (its rows are marked; empty: none). ITERS timed calls per
# algorithm (bench), SEEDS noise draws (sim), LAUNCHES below. Writes out/validate/ (each
# launch's calibration, model, bench and sim output, table.md) and prints the table.
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
# A launch here runs in one of several states, whatever the binding, and the machine drifts
# over seconds, also within a launch: every round can take 1.5-3x what it takes at other
# times. So each launch of nhood-bench first runs nhood-calibrate (--calibrate: its code, in
# the same processes) for the noise and the skew, and then times nhood-calibrate's single
# calls in turns with each case's algorithms (--sim-reference): nhood-sim predicts each case
# with the model fitted to the calls made in the same seconds as the case's. (A model per
# launch, fitted before its cases ran, put some cases of a launch in another state than its
# calibration: 615 of 1380 medians in band.)
launches=${LAUNCHES:-15}
for np in $nps $over; do
  echo "== $np processes ($(date +%H:%M:%S))"
  # shellcheck disable=SC2046
  run() { "mpiexec.$flavor" -n "$np" $(nhood_mpiexec_flags "$flavor" "$np") "$@"; }
  m=$launches
  [ "$np" -le "$cores" ] || m=1
  for l in $(seq "$m"); do
    run "$dir/tools/bench/nhood-bench" \
      --calibrate "--out $out/params-$np-$l.txt --json $out/calibrate-$np-$l.json --sim-model $out/model-$np-$l.txt" \
      --sim-reference "$out/model-$np-$l.txt" \
      "${topos[@]}" --coll allgather,alltoallv --sizes 8,1024 --algo all --iters "$iters" --warmup 40 \
      --json "$out/bench-$np-$l.json" >"$out/bench-$np-$l.txt"
    grep '^  L = ' "$out/bench-$np-$l.txt"
  done
  # nhood-sim predicts each case with its model; this machine is one node, so
  # --ranks-per-node is the process count (node-aware algorithms then run direct, as they do
  # here).
  for l in $(seq "$m"); do
    : >"$out/sim-$np-$l.json"
    python3 -c 'import json,sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("algo") == "sim-reference":
        print(r["topo"], r["coll"], r["bytes"], r["model"])' "$out/bench-$np-$l.json" |
      while read -r topo coll bytes model; do
        "$dir/tools/sim/nhood-sim" --ranks "$np" --ranks-per-node "$np" --topo "$topo" --coll "$coll" \
          --sizes "$bytes" --algo all --model "@$model" --seeds "$seeds" --json "$out/sim-case.json" \
          >>"$out/sim-$np-$l.txt"
        cat "$out/sim-case.json" >>"$out/sim-$np-$l.json"
      done
  done
done
python3 tools/plot/sim_validate.py --cores "$cores" --out "$out/table.md" "$out" $nps $over
