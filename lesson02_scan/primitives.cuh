// lesson02_scan/primitives.cuh — warp- and block-level scans, the building blocks that the later
// scan versions, compaction (lesson03), radix sort (lesson04) and top-k (lesson01) include.
//
// Why shuffles: a warp's 32 lanes exchange registers directly with __shfl_up_sync, so a warp
// scan takes 5 steps with no shared memory and no barrier. A block scan is then two levels:
// scan inside each warp, scan the warp totals (one warp), add the warp's offset back.
#pragma once
#include <cstdint>

namespace scan {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// inclusive: out[i] = in[0] + ... + in[i];  exclusive: out[i] = in[0] + ... + in[i-1], out[0] = 0
enum class Kind { inclusive, exclusive };

struct Plus {
    template <class T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {   // for max-scans and max-reductions (top-k's key range, expand_04's runs)
    template <class T> __host__ __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

// Inclusive scan across the 32 lanes of a warp (Kogge-Stone on registers): lane i gets
// x_0 op ... op x_i. Every lane of the warp must call it.
template <class T, class Op = Plus> __device__ __forceinline__ T warp_inclusive_scan(T x, Op op = {}) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        T y = __shfl_up_sync(kFullMask, x, offset);
        if (lane >= offset) x = op(y, x);
    }
    return x;
}

// Sum over the warp, returned to every lane (butterfly: each lane ends with the full total).
template <class T, class Op = Plus> __device__ __forceinline__ T warp_reduce(T x, Op op = {}) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) x = op(x, __shfl_xor_sync(kFullMask, x, offset));
    return x;
}

// Exclusive scan of one value per thread across a block of BLOCK threads (a multiple of 32).
// Returns this thread's exclusive prefix (identity for thread 0) and the block total in `total`.
// `warp_totals` is shared memory for BLOCK/32 values. Contains barriers: call from every thread.
template <int BLOCK, class T, class Op = Plus>
__device__ __forceinline__ T block_exclusive_scan(T x, T identity, T& total, T* warp_totals, Op op = {}) {
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "block must be whole warps");
    constexpr int kWarps = BLOCK / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inclusive = warp_inclusive_scan(x, op);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {   // one warp scans the (at most 32) warp totals
        T t = lane < kWarps ? warp_totals[lane] : identity;
        T t_incl = warp_inclusive_scan(t, op);
        if (lane < kWarps) warp_totals[lane] = t_incl;
    }
    __syncthreads();
    total = warp_totals[kWarps - 1];
    T warp_offset = warp == 0 ? identity : warp_totals[warp - 1];
    // this thread's exclusive prefix inside its warp is the lane below's inclusive value
    T lane_below = __shfl_up_sync(kFullMask, inclusive, 1);
    T exclusive_in_warp = lane == 0 ? identity : lane_below;
    T result = op(warp_offset, exclusive_in_warp);
    __syncthreads();   // warp_totals may be reused by the caller right after
    return result;
}

// The lanes of the warp whose `label` has the same low BITS bits as this lane's, as a bit mask
// (lane i is bit i). __match_any_sync(mask, label) answers the same question, but on the GPUs
// this course measures (sm_90) its cost grows with the number of distinct labels in the warp:
// on uniform 8- or 11-bit digits (20 to 32 distinct per warp) it was the slowest instruction of
// the radix sort's ranking and of top-k's histograms. BITS ballots cost the same on any input:
// lane i keeps the lanes that agree with it on every bit. (The one-instruction version,
// __match_any_sync(kFullMask, label & mask), and what it cost: lesson04_sort/TUNING.md.)
template <int BITS> __device__ __forceinline__ unsigned match_low_bits(uint32_t label) {
    static_assert(BITS >= 1 && BITS <= 32, "a label of 1 to 32 bits");
    unsigned peers = kFullMask;
#pragma unroll
    for (int b = 0; b < BITS; ++b) {
        const bool bit = (label >> b) & 1u;
        const unsigned lanes_with_bit = __ballot_sync(kFullMask, bit);
        peers &= bit ? lanes_with_bit : ~lanes_with_bit;
    }
    return peers;
}

}   // namespace scan
