// lesson04_sort/radix.cuh — building blocks shared by the multi-bit radix sorts (07, 08):
// digits of ordered key codes, the per-tile digit counts (07), the stable ranking of one tile of
// keys by digit (07; 08 counts first and ranks in one step, 08_radix_onesweep.cu), the staging and the
// scatter of a ranked tile, and the Sorter of a version that sorts keys and pairs with one template.
//
// A radix pass is stable only if every key's destination respects input order among keys of the
// same digit. Inside a tile that order is the *element index*, so ranking must count, for each
// key, the keys of the same digit that come before it in the tile. The tile is split across warps
// in index order (warp w owns elements [w*32*ITEMS, (w+1)*32*ITEMS)) and each warp walks its
// elements in index order (item j of lane l is element j*32 + l of the warp's range: loads are
// coalesced, and "item j, then lane" is index order):
//
//   1. warp ranks   for each item j: scan::match_low_bits(digit) gives the lanes holding the same
//                   digit; a key's rank in its warp's bucket = the bucket's count so far + the
//                   number of those lanes below it; the lowest of them adds the group's size
//                   (warp-private counters in shared memory: no atomics, no races between warps)
//   2. block scan   per digit, an exclusive scan over the warps (warp order = index order) and
//                   an exclusive scan over the digits of the tile's totals (the digit starts)
//   3. rank         = digit start + earlier warps' count of the digit + rank in the warp
//
// After ranking, keys go to shared memory at their rank (sorted by digit within the tile), and
// the block writes them out in rank order: consecutive threads write consecutive addresses of a
// digit's run, so the global scatter is (mostly) coalesced instead of 1 key per 32-byte sector.
#pragma once
#include <cstdint>

#include "../common/device.cuh"
#include "../lesson02_scan/primitives.cuh"
#include "lesson.cuh"

namespace radix {

constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;   // 256 buckets per pass

template <class U> __host__ __device__ __forceinline__ uint32_t digit_of(U code, int shift) {
    return uint32_t(code >> shift) & uint32_t(kDigits - 1);
}

// Padding for a partial tile: the largest code. Its digit is the last one at every shift, and it
// sits at the highest element indices, so it ranks after every real key: ranks [0, valid) are
// exactly the real keys, and only the last digit's count must be corrected (by `pad`).
template <class U> __host__ __device__ constexpr U pad_code() { return ~U(0); }

// Ranking of a tile of BLOCK x ITEMS keys held warp-striped in registers (see the header).
// BLOCK == kDigits: thread t owns digit t in the per-digit steps.
template <int BLOCK, int ITEMS> struct TileRank {
    static_assert(BLOCK == kDigits, "one thread per digit in the per-digit steps");
    static constexpr int kWarps = BLOCK / 32;
    static constexpr int kTile = BLOCK * ITEMS;

    struct Storage {
        uint32_t warp_count[kWarps][kDigits];   // counts, then each warp's exclusive start per digit
        uint32_t digit_start[kDigits];          // the tile's exclusive scan over digits
        uint32_t scan_tmp[kWarps];
    };

    // Step 1. `rank` receives each key's rank among its warp's keys of the same digit. Returns,
    // to thread t, the tile's count of digit t (padding included). Ends with a barrier.
    __device__ static uint32_t warp_ranks(const uint32_t (&digit)[ITEMS], uint32_t (&rank)[ITEMS], Storage& s) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        for (int i = threadIdx.x; i < kWarps * kDigits; i += BLOCK) (&s.warp_count[0][0])[i] = 0;
        __syncthreads();
        const uint32_t below = (1u << lane) - 1;
        uint32_t* counts = s.warp_count[warp];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            uint32_t peers = scan::match_low_bits<kDigitBits>(digit[j]);
            uint32_t before = __popc(peers & below);
            uint32_t so_far = counts[digit[j]];   // every peer reads the same counter ...
            rank[j] = so_far + before;
            __syncwarp();   // ... before the lowest peer bumps it
            if (before == 0) counts[digit[j]] = so_far + __popc(peers);
            __syncwarp();
        }
        __syncthreads();
        // Per digit (thread t = digit t): warps' counts -> exclusive starts in warp order.
        uint32_t run = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            uint32_t c = s.warp_count[w][threadIdx.x];
            s.warp_count[w][threadIdx.x] = run;
            run += c;
        }
        return run;
    }

    // Step 2 and 3: the tile's digit starts, then each key's rank in the whole tile. Returns the
    // start of digit t to thread t. Contains barriers: every thread calls it.
    __device__ static uint32_t finish(uint32_t digit_total, const uint32_t (&digit)[ITEMS], uint32_t (&rank)[ITEMS],
                                      Storage& s) {
        const int warp = threadIdx.x >> 5;
        uint32_t all = 0;
        uint32_t start = scan::block_exclusive_scan<BLOCK>(digit_total, 0u, all, s.scan_tmp);
        s.digit_start[threadIdx.x] = start;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) rank[j] += s.digit_start[digit[j]] + s.warp_count[warp][digit[j]];
        return start;
    }
};

// Loads tile `tile`'s keys as ordered codes, warp-striped; elements past n become pad_code().
// kFirst: the source is the caller's K array (codes made on the fly); otherwise codes already.
template <class K, class U, int BLOCK, int ITEMS, bool kFirst>
__device__ __forceinline__ void load_codes(const void* src, size_t n, size_t tile_base, U (&code)[ITEMS]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t warp_base = tile_base + size_t(warp) * 32 * ITEMS;
    // (Top-k's passes gained much by making such loads unconditional, lesson01; here the same
    // change was slower for 08's first version: these kernels are bound by the ranking's
    // instructions, not by load latency, and the clamp adds instructions.)
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        size_t e = warp_base + size_t(j) * 32 + lane;
        if (e < n) {
            if constexpr (kFirst) code[j] = sorting::Ordered<K>::to(static_cast<const K*>(src)[e]);
            else code[j] = static_cast<const U*>(src)[e];
        } else {
            code[j] = pad_code<U>();
        }
    }
}

template <int ITEMS>
__device__ __forceinline__ void load_values(const uint32_t* src, size_t n, size_t tile_base, uint32_t (&val)[ITEMS]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t warp_base = tile_base + size_t(warp) * 32 * ITEMS;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        size_t e = warp_base + size_t(j) * 32 + lane;
        val[j] = e < n ? src[e] : 0u;
    }
}

// 07's step 1 (also the given part of exercises/radix_stable_scatter.cu): each block counts the
// digits of one tile of BLOCK x ITEMS keys, digit-major into counts[d * tiles + tile], so that
// one exclusive scan of `counts` gives every (digit, tile) its output offset. Padding is not
// counted. BLOCK == kDigits: thread t writes digit t's count.
template <class K, class U, int BLOCK, int ITEMS, bool kFirst>
__global__ void __launch_bounds__(BLOCK)
    count_digits(const void* src, size_t n, int shift, uint32_t* counts, size_t tiles) {
    static_assert(BLOCK == kDigits, "one thread per digit");
    __shared__ uint32_t hist[kDigits];
    hist[threadIdx.x] = 0;
    __syncthreads();
    const size_t tile_base = size_t(blockIdx.x) * BLOCK * ITEMS;
    U code[ITEMS];
    load_codes<K, U, BLOCK, ITEMS, kFirst>(src, n, tile_base, code);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t warp_base = tile_base + size_t(warp) * 32 * ITEMS;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
        if (warp_base + size_t(j) * 32 + lane < n) atomicAdd(&hist[digit_of(code[j], shift)], 1u);
    __syncthreads();
    counts[size_t(threadIdx.x) * tiles + blockIdx.x] = hist[threadIdx.x];
}

// Puts the tile's keys (and values, for pairs) into shared memory at their ranks: sorted by digit
// within the tile, ready for scatter_codes / scatter_values after a barrier.
template <class U, int ITEMS, bool kPairs>
__device__ __forceinline__ void stage_tile(const U (&code)[ITEMS], const uint32_t (&rank)[ITEMS], const uint32_t* vsrc,
                                           size_t n, size_t tile_base, U* s_codes, uint32_t* s_vals) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) s_codes[rank[j]] = code[j];
    if constexpr (kPairs) {
        uint32_t val[ITEMS];
        load_values<ITEMS>(vsrc, n, tile_base, val);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) s_vals[rank[j]] = val[j];
    }
}

// Writes the tile's keys (already in shared memory in rank order) to dst[offset[digit] + i]:
// offset[d] = the global position of the tile's first key of digit d, minus the digit's start in
// the tile. kLast: the destination is the caller's K array (codes mapped back).
// kGuard: skip destinations >= n. 07's and 08's offsets are right, so they need no check; a pass
// whose offsets come from code under construction (exercises/radix_digit_lookback.cu) may be
// wrong, and its next pass then reads keys whose digits no longer match the precomputed counts:
// without the check such a tile writes past the end of the buffer (a CUDA error, not a FAIL).
template <class K, class U, int BLOCK, bool kLast, bool kGuard = false>
__device__ __forceinline__ void scatter_codes(const U* s_codes, const long long* s_offset, uint32_t valid, int shift,
                                              void* dst, size_t n) {
    for (uint32_t i = threadIdx.x; i < valid; i += BLOCK) {
        U c = s_codes[i];
        size_t pos = size_t(s_offset[digit_of(c, shift)] + (long long)i);
        if constexpr (kGuard) {
            if (pos >= n) continue;
        }   // a negative offset wraps to a huge size_t
        if constexpr (kLast) static_cast<K*>(dst)[pos] = sorting::Ordered<K>::from(c);
        else static_cast<U*>(dst)[pos] = c;
    }
}

template <class U, int BLOCK, bool kGuard = false>
__device__ __forceinline__ void scatter_values(const U* s_codes, const uint32_t* s_vals, const long long* s_offset,
                                               uint32_t valid, int shift, uint32_t* dst, size_t n) {
    for (uint32_t i = threadIdx.x; i < valid; i += BLOCK) {
        size_t pos = size_t(s_offset[digit_of(s_codes[i], shift)] + (long long)i);
        if constexpr (kGuard) {
            if (pos >= n) continue;
        }
        dst[pos] = s_vals[i];
    }
}

// 07 and 08 sort keys and pairs with one template each,
//     Algo::template sort<K, kPairs>(keys_in, keys_out, vals_in, vals_out, n)   (values null for keys),
// and offer every key type: this is their Sorter (sorting::every_type, lesson.cuh).
template <class Algo> struct KeysAndPairs {
    template <class K> static void keys(const K* in, K* out, size_t n) {
        Algo::template sort<K, false>(in, out, nullptr, nullptr, n);
    }
    static void pairs(const uint32_t* keys_in, const uint32_t* vals_in, uint32_t* keys_out, uint32_t* vals_out,
                      size_t n) {
        Algo::template sort<uint32_t, true>(keys_in, keys_out, vals_in, vals_out, n);
    }
};
template <class Algo> sorting::Sorter sorter_for() { return sorting::every_type<KeysAndPairs<Algo>>(); }

}   // namespace radix
