#!/usr/bin/env bash
# Fails where the code outgrows what one reads at once: a library source file over 500 lines,
# a tool's over 700, a function in src/ over 80 (from its signature to its closing brace).
#   scripts/check_sizes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files 'src/*.c' 'src/*.h' 'tools/*.c' 'tools/*.h' | python3 -c '
import re, sys
bad = 0
for path in sys.stdin.read().split():
    lines = open(path).read().split("\n")
    n = len(lines) - (lines[-1] == "")
    limit = 500 if path.startswith("src/") else 700
    if n > limit:
        print("%s: %d lines (at most %d)" % (path, n, limit)); bad = 1
    if not path.startswith("src/"):
        continue
    start = None
    for i, line in enumerate(lines):
        # a definition starts at column 0 with a name and an opening parenthesis
        if start is None and re.match(r"[A-Za-z_].*\(", line) and not line.rstrip().endswith(";") \
                and not line.startswith(("typedef", "struct", "enum", "union", "#")):
            start = i
        elif start is not None and line.startswith("}"):
            if i - start + 1 > 80:
                print("%s:%d: %s... is %d lines (at most 80)" % (path, start + 1, lines[start][:60], i - start + 1)); bad = 1
            start = None
        elif start is not None and line.rstrip().endswith(";") and not line.startswith((" ", "\t")):
            start = None  # a declaration over several lines
sys.exit(bad)
'
