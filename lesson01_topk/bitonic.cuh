// lesson01_topk/bitonic.cuh — bitonic sorting networks on packed (key, index) values, largest
// first: a block-wide sort in shared memory (04_bitonic_topk.cu, 06_rowwise.cu) and warp-wide
// merges in registers (03_warp_select.cu).
//
// A bitonic network is a fixed sequence of compare-exchange steps that does not depend on the
// data: no branches that diverge on values, every step a barrier (block) or a shuffle (warp).
#pragma once
#include "lesson.cuh"

namespace topk {
namespace bitonic {

// Sorts s[0..m) descending, m a power of two, with all threads of the block (any block size).
// Step (size, stride): element i is compared with i ^ stride; the pair is put in descending order
// when i's bit `size` is 0 and ascending when it is 1, which builds bitonic runs of length 2*size
// that the next size merges. Contains barriers: call from every thread.
__device__ inline void block_sort_desc(uint64_t* s, int m) {
    for (int size = 2; size <= m; size *= 2) {
        for (int stride = size / 2; stride > 0; stride /= 2) {
            for (int i = threadIdx.x; i < m; i += blockDim.x) {
                int j = i ^ stride;
                if (j > i) {
                    uint64_t a = s[i], b = s[j];
                    bool descending = (i & size) == 0;
                    if ((a < b) == descending) { s[i] = b; s[j] = a; }
                }
            }
            __syncthreads();
        }
    }
}

// s[0..m) is bitonic (rises then falls, or falls then rises): sorts it descending in log2(m)
// steps. Used after "take the larger of a[e] and b[m-1-e]" of two descending lists, which leaves
// the top m of both as a bitonic sequence (Shanbhag et al.'s merge-and-keep-the-top-half).
__device__ inline void block_merge_desc(uint64_t* s, int m) {
    for (int stride = m / 2; stride > 0; stride /= 2) {
        for (int i = threadIdx.x; i < m; i += blockDim.x) {
            int j = i ^ stride;
            if (j > i) {
                uint64_t a = s[i], b = s[j];
                if (a < b) { s[i] = b; s[j] = a; }
            }
        }
        __syncthreads();
    }
}

// Warp-wide: each of the 32 lanes holds one value; after warp_sort_desc lane 0 has the largest.
__device__ __forceinline__ uint64_t cmp_swap_lane(uint64_t x, int stride, bool keep_max) {
    uint64_t y = __shfl_xor_sync(0xFFFFFFFFu, x, stride);
    return keep_max ? (x > y ? x : y) : (x < y ? x : y);
}

__device__ __forceinline__ uint64_t warp_sort_desc(uint64_t x) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int size = 2; size <= 32; size *= 2) {
#pragma unroll
        for (int stride = size / 2; stride > 0; stride /= 2) {
            bool lower = (lane & stride) == 0;             // the lane that keeps the first of the pair
            bool descending = (lane & size) == 0 || size == 32;
            x = cmp_swap_lane(x, stride, lower == descending);
        }
    }
    return x;
}

}  // namespace bitonic

// The most results 05_radix_select orders by counting in shared memory (32 KB of packed values).
constexpr size_t kSmallSortMax = 4096;

}  // namespace topk
