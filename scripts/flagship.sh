#!/usr/bin/env bash
# The main job: builds nhood (Release) and runs the flagship comparison on this machine.
#   1. builds the library and tools;
#   2. calibrates the cost model on the local ranks (nhood-calibrate -> out/nhood-params.txt);
#   3. times nhood's algorithms, "auto" among them, against the MPI library's own
#      MPI_Neighbor_allgather on a random graph, a 2-D Moore stencil and the SpMV halo of a
#      real matrix, for small, medium and large blocks (nhood-bench);
#   4. projects 4096 ranks under an InfiniBand-like LogGP model with the round cost and noise
#      measured here (nhood-sim, a median and a 10th-90th percentile band) and prints what
#      "auto" would choose there (nhood-info);
#   5. prints how close "auto" came to the best algorithm and writes the plots.
#
#   scripts/flagship.sh                 # Open MPI, 16 ranks
#   NP=32 SIZES=1,64,4096,262144 scripts/flagship.sh
#   NHOOD_MPI=mpich NP=4 scripts/flagship.sh
#
# Results: out/flagship.json (bench), out/flagship-sim.json, out/flagship-info.txt,
# out/nhood-params.txt, out/nhood-sim-model.txt, out/plots/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
np=${NP:-16}
iters=${ITERS:-100}
sizes=${SIZES:-4,1024,65536}
sim_ranks=${SIM_RANKS:-4096}
own=$(( np < $(nproc) ? np : $(nproc) ))
step() { echo; echo "== [$1/5] $2 ($(date +%H:%M:%S))"; }

step 1 "dependencies and build (Release, $flavor)"
nhood_ensure_deps "$flavor"
nhood_find_plot_python
dir="build/flagship-$flavor"
nhood_release_build "$flavor" nhood-bench nhood-sim nhood-info nhood-calibrate
echo "built in $dir"
# shellcheck disable=SC2046
run() { "mpiexec.$flavor" -n "$np" $(nhood_mpiexec_flags "$flavor") "$@"; }

step 2 "calibrating the cost model on $np ranks, and the simulator's round cost and noise on $own"
run "$dir/tools/calibrate/nhood-calibrate" --out out/nhood-params.txt | tail -9
export NHOOD_PARAMS=$PWD/out/nhood-params.txt
# nhood-sim's software costs and noise from processes with a core each (oversubscribed ones
# measure the scheduler's turns, which no cluster node has).
# shellcheck disable=SC2046
"mpiexec.$flavor" -n "$own" $(nhood_mpiexec_flags "$flavor" "$own") "$dir/tools/calibrate/nhood-calibrate" \
  --out out/nhood-params-sim.txt --sim-model out/nhood-sim-model.txt | sed -n '/^noise:/,/^  L = /p'

topos=(--topo er:density=0.2,seed=1 --topo moore:d=2,r=2)
matrix=data/matrices/delaunay_n15.mtx.gz
nhood_need_file "$matrix"
topos+=(--topo "mtx:$matrix")
step 3 "nhood-bench on $np ranks ($flavor): allgather at $sizes bytes per block"
rm -f out/flagship.json
run -x NHOOD_PARAMS "$dir/tools/bench/nhood-bench" "${topos[@]}" --coll allgather --sizes "$sizes" \
  --algo auto,mpi,direct,combine,cart-dim-batch,cart-bruck --iters "$iters" --warmup 10 --json out/flagship.json \
  2>&1 | grep -v '^\(create\|sched_build\) '

step 4 "projection to $sim_ranks ranks (nhood-sim, LogGP ib-edr with the round cost and noise measured here) and auto's choice there (nhood-info)"
"$dir/tools/sim/nhood-sim" --ranks "$sim_ranks" --topo er:density=0.2,seed=1 --topo moore:d=2,r=2 --coll allgather \
  --sizes 4,1024,65536 --algo direct,combine,cart-dim-batch,cart-bruck --model loggp:preset=ib-edr \
  --noise-from out/nhood-sim-model.txt --seeds 21 --no-verify --json out/flagship-sim.json
"$dir/tools/sim/nhood-info" --ranks "$sim_ranks" --topo er:density=0.2,seed=1 --topo moore:d=2,r=2 \
  --model loggp:preset=ib-edr --sizes 4,64,1024,16384,65536,1048576 | tee out/flagship-info.txt

step 5 "auto against the best algorithm, and plots"
py=${NHOOD_PYTHON:-python3}
# Exit status 1 is the report's verdict (auto above 1.05x of the best somewhere: a finding, shown
# with "!"), 2 or more that it could not read the results. Every case must be there.
rc=0
"$py" tools/plot/nhood_auto_report.py out/flagship.json | tee out/flagship-report.txt || rc=$?
[ "$rc" -le 1 ] || { echo "error: the auto report could not read out/flagship.json" >&2; exit 1; }
ncases=$((${#topos[@]} / 2 * $(tr ',' '\n' <<<"$sizes" | wc -l)))
grep -q "^$ncases cases;" out/flagship-report.txt ||
  { echo "error: out/flagship.json does not hold all $ncases cases (${#topos[@]}/2 topologies x sizes $sizes)" >&2; exit 1; }
if [ -n "${NHOOD_PYTHON:-}" ]; then
  "$NHOOD_PYTHON" tools/plot/nhood_plot.py --out out/plots out/flagship.json out/flagship-sim.json
fi
echo; echo "== done: out/flagship.json, out/flagship-sim.json, out/flagship-info.txt, out/plots/"
