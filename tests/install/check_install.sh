#!/usr/bin/env bash
# Installs a built tree into a scratch prefix, then builds and runs a consumer both ways the
# README documents: CMake's find_package(nhood) and pkg-config with the MPI compiler wrapper.
#   check_install.sh BUILD_DIR SOURCE_DIR MPI_C_COMPILER MPIEXEC
set -euo pipefail
build=$1 src=$2 mpicc=$3 mpiexec=$4
work="$build/install-check"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

echo "-- find_package(nhood)"
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$mpiexec" -n 2 "$work/cmake/consumer"

echo "-- pkg-config nhood"
libdir=$(dirname "$(find "$work/prefix" -name nhood.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs nhood)
# shellcheck disable=SC2086
"$mpicc" "$src/tests/install/consumer/main.c" $flags -Wl,-rpath,"$libdir/.." -o "$work/consumer-pc"
"$mpiexec" -n 2 "$work/consumer-pc"
