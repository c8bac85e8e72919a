#!/usr/bin/env bash
# Issue 37's measurements on a machine with a core for every process, where oversubscription
# hides nothing: the hot path on 2 processes (nhood's direct against the hand-written loop,
# the interposed call against PMPI_), churn through the interposition library at several
# process counts, the gain topologies on probation, and scripts/auto_check.sh's matrix.
#
#   MPIEXEC=/opt/mpi/bin/mpiexec BUILD=build/other OUTDIR=out/realcores scripts/realcores.sh
#
# BUILD is a Release build of nhood-bench and libnhood-mpi made with that MPI (default
# build/flagship-openmpi and mpiexec.openmpi). CHURN_NPS, GAIN_NP, AUTO_NP, RUNS set the sizes;
# MPIEXEC_FLAGS are passed to every launch; SKIP_AUTO=1 leaves out the matrix; BASE=another
# build runs the churn and gain sections too, alternately (an A/B on the same machine). Writes OUTDIR/realcores.log (all output),
# OUTDIR/summary.txt (the ratios) and OUTDIR/auto-check.json.
set -uo pipefail
cd "$(dirname "$0")/.."
launcher=${MPIEXEC:-mpiexec.openmpi}
dir=${BUILD:-build/flagship-openmpi}
outdir=${OUTDIR:-out/realcores}
runs=${RUNS:-5}
churn_nps=${CHURN_NPS:-2 4 8 16}
gain_np=${GAIN_NP:-16}
auto_np=${AUTO_NP:-16}
bench=$dir/tools/bench/nhood-bench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flags=${MPIEXEC_FLAGS:-}
# shellcheck disable=SC2206
plain=("$launcher" $flags)
# The interposition library of a build (nhood-run with its libnhood-mpi) before a command.
through() {
  local lib
  lib=$(realpath "$1/libnhood-mpi.so")
  shift
  # shellcheck disable=SC2086
  NHOOD_MPI_LIBRARY=$lib "$dir/tools/run/nhood-run" "$launcher" $flags "$@"
}
mkdir -p "$outdir"
log=$outdir/realcores.log
summary=$outdir/summary.txt
: >"$log"
: >"$summary"
say() { echo "$*" | tee -a "$log" "$summary"; }
# nhood-bench's rows (coll mode bytes algo median ...) of one run, also kept in the log.
rows() { "$@" 2>&1 | tee -a "$log" | grep -E '^(allgather|alltoallv) '; }
# Median of the numbers on standard input.
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

say "== $(date -u +%FT%TZ) $(nproc) cores, $("$launcher" --version 2>&1 | head -1)"

say "== hot path, 2 processes, 4 B, 10000 calls after 1000; µs per call (median of ${runs} runs)"
for r in $(seq 1 "$runs"); do
  rows "${plain[@]}" -n 2 "$bench" --topo er:density=1.0 --coll allgather --sizes 4 --algo pmpi,isend,direct \
    --iters 10000 --warmup 1000 | awk '{printf "%s %s\n", $4, $5}' >"$outdir/hot.$r"
  NHOOD_ALGORITHM=direct rows through "$dir" -n 2 "$bench" --topo er:density=1.0 --coll allgather --sizes 4 \
    --algo pmpi,mpi --iters 10000 --warmup 1000 | awk '{printf "interposed-%s %s\n", $4, $5}' >>"$outdir/hot.$r"
done
for a in pmpi isend direct interposed-pmpi interposed-mpi; do
  say "  $a: $(cat "$outdir"/hot.* | awk -v a="$a" '$1 == a {print $2}' | median) ($(cat "$outdir"/hot.* | awk -v a="$a" '$1 == a {printf "%s ", $2}'))"
done
say "  direct/isend per run: $(for r in $(seq 1 "$runs"); do awk '$1=="isend"{i=$2} $1=="direct"{d=$2} END{printf "%.3f ", d/i}' "$outdir/hot.$r"; done)"
say "  interposed mpi - pmpi per run (µs): $(for r in $(seq 1 "$runs"); do awk '$1=="interposed-pmpi"{p=$2} $1=="interposed-mpi"{m=$2} END{printf "%.3f ", m-p}' "$outdir/hot.$r"; done)"
rm -f "$outdir"/hot.*

# BASE=another build: the churn and gain sections run it too, alternately with BUILD.
builds=("$dir")
[ -n "${BASE:-}" ] && builds+=("$BASE")

say "== churn through nhood-run (auto), er:density=1.0, 8 B, 100 communicators; mpi/pmpi, median (range) of ${runs} runs"
for np in $churn_nps; do
  for r in $(seq 1 "$runs"); do
    for b in "${!builds[@]}"; do
      rows through "${builds[$b]}" -n "$np" "$bench" --topo er:density=1.0 --coll allgather --sizes 8 --mode churn \
        --algo pmpi,mpi --comms 100 | awk '$4 == "mpi" {print $2, $8}' >"$outdir/churn.$b.$r"
    done
  done
  for b in "${!builds[@]}"; do
    line="  $np processes (${builds[$b]}):"
    for n in 1 3 10 100 1000; do
      vals=$(cat "$outdir"/churn."$b".* | awk -v m="churn/$n" '$1 == m {print $2}')
      line="$line N=$n $(echo "$vals" | median) ($(echo "$vals" | sort -g | head -1)-$(echo "$vals" | sort -g | tail -1))"
    done
    say "$line"
  done
  rm -f "$outdir"/churn.*
done

say "== gain topologies on $gain_np processes, churn at N=100 and 1000, 5 communicators, NHOOD_STATS=1; mpi/pmpi"
for topo in moore:d=2,r=2,graph=1 er:density=0.5; do
  for r in 1 2 3; do
    for b in "${builds[@]}"; do
      say "  $topo run $r ($b): $(NHOOD_STATS=1 rows through "$b" -n "$gain_np" "$bench" --topo "$topo" --coll allgather \
        --sizes 8 --mode churn --algo pmpi,mpi --calls 100,1000 --comms 5 | awk '$4 == "mpi" {printf "%s %s  ", $2, $8}')"
    done
  done
done

if [ "${SKIP_AUTO:-0}" != 1 ]; then
  say "== scripts/auto_check.sh at $auto_np processes (${AUTO_ITERS:-100} calls a point)"
  NP=$auto_np ITERS=${AUTO_ITERS:-100} RUNS=1 MPIEXEC="$launcher" MPIEXEC_FLAGS="$flags" BUILD="$dir" scripts/auto_check.sh 2>&1 | tee -a "$log" \
    | sed -n '/acceptance/,$p' | tee -a "$summary"
  cp out/auto-check-default-1.json "$outdir/auto-check.json" 2>/dev/null || true
fi
say "== done $(date -u +%FT%TZ)"
