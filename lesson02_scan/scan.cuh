// lesson02_scan/scan.cuh — the lesson's best scan as a reusable function:
//
//   scan::device_scan(d_in, d_out, n, scan::Kind::exclusive);    // int32, uint32 or float
//
// One kernel, one pass: each block scans a tile of 4096 elements in registers (16 per thread,
// loaded as four 16-byte vectors, warp-striped so every load instruction is one coalesced 512-byte
// request), then learns the sum of all earlier tiles by decoupled look-back (lookback.cuh) and
// writes its output. The input is read once and the output written once: the cost of a copy.
// 06_decoupled_lookback.cu is this version's program; compaction and radix sort include it.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/device.cuh"
#include "lookback.cuh"
#include "primitives.cuh"

namespace scan {

namespace detail {

constexpr int kScanBlock = 256;         // threads per block
constexpr int kScanVecs = 4;            // 16-byte vectors per thread
constexpr int kScanItems = 4 * kScanVecs;
constexpr int kScanTile = kScanBlock * kScanItems;   // 4096 elements per tile

template <class T> struct Vec4;
template <> struct Vec4<uint32_t> { using type = uint4; };
template <> struct Vec4<float> { using type = float4; };

// T is uint32_t (int32 scans run as uint32 so that overflow wraps, as the semantics require) or float.
template <class T, bool kAligned>
__global__ void __launch_bounds__(kScanBlock)
lookback_scan_kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, bool exclusive,
                     lookback::State st) {
    using V = typename Vec4<T>::type;
    __shared__ unsigned s_tile;
    __shared__ T s_warp_totals[kScanBlock / 32];
    __shared__ T s_tile_prefix;

    const unsigned tile = lookback::next_tile(st, &s_tile);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // A warp owns 32 * 16 consecutive elements; vector j of lane l is elements
    // warp_base + 4 * (32 * j + l) .. +3, so each of the 4 loads is contiguous across the warp.
    const size_t warp_base = size_t(tile) * kScanTile + size_t(warp) * 32 * kScanItems;
    const bool full = warp_base + 32 * kScanItems <= n;

    T x[kScanVecs][4];
#pragma unroll
    for (int j = 0; j < kScanVecs; ++j) {
        size_t e = warp_base + 4 * (32 * size_t(j) + lane);
        if (kAligned && full) {
            V v = reinterpret_cast<const V*>(in)[e / 4];
            x[j][0] = v.x; x[j][1] = v.y; x[j][2] = v.z; x[j][3] = v.w;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) x[j][k] = e + k < n ? in[e + k] : T(0);
        }
    }

    // Per vector: its total; per warp: an exclusive scan of the vector totals in the order
    // (row j, lane); the carry from row j-1 to row j is the whole warp's total of row j-1.
    T vec_prefix[kScanVecs];
    T warp_total = T(0);
#pragma unroll
    for (int j = 0; j < kScanVecs; ++j) {
        T t = x[j][0] + x[j][1] + x[j][2] + x[j][3];
        T incl = warp_inclusive_scan(t);
        T below = __shfl_up_sync(kFullMask, incl, 1);   // not incl - t: floats would cancel badly
        vec_prefix[j] = warp_total + (lane == 0 ? T(0) : below);
        warp_total = warp_total + __shfl_sync(kFullMask, incl, 31);
    }

    // Block level: exclusive scan of the warp totals.
    if (lane == 0) s_warp_totals[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        T w = lane < kScanBlock / 32 ? s_warp_totals[lane] : T(0);
        T w_incl = warp_inclusive_scan(w);
        T block_total = __shfl_sync(kFullMask, w_incl, kScanBlock / 32 - 1);
        T below = __shfl_up_sync(kFullMask, w_incl, 1);
        if (lane < kScanBlock / 32) s_warp_totals[lane] = lane == 0 ? T(0) : below;

        // Tile level: publish our aggregate at once, then look back for everything before us.
        T tile_prefix = T(0);
        if (tile == 0) {
            if (lane == 0) lookback::publish(st.status, lookback::kPrefix, lookback::to_bits(block_total));
        } else {
            if (lane == 0) lookback::publish(st.status + tile, lookback::kAggregate, lookback::to_bits(block_total));
            tile_prefix = lookback::warp_lookback<T>(st.status, tile);
            if (lane == 0)
                lookback::publish(st.status + tile, lookback::kPrefix, lookback::to_bits(tile_prefix + block_total));
        }
        if (lane == 0) s_tile_prefix = tile_prefix;
    }
    __syncthreads();

    const T base = s_tile_prefix + s_warp_totals[warp];
#pragma unroll
    for (int j = 0; j < kScanVecs; ++j) {
        T run = base + vec_prefix[j];
        T y[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            T next = run + x[j][k];
            y[k] = exclusive ? run : next;
            run = next;
        }
        size_t e = warp_base + 4 * (32 * size_t(j) + lane);
        if (kAligned && full) {
            V v; v.x = y[0]; v.y = y[1]; v.z = y[2]; v.w = y[3];
            reinterpret_cast<V*>(out)[e / 4] = v;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) if (e + k < n) out[e + k] = y[k];
        }
    }
}

template <class T>
void launch_lookback_scan(const T* in, T* out, size_t n, Kind kind, int scratch_slot, cudaStream_t stream) {
    if (n == 0) return;
    size_t tiles = (n + kScanTile - 1) / kScanTile;
    unsigned grid = course::blocks_for(n, kScanTile);
    lookback::State st = lookback::prepare(scratch_slot, tiles, stream);
    bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
    bool excl = kind == Kind::exclusive;
    if (aligned) lookback_scan_kernel<T, true><<<grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
    else lookback_scan_kernel<T, false><<<grid, kScanBlock, 0, stream>>>(in, out, n, excl, st);
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
