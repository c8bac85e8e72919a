#!/usr/bin/env bash
# Issue 3's simulated acceptance runs for message combining: nhood-sim (in-process Phase 1,
# exact-delivery check, LogGP prediction under ib-edr with the round cost, ocopy and noise of
# NOISE, drawn SEEDS times: median and 10th-90th percentile band) for
#   - P = 4096 random graphs, densities 0.05 .. 0.8, 4 B allgather;
#   - P = 8192 Moore neighborhoods (d, r) in (2,1) (2,2) (2,3) (2,4) (3,1) (3,2) (4,2).
# Each run prints its wall time and peak memory (GNU time). Needs a Release build of nhood-sim
# (scripts/flagship.sh builds one in build/flagship-openmpi; BUILD= overrides).
#
#   scripts/sim_combine.sh              # all runs, JSON lines in out/sim-combine.json
#   ONLY=er scripts/sim_combine.sh      # just the random graphs (ONLY=moore: just Moore)
#   NOISE= scripts/sim_combine.sh       # LogGP alone: no round cost, no noise
# NOISE: a model file of nhood-calibrate --sim-model (default data/models/dev-openmpi-2p.txt, this
# project's development machine: 2 processes, 2 cores, Open MPI 4.1 over shared memory).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build/flagship-openmpi}
sim="$build/tools/sim/nhood-sim"
[ -x "$sim" ] || cmake --build "$build" --target nhood-sim >/dev/null
noise=${NOISE-data/models/dev-openmpi-2p.txt}
costs=()
[ -z "$noise" ] || costs=(--noise-from "$noise" --seeds "${SEEDS:-21}")
mkdir -p out
json=out/sim-combine.json
rm -f "$json"
run() {
  echo "== nhood-sim $*"
  /usr/bin/time -f "   wall %e s, peak memory %M KB" "$sim" --coll allgather --sizes 4 --algo direct,combine \
    --model loggp:preset=ib-edr "${costs[@]}" --json "$json.run" "$@"
  cat "$json.run" >>"$json" # nhood-sim truncates its --json file: one per run, gathered here
}
only=${ONLY:-all}
if [ "$only" = all ] || [ "$only" = er ]; then
  for d in 0.05 0.1 0.2 0.4 0.8; do run --ranks 4096 --topo "er:density=$d,seed=1"; done
fi
if [ "$only" = all ] || [ "$only" = moore ]; then
  for dr in 2,1 2,2 2,3 2,4 3,1 3,2 4,2; do run --ranks 8192 --topo "moore:d=${dr%,*},r=${dr#*,}"; done
fi
rm -f "$json.run"
echo "== JSON lines in $json"
