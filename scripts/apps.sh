#!/usr/bin/env bash
# The applications' measurements of issue 21:
#   - nhood-bfs (2-D BFS on R-MAT): scales 16, 18 and 20 on 4 and 16 ranks, versions a (MPI
#     collectives on row/column communicators), b (nhood's blocking neighborhood collectives)
#     and c (phased, non-blocking, overlapped), 16 roots each, then c again with nhood's
#     progress thread;
#   - nhood-cg --changing (set-up plus exchanges per re-partition, graph communicators,
#     point-to-point code and nhood topology objects) on 16 and 64 ranks, delaunay_n16.
#
#   scripts/apps.sh                 # all of it (a few minutes)
#   SCALES=16 NPS=4 scripts/apps.sh  # smaller
#
# Results: out/bfs-np<N>-s<S>[-progress].json, out/cg-changing-np<N>.json and the tables on
# standard output. Uses the Release build of scripts/flagship.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

flavor=${NHOOD_MPI:-openmpi}
nhood_ensure_deps "$flavor"
nhood_release_build "$flavor" nhood-bfs nhood-cg
dir="build/flagship-$flavor/apps"
read -r -a flags <<<"$(nhood_mpiexec_flags "$flavor")"
mkdir -p out

for np in ${NPS:-4 16}; do
  for scale in ${SCALES:-16 18 20}; do
    echo "== nhood-bfs, $np ranks, scale $scale"
    "mpiexec.$flavor" -n "$np" "${flags[@]}" "$dir/nhood-bfs" --scale "$scale" --roots 16 \
      --json "out/bfs-np$np-s$scale.json"
    echo "== nhood-bfs, $np ranks, scale $scale, version c with the progress thread"
    NHOOD_PROGRESS=thread "mpiexec.$flavor" -n "$np" "${flags[@]}" "$dir/nhood-bfs" --scale "$scale" --roots 16 \
      --versions bc --json "out/bfs-np$np-s$scale-progress.json"
  done
done

nhood_need_file data/matrices/delaunay_n16.mtx.gz
for np in ${CG_NPS:-16 64}; do
  echo "== nhood-cg --changing, $np ranks"
  "mpiexec.$flavor" -n "$np" "${flags[@]}" "$dir/nhood-cg" --matrix data/matrices/delaunay_n16.mtx.gz \
    --changing "${EXCHANGES:-10}" --rounds "${ROUNDS:-20}" --json "out/cg-changing-np$np.json"
done
