// compact_03_lookback — the best version: one pass, block offsets by decoupled look-back, output
// staged in shared memory so the writes coalesce.
//
// What changed since compact_02_warp_ballot:
//  * One kernel instead of count + scan + scatter: a block needs the number of elements that all
//    EARLIER tiles kept, which is a scan across blocks: decoupled look-back (lesson02's
//    lookback.cuh) gives it while the tile is still in registers. The input is read once.
//  * 16-byte loads: a thread holds kVecs rows of 4 consecutive elements (int4); a warp's load
//    instruction reads 512 contiguous bytes. The ballot trick extends to 4 elements per lane:
//    four ballots per row, and a lane's offset is the kept count of the lower lanes (popc of each
//    ballot under the lane mask) plus its own earlier elements.
//  * The kept elements are first written to shared memory at their place inside the tile, then
//    the block copies that contiguous run to global memory, consecutive threads on consecutive
//    elements (full 128-byte rows whatever the selectivity). With -DCOMPACT_VEC_STORE=1 the copy
//    uses 16-byte chunks instead: the run is staged `shift` slots in so that a chunk of 4 slots
//    lands on one aligned 16-byte piece of `out`; the (at most two) partial chunks at the ends are
//    written element by element. That measured 1 % slower, so 4-byte stores are the default.
//
// Why the tile is big (128 threads x 48 elements = 6144 by default; it was 256 x 16 = 4096):
// a block's life is a chain of latencies that do not shrink with the tile: the tile-counter
// atomic before any load can start, the loads, the look-back (L2 round trips), three barriers. At
// 4096 elements per tile this kernel took about as long as lesson02's scan with the same tile,
// although it moves fewer bytes: it was bound by that per-tile chain, not by memory. Bigger tiles
// put more bytes in flight per thread (12 independent 16-byte loads issued back to back) and pay
// the chain fewer times (the scan measured the same effect: see lesson02_scan/scan.cuh). The keep
// flags live in one 64-bit mask and each row keeps one base offset, so 48 elements fit in the 80
// registers that MIN_BLOCKS=6 allows (ptxas -v; a few bytes spill), 6 blocks per SM. CUB's select-if for 4-byte items on sm_90 uses tiles of
// the same size (384 threads x 17 items).
// Cost model: read 4n, write 4*kept, plus 8 bytes of status per tile and one memset of them: the
// same bytes as CUB. Per tile: one atomic, one look-back, 3 barriers (tile number, block scan,
// staging), kept coalesced 4-byte stores. Measured: see the table in README.md.
// Limits: n <= 2^31 - 1 (32-bit tile counts and offsets); the staged tile (4 * (tile + 4) bytes)
// lives in static shared memory, so THREADS * 4 * VECS must stay under 12284 elements.
// Tuning knobs (defaults): -DCOMPACT_THREADS=128 -DCOMPACT_VECS=12 -DCOMPACT_MIN_BLOCKS=6
// -DCOMPACT_VEC_STORE=0 -DCOMPACT_BLOCKIDX_TILES=0.
// Probe measurements (H100, 2^28 int32, 2026-11-23 10:40-11:05 UTC, one run each, CUB in the same
// run): defaults 0.678 ms at 10 % kept (0.90x CUB's 0.608), 0.798 ms at 50 % (0.92x CUB's 0.737).
// ncu at 50 %: 56 % of DRAM peak (CUB 61 %), 24 warps per SM (CUB 36), a third of the stall
// cycles at a barrier (warps waiting while warp 0 looks back). Tried, not kept: BLOCKIDX_TILES=1
// (tile = blockIdx.x, no atomic, as CUB) 0.663 / 0.784 ms (0.92x / 0.94x) but gives up the
// start-order guarantee; staging while warp 0 looks back (one barrier fewer) 0.690 / 0.822 ms
// (slower); 16-byte copy-out (VEC_STORE=1) 0.684 / 0.801 ms; 256 or 384 threads with the same
// tile 0.706-0.727 / 0.845-0.864 ms; VECS=16 with 4 blocks per SM 0.757 / 0.876 ms.
//
// Build alone:  nvcc -O3 -arch=native -o compact03 compact_03_lookback.cu
// Run:          ./compact03 --n 2^28 --pct 50        ./compact03 --test
#include "compact.cuh"

// Tuning knobs (override with -DCOMPACT_THREADS=.. -DCOMPACT_VECS=.. -DCOMPACT_VEC_STORE=0/1 to
// measure variants; the README says which ones were tried). The tile is THREADS * 4 * VECS
// elements and is staged in static shared memory, so it must stay under 48 KB (12284 elements).
#ifndef COMPACT_THREADS
#define COMPACT_THREADS 128   // threads per block (a multiple of 32, at most 1024)
#endif
#ifndef COMPACT_VECS
#define COMPACT_VECS 12       // 16-byte vectors per thread: 48 elements per thread
#endif
#ifndef COMPACT_MIN_BLOCKS
#define COMPACT_MIN_BLOCKS 6  // blocks per SM asked of ptxas (__launch_bounds__): > 1 caps the registers
#endif
#ifndef COMPACT_BLOCKIDX_TILES
#define COMPACT_BLOCKIDX_TILES 0  // 1: tile = blockIdx.x as CUB does (no tile-counter atomic; assumes blocks start in index order)
#endif
#ifndef COMPACT_VEC_STORE
#define COMPACT_VEC_STORE 0   // 1: copy the staged run out with 16-byte stores; 0: 4-byte stores (measured 1 % faster)
#endif

constexpr int kThreads = COMPACT_THREADS, kWarps = kThreads / 32;
constexpr int kVecs = COMPACT_VECS;             // rows of 4 elements per thread
constexpr int kItems = 4 * kVecs;               // elements per thread
constexpr int kTile = kThreads * kItems;        // elements per block (6144 by default)
constexpr int kWarpItems = 32 * kItems;         // consecutive elements per warp
static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 1024, "COMPACT_THREADS: a multiple of 32, <= 1024");
static_assert(kVecs >= 1 && kVecs <= 16, "COMPACT_VECS: 1 to 16 (the keep flags live in one 64-bit mask)");
static_assert(size_t(kTile + 4) * 4 + 64 <= 48 * 1024, "the staged tile must fit in 48 KB of static shared memory");

// The -DCOMPACT_VEC_STORE=1 copy-out: staged slots [shift, shift + total) to out[prefix, ...).
__device__ void copy_out_16byte(int32_t* out, const int32_t* s_stage, uint32_t prefix,
                                uint32_t shift, uint32_t total) {
    // Chunk c = slots [4c, 4c + 4) = out[base + 4c .. + 3] with base = prefix - shift (out[base]
    // is 16-byte aligned). A whole chunk is one 16-byte load from shared memory and one 16-byte
    // store; the first and last chunks may be partial and are written element by element.
    const long long base = (long long)prefix - (long long)shift;   // may be -3..-1 for tile 0: never written
    const uint32_t end = shift + total;                               // one past the last staged slot
    const uint32_t chunks = (end + 3) / 4;
    for (uint32_t c = threadIdx.x; c < chunks; c += kThreads) {
        const uint32_t s0 = 4 * c;
        if (s0 >= shift && s0 + 4 <= end) {
            const int4 v = reinterpret_cast<const int4*>(s_stage)[c];
            reinterpret_cast<int4*>(out + (base + s0))[0] = v;
        } else {
#pragma unroll
            for (uint32_t k = 0; k < 4; ++k)
                if (s0 + k >= shift && s0 + k < end) out[base + s0 + k] = s_stage[s0 + k];
        }
    }
}

// kStageBarrier = false is the pitfall of wrong/compact_stage_no_barrier.cu (the barrier between
// staging and copying out left out).
template <bool kAligned, bool kStageBarrier = true>
__global__ void __launch_bounds__(kThreads, COMPACT_MIN_BLOCKS)
lookback_compact(const int32_t* __restrict__ in, int32_t* __restrict__ out, uint32_t* __restrict__ count,
                 size_t n, uint32_t pct, unsigned tiles, lookback::State st) {
    __shared__ unsigned s_tile;
    __shared__ uint32_t s_warp[kWarps];
    __shared__ uint32_t s_prefix, s_total;
    // The run is staged `shift` (0..3) slots in, so that slot i and out[prefix - shift + i] have the
    // same address modulo 16 bytes: the copy-out can then move aligned 16-byte chunks.
    __shared__ __align__(16) int32_t s_stage[kTile + 4];

    // Tiles numbered in the order blocks start (see lookback.cuh): never wait for an unstarted one.
    // (-DCOMPACT_BLOCKIDX_TILES=1 trades that guarantee for one atomic and one barrier less per tile.)
    const unsigned tile = COMPACT_BLOCKIDX_TILES ? blockIdx.x : lookback::next_tile(st, &s_tile);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    const size_t warp_base = size_t(tile) * kTile + size_t(warp) * kWarpItems;
    const bool full = warp_base + kWarpItems <= n;

    // Row j of lane l is elements warp_base + 128 j + 4 l + (0..3): memory order is (j, l, k).
    // All kVecs loads are issued before any of them is used (they are independent), so a thread
    // has 16 * kVecs bytes in flight. The keep flags go into one bit mask: bit 4 j + k.
    int32_t x[kVecs][4];
    uint64_t kept_bits = 0;
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        const size_t e = warp_base + 128 * size_t(j) + 4 * size_t(lane);
        if (kAligned && full) {
            const int4 v = reinterpret_cast<const int4*>(in)[e / 4];
            x[j][0] = v.x; x[j][1] = v.y; x[j][2] = v.z; x[j][3] = v.w;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) x[j][k] = e + k < n ? in[e + k] : 0;
        }
    }
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        const size_t e = warp_base + 128 * size_t(j) + 4 * size_t(lane);
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if ((full || e + k < n) && compact::keep(x[j][k], pct)) kept_bits |= uint64_t(1) << (4 * j + k);
    }

    // Offsets inside the warp from four ballots per row: row_base[j] = kept elements of the warp
    // before row j + kept elements of row j in the lanes below mine.
    uint32_t row_base[kVecs];
    uint32_t warp_kept = 0;
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        uint32_t lower = 0, row = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const unsigned m = __ballot_sync(scan::kFullMask, (kept_bits >> (4 * j + k)) & 1u);
            lower += __popc(m & below);
            row += __popc(m);
        }
        row_base[j] = warp_kept + lower;
        warp_kept += row;
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

    // Where the run goes: out[prefix, prefix + total). shift = (address of out[prefix] / 4) % 4, so
    // that out[prefix - shift] is 16-byte aligned (an int32 pointer is always 4-byte aligned).
    const uint32_t prefix = s_prefix, total = s_total;
    const uint32_t shift =
        COMPACT_VEC_STORE ? uint32_t((reinterpret_cast<uintptr_t>(out) / 4 + prefix) & 3u) : 0u;

    // Stage: each kept element to its slot shift + (place inside the tile's run).
    const uint32_t warp_slot = shift + s_warp[warp];
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        uint32_t slot = warp_slot + row_base[j];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const uint32_t bit = uint32_t(kept_bits >> (4 * j + k)) & 1u;
            if (bit) s_stage[slot] = x[j][k];
            slot += bit;
        }
    }
    if (kStageBarrier) __syncthreads();   // the whole run is staged before anyone copies it out

    // Coalesced copy of the staged slots [shift, shift + total) to out[prefix, prefix + total).
    if (COMPACT_VEC_STORE) {
        copy_out_16byte(out, s_stage, prefix, shift, total);
    } else {
        int32_t* dst = out + prefix;
        for (uint32_t i = threadIdx.x; i < total; i += kThreads) dst[i] = s_stage[i];
    }
}

template <bool kStageBarrier = true>
void compact_lookback(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
        return;
    }
    unsigned tiles = course::blocks_for(n, kTile);
    lookback::State st = lookback::prepare(2, tiles);
    if (reinterpret_cast<uintptr_t>(d_in) % 16 == 0)
        lookback_compact<true, kStageBarrier><<<tiles, kThreads>>>(d_in, d_out, d_count, n, pct, tiles, st);
    else
        lookback_compact<false, kStageBarrier><<<tiles, kThreads>>>(d_in, d_out, d_count, n, pct, tiles, st);
    CUDA_CHECK_LAST();
}

#ifndef COMPACT_03_NO_MAIN   // wrong/compact_stage_no_barrier.cu includes this file for its kernel
int main(int argc, char** argv) {
    compact::Limits lim;
    lim.huge_test = true;
    lim.tile = kTile;
    return compact::run_lesson(argc, argv, "compact_03_lookback", compact_lookback<true>, lim);
}
#endif
