#!/usr/bin/env bash
# cart-dim takes exactly 2d communication rounds for a Moore neighborhood of radius 1 in
# d = 2, 3, 4 dimensions (one per dimension and direction), and cart-dim-batch d; checked on
# the rounds_max field of nhood-sim's JSON (P = 4096, periodic grid).
#   tools/sim/check_cart_rounds.sh NHOOD_SIM     (CTest runs it as sim.cart.rounds)
set -euo pipefail
sim=${1:?usage: check_cart_rounds.sh NHOOD_SIM}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for d in 2 3 4; do
  "$sim" --ranks 4096 --topo "moore:d=$d,r=1" --coll allgather,alltoall --bytes 4 \
    --algo cart-dim,cart-dim-batch --json "$json" >/dev/null
  for algo_rounds in "cart-dim:$((2 * d))" "cart-dim-batch:$d"; do
    algo=${algo_rounds%%:*}
    want=${algo_rounds##*:}
    got=$(grep "\"algo\":\"$algo\"" "$json" | grep -o '"rounds_max":[0-9]*' | cut -d: -f2 | sort -u)
    if [ "$got" != "$want" ]; then
      echo "FAILED: $algo on moore:d=$d,r=1 takes rounds '$got', expected $want"
      exit 1
    fi
    echo "$algo moore:d=$d,r=1: $got rounds"
  done
done
