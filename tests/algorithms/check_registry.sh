#!/usr/bin/env bash
# Every algorithm of the registry has a test of its own (tests/algorithms: algorithm.<name>),
# and every public list of names has it: the README, and nhood-sim's usage error (which the
# registry writes). nhood.h lists none: it points at nhood-info --algorithms and
# NHOOD_Algorithm_get. The registry's names come from nhood-info --algorithms, which prints
# the table itself.
#   check_registry.sh NHOOD_INFO NHOOD_SIM CTEST BUILD_DIR SOURCE_DIR
set -euo pipefail
info=$1 sim=$2 ctest=$3 build=$4 src=$5
# (nhood-info lists "auto" after them: not an algorithm, the request to pick one.)
names=$("$info" --algorithms | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p' | grep -vx auto)
[ -n "$names" ] || { echo "no algorithm names in nhood-info --algorithms"; exit 1; }
tests=$(cd "$build" && "$ctest" --show-only -R '^algorithm\.' | sed -n 's/^ *Test *#[0-9]*: //p')
usage=$("$sim" --ranks 2 --topo er:density=1 --algo no-such 2>&1 || true)
passed=0 failed=0
check() { # what, condition
  if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi
}
for name in $names; do
  re=${name//-/\\-}
  check "$name has no test of its own (algorithm.$name in tests/algorithms)" \
    "grep -qE '^algorithm\\.$re(\\.np[0-9]+)?\$' <<<\"\$tests\""
  check "$name is missing from README.md" "grep -qF '\`$name\`' '$src/README.md'"
  [ "$name" = mpi ] || check "$name is missing from nhood-sim's list of what it runs" \
    "grep -qE 'runs: ([a-z0-9-]+, )*$re[,;]' <<<\"\$usage\""
done
echo "$(wc -w <<<"$names") algorithms in the registry: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
