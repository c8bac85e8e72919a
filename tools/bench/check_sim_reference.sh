#!/usr/bin/env bash
# bench.sim_reference: nhood-bench --sim-reference writes a model per blocking case (BASE.N),
# fitted to nhood-calibrate's calls timed in turns with the case's, that nhood-sim reads, and a
# JSON row naming it; a base model it cannot read is a usage error (exit 2), on every rank.
#   check_sim_reference.sh DIR NHOOD_SIM MPIEXEC... NHOOD_BENCH
set -uo pipefail
dir=$1 sim=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$@" --calibrate "--quick --out $dir/p.txt --sim-model $dir/m.txt" --sim-reference "$dir/m.txt" \
  --topo moore:d=1,r=1 --coll allgather --sizes 8,64 --algo direct --iters 20 --warmup 2 --json "$dir/b.json" \
  >"$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; fail "nhood-bench failed"; }
for n in 1 2; do
  [ -s "$dir/m.txt.$n" ] || fail "no model $dir/m.txt.$n"
  grep -q '^loggp:.*,round=.*,oself=.*,Gself=.*,noise=.*,skew=' "$dir/m.txt.$n" || fail "$dir/m.txt.$n: no model line"
  grep -q "\"algo\":\"sim-reference\",\"model\":\"$dir/m.txt.$n\"" "$dir/b.json" || fail "no JSON row for case $n"
  "$sim" --ranks 2 --topo moore:d=1,r=1 --coll allgather --sizes 8 --model "@$dir/m.txt.$n" >/dev/null ||
    fail "nhood-sim cannot read $dir/m.txt.$n"
done
[ ! -e "$dir/m.txt.3" ] || fail "a model for a case that does not exist"
"$@" --sim-reference "$dir/missing.txt" --topo moore:d=1,r=1 --coll allgather --sizes 8 --algo direct \
  --iters 2 --warmup 0 >"$dir/bad.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat "$dir/bad.txt"; fail "an unreadable base gave exit $rc, not 2"; }
grep -q "sim-reference: cannot read $dir/missing.txt" "$dir/bad.txt" || fail "no message naming the base"
echo "sim-reference-ok"
