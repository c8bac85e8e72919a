#!/usr/bin/env bash
# Rounds of the isomorphic algorithms, checked on the rounds_max and msgs_sent_max fields of
# nhood-sim's JSON (P = 4096, periodic grid):
#  - cart-dim takes exactly 2d rounds for a Moore neighborhood of radius 1 in d = 2, 3, 4
#    dimensions (one per dimension and direction), and cart-dim-batch d;
#  - cart-bruck takes 2 hops (messages) per dimension for Moore radius 1 (+1, -1) and 3 for
#    radius 2 (+1, +2, -3); hops no block takes together share a round, so radius 1 takes 1
#    round per dimension and radius 2 takes 2, in 2-D and 3-D, at most ceil(log2(s+1)) + 1
#    (the isomorphic issue's bound, checked too);
#  - cart-2hop takes 2 rounds for Moore radius 1 in 2-D and 3-D, with 4 and 10 messages (the
#    3-D plan splits one dimension's values between the rounds: 5 + 5).
#   tools/sim/check_cart_rounds.sh NHOOD_SIM     (CTest runs it as sim.cart.rounds)
set -euo pipefail
sim=${1:?usage: check_cart_rounds.sh NHOOD_SIM}
json=$(mktemp)
trap 'rm -f "$json"' EXIT

field() { # field ALGO NAME: the distinct values of a JSON field over the algorithm's lines
  grep "\"algo\":\"$1\"" "$json" | grep -o "\"$2\":[0-9]*" | cut -d: -f2 | sort -u
}
expect() { # expect ALGO TOPO FIELD WANT [NOTE]
  local got
  got=$(field "$1" "$3")
  if [ "$got" != "$4" ]; then
    echo "FAILED: $1 on $2: $3 is '$got', expected $4"
    exit 1
  fi
  echo "$1 $2: $3 $got${5:+ ($5)}"
}

for d in 2 3 4; do
  "$sim" --ranks 4096 --topo "moore:d=$d,r=1" --coll allgather,alltoall --sizes 4 \
    --algo cart-dim,cart-dim-batch --json "$json" >/dev/null
  expect cart-dim "moore:d=$d,r=1" rounds_max $((2 * d))
  expect cart-dim-batch "moore:d=$d,r=1" rounds_max "$d"
done
for d in 2 3; do
  for r in 1 2; do
    "$sim" --ranks 4096 --topo "moore:d=$d,r=$r" --coll allgather,alltoall --sizes 4 \
      --algo cart-bruck --json "$json" >/dev/null
    s=$(( (2 * r + 1) ** d - 1 ))
    bound=1
    while (( (1 << (bound - 1)) < s + 1 )); do bound=$((bound + 1)); done # ceil(log2(s+1)) + 1
    rounds=$(( d * (r == 1 ? 1 : 2) ))
    if (( rounds > bound )); then
      echo "FAILED: expected cart-bruck rounds $rounds exceed the bound $bound for s=$s"
      exit 1
    fi
    expect cart-bruck "moore:d=$d,r=$r" rounds_max "$rounds" "s=$s, bound ceil(log2(s+1)) + 1 = $bound"
    expect cart-bruck "moore:d=$d,r=$r" msgs_sent_max $(( d * (r == 1 ? 2 : 3) )) "hops"
  done
done
for d in 2 3; do
  "$sim" --ranks 4096 --topo "moore:d=$d,r=1" --coll allgather,alltoall --sizes 4 \
    --algo cart-2hop --json "$json" >/dev/null
  expect cart-2hop "moore:d=$d,r=1" rounds_max 2
  expect cart-2hop "moore:d=$d,r=1" msgs_sent_max $(( d == 2 ? 4 : 10 ))
done
