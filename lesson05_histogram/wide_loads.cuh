// lesson05_histogram/wide_loads.cuh — reading the input in 16-byte vectors, shared by versions
// 03 to 06 (03 introduces it; the later versions change only what happens to each sample).
//
// Why 16 bytes: a warp that loads one byte per thread moves 32 bytes per instruction; with uint4
// loads it moves 512 bytes, so 16x fewer load instructions for the same data and more bytes in
// flight per thread (the memory system needs ~bandwidth x latency bytes in flight to stay busy).
// Each thread issues kVecs loads back to back before using any of them.
//
// The input need not be 16-byte aligned (an offset pointer, a slice): the first `head` samples up
// to the first aligned address and the `tail` after the last whole vector are done one at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "../common/harness.cuh"

namespace hist {

// Calls visit.one(sample) for the unaligned head and tail samples and visit.vec(v) for every whole
// 16-byte vector v (16 bytes or 4 keys), over in[0, n). Grid-stride: any grid size works.
// kSyncEachRound: a __syncthreads() after each round of kVecs vectors per thread, with the loop
// count uniform across the block (05_large_bins relies on it to bound what a round can add to a counter).
template <int kVecs, bool kSyncEachRound = false, class T, class Visit>
__device__ __forceinline__ void for_each_vector(const T* in, size_t n, Visit& visit) {
    constexpr int kPer = 16 / sizeof(T);
    const size_t gid = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    // Samples before the first 16-byte boundary.
    size_t head = ((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / sizeof(T);
    if (head > n) head = n;
    const size_t nvec = (n - head) / kPer;
    const size_t tail_begin = head + nvec * kPer;
    if (gid < head) visit.one(uint32_t(in[gid]));
    if (gid < n - tail_begin) visit.one(uint32_t(in[tail_begin + gid]));

    const uint4* vin = reinterpret_cast<const uint4*>(in + head);
    const size_t round = size_t(gridDim.x) * blockDim.x * kVecs;   // vectors per grid round
    for (size_t base = size_t(blockIdx.x) * blockDim.x * kVecs; base < nvec; base += round) {
        uint4 v[kVecs];
#pragma unroll
        for (int k = 0; k < kVecs; ++k) v[k] = make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < kVecs; ++k) {                             // all loads first: kVecs x 16 bytes in flight
            size_t i = base + size_t(k) * blockDim.x + threadIdx.x;   // coalesced for each k
            if (i < nvec) v[k] = __ldcs(vin + i);                     // streaming: read once, do not keep in L2
        }
#pragma unroll
        for (int k = 0; k < kVecs; ++k)
            if (base + size_t(k) * blockDim.x + threadIdx.x < nvec) visit.vec(v[k]);
        if constexpr (kSyncEachRound) __syncthreads();
    }
}

// The samples of one vector, in memory order: 16 bytes (little-endian) or 4 keys.
template <class T, class F> __device__ __forceinline__ void for_each_in_vector(const uint4& v, F&& f) {
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if constexpr (sizeof(T) == 1) {
#pragma unroll
            for (int b = 0; b < 4; ++b) f((w[j] >> (8 * b)) & 255u);
        } else {
            f(w[j]);
        }
    }
}

// ---- host side: a grid sized to the GPU (the shared-memory opt-in is course::allow_dynamic_smem) ---

// As many blocks as fit on the GPU at once (occupancy x SMs), but no more than there is work for:
// every block then loops over its share, and the per-block setup (zeroing, merging) is paid once
// per resident block instead of once per tile.
template <class Kernel>
unsigned grid_for_gpu(Kernel kernel, int block, size_t smem, size_t work_items, size_t items_per_block) {
    static std::map<std::tuple<const void*, int, size_t>, int> cache;
    auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), block, smem);
    auto it = cache.find(key);
    if (it == cache.end()) {
        const int per_sm = course::resident_blocks(kernel, block, smem);   // a GPU profile caps it
        if (per_sm < 1)
            throw course::SkipCase("kernel does not fit on an SM with " + std::to_string(smem) +
                                   " bytes of shared memory");
        it = cache.emplace(key, per_sm).first;
    }
    size_t full = size_t(it->second) * course::device().sm_count;
    size_t needed = (work_items + items_per_block - 1) / items_per_block;
    return unsigned(std::max<size_t>(1, std::min(full, needed)));
}

// The launch of every counting kernel here but 06's cluster launch: opt in to `smem` bytes of
// dynamic shared memory, size the grid with grid_for_gpu, launch, check the launch.
template <class... Params, class... Args>
void launch_resident(void (*kernel)(Params...), int block, size_t smem, size_t work_items, size_t items_per_block,
                     Args... args) {
    course::allow_dynamic_smem(kernel, smem);
    const unsigned grid = grid_for_gpu(kernel, block, smem, work_items, items_per_block);
    kernel<<<grid, block, smem>>>(args...);
    CUDA_CHECK_LAST();
}

// Largest dynamic shared memory a block may opt in to on this GPU, in bytes.
inline size_t smem_optin() { return course::device().max_smem_optin; }

}   // namespace hist
