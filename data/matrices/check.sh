#!/usr/bin/env bash
# Checks every matrix of README.md's table: the file is there, decompresses, and its text has
# the SHA-256 the table gives. Usage: check.sh [DIR] (default: this script's directory).
set -euo pipefail
dir=${1:-$(dirname "$0")}
n=0 bad=0
while IFS='|' read -r _ file _ _ _ _ sum _; do
  file=$(echo "$file" | tr -d ' ') sum=$(echo "$sum" | tr -d ' `')
  [ -n "$file" ] || continue
  n=$((n + 1))
  if [ ! -r "$dir/$file" ]; then
    echo "missing: $dir/$file" >&2
    bad=$((bad + 1))
  elif ! got=$(gzip -dc "$dir/$file" | sha256sum | cut -d' ' -f1) || [ "$got" != "$sum" ]; then
    echo "wrong content: $dir/$file (SHA-256 ${got:-none}, expected $sum)" >&2
    bad=$((bad + 1))
  fi
done < <(grep -E '^\| [A-Za-z0-9_]+\.mtx\.gz \|' "$dir/README.md")
[ "$n" -gt 0 ] || { echo "no matrices listed in $dir/README.md" >&2; exit 1; }
echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
