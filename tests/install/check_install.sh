#!/usr/bin/env bash
# Installs a built tree into a scratch prefix, then builds and runs a consumer both ways the
# README documents, with nothing set by hand: no LD_LIBRARY_PATH, no -DMPI_C_COMPILER for the
# CMake consumer, no -Wl,-rpath for the pkg-config one.
#   check_install.sh BUILD_DIR SOURCE_DIR MPI_C_COMPILER MPIEXEC [MPIEXEC_FLAGS]
# MPI_C_COMPILER and MPIEXEC are those the tree was built and is tested with; MPIEXEC_FLAGS
# (space separated, may be empty) are only for launching, e.g. Open MPI's --oversubscribe.
set -euo pipefail
build=$1 src=$2 mpicc=$3 mpiexec=$4
read -r -a mpiexec_flags <<<"${5:-}"
mpicc=$(command -v "$mpicc")
work="$(cd "$build" && pwd)/install-check"
prefix="$work/prefix"
consumer="$src/tests/install/consumer"

# Nothing from the caller's environment may make a broken install work.
unset LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH MPI_HOME

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# Runs a command quietly; on failure shows its output and fails with the given message.
quiet() {
  local what=$1 log
  shift
  log=$(mktemp "$work/log.XXXXXX")
  "$@" >"$log" 2>&1 || {
    cat "$log" >&2
    fail "$what"
  }
}

# The program's MPI libraries (libmpi.so.N, libmpich.so.N): exactly one, and nothing missing.
# Two (Open MPI's and MPICH's) is what a package that finds another MPI than its own gives.
check_links() {
  local exe=$1 deps mpis
  [ -x "$exe" ] || fail "$exe was not built"
  deps=$(ldd "$exe")
  if grep -q 'not found' <<<"$deps"; then
    grep 'not found' <<<"$deps" >&2
    fail "$exe: a library is not found"
  fi
  mpis=$(grep -oE 'lib(mpi|mpich)\.so\.[0-9]+' <<<"$deps" | sort -u || true)
  [ "$(grep -c . <<<"$mpis")" = 1 ] || fail "$(basename "$exe") links $(echo $mpis) (one MPI expected)"
  echo "   links $mpis"
}

run2() {
  "$mpiexec" -n 2 "${mpiexec_flags[@]}" "$@" || fail "$* exited with $?"
}

# Item: every installed program is named in the README's Install section, and every nhood-*
# program it names is installed.
readme_lists_install() {
  local section f tool
  section=$(awk '/^## /{on = ($0 == "## Install")} on' "$src/README.md")
  [ -n "$section" ] || fail "README.md has no '## Install' section"
  for f in "$prefix"/bin/*; do
    [ -e "$f" ] || continue
    grep -qF "\`$(basename "$f")\`" <<<"$section" || fail "README's Install section does not name $(basename "$f")"
  done
  for tool in $(grep -oE '`nhood-[a-z]+`' <<<"$section" | tr -d '`' | sort -u); do
    [ -x "$prefix/bin/$tool" ] || fail "README's Install section names $tool, which is not installed"
  done
  echo "   $(cd "$prefix/bin" 2>/dev/null && echo *)"
}

# Item: find_package(nhood) with nothing but CMAKE_PREFIX_PATH finds the MPI nhood was built with.
cmake_consumer() {
  quiet "consumer configure" cmake -S "$consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix"
  quiet "consumer build" cmake --build "$work/cmake"
  check_links "$work/cmake/consumer"
  run2 "$work/cmake/consumer"
}

# Item: another MPI's compiler, given on purpose, stops the configure with a message that names
# the right one.
cmake_consumer_other_mpi() {
  local other=$1 log="$work/cmake-other.log"
  if cmake -S "$consumer" -B "$work/cmake-other" -DCMAKE_PREFIX_PATH="$prefix" \
    -DMPI_C_COMPILER="$other" >"$log" 2>&1; then
    fail "configured with another MPI's compiler ($other)"
  fi
  grep -qF -- "-DMPI_C_COMPILER=$mpicc" "$log" || {
    cat "$log" >&2
    fail "the message does not name -DMPI_C_COMPILER=$mpicc"
  }
  grep -A1 -F 'nhood was built with:' "$log" | sed 's/^ */   /'
}

# Item: mpicc app.c $(pkg-config --cflags --libs nhood) gives a program that runs, with the
# mpicc the .pc file names; PKG_CONFIG_PATH given as in $2 (relative to $work or absolute).
pkgconfig_consumer() {
  local name=$1 pcpath=$2 pc_mpicc flags
  cd "$work"
  export PKG_CONFIG_PATH=$pcpath
  flags=$(pkg-config --cflags --libs nhood)
  pc_mpicc=$(pkg-config --variable=mpicc nhood)
  echo "   $mpicc app.c $flags"
  # shellcheck disable=SC2086
  quiet "pkg-config consumer build" "$mpicc" "$consumer/main.c" $flags -o "$work/$name"
  cd /
  check_links "$work/$name"
  run2 "$work/$name"
  [ "$pc_mpicc" = "$mpicc" ] || fail "pkg-config --variable=mpicc nhood gives '$pc_mpicc', not $mpicc"
}

# Item: an unmodified MPI program gets nhood (NHOOD_STATS=1 prints its table at MPI_Finalize):
# run with the installed nhood-run, linked ahead of MPI by CMake (nhood::mpi) and by pkg-config
# (--variable=interpose). $1: how.
interposed() {
  local how=$1 exe out
  case "$how" in
    nhood-run)
      quiet "plain build" "$mpicc" "$consumer/plain.c" -o "$work/plain"
      exe=("$prefix/bin/nhood-run" "$mpiexec" -n 2 "${mpiexec_flags[@]}" "$work/plain")
      ;;
    cmake)
      exe=("$mpiexec" -n 2 "${mpiexec_flags[@]}" "$work/cmake/plain-linked")
      ;;
    pkg-config)
      export PKG_CONFIG_PATH=$pcdir
      # shellcheck disable=SC2046
      quiet "plain link with pkg-config" "$mpicc" "$consumer/plain.c" $(pkg-config --variable=interpose nhood) \
        -o "$work/plain-pc"
      check_links "$work/plain-pc"
      exe=("$mpiexec" -n 2 "${mpiexec_flags[@]}" "$work/plain-pc")
      ;;
  esac
  out=$(NHOOD_STATS=1 "${exe[@]}" 2>&1) || {
    echo "$out" >&2
    fail "${exe[*]} exited with an error"
  }
  grep -q "plain OK" <<<"$out" || fail "the program's result is wrong: $out"
  grep -qE "allgather +blocking +[a-z]" <<<"$out" || {
    echo "$out" >&2
    fail "nhood did not run the program's MPI_Neighbor_allgather (no NHOOD_STATS table)"
  }
  echo "   $(grep -E 'allgather +blocking' <<<"$out")"
}

rm -rf "$work"
mkdir -p "$work"
quiet "cmake --install" cmake --install "$build" --prefix "$prefix"
pcdir=$(dirname "$(find "$prefix" -name nhood.pc | head -n 1)")

failed=""
check() {
  local name=$1
  shift
  echo "-- $name"
  # errexit holds inside the subshell only when the subshell is not tested (no ||, no if).
  set +e
  (
    set -e
    "$@"
  )
  [ $? = 0 ] || failed="$failed
   $name"
  set -e
}
check "installed programs named in README.md's Install section" readme_lists_install
check "find_package(nhood), no MPI hints" cmake_consumer
# The MPI library a compiler wrapper links (libmpi.so.40, libmpich.so.12, ...): what makes two
# wrappers different MPIs, whatever their names (/usr/bin/mpicc is one of the others).
mpi_linked_by() {
  local exe="$work/which-mpi"
  printf '#include <mpi.h>\nint main(void) { return MPI_Init(0, 0); }\n' >"$work/which-mpi.c"
  "$1" "$work/which-mpi.c" -o "$exe" >/dev/null 2>&1 || return 0
  ldd "$exe" | grep -oE 'lib(mpi|mpich)\.so[.0-9]*' | head -n 1 || true
}
own=$(mpi_linked_by "$mpicc")
[ -n "$own" ] || fail "cannot tell which MPI library $mpicc links"
other=""
for c in $(compgen -c mpicc | sort -u); do
  c=$(command -v "$c" || true)
  [ -n "$c" ] || continue
  linked=$(mpi_linked_by "$c")
  if [ -n "$linked" ] && [ "$linked" != "$own" ]; then
    other=$c
    break
  fi
done
if [ -n "$other" ]; then
  check "find_package(nhood) with -DMPI_C_COMPILER=$other ($(mpi_linked_by "$other")) stops" cmake_consumer_other_mpi "$other"
else
  echo "-- skipped: find_package(nhood) with another MPI's compiler (every mpicc here links ${own:-the same MPI})"
fi
check "an unmodified MPI program under the installed nhood-run" interposed nhood-run
check "an unmodified MPI program linked with nhood::mpi (CMake)" interposed cmake
check "an unmodified MPI program linked with pkg-config --variable=interpose nhood" interposed pkg-config
check "pkg-config nhood, PKG_CONFIG_PATH=$pcdir" pkgconfig_consumer consumer-pc "$pcdir"
check "pkg-config nhood, PKG_CONFIG_PATH=${pcdir#"$work"/} (relative)" pkgconfig_consumer consumer-pc-rel "${pcdir#"$work"/}"

if [ -n "$failed" ]; then
  echo "install check FAILED:$failed" >&2
  exit 1
fi
echo "install check OK"
