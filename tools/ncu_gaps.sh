#!/usr/bin/env bash
# ncu of the cases where the course still trails its library: each best version right after its
# library bar, same input, one launch of the kernel that matters, one fixed set of metrics:
#   1. histogram bytes 2^30, 256 bins, on equal / text / uniform: 00_cub against 04_per_lane_copies
#      (shared atomics issued and their conflicts: how CUB and 04 spend a byte)
#   2. radix sort 2^28 uint32, uniform and zipf: one middle onesweep pass of 00_cub and of 08
#      (instructions, warps active, shared atomics and their conflicts, what warps wait on)
#   3. scan 2^28 int32: 00_cub against 06_decoupled_lookback (DRAM throughput, warps active)
#   OUT=logs bash tools/ncu_gaps.sh        -> logs/ncu_gaps_<gpu>.txt, written as it goes
# This is tools/gpu_batch.sh's ncu step, where the cases, the metrics, the build and the GPU's name
# live: LESSONS, ARCH and JOBS work as they do there (make rebuilds only what is out of date in
# build/). Clocks are left as found (--clock-control none), as every file in results/ncu/ was
# taken. A case that fails is marked '!!' in the file and the rest still run. Exit 77 without a GPU
# or without ncu.
STEPS=ncu exec bash "$(dirname "$0")/gpu_batch.sh"
