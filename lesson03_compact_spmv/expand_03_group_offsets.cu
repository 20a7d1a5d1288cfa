// expand_03_group_offsets — the merge-path expansion without the offsets array: one offset per 32
// items, and each block scans its own counts.
//
// What changed since expand_02_merge_path: expand_02 writes an offset per item (4n bytes) and
// reads it back (4n): for counts 0..8 that is a third of all its traffic, and more when most
// counts are zero. But a block only needs the offsets of ITS items, and it can compute them from
// their counts with a block scan, given one starting offset. And the partition only needs to find
// where the path crosses a diagonal, which one offset per 32 items already tells (see
// group_partition in expand_path.cuh: binary search over the groups, then at most 32 counts).
//   1. group sums: a warp reads 128 counts (16-byte loads), adds each 32 by shuffles  read 4n
//   2. exclusive scan of the n / 32 group sums (lesson02's scan)                     ~n/4 bytes
//   3. partition: one thread per block boundary: (first output, first item, its offset)
//   4. expand: the block loads its counts, scans them into item ends in shared memory,
//      then exactly as expand_02: per-thread search, walk, staged coalesced writes  read 4n, write 4 total
// 8n + 4 total bytes instead of 12n + 4 total. Measured: see the README table.
// Limits: as expand_02 (n <= 2^31 - 1, total <= 2^32 - 1).
//
// Build alone:  nvcc -O3 -arch=native -o expand03 expand_03_group_offsets.cu
// Run:          ./expand03 --n 2^26 --dist zeros        ./expand03 --test
#include "compact.cuh"
#include "expand_path.cuh"

using expand::kMpItems;
using expand::kMpThreads;
using expand::kMpTile;

// Item ends in shared memory with one padding word after every 32 (expand::padded): thread t scans
// items 16t .. 16t + 15.
using expand::padded;
struct PaddedEnds {
    const uint32_t* ends;
    __host__ __device__ uint32_t operator()(uint64_t b) const { return ends[padded(int(b))]; }
};

// Delta from expand_02's merge_path_expand: the block scans its own counts into item ends, no offsets array read.
__global__ void __launch_bounds__(kMpThreads)
    expand_from_counts(const int32_t* __restrict__ counts, const uint4* __restrict__ starts,
                       int32_t* __restrict__ out) {
    __shared__ uint32_t s_end[kMpTile + kMpTile / 32];
    __shared__ int32_t s_out[kMpTile];
    __shared__ uint32_t s_warp[kMpThreads / 32];
    const uint4 s0 = starts[blockIdx.x], s1 = starts[blockIdx.x + 1];
    const uint64_t a0 = s0.x, b0 = s0.y;
    const int na = int(uint64_t(s1.x) - a0), nb = int(uint64_t(s1.y) - b0);
    for (int k = threadIdx.x; k < nb; k += kMpThreads) s_end[padded(k)] = uint32_t(counts[b0 + k]);
    __syncthreads();

    // Item ends = off[b0] + inclusive scan of the block's counts: each thread adds 16 in a row,
    // one block scan of the 256 partial sums, each thread writes its 16 running sums back.
    const int first = threadIdx.x * kMpItems;
    uint32_t mine = 0;
#pragma unroll
    for (int k = 0; k < kMpItems; ++k)
        if (first + k < nb) mine += s_end[padded(first + k)];
    uint32_t block_total;
    uint32_t run = s0.z + scan::block_exclusive_scan<kMpThreads>(mine, 0u, block_total, s_warp);
#pragma unroll
    for (int k = 0; k < kMpItems; ++k)
        if (first + k < nb) {
            run += s_end[padded(first + k)];
            s_end[padded(first + k)] = run;
        }
    __syncthreads();

    const int len = na + nb;
    const int dt = min(int(threadIdx.x) * kMpItems, len);
    const int steps = min(kMpItems, len - dt);
    const PaddedEnds local{s_end};
    int a = int(expand::merge_path_search<false>(a0, local, uint64_t(na), uint64_t(nb), uint64_t(dt)));
    expand::merge_path_walk<false>(a0, local, na, nb, a, dt - a, steps, s_out, b0);
    __syncthreads();
    for (int k = threadIdx.x; k < na; k += kMpThreads) out[a0 + k] = s_out[k];
}

void expand_group_offsets(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    if (n == 0 || total == 0) return;
    unsigned blocks = 0;
    const uint4* starts = expand::group_starts(d_counts, n, total, blocks);   // passes 1-3
    expand_from_counts<<<blocks, kMpThreads>>>(d_counts, starts, d_out);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    expand::Limits lim;
    lim.scratch_bytes_per_item = 0.25;
    lim.huge_test = true;
    return expand::run_lesson(argc, argv, "expand_03_group_offsets", expand_group_offsets, lim);
}
