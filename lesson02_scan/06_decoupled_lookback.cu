// 06_decoupled_lookback — the best version: one pass, one kernel, decoupled look-back
// (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//
// What changed since 05: 05 reads the input twice because a block learns the sum of the tiles
// before it only after a kernel boundary. Here a block scans its tile of 10240 elements in
// registers (tile.cuh, as 05) and asks its predecessors directly through one 64-bit status word
// per tile (lookback.cuh): it publishes AGGREGATE (its own total), warp 0 looks back 32 tiles at a
// time adding AGGREGATEs until it meets a PREFIX, then it publishes PREFIX and writes its output.
// Tiles are numbered in the order blocks start (an atomic counter): a tile only ever waits for
// running tiles, so there is no deadlock.
// Cost model: read n, write n (a copy's bytes) + 8 bytes of status per tile; 2 barriers per tile.
// Limits: the memory system; for small n the look-back latency and the launch.
// Compaction (lesson 03) and radix sort (lesson 04) call this scan: scan.cuh includes this file
// with COURSE_NO_MAIN defined, so they get the kernel and scan::device_scan without main.
//
// Build alone:  nvcc -O3 -arch=native -o lookback 06_decoupled_lookback.cu
// Run:          ./lookback --n 2^28          ./lookback --test          ./lookback --type float32
#include <cstdint>

#include "../common/device.cuh"
#include "lesson.cuh"
#include "lookback.cuh"
#include "primitives.cuh"
#include "tile.cuh"

namespace scan {

namespace detail {

// The tile: 128 threads x 20 vectors of 4 = 80 elements per thread, 10240 per tile, 128
// registers, no spills. Bigger tiles mean fewer tiles to look back over and more bytes in flight
// per thread; the shapes measured against CUB (128 x 12 to 128 x 32, 256 x 8, 64 x 32) are in
// TUNING.md: 128 x 20 was the best.
constexpr int kScanBlock = 128;   // threads per block
constexpr int kScanVecs = 20;     // 16-byte vectors per thread
constexpr int kScanItems = 4 * kScanVecs;
constexpr int kScanTile = kScanBlock * kScanItems;   // 10240 elements per tile

// How a tile learns the sum of all tiles before it. Called by warp 0 of the block only, for
// tile > 0, after the tile published its AGGREGATE; returns the exclusive prefix to every lane.
// (exercises/lookback_loop.cu plugs in its own version of this.)
struct DecoupledLookback {
    template <class T> __device__ static T prefix(unsigned long long* status, unsigned tile) {
        return lookback::warp_lookback<T>(status, tile);
    }
};

// Same tile scan as 05's scan_pass, but a block learns the sum of the tiles before it from their
// status words (look-back) instead of from a reduce pass and a kernel boundary.
// T is uint32_t (int32 scans run as uint32 so that overflow wraps, as the semantics require) or float.
template <class T, bool kAligned, class Lookback>
__global__ void __launch_bounds__(kScanBlock)
    lookback_scan_kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, bool exclusive, lookback::State st) {
    __shared__ unsigned s_tile;
    __shared__ T s_warp_prefix[kScanBlock / 32];
    __shared__ T s_tile_prefix;

    // Tile numbers in the order blocks start (not blockIdx): a tile only ever waits for tiles whose
    // blocks are already running, so the look-back cannot deadlock.
    const unsigned tile = lookback::next_tile(st, &s_tile);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t warp_base = size_t(tile) * kScanTile + size_t(warp) * tile::warp_items<kScanVecs>();

    T x[kScanVecs][4];
    tile::load<T, kScanVecs, kAligned>(in, n, warp_base, x);
    T vec_prefix[kScanVecs];
    const T warp_total = tile::warp_scan(x, vec_prefix);

    // Block level: exclusive scan of the 4 warp totals, by warp 0.
    if (lane == 0) s_warp_prefix[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        T w = lane < kScanBlock / 32 ? s_warp_prefix[lane] : T(0);
        T w_incl = warp_inclusive_scan(w);
        T block_total = __shfl_sync(kFullMask, w_incl, kScanBlock / 32 - 1);
        T below = __shfl_up_sync(kFullMask, w_incl, 1);
        if (lane < kScanBlock / 32) s_warp_prefix[lane] = lane == 0 ? T(0) : below;

        // Tile level: publish our aggregate at once (so later tiles need not wait for our
        // look-back), then look back for everything before us, then publish our inclusive prefix.
        T tile_prefix = T(0);
        if (tile == 0) {
            if (lane == 0) lookback::publish(st.status, lookback::kPrefix, lookback::to_bits(block_total));
        } else {
            if (lane == 0) lookback::publish(st.status + tile, lookback::kAggregate, lookback::to_bits(block_total));
            tile_prefix = Lookback::template prefix<T>(st.status, tile);
            if (lane == 0)
                lookback::publish(st.status + tile, lookback::kPrefix, lookback::to_bits(tile_prefix + block_total));
        }
        if (lane == 0) s_tile_prefix = tile_prefix;
    }
    __syncthreads();

    tile::store<T, kScanVecs, kAligned>(out, n, warp_base, x, vec_prefix, s_tile_prefix + s_warp_prefix[warp],
                                        exclusive);
}

// The launch: one block per tile, whatever the GPU (nothing here reads course::device()); --plan
// prints this, and the launcher below uses it.
struct ScanLaunch {
    size_t tiles = 0;
    unsigned grid = 0;
};
inline ScanLaunch lookback_scan_launch(size_t n) {
    return {(n + kScanTile - 1) / kScanTile, course::blocks_for(n, kScanTile)};
}

template <class T, class Lookback = DecoupledLookback>
void launch_lookback_scan(const T* in, T* out, size_t n, Kind kind, int scratch_slot, cudaStream_t stream) {
    if (n == 0) return;
    const ScanLaunch plan = lookback_scan_launch(n);
    lookback::State st = lookback::prepare(scratch_slot, plan.tiles, stream);
    bool excl = kind == Kind::exclusive;
    if (tile::aligned16(in, out))
        lookback_scan_kernel<T, true, Lookback><<<plan.grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
    else lookback_scan_kernel<T, false, Lookback><<<plan.grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
    CUDA_CHECK_LAST();
}

}   // namespace detail

// The entry points other programs call (through scan.cuh). `scratch_slot` picks which cached
// scratch buffer holds the tile statuses (see course::scratch): callers that run several scans at
// once give each its own slot.
inline void device_scan(const uint32_t* in, uint32_t* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(in, out, n, kind, scratch_slot, stream);
}
inline void device_scan(const int32_t* in, int32_t* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n, kind,
                                 scratch_slot, stream);
}
inline void device_scan(const float* in, float* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(in, out, n, kind, scratch_slot, stream);
}

}   // namespace scan

#ifndef COURSE_NO_MAIN   // scan.cuh (compaction, radix sort) and exercises/lookback_loop.cu include this file
// --plan: the kernel's shape, which no GPU limit changes (a tile of 10240 elements, 128 threads).
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    const scan::detail::ScanLaunch plan = scan::detail::lookback_scan_launch(c.n);
    return std::vector<course::KernelPlan>{{"lookback_scan_kernel", scan::detail::kScanBlock, 0, 0, 1,
                                            std::to_string(plan.grid) + " blocks, one per tile of " +
                                                std::to_string(scan::detail::kScanTile) +
                                                " elements; static shared memory only; the same on every GPU"}};
});

// Scratch slot 1 for the tile statuses (the harness's slot 0 convention is "the version's own").
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = scan::detail::kScanTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "06_decoupled_lookback", scan_int, scan_float, limits);
}
#endif
