#!/bin/sh
# Runs check_plot.py with the first Python that can import matplotlib: $NHOOD_PLOT_PYTHON if
# set, then python3 on PATH, then /usr/bin/python3 (a pyenv or venv python3 often lacks it).
# Exit status 77 (CTest's SKIP_RETURN_CODE) when none can.
# usage: run_test.sh samples|bad-input OUTDIR
here=$(dirname "$0")
for py in ${NHOOD_PLOT_PYTHON:+"$NHOOD_PLOT_PYTHON"} python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    exec "$py" "$here/check_plot.py" "$@"
  fi
done
echo "SKIP: no Python interpreter with matplotlib (tried ${NHOOD_PLOT_PYTHON:+$NHOOD_PLOT_PYTHON, }python3, /usr/bin/python3)"
exit 77
