# Sourced by the other scripts: makes sure a C compiler, CMake and the requested MPI are
# present. Installs them with apt-get when running as root on Debian/Ubuntu; otherwise prints
# the exact command to run and fails.
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
  for flavor in "$@"; do
    command -v "mpicc.$flavor" >/dev/null 2>&1 || missing="$missing $(nhood_packages_for "$flavor")"
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

# mpiexec flags for running more ranks than cores.
nhood_mpiexec_flags() {
  case "$1" in
    openmpi) echo "--oversubscribe --mca mpi_yield_when_idle 1" ;;
    mpich) echo "" ;;
  esac
}

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
