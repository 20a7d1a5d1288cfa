// 03_warp_select — per-thread queues and warp-wide bitonic merges in registers (after Faiss's
// WarpSelect, Johnson, Douze & Jegou 2017).
//
// What changed since 02: no shared-memory lists and no O(k) insertions. Each warp keeps its best
// 32*Q elements (Q = k/32 rounded up to a power of two) sorted across its registers: element
// e = r*32 + lane lives in register r of that lane. Each lane also keeps a small queue of Q
// registers. An element is looked at once: if it beats the warp's current k-th best (one register
// compare, the common case on large inputs is "no"), it goes into the lane's queue. When any lane's
// queue is full (a __ballot), the warp sorts all queues together with a bitonic network in
// registers (shuffles for strides < 32, register swaps for the others) and merges them into its
// list: the top 32*Q of two sorted lists is max(list[e], queues[32Q-1-e]), a bitonic sequence that
// log2(32Q) more steps sort. Passes then reduce the warps' lists (as 02 does) until one warp is left.
//
// Cost model: the input is read once; per element one compare; the merges are rare once the list
// holds large values (uniform input: O(k log(n)) insertions in total), and each merge costs
// O(Q log^2(32Q)) register operations per lane, no shared memory, no barriers. The worst inputs
// are increasing sequences (every element enters a queue).
// Limits: k <= 1024 (Q = 32: 64 packed 8-byte values in registers per lane); n < 2^32.
//
// The kernels are in warp_select.cuh (exercises/warp_merge.cu reuses them).
//
// Build alone:  nvcc -O3 -arch=native -o topk03 03_warp_select.cu
// Run:          ./topk03 --n 2^24 --k 256       ./topk03 --test
#include "warp_select.cuh"

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "03_warp_select", ws::warp_select_topk<float>, ws::warp_select_topk<int32_t>,
                            ws::warp_select_topk<uint32_t>, ws::limits());
}
