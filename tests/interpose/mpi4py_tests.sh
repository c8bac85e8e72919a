#!/usr/bin/env bash
# mpi4py's own neighborhood-collective tests (test_cco_ngh_buf, test_cco_ngh_obj,
# test_cco_pr_ngh_buf from its source distribution), unmodified, with the interposition
# library preloaded by nhood-run: under auto and with NHOOD_ALGORITHM forced to direct, combine
# (made to combine on few ranks) and mpi, on 1, 2 and 4 ranks. mpi4py is fetched from PyPI
# and built against the MPI under test, into a virtual environment under WORKDIR (kept, so a
# second run does not build it again).
#   mpi4py_tests.sh MPICC MPIEXEC NHOOD_RUN WORKDIR [MPIEXEC_FLAGS...]
set -euo pipefail
mpicc=$1 mpiexec=$2 nhood_run=$3 work=$4
shift 4
flags=("$@")
version=4.1.2 # the tests are this version's
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
mkdir -p "$work"
sdist="$work/mpi4py-$version.tar.gz"
venv="$work/venv"
if [ ! -f "$sdist" ]; then
  "$python" -m pip download -q --no-deps --no-binary mpi4py "mpi4py==$version" -d "$work" ||
    { echo "FAILED: could not fetch mpi4py $version from PyPI"; exit 1; }
fi
if ! "$venv/bin/python" -c 'import mpi4py' 2>/dev/null; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  echo "building mpi4py $version against $mpicc (a few minutes)"
  MPICC=$mpicc "$venv/bin/pip" install -q "$sdist" || { echo "FAILED: building mpi4py"; exit 1; }
fi
[ -d "$work/mpi4py-$version/test" ] || tar xzf "$sdist" -C "$work"
cd "$work/mpi4py-$version/test"

tests=(-i test_cco_ngh_buf -i test_cco_ngh_obj -i test_cco_pr_ngh_buf)
for algorithm in auto direct combine mpi; do
  for np in 1 2 4; do
    if ! out=$(NHOOD_ALGORITHM=$algorithm NHOOD_COMBINE_THETA=1 NHOOD_COMBINE_LEVELS=64 NHOOD_STATS=1 \
      "$nhood_run" "$mpiexec" -n "$np" "${flags[@]}" "$venv/bin/python" runtests.py -q "${tests[@]}" 2>&1); then
      echo "$out"
      echo "FAILED: mpi4py's tests with NHOOD_ALGORITHM=$algorithm on $np ranks"
      exit 1
    fi
    # Every rank reports OK, none FAILED, and nhood ran the calls (its NHOOD_STATS table has
    # rows). The ranks share one output, so a verdict may sit between another rank's dashes.
    oks=$( (grep -oE '(^|-)OK($|[ (-])' <<<"$out" || true) | wc -l)
    if grep -q 'FAILED (' <<<"$out"; then oks=0; fi
    rows=$(grep -cE '^  (allgather|allgatherv|alltoall|alltoallv|alltoallw) ' <<<"$out" || true)
    if [ "$oks" != "$np" ] || [ "$rows" = 0 ]; then
      echo "$out"
      echo "FAILED: NHOOD_ALGORITHM=$algorithm on $np ranks: $oks of $np ranks OK, $rows NHOOD_STATS rows"
      exit 1
    fi
    echo "NHOOD_ALGORITHM=$algorithm np=$np: $(grep -m1 '^Ran' <<<"$out"), $(grep -m1 -oE 'OK( \(skipped=[0-9]+\))?' <<<"$out") on every rank"
  done
done
echo "mpi4py $version's neighborhood tests pass through libnhood-mpi.so"
