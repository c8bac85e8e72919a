#!/usr/bin/env bash
# nhood-sim's predictions beside LogGOPSim's on the same schedules: nhood-sim builds each
# case's schedules with the library's builders and writes them as GOAL (--goal); LogGOPSim
# (Hoefler, Schneider, Lumsdaine: the field's reference LogGOPS simulator) simulates the same
# file with the same L, o, g and G. One level, no noise, eager messages only (LogGOPSim's S
# above every message). Prints, per case, both predictions, their ratio and each simulator's
# events per second.
#
#   LOGGOPSIM_SRC=DIR [NHOOD_SIM=PATH] scripts/loggopsim_compare.sh [CASES]
#
# DIR is a clone of https://github.com/spcl/LogGOPSim (not part of nhood, not in any package
# registry, so not in CI); its LogGOPSim and txt2bin are built in build/loggopsim (needs
# gengetopt, re2c, Graphviz's headers, a Fortran compiler and MPI: what its CMake project asks).
# CASES: small (default; seconds), paper (the cases docs/SIM.md reports: 4096 and 8192 ranks,
# about an hour and some GiB of GOAL text in build/loggopsim-cases, or WORK=DIR), or one
# run's nhood-sim arguments in quotes. Model: ib-edr's flat values,
# or MODEL=loggp:L=..,o=..,g=..,G=..,Gcopy=.. (µs); LogGOPSim gets them in picoseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${LOGGOPSIM_SRC:?set LOGGOPSIM_SRC to a clone of https://github.com/spcl/LogGOPSim}
cases=${1:-small}
model=${MODEL:-loggp:L=1.2,o=0.3,g=0.2,G=0.00008333,Gcopy=0.00002083}
lgs=build/loggopsim work=${WORK:-build/loggopsim-cases}
nhood_build=${BUILD:-build/loggopsim-nhood}

if [ ! -x "$lgs/LogGOPSim" ] || [ ! -x "$lgs/txt2bin" ]; then
  # Its CMake project also finds Clang for a tool not built here; a broken Clang package would stop it.
  cmake -S "$src/src" -B "$lgs" -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_Clang=ON >"$lgs.log" 2>&1 &&
    cmake --build "$lgs" --target LogGOPSim txt2bin -j"$(nproc)" >>"$lgs.log" 2>&1 || {
    tail -30 "$lgs.log"
    exit 1
  }
fi
sim=${NHOOD_SIM:-$nhood_build/tools/sim/nhood-sim} # NHOOD_SIM: a nhood-sim already built
if [ -z "${NHOOD_SIM:-}" ]; then
  cmake -S . -B "$nhood_build" -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi -DNHOOD_BUILD_TESTS=OFF \
    >"$nhood_build.log" 2>&1 && cmake --build "$nhood_build" --target nhood-sim -j"$(nproc)" >>"$nhood_build.log" 2>&1 || {
    tail -30 "$nhood_build.log"
    exit 1
  }
fi

if [ "$cases" = small ]; then
  runs=("--ranks 256 --topo er:density=0.05,seed=1 --topo moore:d=2,r=1 --coll allgather,alltoall --sizes 4,1024 --algo direct,combine,cart-dim-batch")
elif [ "$cases" != paper ]; then
  runs=("$cases") # nhood-sim's arguments for one run
else
  runs=("--ranks 4096 --topo er:density=0.01,seed=1 --topo er:density=0.05,seed=1 --coll allgather --sizes 4,1024 --algo direct,combine"
    "--ranks 8192 --topo moore:d=2,r=1 --topo moore:d=3,r=1 --coll allgather --sizes 4,1024 --algo direct,combine,cart-dim-batch,cart-2hop"
    "--ranks 4096 --topo mtx:data/matrices/delaunay_n16.mtx.gz --topo rmat:scale=16 --coll alltoallv --sizes 8 --per-entry 8 --algo direct,combine")
fi

# µs to picoseconds, LogGOPSim's integers.
read -r L o g G < <(python3 -c '
import sys
kv = dict(p.split("=") for p in sys.argv[1].split(":", 1)[1].split(","))
print(*(round(float(kv[k]) * 1e6) for k in ("L", "o", "g", "G")))' "$model")

rm -rf "$work" && mkdir -p "$work"
printf "%-28s %-10s %7s %-15s %12s %12s %7s %12s %12s\n" topo coll bytes algo nhood-sim_us LogGOPSim_us ratio \
  nhood_ev/s LGS_ev/s
k=0
for run in "${runs[@]}"; do
  k=$((k + 1))
  # shellcheck disable=SC2086 # the case's arguments, split on purpose
  "$sim" $run --model "$model" --no-verify --goal "$work/r$k" --json "$work/r$k.json" >"$work/r$k.txt"
  while IFS=$'\t' read -r topo coll bytes algo pred goal msgs wall; do
    "$lgs/txt2bin" -i "$goal" -o "$goal.bin" >/dev/null
    t0=$(date +%s.%N)
    out=$("$lgs/LogGOPSim" -f "$goal.bin" -L "$L" -o "$o" -g "$g" -G "$G" -S 2147483647 -b)
    t1=$(date +%s.%N)
    lgs_ps=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\) .*/\1/p' <<<"$out")
    # its events over the wall time measured here (its own rate divides by whole seconds)
    lgs_events=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' <<<"$out")
    lgs_rate=$(python3 -c 'import sys; e, a, b = map(float, sys.argv[1:]); print("%.3g" % (e / max(b - a, 1e-6)))' \
      "$lgs_events" "$t0" "$t1")
    python3 -c '
import sys
topo, coll, b, algo, pred, ps, msgs, wall, rate = sys.argv[1:]
lgs = float(ps) / 1e6
# nhood-sim'"'"'s events: a send and a receive per message, over its prediction'"'"'s wall time
ours = 2 * float(msgs) / float(wall) if float(wall) > 0 else float("inf")
print("%-28s %-10s %7s %-15s %12.3f %12.3f %7.4f %12.3g %12s" % (topo[:28], coll, b, algo, float(pred), lgs,
      float(pred) / lgs, ours, rate))' "$topo" "$coll" "$bytes" "$algo" "$pred" "$lgs_ps" "$msgs" "$wall" "$lgs_rate"
    rm -f "$goal.bin"
  done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("error") or r["algo_resolved"] != r["algo"]: continue
    print("\t".join(str(x) for x in (r["topo"], r["coll"], r["bytes"], r["algo"], r["pred_us"], r["goal"],
                                     r["msgs_total"], r.get("predict_wall_s", 0))))' "$work/r$k.json")
done
