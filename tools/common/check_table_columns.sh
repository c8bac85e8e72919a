#!/bin/bash
# Runs a tool and checks that its table's columns line up, whatever the lengths of the names
# in them: under every header line (one that begins with "coll "), each right-aligned column
# named R:NAME must end in every row where NAME ends in the header, and each left-aligned one
# named L:NAME must start where NAME starts. Lines that are not rows (blank, "#", indented,
# "skipped:") are left alone; a table without rows fails.
#
#   tools/common/check_table_columns.sh 'R:bytes R:median_us L:valid' COMMAND [ARGS...]
#
# (CTest runs it as bench.table_columns and sim.table_columns.)
set -u
columns=${1:?usage: check_table_columns.sh 'R:NAME L:NAME ...' COMMAND [ARGS...]}
shift
out=$("$@")
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
  echo "FAILED: the command exited with $rc: $*"
  exit 1
fi
printf '%s\n' "$out" | awk -v columns="$columns" '
  function fail(what) {
    printf "FAILED: %s\n  header: %s\n  row:    %s\n", what, header, $0
    bad = 1
  }
  /^coll / { header = $0; next }
  /^$/ || /^#/ { header = ""; next }
  header == "" || /^ / || / skipped: / { next }
  {
    rows++
    n = split(columns, spec, " ")
    for (k = 1; k <= n; k++) {
      side = substr(spec[k], 1, 1)
      name = substr(spec[k], 3)
      if (!match(header, "(^| )" name "( |$)")) {
        fail("no column " name " in the header")
        break
      }
      start = RSTART + (substr(header, RSTART, 1) == " ")
      end = start + length(name) - 1
      if (side == "R" && (substr($0, end, 1) == " " || substr($0, end + 1, 1) ~ /[^ ]/)) {
        fail("column " name " does not end at character " end)
        break
      }
      if (side == "L" && (substr($0, start, 1) == " " || substr($0, start - 1, 1) ~ /[^ ]/)) {
        fail("column " name " does not start at character " start)
        break
      }
    }
  }
  END {
    if (rows == 0) { print "FAILED: no table rows"; exit 1 }
    if (bad) exit 1
    printf "%d rows line up with their headers\n", rows
  }'
