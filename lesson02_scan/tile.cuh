// lesson02_scan/tile.cuh — how a block of the fast scans (05_reduce_then_scan and
// 06_decoupled_lookback) holds a tile in registers and scans it with warp shuffles.
//
// Layout ("warp-striped vectors"): a warp owns 32 * 4 * VECS consecutive elements. Row j of the
// warp is 128 consecutive elements; lane l holds elements 4l .. 4l+3 of each row as one 16-byte
// vector. So each of the VECS load instructions of a warp reads 512 contiguous bytes: fully
// coalesced, 4 elements per instruction, no shared memory needed to rearrange anything.
//   scan order = (row j, lane l, item k): element  warp_base + 128 j + 4 l + k
// A warp scans its elements with one warp scan per row (of the per-lane vector sums) and a
// carry from row to row.
#pragma once
#include <cstdint>

#include "primitives.cuh"

namespace scan {
namespace tile {

template <class T> struct Vec4;
template <> struct Vec4<uint32_t> { using type = uint4; };
template <> struct Vec4<float> { using type = float4; };

// Elements of one warp's share.
template <int VECS> __host__ __device__ constexpr int warp_items() { return 32 * 4 * VECS; }

// Loads a warp's share starting at element `warp_base` (a multiple of 4). Out-of-range elements
// read as `fill`. kAligned: `in` is 16-byte aligned, so whole rows may use vector loads.
template <class T, int VECS, bool kAligned>
__device__ __forceinline__ void load(const T* __restrict__ in, size_t n, size_t warp_base, T (&x)[VECS][4],
                                     T fill = T(0)) {
    using V = typename Vec4<T>::type;
    const int lane = threadIdx.x & 31;
    // The test for a whole share is made once, outside the loop: inside it, nvcc branched per row
    // and rebuilt each row's 64-bit address (about 9 instructions a row); here the 20 loads are one
    // address plus a constant offset each.
    if (kAligned && warp_base + warp_items<VECS>() <= n) {
        const V* v_in = reinterpret_cast<const V*>(in + warp_base) + lane;
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const V v = v_in[32 * j];
            x[j][0] = v.x;
            x[j][1] = v.y;
            x[j][2] = v.z;
            x[j][3] = v.w;
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < VECS; ++j) {
        const size_t e = warp_base + 128 * size_t(j) + 4 * lane;
#pragma unroll
        for (int k = 0; k < 4; ++k) x[j][k] = e + k < n ? in[e + k] : fill;
    }
}

// Exclusive prefix of each of this lane's vectors within the warp's share (in scan order), and
// the warp's total (returned, the same in every lane). Every lane of the warp must call it.
template <class T, int VECS> __device__ __forceinline__ T warp_scan(const T (&x)[VECS][4], T (&vec_prefix)[VECS]) {
    const int lane = threadIdx.x & 31;
    T warp_total = T(0);
#pragma unroll
    for (int j = 0; j < VECS; ++j) {
        const T t = (x[j][0] + x[j][1]) + (x[j][2] + x[j][3]);
        const T incl = warp_inclusive_scan(t);
        // exclusive = the lane below's inclusive (not incl - t: for floats that would cancel)
        const T below = __shfl_up_sync(kFullMask, incl, 1);
        vec_prefix[j] = warp_total + (lane == 0 ? T(0) : below);
        warp_total = warp_total + __shfl_sync(kFullMask, incl, 31);
    }
    return warp_total;
}

// Sum of everything this thread holds (for reductions: the order does not matter for integers;
// for floats it is one more rounding order among many).
template <class T, int VECS> __device__ __forceinline__ T thread_sum(const T (&x)[VECS][4]) {
    T s = T(0);
#pragma unroll
    for (int j = 0; j < VECS; ++j) s = s + ((x[j][0] + x[j][1]) + (x[j][2] + x[j][3]));
    return s;
}

// One output vector: y[k] = run + x[0..k-1] (exclusive) or + x[0..k] (inclusive).
template <class T> __device__ __forceinline__ void scanned_vec(const T (&x)[4], T run, bool exclusive, T (&y)[4]) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const T next = run + x[k];
        y[k] = exclusive ? run : next;
        run = next;
    }
}

// Writes the scanned share: element k of vector j becomes base + vec_prefix[j] + x[j][0..k-1]
// (exclusive) or + x[j][0..k] (inclusive). Out-of-range elements are not written. As in load, the
// whole-share test is made once, so the common path is 20 vector stores at constant offsets.
template <class T, int VECS, bool kAligned>
__device__ __forceinline__ void store(T* __restrict__ out, size_t n, size_t warp_base, const T (&x)[VECS][4],
                                      const T (&vec_prefix)[VECS], T base, bool exclusive) {
    using V = typename Vec4<T>::type;
    const int lane = threadIdx.x & 31;
    T y[4];
    if (kAligned && warp_base + warp_items<VECS>() <= n) {
        V* v_out = reinterpret_cast<V*>(out + warp_base) + lane;
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            scanned_vec(x[j], base + vec_prefix[j], exclusive, y);
            V v;
            v.x = y[0];
            v.y = y[1];
            v.z = y[2];
            v.w = y[3];
            v_out[32 * j] = v;
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < VECS; ++j) {
        scanned_vec(x[j], base + vec_prefix[j], exclusive, y);
        const size_t e = warp_base + 128 * size_t(j) + 4 * lane;
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (e + k < n) out[e + k] = y[k];
    }
}

// True when both pointers allow 16-byte vector accesses.
inline bool aligned16(const void* a, const void* b) {
    return reinterpret_cast<uintptr_t>(a) % 16 == 0 && reinterpret_cast<uintptr_t>(b) % 16 == 0;
}

}   // namespace tile
}   // namespace scan
