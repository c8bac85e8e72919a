#!/usr/bin/env bash
# Where the installed MPI reports a failed receive: a 4-byte receive of an 8-byte message on a
# communicator whose handler is MPI_ERRORS_RETURN, MPI_COMM_WORLD's left at
# MPI_ERRORS_ARE_FATAL, completed by each of MPI's completion functions in turn. "returns"
# means the call gave the error back, as on the request's communicator; "aborts" means it went
# to MPI_COMM_WORLD's handler. Where any aborts, nhood swaps MPI_COMM_WORLD's handler around
# its waits (docs/ARCHITECTURE.md, "MPI semantics the design carries"; NHOOD_P2P_ERRORS_GO_TO_WORLD in
# src/common/mpi_util.h), which is what its blocking call costs above a loop written by hand
# on MPICH (docs/PERFORMANCE.md, "direct: the messages MPI sends").
#
#   scripts/error_routing.sh                 # MPICH (NHOOD_MPI=openmpi for Open MPI)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
flavor=${NHOOD_MPI:-mpich}
nhood_ensure_deps "$flavor"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/probe.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Rank 1 receives 4 of the 8 bytes rank 0 sends and completes the receive with argv[1]. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, rc = MPI_SUCCESS, flag = 0, index, outcount, indices[1];
  char buf[8] = {0};
  MPI_Comm comm;
  MPI_Status status = {0};
  MPI_Request req;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const char *how = argv[1];
  if (!strcmp(how, "version")) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    if (rank == 0) printf("%s\n", strtok(version, "\n"));
  } else if (rank == 0) {
    MPI_Send(buf, 8, MPI_BYTE, 1, 0, comm);
  } else if (rank == 1) {
    MPI_Irecv(buf, 4, MPI_BYTE, 0, 0, comm, &req);
    if (!strcmp(how, "MPI_Wait")) rc = MPI_Wait(&req, &status);
    else if (!strcmp(how, "MPI_Waitall")) rc = MPI_Waitall(1, &req, &status);
    else if (!strcmp(how, "MPI_Waitany")) rc = MPI_Waitany(1, &req, &index, &status);
    else if (!strcmp(how, "MPI_Waitsome")) rc = MPI_Waitsome(1, &req, &outcount, indices, &status);
    else if (!strcmp(how, "MPI_Test")) while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&req, &flag, &status);
    else if (!strcmp(how, "MPI_Testall")) while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(1, &req, &flag, &status);
    else if (!strcmp(how, "MPI_Testany")) while (!flag && rc == MPI_SUCCESS) rc = MPI_Testany(1, &req, &index, &flag, &status);
    else if (!strcmp(how, "MPI_Request_get_status"))
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Request_get_status(req, &flag, &status);
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req); /* Request_get_status leaves it */
    printf("%-24s returns (code %d, status %d)\n", how, rc, status.MPI_ERROR);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
EOF
"mpicc.$flavor" "$dir/probe.c" -o "$dir/probe"
launcher=("mpiexec.$flavor" -n 2)
[ "$flavor" = openmpi ] && launcher+=(--allow-run-as-root)
echo "== $("${launcher[@]}" "$dir/probe" version): a truncated receive, MPI_ERRORS_RETURN on its communicator"
for how in MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall MPI_Testany MPI_Request_get_status; do
  out=$(timeout 60 "${launcher[@]}" "$dir/probe" "$how" 2>&1) || true
  case "$out" in
    *returns*) echo "$out" | grep returns ;;
    *) printf '%-24s aborts (MPI_COMM_WORLD'"'"'s handler)\n' "$how" ;;
  esac
done
