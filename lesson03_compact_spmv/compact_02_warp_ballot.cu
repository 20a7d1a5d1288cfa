// compact_02_warp_ballot — no flag array: offsets inside a warp come from __ballot_sync and
// __popc, block offsets from a scan of one count per block.
//
// What changed since compact_01_three_kernels: a warp evaluates the predicate on 32 consecutive
// elements and __ballot_sync gives every lane the 32 answers as one bit mask. A lane's place
// among the kept elements of its warp is the number of kept lanes below it:
//     __popc(mask & lanes_below)                  (one instruction, no shared memory)
// so the flags never go to memory. A block handles a tile of 4096 elements (16 rows of 32 per
// warp); only its kept count goes to memory. Three launches:
//   1. count:   read 4n, write 4 bytes per block
//   2. scan the block counts (lesson02's scan, n / 4096 elements: negligible)
//   3. scatter: read 4n again, recompute the ballots, write each kept element at
//               block offset + warp offset + row offset + popc  (4*kept)
// 8n + 4*kept bytes instead of 28n + 4*kept. What limits it next: the input is read twice, and
// the writes are direct: a warp's kept elements are contiguous, but a row with few of them
// writes partial 32-byte sectors (at 10% kept, about 3 elements per 128-byte row).
//
// Build alone:  nvcc -O3 -arch=native -o compact02 compact_02_warp_ballot.cu
// Run:          ./compact02 --n 2^28 --pct 10        ./compact02 --test
#include "../lesson02_scan/scan.cuh"
#include "compact.cuh"

constexpr int kThreads = 256, kWarps = kThreads / 32, kRows = 16;
constexpr int kTile = kThreads * kRows;   // 4096 elements per block

__device__ __forceinline__ unsigned lanes_below() {
    return (1u << (threadIdx.x & 31)) - 1u;   // bits of the lanes with a smaller index
}

// Element of row r of this thread: each warp owns 32 * kRows consecutive elements, row by row,
// so every load instruction of a warp reads 128 contiguous bytes.
__device__ __forceinline__ size_t element(size_t tile, int r) {
    return tile * kTile + size_t(threadIdx.x >> 5) * 32 * kRows + size_t(r) * 32 + (threadIdx.x & 31);
}

// Delta from 01's flag kernel: no flag array; a block counts the kept elements of its tile and writes one number.
__global__ void __launch_bounds__(kThreads)
    count_kernel(const int32_t* __restrict__ in, uint32_t* __restrict__ block_counts, size_t n, uint32_t pct) {
    __shared__ uint32_t s_count;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    uint32_t kept = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        size_t i = element(blockIdx.x, r);
        kept += i < n && compact::keep(in[i], pct);
    }
    kept = scan::warp_reduce(kept);
    if ((threadIdx.x & 31) == 0) atomicAdd(&s_count, kept);   // 8 shared atomics per block
    __syncthreads();
    if (threadIdx.x == 0) block_counts[blockIdx.x] = s_count;
}

// Delta from 01's scatter: offsets from ballots and popcounts in registers, plus the block's scanned count.
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(const int32_t* __restrict__ in, const uint32_t* __restrict__ block_offsets,
                   const uint32_t* __restrict__ block_counts, int32_t* __restrict__ out, uint32_t* __restrict__ count,
                   size_t n, uint32_t pct) {
    __shared__ uint32_t s_warp[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int32_t x[kRows];
    unsigned mask[kRows];
    uint32_t warp_kept = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        size_t i = element(blockIdx.x, r);
        bool k = false;
        if (i < n) {
            x[r] = in[i];
            k = compact::keep(x[r], pct);
        }
        mask[r] = __ballot_sync(scan::kFullMask, k);   // every lane learns the whole row
        warp_kept += __popc(mask[r]);
    }
    // Offsets of the warps inside the block: an exclusive scan of 8 numbers.
    if (lane == 0) s_warp[warp] = warp_kept;
    __syncthreads();
    if (warp == 0) {
        uint32_t v = lane < kWarps ? s_warp[lane] : 0;
        uint32_t incl = scan::warp_inclusive_scan(v);
        if (lane < kWarps) s_warp[lane] = incl - v;
    }
    __syncthreads();
    uint32_t pos = block_offsets[blockIdx.x] + s_warp[warp];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        if (mask[r] >> lane & 1u) out[pos + __popc(mask[r] & lanes_below())] = x[r];
        pos += __popc(mask[r]);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *count = block_offsets[blockIdx.x] + block_counts[blockIdx.x];
}

void compact_warp_ballot(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
        return;
    }
    unsigned blocks = course::blocks_for(n, kTile);
    uint32_t* counts = course::scratch_as<uint32_t>(0, blocks);
    uint32_t* offsets = course::scratch_as<uint32_t>(1, blocks);
    count_kernel<<<blocks, kThreads>>>(d_in, counts, n, pct);
    CUDA_CHECK_LAST();
    scan::device_scan(counts, offsets, blocks, scan::Kind::exclusive);
    scatter_kernel<<<blocks, kThreads>>>(d_in, offsets, counts, d_out, d_count, n, pct);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return compact::run_lesson(argc, argv, "compact_02_warp_ballot", compact_warp_ballot);
}
