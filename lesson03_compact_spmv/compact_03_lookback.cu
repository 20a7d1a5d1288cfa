// compact_03_lookback — the best version: one pass, block offsets by decoupled look-back, output
// staged in shared memory so the writes coalesce.
//
// What changed since compact_02_warp_ballot:
//  * One kernel instead of count + scan + scatter: a block needs the number of elements that all
//    EARLIER tiles kept, a scan across blocks that decoupled look-back (lesson02's lookback.cuh)
//    gives while the tile is still in registers. The input is read once.
//  * 16-byte loads: a thread holds 12 rows of 4 consecutive elements; a warp's load reads 512 bytes.
//  * In-warp offsets without ballots: keep flags packed one byte per row, so one warp scan of a
//    32-bit word scans four rows' counts at once (compact.cuh, host-tested).
//  * Kept elements are staged at their place in shared memory, then copied out by consecutive
//    threads: full 128-byte rows whatever the selectivity.
// Cost model: read 4n, write 4*kept, 8 bytes of status per tile (CUB's bytes); per tile of 6144
// elements one atomic, one look-back, 3 barriers. Tile size and instruction counts: TUNING.md.
// Limits: n <= 2^31 - 1 (32-bit counts and offsets); the staged tile lives in 48 KB of static
// shared memory.
//
// Build alone:  nvcc -O3 -arch=native -o compact03 compact_03_lookback.cu
// Run:          ./compact03 --n 2^28 --pct 50        ./compact03 --test
#include "../lesson02_scan/lookback.cuh"
#include "../lesson02_scan/primitives.cuh"
#include "compact.cuh"

// The tile is staged in static shared memory, so it must stay under 48 KB (12288 elements).
// 128 threads x 48 elements: 256 x 24 (the same tile) and 16 rows with 4 blocks per SM measured
// slower (TUNING.md).
constexpr int kThreads = 128, kWarps = kThreads / 32;
constexpr int kVecs = 12;                  // rows of 4 elements per thread
constexpr int kItems = 4 * kVecs;          // elements per thread
constexpr int kTile = kThreads * kItems;   // elements per block: 6144
constexpr int kWarpItems = 32 * kItems;    // consecutive elements per warp
constexpr int kWords = (kVecs + 3) / 4;    // keep-flag words: one byte per row (compact.cuh)
static_assert(size_t(kTile) * 4 + 64 <= 48 * 1024, "the staged tile must fit in 48 KB of static shared memory");

// 8 blocks per SM asked of __launch_bounds__ caps the registers at 64 (7 blocks measured slower).
// 8 x 128 threads fit even a Turing SM (1024 threads); their shared memory (8 staged tiles) fits
// Hopper's 228 KB an SM, on smaller GPUs fewer blocks are resident (--plan says how many bytes).
constexpr size_t kStaticSmem = sizeof(int32_t) * kTile + 64;   // the staged tile and the block's words
constexpr int kMinBlocks = course::min_blocks_that_fit(8, kThreads, int(kStaticSmem));

// The look-back of lesson02's 06_decoupled_lookback, but a tile's value is its kept count, and the
// kept elements are staged in shared memory so that they go out coalesced (compact_02 had 3 kernels).
// kStageBarrier = false is the pitfall of wrong/compact_stage_no_barrier.cu (the barrier between
// staging and copying out left out).
template <bool kAligned, bool kStageBarrier = true>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    lookback_compact(const int32_t* __restrict__ in, int32_t* __restrict__ out, uint32_t* __restrict__ count, size_t n,
                     uint32_t pct, unsigned tiles, lookback::State st) {
    __shared__ unsigned s_tile;
    __shared__ uint32_t s_warp[kWarps];
    __shared__ uint32_t s_prefix, s_total;
    __shared__ int32_t s_stage[kTile];

    // Tiles numbered in the order blocks start (see lookback.cuh): never wait for an unstarted one.
    const unsigned tile = lookback::next_tile(st, &s_tile);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t warp_base = size_t(tile) * kTile + size_t(warp) * kWarpItems;
    const bool full = warp_base + kWarpItems <= n;

    // Row j of lane l is elements warp_base + 128 j + 4 l + (0..3): memory order is (j, l, k). All
    // kVecs loads are issued before any of them is used (they are independent), so a thread has
    // 16 * kVecs bytes in flight. One branch per warp: every warp but the input's last loads and
    // tests the predicate with no bounds check at all (a test per row and per element cost about
    // 10 of the ~40 instructions per element the kernel issued when `full` was tested inside the
    // loops); the last warp loads element by element, then clears the flags of elements past n.
    int32_t x[kVecs][4];
    uint32_t flags[kWords] = {};   // keep flag of (j, k): bit 8 (j % 4) + k of word j / 4 (compact::flag_bit)
    const size_t lane_base = warp_base + 4 * size_t(lane);
    if (kAligned && full) {
        const int4* src = reinterpret_cast<const int4*>(in + lane_base);
#pragma unroll
        for (int j = 0; j < kVecs; ++j) {
            const int4 v = src[32 * j];   // row j: 128 elements further on
            x[j][0] = v.x;
            x[j][1] = v.y;
            x[j][2] = v.z;
            x[j][3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const size_t e = lane_base + 128 * size_t(j) + size_t(k);
                x[j][k] = e < n ? in[e] : 0;
            }
    }
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (compact::keep(x[j][k], pct)) flags[j / 4] |= compact::flag_bit(j, k);
    if (!full) {   // only the warp(s) of the last tile that reach past n
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (lane_base + 128 * size_t(j) + size_t(k) >= n) flags[j / 4] &= ~compact::flag_bit(j, k);
    }

    // Offsets inside the warp. compact_02's way, four ballots per row, costs ~8 instructions per
    // element (48 votes per thread, each with two popcounts). Here, per flag word, this lane's four
    // row counts sit side by side in bytes (a SWAR popcount), and ONE warp scan of that word scans
    // four rows at once: no byte's sum can pass 128, so no carry crosses into the next byte. Lane
    // 31's inclusive value holds the warp's per-row totals. About 2 instructions per element.
    uint32_t excl[kWords], tot[kWords];   // per row byte: the lanes below me / the whole warp
    uint32_t warp_kept = 0;
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
        const uint32_t counts = compact::row_counts(flags[w]);
        const uint32_t incl = scan::warp_inclusive_scan(counts);
        excl[w] = incl - counts;   // bytewise too: incl >= counts in every byte
        tot[w] = __shfl_sync(scan::kFullMask, incl, 31);
        warp_kept += compact::bytes_sum(tot[w]);
    }

    // Block: scan of the warp counts; tile: publish, look back, publish the inclusive prefix.
    if (lane == 0) s_warp[warp] = warp_kept;
    __syncthreads();
    if (warp == 0) {
        uint32_t v = lane < kWarps ? s_warp[lane] : 0;
        uint32_t incl = scan::warp_inclusive_scan(v);
        uint32_t total = __shfl_sync(scan::kFullMask, incl, kWarps - 1);
        if (lane < kWarps) s_warp[lane] = incl - v;
        uint32_t prefix = 0;
        if (tile == 0) {
            if (lane == 0) lookback::publish(st.status, lookback::kPrefix, total);
        } else {
            if (lane == 0) lookback::publish(st.status + tile, lookback::kAggregate, total);
            prefix = lookback::warp_lookback<uint32_t>(st.status, tile);
            if (lane == 0) lookback::publish(st.status + tile, lookback::kPrefix, prefix + total);
        }
        if (lane == 0) {
            s_prefix = prefix;
            s_total = total;
            if (tile == tiles - 1) *count = prefix + total;   // the last tile knows the grand total
        }
    }
    __syncthreads();

    // Stage: each kept element to its place inside the tile's run, then the run goes out.
    const uint32_t prefix = s_prefix, total = s_total;
    compact::stage_kept<kVecs>(flags, excl, tot, x, s_stage + s_warp[warp]);
    if (kStageBarrier) __syncthreads();   // the whole run is staged before anyone copies it out

    // Coalesced copy of s_stage[0, total) to out[prefix, prefix + total): consecutive threads on
    // consecutive elements. Two pointers stepped by kThreads, not dst[i] with a 32-bit i, which
    // cost four instructions of 64-bit address arithmetic per element (extend, add, shift, carry).
    const int32_t* src = s_stage + threadIdx.x;
    const int32_t* const src_end = s_stage + total;
    int32_t* dst = out + prefix + threadIdx.x;
    for (; src < src_end; src += kThreads, dst += kThreads) *dst = *src;
}

// The launch: one block per tile of kTile elements, on any GPU. --plan prints compact_plan; the
// launcher takes its grid from the same compact_grid.
inline unsigned compact_grid(size_t n) { return course::blocks_for(n, kTile); }
inline std::vector<course::KernelPlan> compact_plan(size_t n) {
    return {{"lookback_compact", kThreads, 0, course::blocks_that_fit(8, kThreads, kStaticSmem), 1,
             std::to_string(compact_grid(n)) + " blocks, one per tile of " + std::to_string(kTile) + " elements; " +
                 std::to_string(kStaticSmem) + " B of static shared memory a block"}};
}

template <bool kStageBarrier = true>
void compact_lookback(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
        return;
    }
    const unsigned tiles = compact_grid(n);
    lookback::State st = lookback::prepare(2, tiles);
    if (reinterpret_cast<uintptr_t>(d_in) % 16 == 0)
        lookback_compact<true, kStageBarrier><<<tiles, kThreads>>>(d_in, d_out, d_count, n, pct, tiles, st);
    else lookback_compact<false, kStageBarrier><<<tiles, kThreads>>>(d_in, d_out, d_count, n, pct, tiles, st);
    CUDA_CHECK_LAST();
}

#ifndef COURSE_NO_MAIN   // wrong/compact_stage_no_barrier.cu includes this file for its kernel
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) { return compact_plan(c.n); });

int main(int argc, char** argv) {
    compact::Limits lim;
    lim.huge_test = true;
    lim.tile = kTile;
    return compact::run_lesson(argc, argv, "compact_03_lookback", compact_lookback<true>, lim);
}
#endif
