#!/usr/bin/env bash
# libnhood-mpi.so exports exactly the MPI C functions that pmpi_calls.h renames in its copy of
# nhood, and calls none of them itself (they would re-enter the interposed functions); its
# other exports are Fortran's names of MPI functions (src/interpose/fortran_*.c) and the PMPI
# names of the functions that free a communicator (src/interpose/control.c, release), make a
# distributed graph or read its lists (own_right.c, proc_null.c), whose MPI names it exports too:
#   check_exports.sh LIBRARY PMPI_CALLS_H [GENERATED_RENAMES_H ...]
set -euo pipefail
lib=$1
shift
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^MPIX?_[A-Z][a-z]' | sort)
renamed=$(sed -n 's/^#define \(MPIX\?_[A-Za-z_]*\) \(PMPIX\?_\|ip_\).*/\1/p' "$@" | sort)
called=$(nm -D --undefined-only "$lib" | awk '{print $2}' | sort)
status=0
# Every export is renamed (the MPIX_ names exist only with Open MPI, so renamed may hold more).
missing=$(comm -23 <(echo "$exported") <(echo "$renamed"))
[ -z "$missing" ] || { echo "exported but not renamed in pmpi_calls.h: $missing"; status=1; }
reentrant=$(comm -12 <(echo "$exported") <(echo "$called"))
[ -z "$reentrant" ] || { echo "the library calls functions it interposes: $reentrant"; status=1; }
[ -n "$exported" ] || { echo "no MPI function exported"; status=1; }
pmpi=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^PMPI_' | sort)
want="PMPI_Comm_disconnect PMPI_Comm_free PMPI_Dist_graph_create PMPI_Dist_graph_create_adjacent PMPI_Dist_graph_neighbors PMPI_Dist_graph_neighbors_count"
[ "$(echo $pmpi)" = "$want" ] || { echo "PMPI names exported: $(echo $pmpi), not: $want"; status=1; }
unpaired=$(comm -23 <(echo "$pmpi" | sed 's/^P//') <(echo "$exported"))
[ -z "$unpaired" ] || { echo "PMPI names exported without their MPI names: $unpaired"; status=1; }
# Besides MPI's C names, Fortran's (fortran.c, fortran_openmpi.c): upper case, lower case with
# 0-2 underscores or the mpi_f08 procedures' _f08_, Open MPI's ompi_*_f bodies.
others=$(nm -D --defined-only "$lib" | awk '{print $3}' |
  grep -vE '^(MPIX?_[A-Z][a-z]|PMPI_Comm_(free|disconnect)$|PMPI_Dist_graph_[a-z_]+$|MPIX?_[A-Z0-9_]+$|mpix?_[a-z0-9_]+$|ompix?_[a-z0-9_]+_f$|_init$|_fini$)' || true)
[ -z "$others" ] || { echo "exports other than MPI's: $others"; status=1; }
[ $status = 0 ] && echo "$(echo "$exported" | wc -l) MPI functions exported, all renamed, none called"
exit $status
