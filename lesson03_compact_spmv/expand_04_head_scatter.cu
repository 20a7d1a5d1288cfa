// expand_04_head_scatter — expansion without a walk: each item writes only its FIRST output (its
// "head"), and an inclusive max-scan over the outputs fills in the rest of every run.
//
// What changed since expand_03_group_offsets: the passes before the expand kernel are the same,
// but expand_03's walk is a chain (each step's comparison decides the next: one shared-memory load
// per output waited on). Here nothing depends on the step before it:
//   1. the block scans its items' counts into each item's first output, as expand_03;
//   2. its outputs are cleared in shared memory; each non-empty item writes its number at its
//      first output (distinct positions, no conflicts);
//   3. output k belongs to the LARGEST item number written at or before k: an inclusive max-scan
//      (16 outputs per thread in registers, then a block scan of the thread maxima);
//   4. the block writes its outputs coalesced.
// A block inside one huge count skips all of it. The same 8n + 4 total bytes as expand_03.
// TUNING.md has the block shapes tried and what bounds it on each distribution.
// Limits: as expand_02 (n <= 2^31 - 1, total <= 2^32 - 1).
//
// Build alone:  nvcc -O3 -arch=native -o expand04 expand_04_head_scatter.cu
// Run:          ./expand04 --n 2^26 --dist uniform        ./expand04 --test
#include "compact.cuh"
#include "expand_path.cuh"

using expand::padded;

// 256 threads x 16 path steps, 6 blocks per SM (40 registers, no spill). No register cap (72
// registers, 3 blocks), 256 x 32 and 512 x 16 measured slower on every distribution (TUNING.md).
constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;   // path steps (outputs + item ends) per block
static_assert(kTile * 4 + kTile / 8 <= 48 * 1024, "the tile must fit in 48 KB of shared memory");
constexpr int kStaticSmem = sizeof(int32_t) * (kTile + kTile / 32) + 8 * (kThreads / 32);   // staged outputs, warp sums
constexpr int kMinBlocks = course::min_blocks_that_fit(6, kThreads, kStaticSmem);           // 3 on a Turing SM (64 KB)

// expand_03's expand kernel, but the walk is replaced by a scatter of run heads and a max-scan.
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    expand_by_heads(const int32_t* __restrict__ counts, size_t n, const uint4* __restrict__ starts,
                    int32_t* __restrict__ out) {
    __shared__ int32_t s_out[kTile + kTile / 32];   // item number per output of this block (padded)
    __shared__ uint32_t s_warp_sum[kThreads / 32];
    __shared__ int32_t s_warp_max[kThreads / 32];
    // The block's piece of the path starts at (a0 outputs, b0 items taken); off_b0 = offset of item
    // b0. Its outputs are a0 .. a0 + na - 1; they belong to items b0 .. b0 + nb (the last of these
    // may end in a later block), and off_b0 <= a0.
    const uint4 s0 = starts[blockIdx.x], s1 = starts[blockIdx.x + 1];
    const uint32_t a0 = s0.x, b0 = s0.y, off_b0 = s0.z;
    const int na = int(s1.x - a0), nb = int(s1.y - b0);   // na + nb <= kTile
    if (nb == 0) {   // inside one item's run (a huge count): every output is b0 (block-uniform exit)
        for (int k = threadIdx.x; k < na; k += kThreads) out[size_t(a0) + k] = int32_t(b0);
        return;
    }
    const int first = int(threadIdx.x) * kItems;   // this thread's items b0 + first + k, outputs first + k

    // 1. Offsets of this thread's items (relative j = first + k, j <= nb, item < n): all loads first.
    int32_t c[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const int j = first + k;
        c[k] = (j <= nb && size_t(b0) + j < n) ? counts[size_t(b0) + j] : 0;
    }
    uint32_t mine = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) mine += uint32_t(c[k]);
    uint32_t block_sum;
    uint32_t start = off_b0 + scan::block_exclusive_scan<kThreads>(mine, 0u, block_sum, s_warp_sum);

    // 2. Clear the outputs, then scatter the heads. Every head lies in [a0, a0 + na) or outside
    // the block; item b0's head is at or before a0: scattered if at a0, else it comes in as the
    // scan's seed.
#pragma unroll
    for (int k = 0; k < kItems; ++k)
        if (first + k < na) s_out[padded(first + k)] = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const uint32_t rel = start - a0;   // wraps to a huge value for a head before a0: skipped
        if (c[k] > 0 && rel < uint32_t(na)) s_out[padded(int(rel))] = int32_t(b0 + first + k);
        start += uint32_t(c[k]);
    }
    __syncthreads();

    // 3. Inclusive max-scan over the outputs: this thread's 16 in registers, then across the block.
    int32_t v[kItems];
    int32_t run_max = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        v[k] = first + k < na ? s_out[padded(first + k)] : 0;
        run_max = v[k] > run_max ? v[k] : run_max;
    }
    int32_t block_max;
    // Then at least b0: the item the block's first output belongs to unless a head says otherwise.
    // (block_exclusive_scan's identity reaches only warp 0 and each warp's lane 0, so b0 cannot ride
    // in as the identity: lanes 1-31 of the other warps would miss it.)
    int32_t carry = scan::block_exclusive_scan<kThreads>(run_max, 0, block_max, s_warp_max, scan::Max{});
    carry = carry > int32_t(b0) ? carry : int32_t(b0);
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        carry = v[k] > carry ? v[k] : carry;
        if (first + k < na) s_out[padded(first + k)] = carry;
    }
    __syncthreads();

    // 4. Coalesced writes: consecutive threads, consecutive outputs.
    for (int k = threadIdx.x; k < na; k += kThreads) out[size_t(a0) + k] = s_out[padded(k)];
}

// --plan: the expand kernel's shape (its grid, blocks of kTile path steps, is group_starts'), with
// the blocks per SM its compiled __launch_bounds__ asks for (clamped to the SM's threads and shared memory).
inline std::vector<course::KernelPlan> head_scatter_plan(uint64_t n, uint64_t total) {
    const int min_blocks = course::blocks_that_fit(6, kThreads, kStaticSmem);
    const size_t smem = kStaticSmem;
    return {{"group_sums", expand::kSumThreads, 0, 0, 1, "one thread per 4 counts"},
            {"group_partition_kernel", 256, 0, 0, 1, "one thread per block boundary"},
            {"expand_by_heads", kThreads, 0, min_blocks, 1,
             std::to_string(course::blocks_for(n + total, kTile)) + " blocks of " + std::to_string(kTile) +
                 " path steps (at " + std::to_string(total) + " outputs); " + std::to_string(smem) +
                 " B of static shared memory a block"}};
}

void expand_head_scatter(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    if (n == 0 || total == 0) return;
    unsigned blocks = 0;
    const uint4* starts = expand::group_starts<kTile>(d_counts, n, total, blocks);   // as expand_03
    expand_by_heads<<<blocks, kThreads>>>(d_counts, n, starts, d_out);
    CUDA_CHECK_LAST();
}

// The plan at the uniform counts' mean of 4 outputs an item (the counts are not generated).
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    return head_scatter_plan(c.n, 4 * c.n);
});

int main(int argc, char** argv) {
    expand::Limits lim;
    lim.scratch_bytes_per_item = 0.25;
    lim.huge_test = true;
    return expand::run_lesson(argc, argv, "expand_04_head_scatter", expand_head_scatter, lim);
}
