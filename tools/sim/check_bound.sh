#!/usr/bin/env bash
# nhood-sim --bound (tools/sim/sim_bound.h) is a lower bound: no algorithm's predicted time
# is below it, over every algorithm, the five collectives, sizes from 1 B to 64 KiB, one and
# two levels; and its terms are what they must be on a complete graph of 8 ranks on two
# nodes of 4, 1000 B blocks (alltoall: 16 blocks leave each node, 16 enter; allgather: each
# node's 4 blocks leave once and enter the other node once).
#   tools/sim/check_bound.sh NHOOD_SIM     (CTest runs it as sim.bound)
set -euo pipefail
sim=${1:?usage: check_bound.sh NHOOD_SIM}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

below() { # the rows whose pred_us is below the bound printed before them
  awk '/no schedule below/ { for (i = 1; i <= NF; i++) if ($i == "below") bound = $(i + 1); next }
       $1 ~ /^all/ && $4 ~ /^[0-9.]+$/ && bound != "" && $4 + 1e-9 < bound { print "below the bound " bound ": " $0 }' "$out"
}
checked=0
for rpn in 0 1 3 4 16; do
  opts=()
  [ "$rpn" -gt 0 ] && opts=(--ranks-per-node "$rpn")
  "$sim" --ranks 64 "${opts[@]}" --topo er:density=0.2,seed=3 --topo moore:d=2,r=1 --topo moore:d=3,r=1,periodic=0 \
    --topo er:density=1.0 --sizes 1,8,1024,65536 --algo all --bound --no-verify >"$out"
  bad=$(below)
  if [ -n "$bad" ]; then
    echo "FAILED (ranks per node $rpn):"
    echo "$bad"
    exit 1
  fi
  checked=$((checked + $(awk '$1 ~ /^all/ && $4 ~ /^[0-9.]+$/' "$out" | wc -l)))
done
echo "$checked predicted rows, none below their bound"

"$sim" --ranks 8 --ranks-per-node 4 --topo er:density=1.0 --coll allgather,alltoall --sizes 1000 --bound \
  --no-verify >"$out"
expect() { # expect PATTERN
  if ! grep -q -- "$1" "$out"; then
    echo "FAILED: no line matches '$1' in:"
    cat "$out"
    exit 1
  fi
  echo "found: $1"
}
expect "alltoall 1000: no schedule below 3.087 us: rank 0 sends 7000 bytes (1.083 us); node 0's interface 16000 bytes out, 16000 in (3.087 us)"
expect "allgather 1000: no schedule below 2.127 us: rank 0 sends 1000 bytes (0.583 us); node 0's interface 4000 bytes out, 4000 in (2.127 us)"
