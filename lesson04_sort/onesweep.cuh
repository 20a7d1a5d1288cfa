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

// Tuning knobs (defaults first; README.md, "Tuning", says which variants were measured):
#ifndef ONESWEEP_ITEMS
#define ONESWEEP_ITEMS 15        // keys per thread: the tile is 256 x ITEMS keys
#endif
#ifndef ONESWEEP_KEY_BLOCKS
#define ONESWEEP_KEY_BLOCKS 4    // blocks per SM asked of ptxas for 32-bit keys (caps the registers)
#endif
constexpr int kBlock = 256;
// The tile of one pass: ONESWEEP_ITEMS keys per thread for 32-bit keys; 15 for pairs and 64-bit
// keys, whose staging arrays would not fit the 48 KB of static shared memory at larger tiles.
template <class U, bool kPairs>
struct Shape {
    static constexpr int kItems = sizeof(U) == 4 && !kPairs ? ONESWEEP_ITEMS : 15;
    using Rank = radix::TileRank<kBlock, kItems>;
    static constexpr int kTile = Rank::kTile;   // 3840 keys per tile at 15 items
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
__global__ void __launch_bounds__(kBlock) all_pass_histograms(const K* in, size_t n, uint32_t* hist) {
    __shared__ uint32_t s_hist[kPasses][radix::kDigits];
    for (int i = threadIdx.x; i < kPasses * radix::kDigits; i += kBlock) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    for (size_t e = blockIdx.x * size_t(kBlock) + threadIdx.x; e < n; e += size_t(gridDim.x) * kBlock) {
        U code = sorting::Ordered<K>::to(in[e]);
#pragma unroll
        for (int p = 0; p < kPasses; ++p) atomicAdd(&s_hist[p][radix::digit_of(code, p * radix::kDigitBits)], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kPasses * radix::kDigits; i += kBlock) {
        uint32_t c = (&s_hist[0][0])[i];
        if (c) atomicAdd(hist + i, c);
    }
}

// One block per pass: counts -> exclusive starts, in place.
__global__ void __launch_bounds__(kBlock) histograms_to_starts(uint32_t* hist) {
    __shared__ uint32_t tmp[kBlock / 32];
    uint32_t* h = hist + size_t(blockIdx.x) * radix::kDigits;
    uint32_t c = h[threadIdx.x], total = 0;
    uint32_t start = scan::block_exclusive_scan<kBlock>(c, 0u, total, tmp);
    h[threadIdx.x] = start;
}

// ---- one pass: rank, look back, scatter ------------------------------------------------------

// 4 blocks (32 warps) per SM for 32-bit keys (3 for pairs, 2 for 64-bit): enough warps to hide
// the scatter's latency while
// others rank (for keys the cap is 64 registers; without it ptxas takes 80 and only 3 blocks fit).
template <class K, class U, bool kFirst, bool kLast, bool kPairs, class Lookback>
__global__ void __launch_bounds__(kBlock, sizeof(U) == 8 ? 2 : kPairs ? 3 : ONESWEEP_KEY_BLOCKS)
onesweep_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift,
              const uint32_t* digit_starts, uint32_t* status, unsigned* tile_counter) {
    using Rank = typename Shape<U, kPairs>::Rank;
    constexpr int kItems = Shape<U, kPairs>::kItems, kTile = Rank::kTile;
    __shared__ typename Rank::Storage rank_storage;
    __shared__ U s_codes[kTile];
    __shared__ uint32_t s_vals[kPairs ? kTile : 1];
    __shared__ long long s_offset[radix::kDigits];
    __shared__ unsigned s_tile;

    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;
    const size_t tile_base = size_t(tile) * kTile;
    const uint32_t valid = n - tile_base < size_t(kTile) ? uint32_t(n - tile_base) : uint32_t(kTile);

    U code[kItems];
    uint32_t digit[kItems], rank[kItems];
    radix::load_codes<K, U, kBlock, kItems, kFirst>(src, n, tile_base, code);
#pragma unroll
    for (int j = 0; j < kItems; ++j) digit[j] = radix::digit_of(code[j], shift);

    const int d = threadIdx.x;   // this thread's digit
    const uint32_t total = Rank::warp_ranks(digit, rank, rank_storage);
    // Publish this tile's count of digit d at once (padding counted out), so later tiles can go on.
    const uint32_t mine = total - (d == radix::kDigits - 1 ? uint32_t(kTile) - valid : 0u);
    uint32_t* word = status + size_t(tile) * radix::kDigits + d;
    publish(word, tile == 0 ? kPrefix : kAggregate, mine);

    const uint32_t start = Rank::finish(total, digit, rank, rank_storage);
    radix::stage_tile<U, kItems, kPairs>(code, rank, vsrc, n, tile_base, s_codes, s_vals);

    // Digit d's keys in earlier tiles (the look-back), then our inclusive PREFIX for later tiles.
    uint32_t before = 0;
    if (tile > 0) {
        before = Lookback::before(status, tile, d);
        publish(word, kPrefix, before + mine);
    }
    s_offset[d] = (long long)digit_starts[d] + (long long)before - (long long)start;
    __syncthreads();

    // Our own look-back needs no bounds check; any other (the exercise's) gets one: see kGuard.
    constexpr bool kGuard = !std::is_same_v<Lookback, DigitLookback>;
    radix::scatter_codes<K, U, kBlock, kLast, kGuard>(s_codes, s_offset, valid, shift, dst, n);
    if constexpr (kPairs) radix::scatter_values<U, kBlock, kGuard>(s_codes, s_vals, s_offset, valid, shift, vdst, n);
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
    all_pass_histograms<K, U, kPasses><<<hist_grid, kBlock>>>(in, n, hist);
    CUDA_CHECK_LAST();
    histograms_to_starts<<<kPasses, kBlock>>>(hist);
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
