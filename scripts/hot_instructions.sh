#!/usr/bin/env bash
# What nhood's own code executes per repeated call (issue 37, item 2), counted by callgrind,
# which no noise moves: a 4 B blocking allgather between 2 processes, nhood's `direct` called
# through the API and MPI_Neighbor_allgather through the interposition library
# (NHOOD_ALGORITHM=direct). Rank 0 runs under callgrind at N1 and N2 calls; the instructions
# in nhood's code (the nhood-hotloop binary but its main, or libnhood-mpi) differ by
# (N2 - N1) x the cost of one call.
#
#   scripts/hot_instructions.sh                  # Open MPI, the Release build of flagship.sh
#   NHOOD_MPI=mpich scripts/hot_instructions.sh
#   BUILD=/tmp/base/build/flagship-openmpi scripts/hot_instructions.sh   # an existing build
#
# Needs valgrind. Prints one line per path: instructions per call, and the functions that
# execute the most of them; then the whole call's instructions, MPI's included, against the
# same exchange written by hand (nhood-hotloop hand), which is issue 37's yardstick for `direct`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
flavor=${NHOOD_MPI:-openmpi}
n1=${N1:-10000}
n2=${N2:-20000}
command -v valgrind >/dev/null || { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
if [ -n "${BUILD:-}" ]; then
  dir=$BUILD
else
  nhood_ensure_deps "$flavor"
  dir="build/flagship-$flavor"
  nhood_release_build "$flavor" nhood-hotloop nhood_mpi
fi
hotloop=$(realpath "$dir/tools/bench/nhood-hotloop")
lib=$(realpath "$dir/libnhood-mpi.so")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions rank 0 executes in all (MPI included): callgrind file $1.
total() {
  callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}
# Instructions rank 0 executes in object $1 (a path's tail), but main: its callgrind file $2.
count() {
  callgrind_annotate --threshold=100 "$2" 2>/dev/null | awk -v obj="$1" '
    index($0, "/" obj) && !/:main / {gsub(",", "", $1); total += $1} END {printf "%.0f\n", total}'
}
# The top functions of one run, per call.
top() {
  callgrind_annotate --threshold=100 "$2" 2>/dev/null | awk -v obj="$1" -v n="$3" '
    index($0, "/" obj) && !/:main / {v = $1; gsub(",", "", v); f = $(NF - 1); sub(/^[^:]*:/, "", f);
      if (k < 6) printf "%s%s %.0f", (k ? ", " : ""), f, v / n; k++}'
}
# One run of `mode` with N calls; $3: preload libnhood-mpi.
run() {
  local mode=$1 n=$2 preload=$3 f="$out/$1.$2"
  local env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  [ "$preload" = 1 ] && env+=(LD_PRELOAD="$lib" NHOOD_ALGORITHM=direct)
  env "${env[@]}" "mpiexec.$flavor" -n 2 bash -c \
    'if [ "${OMPI_COMM_WORLD_RANK:-$PMI_RANK}" = 0 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file="$0" "$@"; else exec "$@"; fi' \
    "$f" "$hotloop" "$mode" "$n"
  echo "$f"
}
per_call() { # mode object preload
  local a b
  a=$(run "$1" "$n1" "$3")
  b=$(run "$1" "$n2" "$3")
  echo "$(((($(count "$2" "$b") - $(count "$2" "$a")) / (n2 - n1)))) ($(top "$2" "$b" "$n2"))"
}
# All of a call's instructions, MPI's included, in mode $1 (no preload).
whole_call() {
  local a b
  a=$(run "$1" "$n1" 0)
  b=$(run "$1" "$n2" 0)
  echo $((($(total "$b") - $(total "$a")) / (n2 - n1)))
}
echo "== nhood's instructions per repeated 4 B allgather, 2 processes, $flavor ($dir)"
echo "  API, direct:          $(per_call api "nhood-hotloop]" 0)"
echo "  interposed, direct:   $(per_call mpi libnhood-mpi.so 1)"
api=$(whole_call api)
hand=$(whole_call hand)
echo "  whole call, MPI's instructions included: API direct $api, written by hand $hand" \
  "(MPI_Irecv, MPI_Isend, MPI_Waitall): $(awk -v a="$api" -v h="$hand" 'BEGIN {printf "%.3f", a / h}')x"
