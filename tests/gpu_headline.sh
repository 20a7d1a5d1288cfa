#!/usr/bin/env bash
# The headline cases of every lesson on one GPU, in one call: each best version beside its library
# bar in the same run (alternated, two rounds), rows appended to $OUT/<gpu>.csv. For a second GPU,
# where a full `make bench` would not fit in one borrowed session:
#   OUT=logs bash tests/gpu_headline.sh            then  python3 plot.py --merge logs/<gpu>.csv --into results/<gpu>.csv
set -u
OUT=${OUT:-gpu-logs}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9._-]/_/g')
[ -z "$gpu" ] && { echo "no GPU"; exit 77; }
csv="$OUT/$gpu.csv"
B=build
progs="lesson01_topk/00_cub_sort lesson01_topk/05_radix_select lesson02_scan/00_cub lesson02_scan/06_decoupled_lookback
lesson03_compact_spmv/compact_00_cub lesson03_compact_spmv/compact_03_lookback lesson03_compact_spmv/expand_00_thrust
lesson03_compact_spmv/expand_04_head_scatter lesson03_compact_spmv/spmv_00_cusparse lesson03_compact_spmv/spmv_04_adaptive
lesson03_compact_spmv/spmv_05_merge_path lesson04_sort/00_cub lesson04_sort/00_cub_merge lesson04_sort/05_merge_path
lesson04_sort/08_radix_onesweep lesson05_histogram/00_cub lesson05_histogram/04_per_lane_copies
lesson05_histogram/05_large_bins lesson05_histogram/06_cluster_dsmem"
targets=""; for p in $progs; do targets="$targets $B/$p"; done
make -k -j"$(nproc)" ARCH="${ARCH:-90}" $targets > "$OUT/headline_build.log" 2>&1 || echo "build: some programs failed (see headline_build.log)"
run() { # program args...
  local p=$1; shift
  [ -x "$B/$p" ] || { echo "!! $p not built"; return; }
  "$B/$p" --csv "$csv" "$@" | grep -E "PASS|FAIL" | sed "s|^|$(basename $p): |" | cut -c1-150
}
for r in $(seq "$ROUNDS"); do
  echo "== round $r on $gpu"
  for k in 32 1024; do for p in lesson01_topk/00_cub_sort lesson01_topk/05_radix_select; do run $p --n 2^28 --k $k; done; done
  for n in 2^28 2^24 2^20; do for e in 0 1; do for p in lesson02_scan/00_cub lesson02_scan/06_decoupled_lookback; do run $p --n $n --exclusive $e; done; done; done
  for pct in 10 50; do for p in lesson03_compact_spmv/compact_00_cub lesson03_compact_spmv/compact_03_lookback; do run $p --n 2^28 --pct $pct; done; done
  for p in lesson03_compact_spmv/expand_00_thrust lesson03_compact_spmv/expand_04_head_scatter; do run $p --n 2^26 --dist uniform; done
  for g in banded random powerlaw; do for p in lesson03_compact_spmv/spmv_00_cusparse lesson03_compact_spmv/spmv_04_adaptive lesson03_compact_spmv/spmv_05_merge_path; do run $p --gen $g --n 2^22; done; done
  for t in uint32 pairs; do for p in lesson04_sort/00_cub lesson04_sort/08_radix_onesweep; do run $p --n 2^28 --type $t; done; done
  for p in lesson04_sort/00_cub_merge lesson04_sort/05_merge_path; do run $p --n 2^28 --type uint32; done
  for p in lesson05_histogram/00_cub lesson05_histogram/04_per_lane_copies; do run $p --n 2^30; done
  for p in lesson05_histogram/00_cub lesson05_histogram/05_large_bins lesson05_histogram/06_cluster_dsmem; do run $p --n 2^28 --type uint32 --bins 65536; done
done
echo "rows in $csv"
