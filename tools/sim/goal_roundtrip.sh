#!/usr/bin/env bash
# The GOAL export read back: nhood-sim writes every case's schedules as GOAL (--goal) and its
# counts as JSON; goal-check reads each file and finds every message present once, as many as
# nhood-sim counted (msgs_total).
#   goal_roundtrip.sh NHOOD_SIM GOAL_CHECK WORKDIR nhood-sim arguments...
set -euo pipefail
sim=$1 check=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
"$sim" "$@" --goal "$work/case" --json "$work/cases.json" >"$work/sim.txt"
n=0
while read -r file messages; do
  "$check" "$file" "$messages"
  n=$((n + 1))
done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("error"): sys.exit("nhood-sim: " + r["error"])
    print(r["goal"], r["msgs_total"])' "$work/cases.json")
[ "$n" -gt 0 ] || { echo "no case written" >&2; exit 1; }
echo "$n GOAL schedules read back"
