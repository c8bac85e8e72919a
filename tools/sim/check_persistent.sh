#!/usr/bin/env bash
# A persistent request runs a v collective's size pass once, at init (schedule/combine.c), so
# its starts cost the data schedule alone. Checks that nhood-sim --mode persistent predicts
# exactly that (blocking = persistent + the size pass, verified both ways; direct, which takes
# no size pass, the same in both), and that nhood-info's persistent table, the one the
# library's auto prices persistent requests with, leaves the size pass out where there is one
# (alltoallv, allgatherv) and nowhere else (allgather).
#   tools/sim/check_persistent.sh NHOOD_SIM NHOOD_INFO     (CTest runs it as sim.persistent)
set -euo pipefail
sim=${1:?usage: check_persistent.sh NHOOD_SIM NHOOD_INFO}
info=${2:?usage: check_persistent.sh NHOOD_SIM NHOOD_INFO}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for mode in blocking persistent; do
  "$sim" --ranks 64 --ranks-per-node 8 --topo er:density=0.3,seed=5 --coll alltoallv,allgatherv --sizes 16 \
    --algo direct,combine,node,node-tree --mode "$mode" --json "$dir/sim.$mode" >/dev/null
  "$info" --ranks 64 --ranks-per-node 8 --topo er:density=0.3,seed=5 --coll alltoallv,allgatherv,allgather \
    --sizes 16 --model loggp:preset=ib-edr --mode "$mode" --json "$dir/info.$mode" >/dev/null
done

python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def rows(name):
    return {(r["coll"], r["algo"]): r for r in map(json.loads, open(f"{d}/{name}"))}
bad, checked = [], 0
b, p = rows("sim.blocking"), rows("sim.persistent")
for key, rb in b.items():
    rp = p[key]
    checked += 1
    if rb["verified"] is not True or rp["verified"] is not True:
        bad.append(f"sim {key}: not verified")
    if rp["mode"] != "persistent" or rb["mode"] != "blocking":
        bad.append(f"sim {key}: mode field")
    if rb["size_pass_us"] != rp["size_pass_us"]:
        bad.append(f"sim {key}: size pass {rb['size_pass_us']} vs {rp['size_pass_us']}")
    if key[1] == "direct":
        if rb["size_pass_us"] is not None or abs(rb["pred_us"] - rp["pred_us"]) > 1e-6:
            bad.append(f"sim {key}: direct differs between modes")
    else:
        s = rb["size_pass_us"]
        if s is None or s <= 0 or abs(rp["pred_us"] + s - rb["pred_us"]) > 1e-5:
            bad.append(f"sim {key}: blocking {rb['pred_us']} != persistent {rp['pred_us']} + size pass {s}")
b, p = rows("info.blocking"), rows("info.persistent")
for key, rb in b.items():
    rp = p[key]
    checked += 1
    coll, algo = key
    forwards = algo in ("combine", "node", "node-tree")
    if coll != "allgather" and forwards:
        if not rp["model_us"] < rb["model_us"] - 1e-6:
            bad.append(f"info {key}: persistent {rp['model_us']} not below blocking {rb['model_us']}")
    elif abs(rp["model_us"] - rb["model_us"]) > 1e-6:
        bad.append(f"info {key}: persistent {rp['model_us']} != blocking {rb['model_us']}")
if bad:
    print("FAILED:\n" + "\n".join(bad))
    sys.exit(1)
print(f"{checked} rows: persistent starts priced without the size pass, and only there")
PY
