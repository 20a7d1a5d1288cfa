// 03_wide_loads — 16-byte loads, several of them in flight per thread, and a grid sized to the GPU.
//
// What changed since 02 (still one shared copy of the bins per block, shared atomics per sample):
//   loads:   each thread reads uint4 vectors (16 bytes or 4 keys), 4 of them issued before any is
//            used: a warp moves 512 bytes per load instruction instead of 32, so 16x fewer load
//            instructions for bytes, and 64 bytes per thread in flight hide the memory latency.
//            __ldcs marks them streaming (read once). See wide_loads.cuh (head/tail handling for
//            inputs that are not 16-byte aligned).
//   grid:    as many 512-thread blocks as fit on the GPU at once (occupancy x SMs), each looping
//            over its share, so the zero + merge of a block's bins is paid ~4 x 132 times, not once
//            per tile; 02 ran only 2 blocks of 384 threads per SM.
//   atomics: still n shared atomics. On uniform bytes a warp's 32 atomics land in 32 random banks
//            of 32: some collide (a replay each); on skewed input many lanes hit the same word and
//            are serialised. That is what 04 removes.
//   shared memory: bins x 4 bytes; above 48 KB the kernel opts in (cudaFuncSetAttribute), so this
//            version takes up to the GPU's opt-in limit (H100: 227 KB, 58112 bins).
//
// Build alone:  nvcc -O3 -arch=native -o hist03 03_wide_loads.cu
// Run:          ./hist03 --n 2^30          ./hist03 --type uint32 --bins 4096 --n 2^28     ./hist03 --test
#include "lesson.cuh"
#include "counting.cuh"

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, hist::ByteBins{}, 0, d_hist);
}
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, b, 0, d_hist);
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.device_max_bins = hist::bins_in_smem;
    return hist::run_lesson(argc, argv, "03_wide_loads", s);
}
