// compact_03_lookback — the best version: one pass, block offsets by decoupled look-back, output
// staged in shared memory so the writes coalesce.
//
// What changed since compact_02_warp_ballot:
//  * One kernel instead of count + scan + scatter: a block needs the number of elements that all
//    EARLIER tiles kept, which is a scan across blocks: decoupled look-back (lesson02's
//    lookback.cuh) gives it while the tile is still in registers. The input is read once.
//  * 16-byte loads: a thread holds 4 rows of 4 consecutive elements (uint4); a warp's load
//    instruction reads 512 contiguous bytes. The ballot trick extends to 4 elements per lane:
//    four ballots per row, and a lane's offset is the kept count of the lower lanes (popc of each
//    ballot under the lane mask) plus its own earlier elements.
//  * The kept elements are first written to shared memory at their place inside the tile, then
//    the block copies that contiguous run to global memory: thread t writes element t, t + 256,
//    ..., so every warp store covers 128 consecutive bytes even when only 10% are kept.
// Cost model: read 4n, write 4*kept, plus 8 bytes of status per 4096-element tile and one memset
// of them: the same bytes as CUB. One barrier pair for the block scan, one for the staging.
// Limits: n <= 2^31 - 1 (32-bit tile counts); 16 KB of shared memory per block for the stage.
//
// Build alone:  nvcc -O3 -arch=native -o compact03 compact_03_lookback.cu
// Run:          ./compact03 --n 2^28 --pct 50        ./compact03 --test
#include "compact.cuh"

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kVecs = 4;                        // rows of 4 elements per thread
constexpr int kItems = 4 * kVecs;               // 16 elements per thread
constexpr int kTile = kThreads * kItems;        // 4096 elements per block
constexpr int kWarpItems = 32 * kItems;         // 512 consecutive elements per warp

// kStageBarrier = false is the pitfall of wrong/compact_stage_no_barrier.cu (the barrier between
// staging and copying out left out).
template <bool kAligned, bool kStageBarrier = true>
__global__ void __launch_bounds__(kThreads)
lookback_compact(const int32_t* __restrict__ in, int32_t* __restrict__ out, uint32_t* __restrict__ count,
                 size_t n, uint32_t pct, unsigned tiles, lookback::State st) {
    __shared__ unsigned s_tile;
    __shared__ uint32_t s_warp[kWarps];
    __shared__ uint32_t s_prefix, s_total;
    __shared__ int32_t s_stage[kTile];

    // Tiles numbered in the order blocks start (see lookback.cuh): never wait for an unstarted one.
    const unsigned tile = lookback::next_tile(st, &s_tile);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    const size_t warp_base = size_t(tile) * kTile + size_t(warp) * kWarpItems;
    const bool full = warp_base + kWarpItems <= n;

    // Row j of lane l is elements warp_base + 128 j + 4 l + (0..3): memory order is (j, l, k).
    int32_t x[kVecs][4];
    bool f[kVecs][4];
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        size_t e = warp_base + 128 * size_t(j) + 4 * size_t(lane);
        if (kAligned && full) {
            int4 v = reinterpret_cast<const int4*>(in)[e / 4];
            x[j][0] = v.x; x[j][1] = v.y; x[j][2] = v.z; x[j][3] = v.w;
#pragma unroll
            for (int k = 0; k < 4; ++k) f[j][k] = compact::keep(x[j][k], pct);
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                bool valid = e + k < n;
                x[j][k] = valid ? in[e + k] : 0;
                f[j][k] = valid && compact::keep(x[j][k], pct);
            }
        }
    }

    // Offsets inside the warp from four ballots per row.
    uint32_t pos[kVecs][4];
    uint32_t warp_kept = 0;
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        unsigned m[4];
        uint32_t lower = 0;   // kept elements of this row in lanes below mine
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            m[k] = __ballot_sync(scan::kFullMask, f[j][k]);
            lower += __popc(m[k] & below);
        }
        uint32_t run = warp_kept + lower;
#pragma unroll
        for (int k = 0; k < 4; ++k) { pos[j][k] = run; run += f[j][k]; }
#pragma unroll
        for (int k = 0; k < 4; ++k) warp_kept += __popc(m[k]);
    }

    // Block: scan of the 8 warp counts; tile: publish, look back, publish the inclusive prefix.
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

    // Stage: each kept element to its place inside the tile's run.
    const uint32_t warp_offset = s_warp[warp];
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (f[j][k]) s_stage[warp_offset + pos[j][k]] = x[j][k];
    if (kStageBarrier) __syncthreads();   // the whole run is staged before anyone copies it out

    // Coalesced copy of the run [0, s_total) to out[s_prefix, ...).
    const uint32_t total = s_total;
    int32_t* dst = out + s_prefix;
    for (uint32_t i = threadIdx.x; i < total; i += kThreads) dst[i] = s_stage[i];
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
    return compact::run_lesson(argc, argv, "compact_03_lookback", compact_lookback<true>, lim);
}
#endif
