// 08_radix_onesweep — one-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022): the lesson's best radix sort, for keys and pairs.
//
// What changes since 07: each pass is ONE kernel that reads every key once and writes it once.
//   * one histogram kernel counts the digits of every pass up front, in one read of the input (a
//     key's digit in pass p is just bits 8p..8p+7); a scan of each gives the digits' starts;
//   * inside a pass, a tile learns how many keys of digit d the earlier tiles hold by decoupled
//     look-back (digit_lookback.cuh), one chain per digit, thread d walking chain d;
//   * a tile counts before it ranks (its counts go out early), then ranks every key in one step
//     (onesweep_tile.cuh); only the digits stay in registers, so 8192-key tiles fit without spilling.
// Cost (uint32): histogram 4 B per key, then 4 passes of 4 B read + 4 B written per key, look-back
// status a few % of a pass: ~33 B per key, 6 launches and 1 memset. What limits it: latency and
// per-tile work (counter rows, block scan, look-back, barriers), not bytes or instructions.
// Limit: n < 2^30 (30-bit look-back counts). Keys: uint32, int32, float32, uint64; pairs, stable.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o onesweep 08_radix_onesweep.cu
// Run:          ./onesweep --n 2^28    ./onesweep --type pairs --n 2^28    ./onesweep --test
#include <type_traits>

#include "digit_lookback.cuh"   // the per-digit look-back: status words, DigitLookback
#include "onesweep_tile.cuh"    // a tile's early counts, one-step ranking, full-tile loads and scatter
#include "radix.cuh"

// How a pass works, in more detail:
//   * The digit counts of every pass come up front, in one read of the input: a key's digit in
//     pass p does not depend on the earlier passes, so one histogram kernel fills all 4 (uint32)
//     or 8 (uint64) 256-bin histograms at once; an exclusive scan of each gives the global start
//     of every digit in every pass.
//   * Inside a pass, a tile needs the count of digit d in the earlier tiles. 07 computed that
//     with a count kernel and a scan over all tiles; here tile t publishes AGGREGATE = its own
//     count as soon as it has counted its keys, then walks back over tiles t-1, t-2, ... adding
//     AGGREGATEs until it meets a PREFIX, and publishes its own PREFIX. Thread d walks digit d's
//     chain, so 256 chains advance in parallel.
//   * The pass counts before it ranks ("early counts", as CUB does), so later tiles find the
//     AGGREGATE already there instead of spinning while this tile ranks.
//   * The ranking needs only the digits, 4 to a register; the keys are loaded again (from L2,
//     which still holds them) to be staged once ranked. That frees registers: at 3 blocks per SM
//     (80 registers) a tile of 8192 keys (256 x 32) does not spill, so a pass has fewer tiles and
//     less per-tile work. Pairs and 64-bit keys have 8192-key tiles too (2 blocks; the values
//     reuse the keys' staging space). Shared memory is dynamic: 8192 keys pass 48 KB.
//   * Full tiles load and scatter with no bounds tests.
//
// Correctness notes:
//   * tiles are numbered by an atomic counter in the order blocks start (one counter per pass),
//     so a tile only waits for tiles whose blocks already run: no deadlock;
//   * the status words are digit_lookback.cuh's (flag and 30-bit count in one word);
//   * the last tile's padding (radix.cuh) is counted out of digit 255 before publishing.
//
// K is uint32_t, int32_t, float or uint64_t (sorted as sorting::Ordered<K> codes, 8 bits per
// pass); kPairs carries uint32 values along, stably. The look-back is a policy (DigitLookback) so
// that exercises/radix_digit_lookback.cu can supply its own; a look-back other than DigitLookback
// gets a bounds-checked scatter (radix::scatter_codes, kGuard), so that a wrong one fails the
// checker instead of writing past the end of a buffer.
namespace onesweep {

constexpr int kHistBlock = radix::kDigits;   // the histogram kernels: one thread per digit
// The tile of one pass and the blocks per SM asked of ptxas (its register cap: 3 blocks of 256
// threads -> 80 registers, 2 -> 128): every tile is 8192 keys (32 a thread); 32-bit keys at 3
// blocks, pairs and 64-bit keys at 2 (120 registers for uint64). Smaller tiles (24 a thread at 3
// blocks) were slower: more tiles, more per-tile work.
// kBallotMin: the fewest of a warp's 1024 keys on its most common digit for which those lanes take
// the ballot (warp_path). Keys: 256, a quarter (better than always, on Zipf keys). Pairs: always
// (better than 128 or 256 on uniform keys).
// kHalf: 4096-key tiles (16 a thread) for 64-bit keys on GPUs whose shared memory cannot hold two
// blocks of 8192 (84 KB each: a T4 allows 64 KB a block, an A100 164 KB an SM); see pass_plan.
template <class U, bool kPairs, bool kHalf = false> struct Shape {
    static constexpr int kItems = kHalf ? 16 : 32;
    static constexpr int kBlocksPerSm = sizeof(U) == 8 ? 2 : kPairs ? 2 : 3;
    static constexpr int kTile = kBlock * kItems;
    static constexpr int kPacked = (kItems + 3) / 4;                   // registers of packed digits
    static constexpr uint32_t kBallotMin = kPairs ? 0 : 8u * kItems;   // a quarter of a warp's keys
};

// ---- the upfront histogram of every pass ------------------------------------------------------

// hist[p * 256 + d] += number of keys whose digit in pass p is d. Shared-memory counters per
// block, one global atomic per (pass, digit) per block at the end. The blocks walk tiles of
// 256 x 16 keys (grid-stride); a thread loads all 16 of its keys of a tile (striped: coalesced)
// before it counts any of them, so 16 loads per thread are in flight at once. One key at a time
// (load, four counts, next load) left each warp waiting on one load after another (long-scoreboard
// stalls), slower than CUB's histogram kernel, which also loads 16 keys first.
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
        } else {   // the array's last, partial tile
            for (size_t e = base + threadIdx.x; e < n; e += kHistBlock) {
                const U code = sorting::Ordered<K>::to(in[e]);
#pragma unroll
                for (int q = 0; q < kPasses; ++q)
                    atomicAdd(&s_hist[q][radix::digit_of(code, q * radix::kDigitBits)], 1u);
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

// The pass's shared memory, dynamic (an 8192-key tile passes the 48 KB of static shared memory).
// The OR-mask ranking adds one row of 256 match words per warp.
template <class U, bool kPairs, bool kHalf> struct PassSmem {
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
    // moment ago; the profiler counts the second read in L2, not in DRAM), staged in digit order. A warp
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
struct PassPlan {
    bool half;
    size_t smem;
    int blocks_per_sm;
};
template <class U, bool kPairs> PassPlan pass_plan() {
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
        return course::KernelPlan{std::string("onesweep_pass<*, ") + u + ", *, *, " + (pairs ? "true" : "false") +
                                      ", " + (p.half ? "true" : "false") + ", *>",
                                  kBlock,
                                  p.smem,
                                  p.blocks_per_sm,
                                  1,
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
        const void* src = p == 0       ? static_cast<const void*>(in)
                          : p % 2 == 1 ? static_cast<const void*>(tmp)
                                       : static_cast<const void*>(out);
        const uint32_t* vsrc = p == 0 ? vin : p % 2 == 1 ? vtmp : vout;
        const uint32_t* starts = hist + size_t(p) * radix::kDigits;
        uint32_t* st = status + size_t(p) * status_words;
        // The first pass reads the caller's keys (and maps floats to ordered codes), the last writes
        // keys back: three instantiations of one kernel, one launch. Its shared memory passes 48 KB.
        auto* pass = p == 0             ? onesweep_pass<K, U, true, false, kPairs, kHalf, Lookback>
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
template <class Lookback = DigitLookback> struct Sort {
    template <class K, bool kPairs>
    static void sort(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
        onesweep::sort<K, kPairs, Lookback>(in, out, vin, vout, n);
    }
};

}   // namespace onesweep

#ifndef COURSE_NO_MAIN   // exercises/radix_digit_lookback.cu includes this file for its kernels
int main(int argc, char** argv) {
    sorting::Sorter s = radix::sorter_for<onesweep::Sort<>>();   // every key type, and pairs
    s.max_n = (uint64_t(1) << 30) - 1;
    s.limit_why = "look-back counts are 30-bit";
    return sorting::run_lesson(argc, argv, "08_radix_onesweep", s);
}
#endif
