#!/usr/bin/env bash
# Builds nhood with warnings as errors and runs the whole test suite (unit tests and MPI
# tests that compare every algorithm with MPI's own neighborhood collectives), once per MPI.
#
#   scripts/test.sh              # Open MPI and MPICH
#   scripts/test.sh openmpi      # one of them
#
# Build trees go to build/test-<mpi>. Installs missing MPI packages when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavors=("$@")
[ ${#flavors[@]} -eq 0 ] && flavors=(openmpi mpich)
nhood_ensure_deps "${flavors[@]}"

status=0
for flavor in "${flavors[@]}"; do
  case "$flavor" in openmpi|mpich) ;; *) echo "unknown MPI '$flavor' (openmpi or mpich)" >&2; exit 2 ;; esac
  dir="build/test-$flavor"
  mkdir -p build
  echo "== [$flavor] configure and build ($dir)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNHOOD_WERROR=ON \
    -DMPI_C_COMPILER="mpicc.$flavor" -DMPIEXEC_EXECUTABLE="$(command -v "mpiexec.$flavor")" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j"$(nproc)"
  echo "== [$flavor] tests"
  if ! (cd "$dir" && ctest --output-on-failure --timeout 900); then
    status=1
  fi
done
exit $status
