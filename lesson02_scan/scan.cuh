// lesson02_scan/scan.cuh — the lesson's best scan as a reusable function:
//
//   scan::device_scan(d_in, d_out, n, scan::Kind::exclusive);    // int32, uint32 or float
//
// One kernel, one pass: each block scans a tile of 10240 elements in registers (80 per thread,
// loaded as twenty 16-byte vectors, warp-striped so every load instruction is one coalesced 512-byte
// request), then learns the sum of all earlier tiles by decoupled look-back (lookback.cuh) and
// writes its output. The input is read once and the output written once: the cost of a copy.
// 06_decoupled_lookback.cu is this version's program; compaction and radix sort include it.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/device.cuh"
#include "lookback.cuh"
#include "primitives.cuh"
#include "tile.cuh"

namespace scan {

namespace detail {

// The tile: 128 threads x 20 vectors of 4 = 80 elements per thread, 10240 per tile, 128
// registers, no spills. Bigger tiles mean fewer tiles to look back over and more bytes in flight
// per thread. Measured on the H100 at 2^28 int32 against CUB in the same run (TUNING.md):
// 128 x 12 vectors 0.99x, 128 x 16 1.01x, 128 x 20 1.02x, 128 x 24 1.01x, 128 x 32 0.99x,
// 256 x 8 0.97x, 64 x 32 0.95x.
constexpr int kScanBlock = 128;   // threads per block
constexpr int kScanVecs = 20;     // 16-byte vectors per thread
constexpr int kScanItems = 4 * kScanVecs;
constexpr int kScanTile = kScanBlock * kScanItems;   // 10240 elements per tile

// How a tile learns the sum of all tiles before it. Called by warp 0 of the block only, for
// tile > 0, after the tile published its AGGREGATE; returns the exclusive prefix to every lane.
// (exercises/lookback_loop.cu plugs in its own version of this.)
struct DecoupledLookback {
    template <class T>
    __device__ static T prefix(unsigned long long* status, unsigned tile) {
        return lookback::warp_lookback<T>(status, tile);
    }
};

// T is uint32_t (int32 scans run as uint32 so that overflow wraps, as the semantics require) or float.
template <class T, bool kAligned, class Lookback>
__global__ void __launch_bounds__(kScanBlock)
lookback_scan_kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, bool exclusive,
                     lookback::State st) {
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

template <class T, class Lookback = DecoupledLookback>
void launch_lookback_scan(const T* in, T* out, size_t n, Kind kind, int scratch_slot, cudaStream_t stream) {
    if (n == 0) return;
    size_t tiles = (n + kScanTile - 1) / kScanTile;
    unsigned grid = course::blocks_for(n, kScanTile);
    lookback::State st = lookback::prepare(scratch_slot, tiles, stream);
    bool excl = kind == Kind::exclusive;
    if (tile::aligned16(in, out))
        lookback_scan_kernel<T, true, Lookback><<<grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
    else
        lookback_scan_kernel<T, false, Lookback><<<grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
    CUDA_CHECK_LAST();
}

}  // namespace detail

// The public entry points. `scratch_slot` picks which cached scratch buffer holds the tile
// statuses (see course::scratch): callers that run several scans at once give each its own slot.
inline void device_scan(const uint32_t* in, uint32_t* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(in, out, n, kind, scratch_slot, stream);
}
inline void device_scan(const int32_t* in, int32_t* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n,
                                 kind, scratch_slot, stream);
}
inline void device_scan(const float* in, float* out, size_t n, Kind kind, int scratch_slot = 7,
                        cudaStream_t stream = 0) {
    detail::launch_lookback_scan(in, out, n, kind, scratch_slot, stream);
}

}  // namespace scan
