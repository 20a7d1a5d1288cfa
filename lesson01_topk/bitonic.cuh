// lesson01_topk/bitonic.cuh — bitonic sorting networks on packed (key, index) values, largest
// first: a block-wide sort in shared memory (04_bitonic_topk.cu) and warp-wide merges in registers
// (03_warp_select.cu); and a block sort that merges warp-sorted runs by rank (06_rowwise.cu).
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

// Sorts s[0..m) descending, m a power of two, 32 <= m <= kPer * blockDim.x (blockDim.x a multiple of
// 32; smaller m: block_sort_desc). Each warp sorts 32 consecutive values in registers (warp_sort_desc),
// then runs of 32, 64, ... are merged in pairs by rank: a value's place in the merged run is its place
// in its own run plus the number of values of the other run that go before it (a binary search; equal
// values of the left run go first). Each merge is two barriers (all read, then all write), where the
// bitonic sort has a barrier a step: 15 for m = 1024 against 55. Contains barriers: call from every thread.
template <int kPer>
__device__ inline void block_merge_sort_desc(uint64_t* s, int m) {
    if (m < 32) return block_sort_desc(s, m);
    const int t = threadIdx.x, nt = blockDim.x;
    for (int i = t; i < m; i += nt) s[i] = warp_sort_desc(s[i]);   // whole warps: m and nt are multiples of 32
    __syncthreads();
    for (int run = 32; run < m; run *= 2) {
        uint64_t x[kPer];
        int to[kPer];
#pragma unroll
        for (int j = 0; j < kPer; ++j) {
            const int i = t + j * nt;
            if (i >= m) continue;
            x[j] = s[i];
            const int own = i & ~(run - 1), other = own ^ run;
            const bool left = own < other;
            int lo = 0, hi = run;            // how many of the other run go before x[j]
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                const uint64_t y = s[other + mid];
                if (y > x[j] || (!left && y == x[j])) lo = mid + 1;
                else hi = mid;
            }
            to[j] = (own & ~run) + (i - own) + lo;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kPer; ++j)
            if (t + j * nt < m) s[to[j]] = x[j];
        __syncthreads();
    }
}

}  // namespace bitonic

// The most results 05_radix_select orders by counting in shared memory (32 KB of packed values).
constexpr size_t kSmallSortMax = 4096;

}  // namespace topk
