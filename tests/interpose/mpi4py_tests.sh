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
  echo "building mpi4py $version against $mpicc (about a minute)"
  # -O0: the tests exercise MPI through mpi4py, not mpi4py's speed, and its large generated C
  # file compiles several times faster unoptimized (CFLAGS comes after Python's own -O2).
  CFLAGS=-O0 MPICC=$mpicc "$venv/bin/pip" install -q "$sdist" || { echo "FAILED: building mpi4py"; exit 1; }
fi
[ -d "$work/mpi4py-$version/test" ] || tar xzf "$sdist" -C "$work"
cd "$work/mpi4py-$version/test"

tests=(-i test_cco_ngh_buf -i test_cco_ngh_obj -i test_cco_pr_ngh_buf)
# Each rank writes to a file of its own: on a shared output the ranks' verdicts interleave
# ("OKRan 36 tests", "(skipped=12)OK") and cannot be counted reliably. The rank comes from the
# launcher's environment (Open MPI: OMPI_COMM_WORLD_RANK, MPICH's Hydra: PMI_RANK).
out_dir="$work/out"
per_rank='exec "$@" >"$0/rank.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-unknown}}" 2>&1'
for algorithm in auto direct combine mpi; do
  for np in 1 2 4; do
    rm -rf "$out_dir" && mkdir -p "$out_dir"
    # Unbuffered, so that a run stopped by the timeout still shows how far each rank got.
    if ! PYTHONUNBUFFERED=1 NHOOD_ALGORITHM=$algorithm NHOOD_COMBINE_THETA=1 NHOOD_COMBINE_LEVELS=64 NHOOD_STATS=1 \
      timeout 300 "$nhood_run" "$mpiexec" -n "$np" "${flags[@]}" \
      bash -c "$per_rank" "$out_dir" "$venv/bin/python" runtests.py -q "${tests[@]}"; then
      for file in "$out_dir"/rank.*; do echo "== $file"; cat "$file"; done
      echo "FAILED: mpi4py's tests with NHOOD_ALGORITHM=$algorithm on $np ranks"
      exit 1
    fi
    # Every rank's own output ends in OK, none says FAILED, and nhood ran the calls (its
    # NHOOD_STATS table, printed by one rank, has rows).
    oks=0
    for ((rank = 0; rank < np; rank++)); do
      file="$out_dir/rank.$rank"
      if [ -f "$file" ] && grep -qE '^OK( |$)' "$file" && ! grep -q 'FAILED' "$file"; then
        oks=$((oks + 1))
      fi
    done
    rows=$(cat "$out_dir"/rank.* | grep -cE '^  (allgather|allgatherv|alltoall|alltoallv|alltoallw) ' || true)
    if [ "$oks" != "$np" ] || [ "$rows" = 0 ]; then
      for file in "$out_dir"/rank.*; do echo "== $file"; cat "$file"; done
      echo "FAILED: NHOOD_ALGORITHM=$algorithm on $np ranks: $oks of $np ranks OK, $rows NHOOD_STATS rows"
      exit 1
    fi
    echo "NHOOD_ALGORITHM=$algorithm np=$np: $(grep -m1 '^Ran' "$out_dir/rank.0"), $(grep -m1 -oE '^OK( \(skipped=[0-9]+\))?' "$out_dir/rank.0") on every rank"
  done
done
echo "mpi4py $version's neighborhood tests pass through libnhood-mpi.so"
