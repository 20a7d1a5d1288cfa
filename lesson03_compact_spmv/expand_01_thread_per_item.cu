// expand_01_thread_per_item — the direct translation of "allocate" (CS344 lesson 4): scan the counts,
// then one thread per item writes its index counts[i] times from its offset.
//
//   1. off = exclusive scan of the counts (lesson02's best scan)      read 4n, write 4n
//   2. thread i: for k < counts[i]: out[off[i] + k] = i               read 8n, write 4*total
// With counts 0..8 this is fine: a warp's threads write short runs next to each other. It breaks
// on skew, which is the point of this version: a warp takes as long as its longest run (divergence
// inside the warp), a block as long as its slowest warp, and the whole grid as long as the one
// thread with the biggest count. With 'one' (one item holds all 4n outputs) a single thread writes
// everything, one 4-byte store after another: thousands of times slower than the hardware allows.
// Also, a thread's run is consecutive addresses but the 32 threads of a warp write 32 different
// runs at once, so a store instruction touches up to 32 separate sectors.
// Limit: dist 'one' only up to n = 2^22 (one thread writing 2^24 outputs one store after another is too slow for a test).
//
// Build alone:  nvcc -O3 -arch=native -o expand01 expand_01_thread_per_item.cu
// Run:          ./expand01 --n 2^24 --dist powerlaw        ./expand01 --test
#include "../lesson02_scan/scan.cuh"
#include "compact.cuh"

constexpr int kBlock = 256;

// The naive end: thread i writes i counts[i] times from off[i], so a warp takes as long as its longest run.
__global__ void expand_per_item(const int32_t* __restrict__ counts, const uint32_t* __restrict__ off, size_t n,
                                int32_t* __restrict__ out) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i >= n) return;
    int32_t c = counts[i];
    size_t o = off[i];
    for (int32_t k = 0; k < c; ++k) out[o + k] = int32_t(i);
}

void expand_thread_per_item(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    if (n == 0 || total == 0) return;
    uint32_t* off = course::scratch_as<uint32_t>(0, n);
    scan::device_scan(reinterpret_cast<const uint32_t*>(d_counts), off, n, scan::Kind::exclusive);
    expand_per_item<<<course::blocks_for(n, kBlock), kBlock>>>(d_counts, off, n, d_out);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    expand::Limits lim;
    lim.max_n_one = uint64_t(1) << 22;
    return expand::run_lesson(argc, argv, "expand_01_thread_per_item", expand_thread_per_item, lim);
}
