// lesson01_topk/bitonic.cuh — bitonic sorting networks on packed (key, index) values, largest
// first: a block-wide sort in shared memory (topk_04_bitonic.cu) and warp-wide merges in registers
// (topk_03_warp_select.cu); a block sort that merges warp-sorted runs by rank (06's M); and one that
// places values by bins, comparing only within a bin (06's and 08's winners).
//
// A bitonic network is a fixed sequence of compare-exchange steps that does not depend on the
// data: no branches that diverge on values, every step a barrier (block) or a shuffle (warp).
#pragma once
#include "lesson.cuh"
#include "../lesson02_scan/primitives.cuh"

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
                    if ((a < b) == descending) {
                        s[i] = b;
                        s[j] = a;
                    }
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
                if (a < b) {
                    s[i] = b;
                    s[j] = a;
                }
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
            bool lower = (lane & stride) == 0;   // the lane that keeps the first of the pair
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
template <int kPer> __device__ inline void block_merge_sort_desc(uint64_t* s, int m) {
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
            int lo = 0, hi = run;   // how many of the other run go before x[j]
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

// Places the m distinct values of s[0..m) (m <= kPer * kThreads, the block's size) in descending
// order by bins rather than comparisons: each value's bin (2048 over the keys' range; by key and
// column when the keys are few, as 16-bit floats' winners are), the bins' counts, an exclusive scan
// from the top bin, a scatter by bin, and then a value's place is its bin's start plus the values of
// its bin above it. emit(place, value) is called once for each value. A bin of more than kBinMax
// values (a clustered set) falls back to block_merge_sort_desc, which needs s to hold m rounded up to
// a power of two. The key is a value's top 32 bits, the column its low 32, and a key's low kKeyShift
// bits are 0 (16-bit floats: 16). s is overwritten; hist is 2048 words of scratch. Contains barriers.
template <int kPer, int kKeyShift, int kThreads, class Emit>
__device__ void block_bin_rank_desc(uint64_t* s, int m, uint32_t* hist, Emit&& emit) {
    // 2048 bins: the select's own histogram (06's RowSmem); a bin of 64 costs a value 64 shared loads to
    // rank (neither compared with other sizes).
    constexpr int kBins = 2048, kPerBin = kBins / kThreads, kBinMax = 64, kWarps = kThreads / 32;
    __shared__ uint32_t s_range[4][kWarps], s_scan[kWarps];
    __shared__ int s_big;
    const int t = threadIdx.x, lane = t & 31;
    // 1. The values to registers; the range of their keys and of their columns (low halves).
    uint64_t x[kPer];
    uint32_t r[4] = {~0u, 0u, ~0u, 0u}, b[kPer];   // smallest key, largest key, smallest and largest low half
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = t + j * kThreads;
        x[j] = i < m ? s[i] : 0;
        if (i < m) {
            r[0] = min(r[0], uint32_t(x[j] >> 32));
            r[1] = max(r[1], uint32_t(x[j] >> 32));
            r[2] = min(r[2], uint32_t(x[j]));
            r[3] = max(r[3], uint32_t(x[j]));
        }
    }
    for (int i = t; i < kBins; i += kThreads) hist[i] = 0;
    auto reduce = [&] {
#pragma unroll
        for (int o = 16; o > 0; o /= 2)
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const uint32_t y = __shfl_xor_sync(0xFFFFFFFFu, r[q], o);
                r[q] = q % 2 ? max(r[q], y) : min(r[q], y);
            }
    };
    reduce();
    if (lane == 0)
#pragma unroll
        for (int q = 0; q < 4; ++q) s_range[q][t / 32] = r[q];
    if (t == 0) s_big = 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 4; ++q) r[q] = lane < kWarps ? s_range[q][lane] : (q % 2 ? 0u : ~0u);
    reduce();
    // 2. The bins, monotone in the value. At most 64 keys: 2048 / keys (a power of two) bins each, cut by
    //    column; more keys: the key's offset from the smallest, shifted to 11 bits.
    const uint32_t keys = ((r[1] - r[0]) >> kKeyShift) + 1;
    const bool few = keys <= 64;
    const int kbits = 11 - (32 - __clz(int(keys - 1)));   // column bins a key value, as bits (few keys)
    const int cbits = 32 - __clz(int(r[3] - r[2])), csh = cbits > kbits ? cbits - kbits : 0;
    const int sbits = 32 - __clz(int(r[1] - r[0])), sh = sbits > 11 ? sbits - 11 : 0;
#pragma unroll
    for (int j = 0; j < kPer; ++j)
        if (t + j * kThreads < m) {
            const uint32_t key = uint32_t(x[j] >> 32) - r[0];
            b[j] = few ? (key >> kKeyShift << kbits) | ((uint32_t(x[j]) - r[2]) >> csh) : key >> sh;
            atomicAdd(&hist[b[j]], 1u);
        }
    __syncthreads();
    // 3. Each bin's start: the values in the bins above it (thread t owns kPerBin bins from the top).
    uint32_t mine = 0;
#pragma unroll
    for (int j = 0; j < kPerBin; ++j) {
        const uint32_t c = hist[kBins - 1 - (t * kPerBin + j)];
        if (c > kBinMax) s_big = 1;
        mine += c;
    }
    uint32_t total;
    uint32_t run = scan::block_exclusive_scan<kThreads>(mine, 0u, total, s_scan);
#pragma unroll
    for (int j = 0; j < kPerBin; ++j) {
        const int bin = kBins - 1 - (t * kPerBin + j);
        const uint32_t c = hist[bin];
        hist[bin] = run;
        run += c;
    }
    __syncthreads();
    if (s_big) {   // a crowded bin: compare instead
        int p2 = 32;
        while (p2 < m) p2 *= 2;
        for (int i = m + t; i < p2; i += kThreads) s[i] = 0;
        __syncthreads();
        block_merge_sort_desc<kPer>(s, p2);
        for (int i = t; i < m; i += kThreads) emit(uint32_t(i), s[i]);
        return;
    }
    // 4. Scatter by bin (hist[b] ends as the end of bin b, which is the start of bin b - 1).
#pragma unroll
    for (int j = 0; j < kPer; ++j)
        if (t + j * kThreads < m) s[atomicAdd(&hist[b[j]], 1u)] = x[j];
    __syncthreads();
    // 5. A value's place: its bin's start plus its bin's values above it.
#pragma unroll
    for (int j = 0; j < kPer; ++j)
        if (t + j * kThreads < m) {
            const uint32_t begin = b[j] == kBins - 1 ? 0u : hist[b[j] + 1], end = hist[b[j]];
            uint32_t above = 0;
            for (uint32_t q = begin; q < end; ++q) above += s[q] > x[j];
            emit(begin + above, x[j]);
        }
}

}   // namespace bitonic

// The most results topk_05_radix_select orders by counting in shared memory (32 KB of packed values).
constexpr size_t kSmallSortMax = 4096;

}   // namespace topk
