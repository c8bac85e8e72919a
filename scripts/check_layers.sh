#!/usr/bin/env bash
# Fails where the code crosses its own boundaries (docs/ARCHITECTURE.md):
# - a file of src/<layer>/ includes a header of a layer above it (common, topology, pattern,
#   schedule, engine, selection, api, interpose, in that order);
# - anything but the registry (src/selection/registry.c) and the families
#   (src/selection/families/) reads an algorithm's family or its family data.
#   scripts/check_layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
git ls-files 'src/*.c' 'src/*.h' | python3 -c '
import re, sys
order = ["common", "topology", "pattern", "schedule", "engine", "selection", "api", "interpose"]
bad = 0
for path in sys.stdin.read().split():
    layer = path.split("/")[1]
    if layer not in order:
        continue
    for n, line in enumerate(open(path), 1):
        m = re.match(r"#include \"([a-z_]+)/", line)
        if m and m.group(1) in order and order.index(m.group(1)) > order.index(layer):
            print("%s:%d: %s includes the layer above it, %s" % (path, n, layer, m.group(1)))
            bad = 1
sys.exit(bad)
' || status=1
if git grep -n -E '(alg|algorithm|\))->(family|data)\b' -- src tools tests ':!src/selection/registry.c' \
  ':!src/selection/families/'; then
  echo "the lines above read an algorithm's family or family data outside the registry and the families" >&2
  status=1
fi
exit $status
