#!/usr/bin/env bash
# Runs a program on emulated nodes of this machine: NODES UTS namespaces named node1..nodeN,
# entered through tests/nodes/rsh, which the launcher is told to use as its remote shell, so
# that the MPI itself places PER_NODE processes on each, connects the nodes over TCP and
# reports them through MPI_Comm_split_type.
#   run.sh FLAVOR MPIEXEC NODES PER_NODE PROGRAM ARGS...   (FLAVOR: openmpi or mpich)
# NHOOD_NODES_WRAP, where set, is put before the launcher (nhood-run, which preloads the
# interposition library into the ranks). Exits 77 (a skip) where unshare --uts is not permitted.
set -euo pipefail
flavor=$1 mpiexec=$2 nodes=$3 per_node=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
unshare --uts true 2>/dev/null || { echo "SKIPPED: unshare --uts is not permitted here"; exit 77; }
hosts=""
for ((k = 1; k <= nodes; k++)); do hosts+="${hosts:+,}node$k:$per_node"; done
n=$((nodes * per_node))
wrap=()
[ -z "${NHOOD_NODES_WRAP:-}" ] || wrap=("$NHOOD_NODES_WRAP")
case "$flavor" in
  openmpi)
    exec "${wrap[@]}" "$mpiexec" --mca plm_rsh_agent "$here/rsh" --host "$hosts" --mca btl self,vader,tcp \
      --mca mpi_yield_when_idle 1 -n "$n" "$@" ;;
  mpich)
    exec "${wrap[@]}" "$mpiexec" -launcher ssh -launcher-exec "$here/rsh" -hosts "$hosts" -n "$n" "$@" ;;
  *) echo "run.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
