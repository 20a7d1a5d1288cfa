// lesson04_sort/onesweep_tile.cuh — the pieces of one 08_radix_onesweep tile that are not the
// look-back: the block (a thread per digit), a thread's digits packed 4 to a register, the early
// counts (each warp counts its digits before any ranking, so the tile's counts can go out at
// once), the one-step ranking of a warp's keys (OR-mask groups; a ballot for a dominant digit),
// and the loads and scatter of a full tile, with no bounds tests. The arithmetic those share with
// the host test is onesweep.cuh's; the look-back is digit_lookback.cuh's.
#pragma once
#include "onesweep.cuh"
#include "radix.cuh"

namespace onesweep {

// How a warp finds the lanes holding the same digit while ranking (every key type): "OR
// masks" (the idea of CUB's WARP_MATCH_ATOMIC_OR ranking): each lane ORs its lane bit into a
// per-warp shared word of its digit; after a __syncwarp that word IS the group, whose leader does
// the atomicAdd and shares the result by a shuffle (rank_in_tile_or): ~40 instructions per key
// against ~87 with 8 ballots per key. Lanes that share a digit queue on its word, one lane after
// another, and after the first pass they often do: the input of pass p is sorted by the digits
// below p, so equal keys sit side by side and a warp's 32 lanes often hold one value. Each warp
// therefore picks its way once per tile from its own counts (onesweep.cuh's warp_path): one digit
// only -> ranks by arithmetic; a dominant digit -> its lanes find each other with one ballot and
// only the others OR. (07 and radix.cuh's TileRank find the group with 8 ballots instead:
// scan::match_low_bits.)

constexpr int kBlock = 256;   // a pass's block: a thread per digit
static_assert(kBlock >= radix::kDigits && kBlock % 32 == 0, "a thread per digit, whole warps");

// A thread's digits packed 4 to a register: item j's digit is byte j % 4 of register j / 4.
template <int kPacked> __device__ __forceinline__ void pack_digit(uint32_t (&pdig)[kPacked], int j, uint32_t digit) {
    pdig[j / 4] |= digit << (8 * (j % 4));
}
template <int kPacked> __device__ __forceinline__ uint32_t digit_at(const uint32_t (&pdig)[kPacked], int j) {
    return (pdig[j / 4] >> (8 * (j % 4))) & 0xffu;
}

// The pass's ranking counts first (08's "early counts", as CUB's onesweep does):
//   1. each warp counts its keys' digits into its own row of counters (shared atomics: one per
//      key, no ordering needed yet);
//   2. thread d sums digit d over the warps (warp order = index order, exclusive), and PUBLISHES
//      the tile's AGGREGATE for digit d at once: before any ranking, so a later tile's look-back
//      rarely waits (08's first version published only after ranking: later tiles found an
//      empty word, spun, and their whole block waited at the barrier);
//   3. a block scan over digits gives the tile-local digit starts, added into every warp's row;
//   4. each warp walks its keys in index order: the lanes holding the same digit (match), the
//      highest of them bumps the warp's counter of that digit by the group's size (atomicAdd
//      returns the old value: no second pass over the keys), a shuffle hands the old value to the
//      group, and a key's rank in the TILE = old value + peers below it.
struct EarlyCounts {
    static constexpr int kWarps = kBlock / 32;
    uint32_t warp_count[kWarps][radix::kDigits];
    uint32_t scan_tmp[kWarps];
};

// `masks`: the warp's 256 match words (the OR-mask ranking), zeroed here with its counters; the
// ranking leaves them zero again.
template <class U, int kItems>
__device__ __forceinline__ void count_warp_digits(const U (&code)[kItems], int shift, EarlyCounts& s, uint32_t* masks) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* counts = s.warp_count[warp];
#pragma unroll
    for (int i = lane; i < radix::kDigits; i += 32) {
        counts[i] = 0;
        masks[i] = 0;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < kItems; ++j) atomicAdd(&counts[radix::digit_of(code[j], shift)], 1u);
}

// The group's one counter update: its leader adds the group's size to the warp's counter of the
// digit, and the old value reaches every lane of the group by a shuffle from the leader.
__device__ __forceinline__ uint32_t bump_group_counter(uint32_t* counts, uint32_t dig, uint32_t peers, int lane,
                                                       int leader) {
    uint32_t old = 0;
    if (lane == leader) old = atomicAdd(&counts[dig], uint32_t(popc32(peers)));
    return __shfl_sync(scan::kFullMask, old, leader);
}

// OR-mask ranking: each key's group of lanes with the same digit comes from shared memory, not
// from 8 ballots (scan::match_low_bits, as 07 does), then one counter update a group. Per key: OR this lane's
// bit into masks[digit]; __syncwarp (every lane's OR has landed); read the word back: the group.
// The leader bumps the counter, the shuffle shares the old value, and the leader zeroes the word for
// the next item. That zeroing is safe without another barrier: every lane's read of the word feeds
// the shuffle's source lane (the leader), so it has completed before the lane reaches the shuffle,
// and the leader writes only after the shuffle; the __syncwarp at the end keeps the next item's ORs
// after the zeroing. Match + rank ~17 instructions per key against ~65 for the ballots (header).
// kDominant: the lanes holding digit `dom` (the warp's most common) skip their word and take their
// group from one ballot, so they do not queue on one word; their word stays zero. (On Zipf keys
// after the first pass the OR took several times the shared-memory wavefronts it takes on uniform
// keys.)
template <int kItems, int kPacked, bool kDominant>
__device__ __forceinline__ void rank_in_tile_or(const uint32_t (&pdig)[kPacked], uint32_t (&rank)[kItems],
                                                EarlyCounts& s, uint32_t* masks, uint32_t dom) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* counts = s.warp_count[warp];
    const uint32_t lane_bit = 1u << lane;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const uint32_t dig = digit_at(pdig, j);
        const bool is_dom = kDominant && dig == dom;
        const uint32_t dom_lanes = kDominant ? __ballot_sync(scan::kFullMask, is_dom) : 0u;
        if (!is_dom) atomicOr(&masks[dig], lane_bit);
        __syncwarp();
        const uint32_t peers = is_dom ? dom_lanes : masks[dig];
        const int leader = group_leader(peers);
        const uint32_t old = bump_group_counter(counts, dig, peers, lane, leader);
        if (lane == leader && !is_dom) masks[dig] = 0;
        __syncwarp();
        rank[j] = rank_in_group(old, peers, lane);
    }
}

// The warp's most common digit and its count, as onesweep.cuh's dominant_word, from the warp's
// counters (each lane reads 8 of the 256, then one max over the warp; sm_75 has no REDUX: shuffles).
__device__ __forceinline__ uint32_t warp_dominant_digit(const uint32_t* counts) {
    uint32_t best = 0;
#pragma unroll
    for (int i = 0; i < radix::kDigits / 32; ++i) {
        const uint32_t d = (threadIdx.x & 31) + 32u * i;
        best = max(best, dominant_word(counts[d], d));
    }
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(scan::kFullMask, best);   // one instruction (REDUX) from sm_80 on
#else
    return scan::warp_reduce(best, scan::Max{});
#endif
}

// Full tiles: every one of the kItems stores per thread is in range; no bounds test, unrolled.
template <class K, class U, int kItems, bool kLast>
__device__ __forceinline__ void scatter_full_tile(const U* s_codes, const long long* s_offset, int shift, void* dst) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const uint32_t i = threadIdx.x + j * kBlock;
        const U c = s_codes[i];
        const uint32_t pos = uint32_t(s_offset[radix::digit_of(c, shift)]) + i;   // n < 2^30
        if constexpr (kLast) static_cast<K*>(dst)[pos] = sorting::Ordered<K>::from(c);
        else static_cast<U*>(dst)[pos] = c;
    }
}

// Loads of a full tile: no bounds test, one base pointer, constant offsets (the bounds-tested
// radix::load_codes costs ~4 more instructions per key; it serves the last, partial tile).
template <class K, class U, int kItems, bool kFirst>
__device__ __forceinline__ void load_tile(const void* src, size_t n, size_t tile_base, bool full, U (&code)[kItems]) {
    if (!full) {
        radix::load_codes<K, U, kBlock, kItems, kFirst>(src, n, tile_base, code);
        return;
    }
    const size_t first = tile_base + size_t(threadIdx.x >> 5) * 32 * kItems + (threadIdx.x & 31);
    if constexpr (kFirst) {
        const K* p = static_cast<const K*>(src) + first;
#pragma unroll
        for (int j = 0; j < kItems; ++j) code[j] = sorting::Ordered<K>::to(p[j * 32]);
    } else {
        const U* p = static_cast<const U*>(src) + first;
#pragma unroll
        for (int j = 0; j < kItems; ++j) code[j] = p[j * 32];
    }
}
template <int kItems>
__device__ __forceinline__ void load_tile_values(const uint32_t* src, size_t n, size_t tile_base, bool full,
                                                 uint32_t (&val)[kItems]) {
    if (!full) {
        radix::load_values<kItems>(src, n, tile_base, val);
        return;
    }
    const uint32_t* p = src + tile_base + size_t(threadIdx.x >> 5) * 32 * kItems + (threadIdx.x & 31);
#pragma unroll
    for (int j = 0; j < kItems; ++j) val[j] = p[j * 32];
}

}   // namespace onesweep
