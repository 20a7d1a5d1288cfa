// compact_01_three_kernels — the textbook compaction (CS344 lesson 4): flags, exclusive scan, scatter.
//
//   1. flags[i]   = keep(in[i])                     read 4n, write 4n
//   2. offsets    = exclusive scan of the flags     read 4n, write 4n   (lesson02's best scan)
//   3. if flags[i]: out[offsets[i]] = in[i]         read 12n, write 4*kept
//      and the last thread writes count = offsets[n-1] + flags[n-1]
// Three launches and 28n + 4*kept bytes of traffic where the problem needs 4n + 4*kept: about 4x
// (50% kept) to 7x (none kept) the bytes of the library bar. Each step is simple and obviously
// right, which is why it is the reference point for what follows: compaction_02 removes the flag
// array, compaction_03 the second pass over the input.
// The order is kept because the scan hands out addresses in input order: element i goes to the
// number of kept elements before it.
//
// Build alone:  nvcc -O3 -arch=native -o compact01 compact_01_three_kernels.cu
// Run:          ./compact01 --n 2^24 --pct 50        ./compact01 --test
#include "../lesson02_scan/scan.cuh"
#include "compact.cuh"

constexpr int kBlock = 256;

// Step 1: flags[i] = 1 where in[i] is kept, one thread an element.
__global__ void flag_kernel(const int32_t* __restrict__ in, uint32_t* __restrict__ flags, size_t n, uint32_t pct) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i < n) flags[i] = compact::keep(in[i], pct) ? 1u : 0u;
}

// Step 3: a kept element goes to out[offsets[i]]; the last thread writes the count (its offset + its flag).
__global__ void scatter_kernel(const int32_t* __restrict__ in, const uint32_t* __restrict__ flags,
                               const uint32_t* __restrict__ offsets, int32_t* __restrict__ out,
                               uint32_t* __restrict__ count, size_t n) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i >= n) return;
    uint32_t f = flags[i];
    if (f) out[offsets[i]] = in[i];
    if (i == n - 1) *count = offsets[i] + f;   // exclusive scan + the last flag = the total
}

void compact_three_kernels(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0) {   // no thread runs to write the count
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
        return;
    }
    uint32_t* flags = course::scratch_as<uint32_t>(0, n);
    uint32_t* offsets = course::scratch_as<uint32_t>(1, n);
    unsigned grid = course::blocks_for(n, kBlock);
    flag_kernel<<<grid, kBlock>>>(d_in, flags, n, pct);
    CUDA_CHECK_LAST();
    scan::device_scan(flags, offsets, n, scan::Kind::exclusive);
    scatter_kernel<<<grid, kBlock>>>(d_in, flags, offsets, d_out, d_count, n);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    compact::Limits lim;
    lim.scratch_bytes_per_item = 8;   // flags + offsets
    return compact::run_lesson(argc, argv, "compact_01_three_kernels", compact_three_kernels, lim);
}
