// wrong/shifted_offset_multi_gpu — 10_multi_gpu with every received run after the first landing one
// key early: the classic slip of an all-to-all, an off-by-one in the receive displacements.
// CAUGHT-BY: checker --ranks 3
//
// Each GPU's receive buffer holds the runs of every source back to back, at offsets from the P x P
// counts (splitters.cuh, plan_routes). Here each offset after the first is one less: run p
// overwrites the last key of run p-1, and the buffer's last slot is never written. On one rank
// nothing is exchanged, so the one-rank battery passes; with P ranks (on P GPUs, or on one GPU
// with --ranks P, the copy transport) the sorted output lost a key and holds a stale one, and the
// checker (a permutation of the input) says where. The fix: offsets from the counts as planned.
//
// Run:  build/lesson04_sort/wrong/shifted_offset_multi_gpu --test --quick --ranks 3   (expect exit 1)
#include "../10_multi_gpu.cu"

// multi_gpu_sort.cuh's route_runs shifts the offsets: switched on before main runs.
static const bool planted = (msort::plant_shifted_offsets() = true);
