#!/usr/bin/env bash
# Exact-delivery check of message combining over a corpus of more than 1000 topologies:
# nhood-sim builds the pattern (Phase 1, in process) and every rank's combined schedule for
# allgather, allgatherv, alltoall and alltoallv (the v ones after their size pass), runs them
# on simulated buffers and checks that every block lands exactly where MPI would put it (a
# failure exits non-zero). Combining is forced as deep as the hypercube goes, with theta 1,
# so that every topology exercises every level.
#
#   tools/sim/verify_corpus.sh NHOOD_SIM [MAX_RANKS]   (CTest runs it as sim.verify.combine.corpus)
#
# Corpus: random graphs (densities 0.01 to 0.8, several seeds), Moore and von Neumann
# neighborhoods (d = 1..3, r = 1..2, periodic or not), on P from 2 to 4096 (to MAX_RANKS where
# given: the sanitizer build stops at 512, still over 1000 topologies).
set -euo pipefail
sim=${1:?usage: verify_corpus.sh NHOOD_SIM [MAX_RANKS]}
max_ranks=${2:-4096}
export NHOOD_COMBINE_LEVELS=64
total=0
check() { # P, then SPECs
  local p=$1
  shift
  local args=()
  for spec in "$@"; do args+=(--topo "$spec"); done
  if ! out=$("$sim" --ranks "$p" --algo combine --theta 1 --coll allgather,allgatherv,alltoall,alltoallv --sizes 3 "${args[@]}" 2>&1); then
    echo "$out"
    echo "FAILED: nhood-sim --ranks $p ${args[*]}"
    exit 1
  fi
  total=$((total + $#))
}
stencils() { # d in 1..3, r in 1..2, periodic or not, Moore and von Neumann
  for kind in moore vonneumann; do
    for d in 1 2 3; do
      for r in 1 2; do
        for periodic in 0 1; do echo "$kind:d=$d,r=$r,periodic=$periodic"; done
      done
    done
  done
}
random_graphs() { # seeds per density
  for d in 0.01 0.05 0.1 0.2 0.4 0.8; do
    for ((s = 1; s <= $1; s++)); do echo "er:density=$d,seed=$s"; done
  done
}
mapfile -t stencil_specs < <(stencils)
for p in 2 3 4 5 6 7 8 9 12 15 16 17 31 32 33 48 63 64; do
  mapfile -t er < <(random_graphs 6)
  check "$p" "${er[@]}" "${stencil_specs[@]}"
done
for p in 100 128 255 256 512; do
  [ "$p" -le "$max_ranks" ] || continue
  mapfile -t er < <(random_graphs 2)
  check "$p" "${er[@]}" "${stencil_specs[@]}"
done
for p in 1000 1024; do
  [ "$p" -le "$max_ranks" ] || continue
  check "$p" er:density=0.01,seed=1 er:density=0.05,seed=1 er:density=0.1,seed=1 "${stencil_specs[@]}"
done
[ 4096 -le "$max_ranks" ] && check 4096 er:density=0.01,seed=1 moore:d=2,r=1 vonneumann:d=3,r=1
echo "verify_corpus: $total topologies, every block delivered where MPI puts it"
[ "$total" -ge 1000 ]
