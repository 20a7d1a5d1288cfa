// lesson01_topk/order_results.cuh — the radix selects' last step: K3 (or the one-launch path's write
// phase) leaves the k results unordered, in atomic positions; this puts them best first.
//
//   order_results(d_in, n, k, res_keys, res_idx, d_vals, d_idx);   // values and input indices
//
// k <= 4096 (kSmallSortMax): each result goes to position #{results larger than it}, counted by a
// warp over a shared-memory copy of the k packed (key, index) values, which are all distinct, so the
// ranks are a permutation (rank_and_write; topk_06's one-launch path calls it directly). Larger k:
// CUB's radix sort of the k pairs, then a gather of their values.
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include "radix_select.cuh"

namespace topk {
namespace radix {

// k > 4096: CUB's radix sort orders the k pairs; this gathers their values into the output.
template <class T>
__global__ void gather_sorted(const T* __restrict__ in, size_t n, const uint32_t* __restrict__ idx, size_t k,
                              T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    out_idx[j] = idx[j];
    if (idx[j] < n) out_vals[j] = in[idx[j]];
}

constexpr int kSmallWarps = kBlock / 32;   // warps a block

// Results r0 .. r0 + R - 1 (those < k) of the k in s[] (distinct packed values) each go to position
// #{results larger than it}: one warp, one pass over s[] with the k compares per result spread
// over its lanes, then a warp sum per result; lane 0 writes index and value.
template <int R, class T>
__device__ __forceinline__ void rank_and_write(const uint64_t* s, uint32_t k, uint32_t r0, int lane,
                                               const T* __restrict__ in, size_t n, T* __restrict__ out_vals,
                                               uint32_t* __restrict__ out_idx) {
    uint64_t mine[R];
    uint32_t above[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
        mine[q] = r0 + q < k ? s[r0 + q] : ~uint64_t(0);   // past k: ranked, never written
        above[q] = 0;
    }
    for (uint32_t j = lane; j < k; j += 32) {
        const uint64_t v = s[j];
#pragma unroll
        for (int q = 0; q < R; ++q) above[q] += v > mine[q];
    }
#pragma unroll
    for (int q = 0; q < R; ++q) {
        const uint32_t a = scan::warp_reduce(above[q], scan::Plus{});
        if (lane == 0 && r0 + q < k && a < k) {   // (a broken version may leave slots unset)
            const uint32_t i = packed_index(mine[q]);
            out_idx[a] = i;
            if (i < n) out_vals[a] = in[i];
        }
    }
}

// The last step for k <= 4096: K3 leaves the k results unordered (atomic positions); each goes to
// position #{results larger than it}, counted over ceil(k / 32) blocks: each block copies the k
// results to shared memory (every load issued before the first store), each warp ranks 4 of them
// in one pass. k^2 compares spread over many blocks beat one block's bitonic sort (66
// barrier-separated steps at k = 2048).
constexpr uint32_t kRankPerWarp = 4;   // results per warp
// Orders K3's k results by counting (rank_and_write), 4 results a warp.
template <class T>
__global__ void __launch_bounds__(kBlock)
    rank_results(const T* __restrict__ in, size_t n, const uint32_t* __restrict__ keys,
                 const uint32_t* __restrict__ idx, uint32_t k, T* __restrict__ out_vals,
                 uint32_t* __restrict__ out_idx) {
    constexpr int kPerThread = int(kSmallSortMax) / kBlock;
    __shared__ uint64_t s[kSmallSortMax];
    uint32_t key[kPerThread], id[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const uint32_t i = threadIdx.x + uint32_t(u) * kBlock;
        key[u] = i < k ? keys[i] : 0;
        id[u] = i < k ? idx[i] : 0;
    }
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const uint32_t i = threadIdx.x + uint32_t(u) * kBlock;
        if (i < k) s[i] = pack(key[u], id[u]);
    }
    __syncthreads();
    const uint32_t first = (blockIdx.x * kSmallWarps + threadIdx.x / 32) * kRankPerWarp;
    if (first < k) rank_and_write<kRankPerWarp>(s, k, first, int(threadIdx.x & 31), in, n, out_vals, out_idx);
}

// The k results of K3 (unordered) to d_vals/d_idx, best first.
template <class T>
void order_results(const T* d_in, size_t n, size_t k, uint32_t* out_keys, uint32_t* out_idx, T* d_vals,
                   uint32_t* d_idx) {
    if (k <= kSmallSortMax) {
        const uint32_t per_block = kSmallWarps * kRankPerWarp;
        rank_results<T><<<unsigned((k + per_block - 1) / per_block), kBlock>>>(d_in, n, out_keys, out_idx, uint32_t(k),
                                                                               d_vals, d_idx);
        CUDA_CHECK_LAST();
    } else {
        uint32_t* sk = course::scratch_as<uint32_t>(4, k);
        uint32_t* si = course::scratch_as<uint32_t>(5, k);
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, out_keys, sk, out_idx, si, int(k)));
        void* temp = course::scratch(6, bytes);
        CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, bytes, out_keys, sk, out_idx, si, int(k)));
        CUDA_CHECK_LAST();
        gather_sorted<<<course::blocks_for(k, 256), 256>>>(d_in, n, si, k, d_vals, d_idx);
        CUDA_CHECK_LAST();
    }
}

}   // namespace radix
}   // namespace topk
