// lesson04_sort/onesweep.cuh — the one-sweep radix sort's kernels and launcher (Adinets &
// Merrill 2022), explained in 08_radix_onesweep.cu, which is its program:
//
//   onesweep::sort<K, kPairs>(keys_in, keys_out, vals_in, vals_out, n)
//
// K is uint32_t, int32_t, float or uint64_t (sorted as sorting::Ordered<K> codes, 8 bits per
// pass); kPairs carries uint32 values along, stably. n < 2^30 (30-bit look-back counts). The
// look-back is a policy (DigitLookback below) so that exercises/radix_digit_lookback.cu can
// supply its own, as lesson02's scan.cuh does for its look-back. A look-back other than
// DigitLookback gets a bounds-checked scatter (radix::scatter_codes, kGuard), so that a wrong one
// fails the checker instead of writing past the end of a buffer.
#pragma once
#include <cuda/atomic>
#include <type_traits>

#include "radix.cuh"

namespace onesweep {

// Tuning knobs. Defaults are the best of the variants measured on the H100 at 2^28 (single-case
// probes, 2026-11-23 ~10:50 UTC, same runs as CUB): keys 24 items x 3 blocks/SM 6.67 ms (20x3 7.25,
// 20x4 7.19, 28x3 7.61, 30x3 7.97, 24x2 7.87, 28x2 7.33, 32x2 7.01); pairs 30 items x 2 blocks/SM
// 9.35-9.40 ms (24x2 10.12, 28x2 9.59, 20x3 10.75, 17x3 10.84, 24x3 11.95: spills at the 3-block
// cap). 384 threads x 20 items x 2 blocks/SM: keys 7.19 ms, pairs 9.42 (not better).
#ifndef ONESWEEP_ITEMS
#define ONESWEEP_ITEMS 24        // keys per thread (32-bit keys): the tile is 256 x ITEMS keys
#endif
#ifndef ONESWEEP_KEY_BLOCKS
#define ONESWEEP_KEY_BLOCKS 3    // blocks per SM asked of ptxas for 32-bit keys (caps the registers)
#endif
#ifndef ONESWEEP_PAIR_ITEMS
#define ONESWEEP_PAIR_ITEMS 30   // keys per thread for pairs (64-bit keys: 15)
#endif
#ifndef ONESWEEP_PAIR_BLOCKS
#define ONESWEEP_PAIR_BLOCKS 2   // blocks per SM asked of ptxas for pairs
#endif
// ONESWEEP_OR_MATCH: how a warp finds the lanes that hold the same digit while ranking 32-bit keys.
//   1 (default) "OR masks" (the idea of CUB's WARP_MATCH_ATOMIC_OR ranking): each lane ORs its lane
//     bit into a per-warp shared word of its digit; after a __syncwarp that word IS the group. The
//     group's leader does the atomicAdd, a shuffle shares it (rank_in_tile_or);
//   0 8 ballots per key (scan::match_low_bits, rank_in_tile; -DMATCH_ANY_INSTRUCTION=1 swaps in
//     __match_any_sync). Pairs and 64-bit keys always rank this way: their shared memory plus the
//     masks' 1 KB per warp would pass the 48 KB of static shared memory.
// Static count, sm_90 SASS of the uint32 middle pass, full-tile path (per-item code / 24): ballots
// ~87 instructions per key (the ballots alone 54), OR masks ~40; 80 registers, no spill, both.
// Measured (H100, 2^28 uint32 uniform, 2026-11-23, CUB in the same run, two rounds):
//   ballots 6.71 ms (0.82x CUB's 5.51), OR masks 5.92 ms (0.93x); ncu, one middle pass: 3.2 -> 1.8
//   instructions per key, 1.83 -> 1.57 ms. Match-any instruction: 10.58 ms (0.52x).
//   The price: many lanes on one digit serialise the shared atomicOr (CUB's note). 2^28 few-unique:
//   6.61 ms against 6.31 with ballots (CUB 4.71); Zipf 6.61 against 6.43 (CUB 5.04).
//   Tried, not kept: the counter read by the whole group and bumped by its lowest lane (no atomic,
//   no shuffle; ~36 instructions per key) measured 5.97 ms, no faster than the atomic; 26 items per
//   thread 5.85 ms (0.94x) but 16 bytes of spill in one float instantiation.
#ifndef ONESWEEP_OR_MATCH
#define ONESWEEP_OR_MATCH 1
#endif
static_assert(ONESWEEP_OR_MATCH == 0 || ONESWEEP_OR_MATCH == 1, "ONESWEEP_OR_MATCH is 0 or 1");
#ifndef ONESWEEP_THREADS
#define ONESWEEP_THREADS 256     // threads per pass block; threads 0..255 also own one digit each
#endif
constexpr int kBlock = ONESWEEP_THREADS;
static_assert(kBlock >= radix::kDigits && kBlock % 32 == 0, "a thread per digit, whole warps");
constexpr int kHistBlock = radix::kDigits;   // the histogram kernels: one thread per digit
// The tile of one pass: 6144 keys (32-bit keys), 7680 (pairs: the values reuse the keys' staging
// space, so they fit); 64-bit keys keep 15 items (3840), whose 8-byte staging would pass 48 KB.
template <class U, bool kPairs>
struct Shape {
    static constexpr int kItems = sizeof(U) == 8 ? 15 * 256 / kBlock : kPairs ? ONESWEEP_PAIR_ITEMS : ONESWEEP_ITEMS;
    static constexpr int kTile = kBlock * kItems;
};

// ---- per-digit look-back: 32-bit status words --------------------------------------------------
constexpr uint32_t kAggregate = 1u << 30, kPrefix = 2u << 30, kFlagMask = 3u << 30, kCountMask = (1u << 30) - 1;

__device__ __forceinline__ void publish(uint32_t* word, uint32_t flag, uint32_t count) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> ref(*word);
    ref.store(flag | count, cuda::memory_order_relaxed);
}
__device__ __forceinline__ uint32_t load_status(uint32_t* word) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> ref(*word);
    return ref.load(cuda::memory_order_relaxed);
}

// The look-back policy: called by thread d for tile > 0 after it published its AGGREGATE; returns
// the number of keys of digit d in all earlier tiles. `status` points at the pass's words; tile
// t's word for digit d is status[t * 256 + d]. (exercises/radix_digit_lookback.cu writes its own.)
struct DigitLookback {
    __device__ static uint32_t before(uint32_t* status, unsigned tile, int d) {
        uint32_t before = 0;
        long long pred = (long long)tile - 1;
        int spins = 0;
        while (true) {
            uint32_t w = load_status(status + size_t(pred) * radix::kDigits + d);
            uint32_t flag = w & kFlagMask;
            if (flag == 0) {                       // not ready yet: wait (briefly back off)
                if (++spins > 16) __nanosleep(64);
                continue;
            }
            before += w & kCountMask;
            if (flag == kPrefix) return before;    // everything before `pred` is included in it
            --pred;                                // an AGGREGATE: keep walking (tile 0 is a PREFIX)
            spins = 0;
        }
    }
};

// ---- the upfront histogram of every pass ------------------------------------------------------

// hist[p * 256 + d] += number of keys whose digit in pass p is d. Shared-memory counters per
// block, one global atomic per (pass, digit) per block at the end.
template <class K, class U, int kPasses>
__global__ void __launch_bounds__(kHistBlock) all_pass_histograms(const K* in, size_t n, uint32_t* hist) {
    __shared__ uint32_t s_hist[kPasses][radix::kDigits];
    for (int i = threadIdx.x; i < kPasses * radix::kDigits; i += kHistBlock) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    for (size_t e = blockIdx.x * size_t(kHistBlock) + threadIdx.x; e < n; e += size_t(gridDim.x) * kHistBlock) {
        U code = sorting::Ordered<K>::to(in[e]);
#pragma unroll
        for (int p = 0; p < kPasses; ++p) atomicAdd(&s_hist[p][radix::digit_of(code, p * radix::kDigitBits)], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kPasses * radix::kDigits; i += kHistBlock) {
        uint32_t c = (&s_hist[0][0])[i];
        if (c) atomicAdd(hist + i, c);
    }
}

// One block per pass: counts -> exclusive starts, in place.
__global__ void __launch_bounds__(kHistBlock) histograms_to_starts(uint32_t* hist) {
    __shared__ uint32_t tmp[kHistBlock / 32];
    uint32_t* h = hist + size_t(blockIdx.x) * radix::kDigits;
    uint32_t c = h[threadIdx.x], total = 0;
    uint32_t start = scan::block_exclusive_scan<kHistBlock>(c, 0u, total, tmp);
    h[threadIdx.x] = start;
}

// ---- one pass: count, publish, rank, look back, scatter ---------------------------------------

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

// `masks` (OR-mask ranking only, else null): the warp's 256 match words, zeroed here with its
// counters; the ranking leaves them zero again.
template <class U, int kItems>
__device__ __forceinline__ void count_warp_digits(const U (&code)[kItems], int shift, EarlyCounts& s,
                                                  uint32_t* masks = nullptr) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* counts = s.warp_count[warp];
#pragma unroll
    for (int i = lane; i < radix::kDigits; i += 32) {
        counts[i] = 0;
        if (masks) masks[i] = 0;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < kItems; ++j) atomicAdd(&counts[radix::digit_of(code[j], shift)], 1u);
}

// Bit counts that compile on the host too (the host test): the intrinsics on the device.
__host__ __device__ __forceinline__ int clz32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __clz(x);
#else
    return x ? __builtin_clz(x) : 32;
#endif
}
__host__ __device__ __forceinline__ int popc32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

// The two pieces of arithmetic of a one-step rank, shared by both ways of matching and by the host
// test (tests/lesson04_radix_host.cu replays a warp's ranking with them). `peers`: the lanes with
// this lane's digit. The group's highest lane is its leader (it adds the group's size to the
// counter); a key's rank = the counter's old value + the peers below it (index order).
__host__ __device__ __forceinline__ int group_leader(uint32_t peers) { return 31 - clz32(peers); }
__host__ __device__ __forceinline__ uint32_t rank_in_group(uint32_t old, uint32_t peers, int lane) {
    return old + popc32(peers & ((1u << lane) - 1u));
}

// The group's one counter update: its leader adds the group's size to the warp's counter of the
// digit, and the old value reaches every lane of the group by a shuffle from the leader.
__device__ __forceinline__ uint32_t bump_group_counter(uint32_t* counts, uint32_t dig, uint32_t peers, int lane,
                                                       int leader) {
    uint32_t old = 0;
    if (lane == leader) old = atomicAdd(&counts[dig], uint32_t(popc32(peers)));
    return __shfl_sync(scan::kFullMask, old, leader);
}

// Ballot ranking (ONESWEEP_OR_MATCH=0, and always for pairs and 64-bit keys): each key's group of
// lanes with the same digit from 8 ballots (scan::match_low_bits), then one counter update a group.
template <class U, int kItems>
__device__ __forceinline__ void rank_in_tile(const U (&code)[kItems], int shift, uint32_t (&rank)[kItems],
                                             EarlyCounts& s) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* counts = s.warp_count[warp];
    const uint32_t below = (1u << lane) - 1;   // rank_in_group's mask, formed once for all items
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const uint32_t dig = radix::digit_of(code[j], shift);
        const uint32_t peers = scan::match_low_bits<radix::kDigitBits>(dig);
        const uint32_t old = bump_group_counter(counts, dig, peers, lane, group_leader(peers));
        rank[j] = old + popc32(peers & below);
    }
}

// OR-mask ranking (ONESWEEP_OR_MATCH=1, the default for 32-bit keys): same counters and result as
// rank_in_tile, but the group of lanes holding a digit comes from shared memory, not 8 ballots.
// Per key: OR this lane's bit into masks[digit]; __syncwarp (every lane's OR has landed); read the word back: the group. The
// leader bumps the counter, the shuffle shares the old value, and the leader zeroes the word for
// the next item. That zeroing is safe without another barrier: every lane's read of the word feeds
// the shuffle's source lane (the leader), so it has completed before the lane reaches the shuffle,
// and the leader writes only after the shuffle; the __syncwarp at the end keeps the next item's ORs
// after the zeroing. Match + rank ~17 instructions per key against ~65 for the ballots (header).
template <class U, int kItems>
__device__ __forceinline__ void rank_in_tile_or(const U (&code)[kItems], int shift, uint32_t (&rank)[kItems],
                                                EarlyCounts& s, uint32_t* masks) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* counts = s.warp_count[warp];
    const uint32_t lane_bit = 1u << lane;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const uint32_t dig = radix::digit_of(code[j], shift);
        atomicOr(&masks[dig], lane_bit);
        __syncwarp();
        const uint32_t peers = masks[dig];
        const int leader = group_leader(peers);
        const uint32_t old = bump_group_counter(counts, dig, peers, lane, leader);
        if (lane == leader) masks[dig] = 0;
        __syncwarp();
        rank[j] = rank_in_group(old, peers, lane);
    }
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
    if (!full) { radix::load_codes<K, U, kBlock, kItems, kFirst>(src, n, tile_base, code); return; }
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
    if (!full) { radix::load_values<kItems>(src, n, tile_base, val); return; }
    const uint32_t* p = src + tile_base + size_t(threadIdx.x >> 5) * 32 * kItems + (threadIdx.x & 31);
#pragma unroll
    for (int j = 0; j < kItems; ++j) val[j] = p[j * 32];
}

// Blocks per SM asked of ptxas (the register cap): 3 for 32-bit keys (80 registers, no spill at
// 24 items), 2 for pairs and 64-bit keys. Fewer, larger tiles than 08's first version (3840 keys,
// 4 blocks) measured faster: less per-tile work (counter rows, scans, look-back, barriers) per key
// and longer runs of one digit in the scatter.
template <class K, class U, bool kFirst, bool kLast, bool kPairs, class Lookback>
__global__ void __launch_bounds__(kBlock, sizeof(U) == 8 ? 2 : kPairs ? ONESWEEP_PAIR_BLOCKS : ONESWEEP_KEY_BLOCKS)
onesweep_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift,
              const uint32_t* digit_starts, uint32_t* status, unsigned* tile_counter) {
    constexpr int kItems = Shape<U, kPairs>::kItems, kTile = Shape<U, kPairs>::kTile;
    __shared__ EarlyCounts counts;
    __shared__ U s_codes[kTile];   // for pairs, reused for the values once the keys are out
    __shared__ long long s_offset[radix::kDigits];
    __shared__ unsigned s_tile;
    // OR-mask ranking: 32-bit keys without values only (see ONESWEEP_OR_MATCH); one row per warp.
    constexpr bool kOrMatch = ONESWEEP_OR_MATCH && sizeof(U) == 4 && !kPairs;
    __shared__ uint32_t s_match[kOrMatch ? EarlyCounts::kWarps : 1][kOrMatch ? radix::kDigits : 1];
    uint32_t* masks = kOrMatch ? s_match[threadIdx.x >> 5] : nullptr;

    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;
    const size_t tile_base = size_t(tile) * kTile;
    const uint32_t valid = n - tile_base < size_t(kTile) ? uint32_t(n - tile_base) : uint32_t(kTile);

    const bool full = valid == uint32_t(kTile);
    U code[kItems];
    load_tile<K, U, kItems, kFirst>(src, n, tile_base, full, code);

    // Steps 1-2: count, then publish this tile's count of digit d (padding counted out).
    count_warp_digits<U, kItems>(code, shift, counts, masks);
    __syncthreads();
    const int d = threadIdx.x;   // this thread's digit, if d < 256
    const bool owns_digit = kBlock == radix::kDigits || d < radix::kDigits;
    uint32_t total = 0, mine = 0;
    uint32_t* word = status + size_t(tile) * radix::kDigits + d;
    if (owns_digit) {
#pragma unroll
        for (int w = 0; w < EarlyCounts::kWarps; ++w) {   // per digit: warps' counts -> exclusive starts
            const uint32_t c = counts.warp_count[w][d];
            counts.warp_count[w][d] = total;
            total += c;
        }
        mine = total - (d == radix::kDigits - 1 ? uint32_t(kTile) - valid : 0u);
        publish(word, tile == 0 ? kPrefix : kAggregate, mine);
    }

    // Step 3: tile-local digit starts, folded into every warp's row.
    uint32_t all = 0;
    const uint32_t start = scan::block_exclusive_scan<kBlock>(total, 0u, all, counts.scan_tmp);
    if (owns_digit) {
#pragma unroll
        for (int w = 0; w < EarlyCounts::kWarps; ++w) counts.warp_count[w][d] += start;
    }
    __syncthreads();

    // Step 4: ranks, then the tile staged in shared memory in digit order.
    uint32_t rank[kItems];
    if constexpr (kOrMatch) rank_in_tile_or<U, kItems>(code, shift, rank, counts, masks);
    else rank_in_tile<U, kItems>(code, shift, rank, counts);
#pragma unroll
    for (int j = 0; j < kItems; ++j) s_codes[rank[j]] = code[j];
    // Pairs: the values' loads go out now (the codes' registers are free), in flight during the
    // look-back and the keys' scatter; they are staged in s_codes's space after the keys are out.
    uint32_t val[kPairs ? kItems : 1];
    if constexpr (kPairs) load_tile_values<kItems>(vsrc, n, tile_base, full, val);

    // Digit d's keys in earlier tiles (the look-back), then our inclusive PREFIX for later tiles.
    if (owns_digit) {
        uint32_t before = 0;
        if (tile > 0) {
            before = Lookback::before(status, tile, d);
            publish(word, kPrefix, before + mine);
        }
        s_offset[d] = (long long)digit_starts[d] + (long long)before - (long long)start;
    }
    __syncthreads();

    // Our own look-back needs no bounds check; any other (the exercise's) gets one: see kGuard.
    constexpr bool kGuard = !std::is_same_v<Lookback, DigitLookback>;
    // Pairs: the digit of every slot this thread will write, packed 4 per register, read before
    // the values overwrite the codes.
    uint32_t packed[kPairs ? (kItems + 3) / 4 : 1] = {};
    if constexpr (kPairs) {
        static_assert(sizeof(U) == 4, "pairs have 32-bit keys");
#pragma unroll
        for (int j = 0; j < kItems; ++j)
            packed[j / 4] |= radix::digit_of(s_codes[threadIdx.x + j * kBlock], shift) << (8 * (j % 4));
    }
    if (!kGuard && full) scatter_full_tile<K, U, kItems, kLast>(s_codes, s_offset, shift, dst);
    else radix::scatter_codes<K, U, kBlock, kLast, kGuard>(s_codes, s_offset, valid, shift, dst, n);
    if constexpr (kPairs) {
        __syncthreads();
        uint32_t* s_vals = reinterpret_cast<uint32_t*>(s_codes);
#pragma unroll
        for (int j = 0; j < kItems; ++j) s_vals[rank[j]] = val[j];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const uint32_t i = threadIdx.x + j * kBlock;
            const uint32_t dig = (packed[j / 4] >> (8 * (j % 4))) & 0xffu;
            if (!kGuard && full) {
                vdst[uint32_t(s_offset[dig]) + i] = s_vals[i];
            } else if (i < valid) {
                const size_t pos = size_t(s_offset[dig] + (long long)i);
                if (kGuard && pos >= n) continue;
                vdst[pos] = s_vals[i];
            }
        }
    }
}

template <class K, bool kPairs, class Lookback = DigitLookback>
void sort(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
    using U = typename sorting::Ordered<K>::U;
    if (n == 0) return;
    constexpr int kPasses = int(8 * sizeof(U)) / radix::kDigitBits;
    static_assert(kPasses % 2 == 0, "the last pass must land in the output");
    constexpr int kTile = Shape<U, kPairs>::kTile;
    const size_t tiles = (n + kTile - 1) / kTile;
    const unsigned grid = course::blocks_for(n, kTile);

    // One zeroed block of control words: histograms, tile counters, look-back status of every pass.
    const size_t hist_words = size_t(kPasses) * radix::kDigits;
    const size_t status_words = tiles * radix::kDigits;
    const size_t words = hist_words + kPasses + size_t(kPasses) * status_words;
    uint32_t* control = course::scratch_as<uint32_t>(3, words);
    CUDA_CHECK(cudaMemsetAsync(control, 0, words * sizeof(uint32_t)));
    uint32_t* hist = control;
    unsigned* counters = control + hist_words;
    uint32_t* status = control + hist_words + kPasses;

    const unsigned hist_grid = std::min<unsigned>(grid, unsigned(course::device().sm_count) * 8u);
    all_pass_histograms<K, U, kPasses><<<hist_grid, kHistBlock>>>(in, n, hist);
    CUDA_CHECK_LAST();
    histograms_to_starts<<<kPasses, kHistBlock>>>(hist);
    CUDA_CHECK_LAST();

    U* tmp = course::scratch_as<U>(1, n);
    uint32_t* vtmp = kPairs ? course::scratch_as<uint32_t>(2, n) : nullptr;
    for (int p = 0; p < kPasses; ++p) {   // in -> tmp -> out -> tmp -> ... -> out
        const int shift = p * radix::kDigitBits;
        void* dst = p % 2 == 0 ? static_cast<void*>(tmp) : static_cast<void*>(out);
        uint32_t* vdst = p % 2 == 0 ? vtmp : vout;
        const void* src = p == 0 ? static_cast<const void*>(in)
                        : p % 2 == 1 ? static_cast<const void*>(tmp) : static_cast<const void*>(out);
        const uint32_t* vsrc = p == 0 ? vin : p % 2 == 1 ? vtmp : vout;
        const uint32_t* starts = hist + size_t(p) * radix::kDigits;
        uint32_t* st = status + size_t(p) * status_words;
        if (p == 0)
            onesweep_pass<K, U, true, false, kPairs, Lookback><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, shift, starts, st, counters + p);
        else if (p == kPasses - 1)
            onesweep_pass<K, U, false, true, kPairs, Lookback><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, shift, starts, st, counters + p);
        else
            onesweep_pass<K, U, false, false, kPairs, Lookback><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, shift, starts, st, counters + p);
        CUDA_CHECK_LAST();
    }
}

// The sort as a policy class for radix::sorter_for (08 and the exercise's Sorter).
template <class Lookback = DigitLookback>
struct Sort {
    template <class K, bool kPairs>
    static void sort(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
        onesweep::sort<K, kPairs, Lookback>(in, out, vin, vout, n);
    }
};

}  // namespace onesweep
