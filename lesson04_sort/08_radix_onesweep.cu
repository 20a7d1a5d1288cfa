// 08_radix_onesweep — one-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022): the lesson's best radix sort, for keys and pairs.
//
// What changes since 07: each pass is ONE kernel that reads every key once and writes it once.
//   * one histogram kernel counts the digits of every pass up front, in one read of the input (a
//     key's digit in pass p is just bits 8p..8p+7); a scan of each gives the digits' starts;
//   * inside a pass, a tile learns how many keys of digit d the earlier tiles hold by decoupled
//     look-back (lesson02_scan/lookback.cuh's idea), one chain per digit, thread d walking chain d;
//   * a tile counts before it ranks (its counts go out early), then ranks every key in one step;
//     only the digits stay in registers, so 8192-key tiles fit without spilling.
// Cost (uint32): histogram 4 B per key, then 4 passes of 4 B read + 4 B written per key, look-back
// status about 1.6 % of a pass: ~33 B per key, 6 launches and 1 memset.
// Measured (H100): 5.39 ms at 2^28 uint32 keys, 1.02x cub::DeviceRadixSort (5.51 ms); pairs 1.01x.
// What limits it: latency and per-tile work, not bytes or instructions (ncu; TUNING.md has the
// profiles, the per-case ratios, the tile shapes and the ranking variants).
// Limit: n < 2^30 (30-bit look-back counts). Keys: uint32, int32, float32, uint64; pairs, stable.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o onesweep 08_radix_onesweep.cu
// Run:          ./onesweep --n 2^28    ./onesweep --type pairs --n 2^28    ./onesweep --test
#include <cuda/atomic>
#include <type_traits>

#include "onesweep.cuh"   // the ranking arithmetic (shared with the host test)
#include "radix.cuh"

// How a pass works, in more detail:
//   * The digit counts of every pass are computed up front, in one read of the input: a key's
//     digit in pass p does not depend on the earlier passes (it is just bits 8p..8p+7), so one
//     histogram kernel fills all 4 (uint32) or 8 (uint64) 256-bin histograms at once. An
//     exclusive scan of each gives the global start of every digit in every pass. Each thread
//     loads 16 keys before it counts any, so the read is not a chain of one load at a time.
//   * Inside a pass, a tile needs to know how many keys of digit d the earlier tiles hold. 07
//     computed that with a separate count kernel and a scan over all tiles; here it comes from
//     decoupled look-back (lesson02_scan/lookback.cuh has the idea), with one chain per digit:
//     tile t publishes, for each digit, AGGREGATE = its own count as soon as it has counted its
//     keys, then walks back over tiles t-1, t-2, ... adding AGGREGATEs until it meets a PREFIX
//     (the count of that digit in all tiles up to there), and publishes its own PREFIX. Thread d
//     of the block walks digit d's chain, so 256 chains advance in parallel.
//   * The pass counts before it ranks ("early counts", as CUB does): each warp counts its digits
//     with shared atomics, the AGGREGATEs go out at once, and only then does the block rank, each
//     key getting its tile rank in one step (match, the group's highest lane does one atomicAdd
//     on the warp's counter, a shuffle shares the old value). The match is an OR mask: each
//     lane ORs its bit into a shared word of its digit, and the word read back is the group
//     (~40 instructions per key in all, against ~87 with 8 ballots per key). Later
//     tiles find the AGGREGATE already there instead of spinning while this tile ranks.
//   * A warp chooses how to rank from its own counts, once per tile. From the second pass on, the
//     input is sorted by the lower digits, so equal keys sit side by side: on Zipf keys most
//     warps hold one value, and their lanes all OR into one word, one lane after another (ncu:
//     20.5 shared-memory wavefronts per OR against 3.5 on uniform keys). A warp whose keys all
//     share one digit ranks them by arithmetic; a warp with a dominant digit finds that digit's
//     lanes with one ballot, and only the other lanes OR. Zipf keys went from 6.26 to 4.80 ms.
//   * The ranking needs only the digits, so only the digits stay in registers, 4 to a register;
//     the keys are loaded again (from L2, which still holds them) to be staged once ranked. That
//     frees the keys' registers, and at 3 blocks per SM (80 registers) a tile of 8192 keys
//     (256 x 32; 6144 fit before) no longer spills: a pass has 25 % fewer tiles, so 25 % less
//     per-tile work (counter rows, block scan, look-back, barriers). Pairs and 64-bit keys have
//     8192-key tiles too (256 x 32, 2 blocks; the values reuse the keys' staging space). Shared
//     memory is dynamic: 8192 keys pass 48 KB.
//   * Full tiles load and scatter with no bounds tests.
//
// Correctness notes:
//   * tiles are numbered by an atomic counter in the order blocks start (one counter per pass),
//     so a tile only waits for tiles whose blocks already run: no deadlock;
//   * a status word is 32 bits, flag in the top 2 bits and a 30-bit count below, written and read
//     whole (relaxed atomics), so a reader never sees a flag without its count. 30 bits limit
//     n to 2^30 - 1 (stated below; 64-bit words would lift it at twice the status traffic);
//   * the last tile's padding (radix.cuh) is counted out of digit 255 before publishing.
//
// The kernels and the launcher follow; exercises/radix_digit_lookback.cu includes this file and
// supplies its own look-back. The partial last tile's loads and scatter are radix.cuh's.

// K is uint32_t, int32_t, float or uint64_t (sorted as sorting::Ordered<K> codes, 8 bits per
// pass); kPairs carries uint32 values along, stably. n < 2^30 (30-bit look-back counts). The
// look-back is a policy (DigitLookback below) so that exercises/radix_digit_lookback.cu can supply
// its own; a look-back other than DigitLookback gets a bounds-checked scatter (radix::scatter_codes,
// kGuard), so that a wrong one fails the checker instead of writing past the end of a buffer.
namespace onesweep {

// How a warp finds the lanes holding the same digit while ranking (every key type): "OR
// masks" (the idea of CUB's WARP_MATCH_ATOMIC_OR ranking): each lane ORs its lane bit into a
// per-warp shared word of its digit; after a __syncwarp that word IS the group, whose leader does
// the atomicAdd and shares the result by a shuffle (rank_in_tile_or): ~40 instructions per key
// against ~87 with 8 ballots per key (0.93x CUB instead of 0.82x, with 6144-key tiles). Lanes that
// share a digit queue on its word, one lane after another, and after the first pass they often do:
// the input of pass p is sorted by the digits below p, so equal keys sit side by side and a warp's
// 32 lanes often hold one value. Each warp therefore picks its way once per tile from its own
// counts (onesweep.cuh's warp_path): one digit only -> ranks by arithmetic; a dominant digit ->
// its lanes find each other with one ballot and only the others OR. (07 and radix.cuh's TileRank
// find the group with 8 ballots instead: scan::match_low_bits.)
constexpr int kBlock = 256;
static_assert(kBlock >= radix::kDigits && kBlock % 32 == 0, "a thread per digit, whole warps");
constexpr int kHistBlock = radix::kDigits;   // the histogram kernels: one thread per digit
// The tile of one pass and the blocks per SM asked of ptxas (its register cap: 3 blocks of 256
// threads -> 80 registers, 2 -> 128): every tile is 8192 keys (32 a thread); 32-bit keys at 3
// blocks, pairs and 64-bit keys at 2 (120 registers for uint64). Measured alternative (H100, 2^28
// keys): 24 x 3 took 5.89 ms against 5.37 for 32 x 3; every shape tried is in TUNING.md.
// kBallotMin: the fewest of a warp's 1024 keys on its most common digit for which those lanes take
// the ballot (warp_path). Keys: 256, a quarter (Zipf 2^28 4.80 ms; always: 4.94). Pairs: always
// (uniform 9.02-9.05 ms against 9.17 with 128 or 256).
// kHalf: 4096-key tiles (16 a thread) for 64-bit keys on GPUs whose shared memory cannot hold two
// blocks of 8192 (84 KB each: a T4 allows 64 KB a block, an A100 164 KB an SM); see pass_plan.
template <class U, bool kPairs, bool kHalf = false>
struct Shape {
    static constexpr int kItems = kHalf ? 16 : 32;
    static constexpr int kBlocksPerSm = sizeof(U) == 8 ? 2 : kPairs ? 2 : 3;
    static constexpr int kTile = kBlock * kItems;
    static constexpr int kPacked = (kItems + 3) / 4;   // registers of packed digits
    static constexpr uint32_t kBallotMin = kPairs ? 0 : 8u * kItems;   // a quarter of a warp's keys
};
// A thread's digits packed 4 to a register: item j's digit is byte j % 4 of register j / 4.
template <int kPacked>
__device__ __forceinline__ void pack_digit(uint32_t (&pdig)[kPacked], int j, uint32_t digit) {
    pdig[j / 4] |= digit << (8 * (j % 4));
}
template <int kPacked>
__device__ __forceinline__ uint32_t digit_at(const uint32_t (&pdig)[kPacked], int j) {
    return (pdig[j / 4] >> (8 * (j % 4))) & 0xffu;
}

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
// block, one global atomic per (pass, digit) per block at the end. The blocks walk tiles of
// 256 x 16 keys (grid-stride); a thread loads all 16 of its keys of a tile (striped: coalesced)
// before it counts any of them, so 16 loads per thread are in flight at once. One key at a time
// (load, four counts, next load) left each warp waiting on one load after another: ncu on the
// H100 at 2^28, 507 us, long-scoreboard stalls, against 454 us for CUB's histogram kernel, which
// also loads 16 keys first (TUNING.md has the before/after).
constexpr int kHistItems = 16;
// Delta from 07's count kernel: one read counts the digits of every pass, not one pass's per launch.
template <class K, class U, int kPasses>
__global__ void __launch_bounds__(kHistBlock) all_pass_histograms(const K* in, size_t n, uint32_t* hist) {
    __shared__ uint32_t s_hist[kPasses][radix::kDigits];
    for (int i = threadIdx.x; i < kPasses * radix::kDigits; i += kHistBlock) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    constexpr size_t kHistTile = size_t(kHistBlock) * kHistItems;
    for (size_t base = blockIdx.x * kHistTile; base < n; base += size_t(gridDim.x) * kHistTile) {
        if (n - base >= kHistTile) {   // a whole tile: all loads first, then the counts
            const K* p = in + base + threadIdx.x;
            U code[kHistItems];
#pragma unroll
            for (int j = 0; j < kHistItems; ++j) code[j] = sorting::Ordered<K>::to(p[j * kHistBlock]);
#pragma unroll
            for (int q = 0; q < kPasses; ++q)
#pragma unroll
                for (int j = 0; j < kHistItems; ++j)
                    atomicAdd(&s_hist[q][radix::digit_of(code[j], q * radix::kDigitBits)], 1u);
        } else {                       // the array's last, partial tile
            for (size_t e = base + threadIdx.x; e < n; e += kHistBlock) {
                const U code = sorting::Ordered<K>::to(in[e]);
#pragma unroll
                for (int q = 0; q < kPasses; ++q) atomicAdd(&s_hist[q][radix::digit_of(code, q * radix::kDigitBits)], 1u);
            }
        }
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

// `masks`: the warp's 256 match words (the OR-mask ranking), zeroed here with its counters; the
// ranking leaves them zero again.
template <class U, int kItems>
__device__ __forceinline__ void count_warp_digits(const U (&code)[kItems], int shift, EarlyCounts& s,
                                                  uint32_t* masks) {
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
// group from one ballot, so they do not queue on one word; their word stays zero. ncu, pass 2 of
// Zipf keys at 2^28: the OR took 20.5 shared-memory wavefronts per instruction against 3.5 on
// uniform keys (TUNING.md).
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

// The pass's shared memory, dynamic (an 8192-key tile passes the 48 KB of static shared memory).
// The OR-mask ranking adds one row of 256 match words per warp.
template <class U, bool kPairs, bool kHalf>
struct PassSmem {
    EarlyCounts counts;
    long long offset[radix::kDigits];
    unsigned tile;
    uint32_t match[EarlyCounts::kWarps][radix::kDigits];
    U codes[Shape<U, kPairs, kHalf>::kTile];   // for pairs, reused for the values once the keys are out
};

// Delta from 07's scatter: the tile's digit offsets come from a look-back inside the same kernel, not a scan between kernels.
template <class K, class U, bool kFirst, bool kLast, bool kPairs, bool kHalf, class Lookback>
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(Shape<U, kPairs, kHalf>::kBlocksPerSm, kBlock))
onesweep_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift,
              const uint32_t* digit_starts, uint32_t* status, unsigned* tile_counter) {
    constexpr int kItems = Shape<U, kPairs, kHalf>::kItems, kTile = Shape<U, kPairs, kHalf>::kTile;
    constexpr int kPacked = Shape<U, kPairs, kHalf>::kPacked;
    extern __shared__ __align__(16) unsigned char dyn_smem[];
    auto& sm = *reinterpret_cast<PassSmem<U, kPairs, kHalf>*>(dyn_smem);
    EarlyCounts& counts = sm.counts;
    U* s_codes = sm.codes;
    long long* s_offset = sm.offset;
    unsigned& s_tile = sm.tile;
    uint32_t* masks = sm.match[threadIdx.x >> 5];

    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;
    const size_t tile_base = size_t(tile) * kTile;
    const uint32_t valid = n - tile_base < size_t(kTile) ? uint32_t(n - tile_base) : uint32_t(kTile);

    const bool full = valid == uint32_t(kTile);
    // Step 1: the keys are loaded and counted, and only their digits stay, 4 to a register: the
    // ranking needs nothing else, and the keys are loaded again for staging (step 4).
    // Each warp also notes its most common digit now, from its own counters (step 4 uses it).
    uint32_t pdig[kPacked] = {};
    uint32_t dominant = 0;
    {
        U code[kItems];
        load_tile<K, U, kItems, kFirst>(src, n, tile_base, full, code);
        count_warp_digits<U, kItems>(code, shift, counts, masks);
#pragma unroll
        for (int j = 0; j < kItems; ++j) pack_digit(pdig, j, radix::digit_of(code[j], shift));
        __syncwarp();   // the warp's counts have landed
        dominant = warp_dominant_digit(counts.warp_count[threadIdx.x >> 5]);
    }
    __syncthreads();

    // Step 2: publish this tile's count of digit d (padding counted out).
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

    // Step 4: ranks from the digits, then the keys, loaded again (from L2: this block read them a
    // moment ago; ncu counts the second read in L2, not in DRAM), staged in digit order. A warp
    // ranks by the path its counts chose (warp_path); a one-digit warp's counter of that digit now
    // holds the warp's first slot for it, and its ranks follow by arithmetic.
    uint32_t rank[kItems];
    const uint32_t dom = dominant & 0xffu;
    const WarpPath path = warp_path(dominant, 32u * kItems, Shape<U, kPairs, kHalf>::kBallotMin);
    if (path == WarpPath::one_digit) {
        const uint32_t first = counts.warp_count[threadIdx.x >> 5][dom];
#pragma unroll
        for (int j = 0; j < kItems; ++j) rank[j] = one_digit_rank(first, j, threadIdx.x & 31);
    } else if (path == WarpPath::dominant_ballot) {
        rank_in_tile_or<kItems, kPacked, true>(pdig, rank, counts, masks, dom);
    } else {
        rank_in_tile_or<kItems, kPacked, false>(pdig, rank, counts, masks, dom);
    }
    {
        U code[kItems];
        load_tile<K, U, kItems, kFirst>(src, n, tile_base, full, code);
#pragma unroll
        for (int j = 0; j < kItems; ++j) s_codes[rank[j]] = code[j];
    }
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
    uint32_t packed[kPairs ? kPacked : 1] = {};
    if constexpr (kPairs) {
        static_assert(sizeof(U) == 4, "pairs have 32-bit keys");
#pragma unroll
        for (int j = 0; j < kItems; ++j)
            pack_digit(packed, j, radix::digit_of(s_codes[threadIdx.x + j * kBlock], shift));
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
            const uint32_t dig = digit_at(packed, j);
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

// The launch plan, from the GPU's limits: 8192-key tiles where a block's shared memory fits and
// the blocks per SM the register cap assumes fit beside each other (1 KB an SM-resident block is
// the runtime's own); else, for 64-bit keys, 4096-key tiles. A GPU that cannot hold even that is
// refused in one line (exit 2).
struct PassPlan { bool half; size_t smem; int blocks_per_sm; };
template <class U, bool kPairs>
PassPlan pass_plan() {
    const course::DeviceInfo& d = course::device();
    constexpr size_t kFull = sizeof(PassSmem<U, kPairs, false>), kHalfSmem = sizeof(PassSmem<U, kPairs, true>);
    constexpr int kWant = Shape<U, kPairs>::kBlocksPerSm;
    const bool full_fits = kFull <= d.max_smem_optin && size_t(kWant) * (kFull + 1024) <= d.smem_per_sm;
    const bool half = sizeof(U) == 8 && !full_fits;
    const size_t smem = half ? kHalfSmem : kFull;
    course::require_smem(smem, "08_radix_onesweep's tile");
    const int fit = int(std::min<size_t>(d.smem_per_sm / (smem + 1024), size_t(d.threads_per_sm / kBlock)));
    return {half, smem, std::min(kWant, fit)};
}
std::vector<course::KernelPlan> plan_for(const course::Options&, const course::Case& c) {
    // The kernel as ptxas names it (a pattern over the signature: tests/test_plans.py checks its registers).
    auto line = [](PassPlan p, const char* u, bool pairs, const char* what) {
        return course::KernelPlan{std::string("onesweep_pass<*, ") + u + ", *, *, " + (pairs ? "true" : "false") + ", " +
                                      (p.half ? "true" : "false") + ", *>",
                                  kBlock, p.smem, p.blocks_per_sm, 1,
                                  std::string(what) + (p.half ? ", 4096-key tiles" : ", 8192-key tiles")};
    };
    const course::DeviceInfo& d = course::device();
    std::vector<course::KernelPlan> plan = {
        {"all_pass_histograms", kHistBlock, 0, 0, 1, "grid " + std::to_string(d.sm_count * 8) + " blocks at most"}};
    if (c.dtype == "uint64") plan.push_back(line(pass_plan<uint64_t, false>(), "unsigned long", false, "64-bit keys"));
    else if (c.dtype == "pairs") plan.push_back(line(pass_plan<uint32_t, true>(), "unsigned int", true, "pairs"));
    else plan.push_back(line(pass_plan<uint32_t, false>(), "unsigned int", false, "32-bit keys"));
    return plan;
}
static course::PlanHook plan_hook(plan_for);

template <class K, bool kPairs, bool kHalf, class Lookback>
void sort_tiles(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
    using U = typename sorting::Ordered<K>::U;
    constexpr int kPasses = int(8 * sizeof(U)) / radix::kDigitBits;
    static_assert(kPasses % 2 == 0, "the last pass must land in the output");
    constexpr int kTile = Shape<U, kPairs, kHalf>::kTile;
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

    // At most 8 blocks of 256 per SM (2048 threads, an sm_90 SM's limit); each walks its tiles.
    const unsigned hist_grid = std::min<unsigned>(course::blocks_for(n, size_t(kHistBlock) * kHistItems),
                                                  unsigned(course::device().sm_count) * 8u);
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
        // The first pass reads the caller's keys (and maps floats to ordered codes), the last writes
        // keys back: three instantiations of one kernel, one launch. Its shared memory passes 48 KB.
        auto* pass = p == 0 ? onesweep_pass<K, U, true, false, kPairs, kHalf, Lookback>
                   : p == kPasses - 1 ? onesweep_pass<K, U, false, true, kPairs, kHalf, Lookback>
                   : onesweep_pass<K, U, false, false, kPairs, kHalf, Lookback>;
        constexpr size_t kSmem = sizeof(PassSmem<U, kPairs, kHalf>);
        course::allow_dynamic_smem(pass, kSmem);
        pass<<<grid, kBlock, kSmem>>>(src, dst, vsrc, vdst, n, shift, starts, st, counters + p);
        CUDA_CHECK_LAST();
    }
}

// The sort: the tile that pass_plan picks for this GPU (only 64-bit keys have a second one).
template <class K, bool kPairs, class Lookback = DigitLookback>
void sort(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
    using U = typename sorting::Ordered<K>::U;
    if (n == 0) return;
    static const PassPlan plan = pass_plan<U, kPairs>();
    if constexpr (sizeof(U) == 8)
        if (plan.half) return sort_tiles<K, kPairs, true, Lookback>(in, out, vin, vout, n);
    sort_tiles<K, kPairs, false, Lookback>(in, out, vin, vout, n);
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

#ifndef COURSE_NO_MAIN   // exercises/radix_digit_lookback.cu includes this file for its kernels
int main(int argc, char** argv) {
    sorting::Sorter s = radix::sorter_for<onesweep::Sort<>>();   // every key type, and pairs
    s.max_n = (uint64_t(1) << 30) - 1;
    s.limit_why = "look-back counts are 30-bit";
    return sorting::run_lesson(argc, argv, "08_radix_onesweep", s);
}
#endif
