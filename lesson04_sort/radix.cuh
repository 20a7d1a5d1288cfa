// lesson04_sort/radix.cuh — building blocks shared by the multi-bit radix sorts (07, 08):
// digits of ordered key codes, and the stable ranking of one tile of keys by digit.
//
// A radix pass is stable only if every key's destination respects input order among keys of the
// same digit. Inside a tile that order is the *element index*, so ranking must count, for each
// key, the keys of the same digit that come before it in the tile. The tile is split across warps
// in index order (warp w owns elements [w*32*ITEMS, (w+1)*32*ITEMS)) and each warp walks its
// elements in index order (item j of lane l is element j*32 + l of the warp's range: loads are
// coalesced, and "item j, then lane" is index order):
//
//   1. warp ranks   for each item j: __match_any_sync(digit) gives the lanes holding the same
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
template <int BLOCK, int ITEMS>
struct TileRank {
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
            uint32_t peers = __match_any_sync(scan::kFullMask, digit[j]);
            uint32_t before = __popc(peers & below);
            uint32_t so_far = counts[digit[j]];          // every peer reads the same counter ...
            rank[j] = so_far + before;
            __syncwarp();                                // ... before the lowest peer bumps it
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

// Writes the tile's keys (already in shared memory in rank order) to dst[offset[digit] + i]:
// offset[d] = the global position of the tile's first key of digit d, minus the digit's start in
// the tile. kLast: the destination is the caller's K array (codes mapped back).
template <class K, class U, int BLOCK, bool kLast>
__device__ __forceinline__ void scatter_codes(const U* s_codes, const long long* s_offset, uint32_t valid, int shift,
                                              void* dst) {
    for (uint32_t i = threadIdx.x; i < valid; i += BLOCK) {
        U c = s_codes[i];
        size_t pos = size_t(s_offset[digit_of(c, shift)] + (long long)i);
        if constexpr (kLast) static_cast<K*>(dst)[pos] = sorting::Ordered<K>::from(c);
        else static_cast<U*>(dst)[pos] = c;
    }
}

template <class U, int BLOCK>
__device__ __forceinline__ void scatter_values(const U* s_codes, const uint32_t* s_vals, const long long* s_offset,
                                               uint32_t valid, int shift, uint32_t* dst) {
    for (uint32_t i = threadIdx.x; i < valid; i += BLOCK) {
        size_t pos = size_t(s_offset[digit_of(s_codes[i], shift)] + (long long)i);
        dst[pos] = s_vals[i];
    }
}

}  // namespace radix
