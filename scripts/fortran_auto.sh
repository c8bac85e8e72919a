#!/usr/bin/env bash
# Issue 38: does `auto` pick and run for a Fortran program (use mpi_f08) what it picks for the
# same C program? Both gather 4 B from a Moore neighborhood of radius 2 on a periodic 5 x 5 grid
# of 25 processes, N times (default 600), through the interposition library, with NHOOD_STATS:
# nhood-hotloop-f against nhood-hotloop. Three settings:
#  - NHOOD_COLD=off NHOOD_TRIAL=off: nhood from the first call, the cost model deciding alone;
#    nothing is timed, so the two tables must be the same, row for row and call for call;
#  - NHOOD_TRIAL=off: the cold path asks and takes over, then a probation times nhood against
#    MPI's own; the algorithms and the asking's sentence must be the same (how many calls each
#    ran follows the probation's timing);
#  - as shipped: a trial also times the model's short list, so its winner, like the probation's
#    verdict, may differ between any two runs on this machine (C against C too): shown only.
#
#   scripts/fortran_auto.sh                                  # Open MPI, the Release build of flagship.sh
#   NHOOD_MPI=mpich SETTINGS="off off exact" scripts/fortran_auto.sh   # MPICH (25 processes that
#                                                            # poll on 2 cores: one setting is slow enough)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
n=${N:-600}
np=${NP:-25}
flavor=${NHOOD_MPI:-openmpi}
nhood_ensure_deps "$flavor"
dir=build/flagship-$flavor
nhood_release_build "$flavor" nhood-hotloop nhood-hotloop-f nhood_mpi
lib=$(realpath "$dir/libnhood-mpi.so")
launch() { # the environment's NHOOD_* settings and LD_PRELOAD passed on; then the program
  case "$flavor" in
    # shellcheck disable=SC2046
    openmpi) mpiexec.openmpi $(nhood_mpiexec_flags openmpi) -n "$np" -x LD_PRELOAD="$lib" -x NHOOD_STATS -x NHOOD_TRIAL \
      -x NHOOD_COLD "$@" ;;
    mpich) mpiexec.mpich -n "$np" -env LD_PRELOAD "$lib" "$@" ;;
  esac
}
# What NHOOD_STATS said about the communicator: its rows (collective, mode, algorithm, calls)
# and sentences, times left out.
stats() { # cold trial program...
  local cold=$1 trial=$2
  shift 2
  NHOOD_COLD=$cold NHOOD_TRIAL=$trial NHOOD_STATS=1 launch "$@" "$n" moore 2 |
    awk '/^  allgather/ {sub(/ +[0-9.]+ +[0-9.]+$/, ""); print; next} /set-up against gain|auto,|on probation/ {print}' |
    sed -E 's/[0-9]+\.[0-9]+ us/_ us/g'
}
# The part that must agree: everything (exact), or the algorithms and the asking (names).
agreed() { if [ "$1" = exact ]; then cat; else sed -E 's/^(  allgather +[a-z-]+ +.*[^ ]) +[0-9]+$/\1/' | grep -v "on probation"; fi; }
status=0
IFS=, read -r -a settings <<<"${SETTINGS:-off off exact,16 off names,16 5 shown}"
for setting in "${settings[@]}"; do
  read -r cold trial check <<<"$setting"
  c=$(stats "$cold" "$trial" "$dir/tools/bench/nhood-hotloop" mpi)
  f=$(stats "$cold" "$trial" "$dir/tools/bench/nhood-hotloop-f")
  echo "== NHOOD_COLD=$cold NHOOD_TRIAL=$trial, $np processes, Moore radius 2, $n calls (times left out)"
  echo "-- C:"
  echo "$c"
  echo "-- Fortran:"
  echo "$f"
  if [ "$check" = shown ]; then
    echo "-- (shown only)"
  elif [ "$(agreed "$check" <<<"$c")" = "$(agreed "$check" <<<"$f")" ]; then
    echo "-- the same ($check)"
  else
    echo "-- they differ ($check)"
    status=1
  fi
done
exit $status
