#!/usr/bin/env bash
# ncu of the cases where the course is still behind its library: each best version right after its
# library bar, same input, one launch of the kernel that matters, one fixed set of metrics.
#   BIN=build OUT=logs bash tests/ncu_gaps.sh        (GPU machine with ncu; binaries already built)
# Writes $OUT/ncu_gaps_<gpu>.txt as it goes (a cut-off run keeps what it measured), in priority order:
#   1. histogram bytes 2^30, 256 bins, on equal / text / uniform: 00_cub against 04_per_lane_copies
#      (shared atomics issued and their conflicts: how CUB spends less per repeated byte)
#   2. radix sort 2^28 uint32, uniform and zipf: one middle onesweep pass of 00_cub and of 08
#      (instructions, warps active, shared atomics and their conflicts, what warps wait on)
#   3. scan 2^28 int32: 00_cub against 06_decoupled_lookback (DRAM throughput)
# Clocks are left as found (--clock-control none), as every ncu file in results/ncu/ was taken.
# A case that fails is reported in the file and the rest still run. Exit 77 without a GPU or ncu.
set -u
BIN=${BIN:-build}
OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
command -v ncu > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "ncu_gaps: no GPU or no ncu: skipped"; exit 77; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9._-]/_/g')
log="$OUT/ncu_gaps_$gpu.txt"
echo "# ncu_gaps on $gpu (clocks as found); each block: the case, then ncu's metrics for one launch" > "$log"

# What a kernel spends: time, DRAM and SM throughput, instructions, warps in flight, shared atomics
# issued and their bank conflicts, registers, and the three stalls that explain most waits here.
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
metrics+=,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_barrier.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio

# profile LABEL KERNEL_REGEX SKIP PROGRAM ARGS...: the (SKIP+1)-th launch of a matching kernel.
profile() {
  local label=$1 re=$2 skip=$3 prog=$BIN/$4; shift 4
  echo "### $label: $prog $*" >> "$log"
  [ -x "$prog" ] || { echo "!! $prog not built" >> "$log"; return; }
  timeout 90 ncu --clock-control none --metrics "$metrics" -k "regex:$re" -s "$skip" -c 1 \
      "$prog" "$@" --reps 1 2>&1 | grep -v '^==PROF==' >> "$log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || echo "!! $label: exit $rc" >> "$log"
  echo "$label done ($SECONDS s)"
}

for d in equal text uniform; do
  profile "histogram bytes $d, CUB" "Sweep" 0 lesson05_histogram/00_cub --n 2^30 --dist $d
  profile "histogram bytes $d, 04" "count_kernel" 0 lesson05_histogram/04_per_lane_copies --n 2^30 --dist $d
done
# CUB sorts at most 2^28 - 1 keys per onesweep launch (its "portions"), so at n = 2^28 each of its
# passes is two launches, a full one and a 7 us one of the last tile: skip 2 to reach pass 2.
for d in uniform zipf; do
  profile "radix keys $d, CUB pass 2 of 4 (its main portion)" "nesweep" 2 lesson04_sort/00_cub --n 2^28 --dist $d
  profile "radix keys $d, 08 pass 2 of 4" "nesweep" 1 lesson04_sort/08_radix_onesweep --n 2^28 --dist $d
done
profile "scan int32 inclusive, CUB" "DeviceScanKernel" 0 lesson02_scan/00_cub --n 2^28
profile "scan int32 inclusive, 06" "lookback_scan_kernel" 0 lesson02_scan/06_decoupled_lookback --n 2^28
echo "ncu_gaps: $log"
