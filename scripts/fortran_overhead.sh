#!/usr/bin/env bash
# Issue 38's cost figure: a blocking 4 B MPI_Neighbor_allgather between 2 processes, through
# the interposition library, called from Fortran (nhood-hotloop-f, use mpi_f08) against the
# same call from C. Two measures:
#  - timed: RUNS runs (default 11) of `nhood-hotloop-f 2N time alternate` (N: default 10,000),
#    which makes the calls from Fortran and from C in alternating blocks of 100 on the same
#    communicator, so that both see the same machine, and times each block whole (one call is
#    too short for the clock's steps to resolve 3%); per run the median over the blocks of the
#    slowest process's time per call, for each (the first calls, cold or asking, are few against
#    the median); printed: the medians over the runs and of the per-run ratio Fortran / C;
#  - counted: the instructions per call of everything the process runs (callgrind on rank 0 at
#    N and 2N calls, the difference divided by N), so that the Fortran binding's own cost shows
#    whatever the noise.
#
#   scripts/fortran_overhead.sh                   # Open MPI, the Release build of flagship.sh
#   NHOOD_MPI=mpich RUNS=21 scripts/fortran_overhead.sh
#   NHOOD_ALGORITHM=direct scripts/fortran_overhead.sh   # nhood's path instead of the cold one
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
flavor=${NHOOD_MPI:-openmpi}
runs=${RUNS:-11}
n=${N:-10000}
nhood_ensure_deps "$flavor"
dir="build/flagship-$flavor"
nhood_release_build "$flavor" nhood-hotloop nhood-hotloop-f nhood_mpi
[ -x "$dir/tools/bench/nhood-hotloop-f" ] || { echo "error: no nhood-hotloop-f (no Fortran compiler?)" >&2; exit 1; }
lib=$(realpath "$dir/libnhood-mpi.so")
c_loop=("$dir/tools/bench/nhood-hotloop" mpi)
f_loop=("$dir/tools/bench/nhood-hotloop-f")
launch() { # through the library: 2 processes, then the program and its arguments
  case "$flavor" in
    openmpi) mpiexec.openmpi -n 2 -x LD_PRELOAD="$lib" "$@" ;;
    mpich) mpiexec.mpich -n 2 -env LD_PRELOAD "$lib" "$@" ;;
  esac
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for r in $(seq 1 "$runs"); do
  launch "${f_loop[@]}" $((2 * n)) time alternate |
    awk '/^c_median_us/ {c = $2 " " $4} /^median_us/ {f = $2 " " $4} END {print c, f}' >>"$out/timed"
  # C median, C mean, Fortran median, Fortran mean
done
echo "== a 4 B blocking allgather through libnhood-mpi, 2 processes, $flavor ($dir)"
for k in 1 2; do
  what=$([ $k = 1 ] && echo "median over the calls" || echo "mean over the calls")
  echo "  timed, the $what ($runs runs of $((2 * n)) calls from each in alternating blocks; medians over the runs): C" \
    "$(awk -v k=$k '{print $k}' "$out/timed" | median) us, Fortran $(awk -v k=$k '{print $(k + 2)}' "$out/timed" | median) us," \
    "Fortran / C per run: median $(awk -v k=$k '{printf "%.4f\n", $(k + 2) / $k}' "$out/timed" | median)" \
    "($(awk -v k=$k '{printf "%.3f ", $(k + 2) / $k}' "$out/timed"))"
done
if command -v valgrind >/dev/null; then
  # Rank 0's instructions under callgrind at N and 2N calls, the difference divided by N: all of
  # them (MPI's polling while it waits varies from run to run), and those of the calling side
  # alone, which differs between the two programs and not with the waiting: the program, the
  # Fortran bindings' libraries (Open MPI's, MPICH's libmpichfort), MPI's handle conversions
  # (*_f2c) and libnhood-mpi.
  run_cg() { # label program...
    local f="$out/cg.$1"
    shift
    launch bash -c 'if [ "${OMPI_COMM_WORLD_RANK:-$PMI_RANK}" = 0 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file="$0" "$@"; else exec "$@"; fi' \
      "$f" "$@" >/dev/null 2>&1
    callgrind_annotate --threshold=100 "$f" 2>/dev/null >"$f.txt"
  }
  total() { awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' "$out/cg.$1.txt"; }
  calling() {
    awk '$1 ~ /^[0-9,]+$/ && /nhood-hotloop|libnhood-mpi|libmpi_usempif08|libmpi_mpifh|libmpichfort|_f2c / && !/:main |MAIN__/ {
      gsub(",", "", $1); t += $1} END {printf "%.0f\n", t}' "$out/cg.$1.txt"
  }
  run_cg c1 "${c_loop[@]}" "$n"
  run_cg c2 "${c_loop[@]}" $((2 * n))
  run_cg f1 "${f_loop[@]}" "$n"
  run_cg f2 "${f_loop[@]}" $((2 * n))
  per() { echo $((($($1 "$3") - $($1 "$2")) / n)); }
  echo "  counted (instructions per call): all of rank 0's, C $(per total c1 c2), Fortran $(per total f1 f2);" \
    "the calling side, C $(per calling c1 c2), Fortran $(per calling f1 f2)"
else
  echo "  counted: skipped (no valgrind)"
fi
