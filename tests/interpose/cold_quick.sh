#!/bin/bash
# The cold path counts every call alike, whether NHOOD_STATS times it or the quick path of
# interpose.h passes it straight to MPI: test_cold run with and without NHOOD_STATS must see
# nhood take over the doubled graph at the same call, the one NHOOD_STATS announces.
#   cold_quick.sh NHOOD_RUN MPIEXEC TEST_COLD [MPIEXEC FLAGS...]
set -u
run=$1 mpiexec=$2 exe=$3
shift 3
# Bursts of 3 calls on the doubled graph: the quick path serves a communicator called again.
launch() { env NHOOD_COLD=4 NHOOD_PARAMS=shm "$@" "$run" "$mpiexec" -n 4 "${flags[@]}" "$exe" 100 3 2>&1; }
flags=("$@")
timed=$(launch NHOOD_STATS=1) || { echo "$timed"; echo "FAIL: the run with NHOOD_STATS=1 failed"; exit 1; }
quick=$(launch NHOOD_STATS=0) || { echo "$quick"; echo "FAIL: the run without NHOOD_STATS failed"; exit 1; }
announced=$(echo "$timed" | grep -m1 "set-up against gain, after [0-9]* calls" |
  sed -E 's/.*nhood takes over at call ([0-9]+)( \(here call ([0-9]+).*)?$/\1 \3/' | awk '{print $NF}')
seen_timed=$(echo "$timed" | sed -nE 's/^test_cold: doubled: nhood from call ([0-9]+)$/\1/p')
seen_quick=$(echo "$quick" | sed -nE 's/^test_cold: doubled: nhood from call ([0-9]+)$/\1/p')
echo "announced by NHOOD_STATS: ${announced:-none}; seen with NHOOD_STATS: ${seen_timed:-none}; without: ${seen_quick:-none}"
for out in "$timed" "$quick"; do
  echo "$out" | grep -q " 0 failed checks" || { echo "$out"; echo "FAIL: a check failed"; exit 1; }
done
if [ -z "$announced" ] || [ "$announced" != "$seen_timed" ] || [ "$announced" != "$seen_quick" ] ||
  [ "$announced" = 0 ]; then
  echo "FAIL: the take-over calls differ"
  exit 1
fi
echo "PASS"
