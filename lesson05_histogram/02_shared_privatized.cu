// 02_shared_privatized — each block counts into its own copy of the bins in shared memory, then
// adds its copy into the global bins (the source post's second version, written fresh).
//
// What changed since 01: the n atomics now go to shared memory, which is on the SM (a few cycles,
// executed next to the data, no trip to the L2), and only the merge touches global memory.
//   atomics:      n shared atomics + (blocks x non-zero bins) global atomics for the merge
//   contention:   a counter is shared by the block's threads only, not by the whole GPU
//   bytes moved:  the same as 01 (the loads are still one sample per thread per step)
// The post assumed blockDim == 256 == bins (thread t zeroes and merges bin t). Here the block
// size and the bin count are independent: each thread strides over the bins, so any block size
// works with any bin count that fits in shared memory; this file uses 384 threads (not 256) to
// show it. (wrong/blockdim_equals_bins.cu keeps the post's assumption and is caught.)
// The counting loop is hist::block_count from histogram.cuh: the reusable primitive.
//
// Limits: bins x 4 bytes <= 48 KB (12288 bins), the default dynamic shared memory of a block.
// The grid is still the post's (2 blocks per SM): few warps to hide the memory latency; 03 fixes it.
//
// Build alone:  nvcc -O3 -arch=native -o hist02 02_shared_privatized.cu
// Run:          ./hist02 --n 2^24          ./hist02 --type uint32 --bins 1000 --test
#include "lesson.cuh"

constexpr int kBlock = 384;
constexpr uint32_t kMaxBins = 48 * 1024 / 4;

// Delta from 01: the atomics go to this block's copy in shared memory, merged into global once.
template <class T, class Binner>
__global__ void shared_privatized(const T* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_bins[];        // binner.count() counters, this block's copy
    hist::block_zero(s_bins, binner.count());   // ends with a barrier: zeros before counts
    // This block's share of the input: a contiguous chunk (so each counter sees one block's
    // samples and the merge happens once per block).
    const size_t per_block = (n + gridDim.x - 1) / gridDim.x;
    size_t begin = size_t(blockIdx.x) * per_block;
    if (begin > n) begin = n;
    const size_t end = n - begin < per_block ? n : begin + per_block;
    hist::block_count(in, begin, end, binner, s_bins);   // ends with a barrier: counts before merge
    hist::block_flush(s_bins, binner.count(), hist);
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    shared_privatized<<<grid, kBlock, sizeof(uint32_t) * binner.count()>>>(d_in, n, binner, d_hist);
    CUDA_CHECK_LAST();
}

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) { launch(d_in, n, hist::ByteBins{}, d_hist); }
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) { launch(d_in, n, b, d_hist); }

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.max_bins = kMaxBins;
    s.bins_why = "32-bit counters in 48 KB of shared memory";
    return hist::run_lesson(argc, argv, "02_shared_privatized", s);
}
