// lesson01_topk/insertion.cuh — the seed's design, written fresh: per-thread top-k lists kept by
// insertion, a merge tree in shared memory, and device-wide passes that shrink the candidates.
// topk_01_seed_insertion.cu runs two passes (the seed's shape); topk_02_multipass.cu runs as many as needed
// so the last pass is small; exercises/insertion_step.cu has the insertion step cut out.
//
// Every list holds packed (key, index) values (lesson.cuh: pack()), largest first; the empty slot is
// kEmpty (0), below every real element, so a list that never filled up simply ends in kEmpty.
//
// Where the lists live: thread t's list is column t of a [k][BLOCK] array in shared memory
// (element j at list[j * BLOCK]): consecutive threads touch consecutive 8-byte words, so a warp's
// accesses to "its element j" never conflict. The seed kept each list in a per-thread array
// indexed at run time, which the compiler must put in local memory (off-chip, cached): see
// wrong/local_list.cu and the README for how to see that traffic.
#pragma once
#include "lesson.cuh"

namespace topk {
namespace insertion {

// k <= 128 and BLOCK * k * 8 bytes <= 32 KB of shared memory per block: the cap of this design
// (the lists grow as BLOCK * k; that is what caps k).
constexpr size_t kMaxK = 128;
inline int block_for_k(size_t k) { return k <= 32 ? 128 : k <= 64 ? 64 : 32; }

// The insertion step: list[0..k) (stride apart, largest first) gets x if x beats its smallest.
// Larger elements move down one place to make room; the smallest falls off the end.
struct Insert {
    __device__ __forceinline__ static void apply(uint64_t* list, int stride, int k, uint64_t x) {
        if (x <= list[(k - 1) * stride]) return;   // not better than the current k-th
        int j = k - 1;
        while (j > 0 && list[(j - 1) * stride] < x) {   // shift the smaller ones down
            list[j * stride] = list[(j - 1) * stride];
            --j;
        }
        list[j * stride] = x;
    }
};

// The merge tree: in each round the lower half of the live lists absorbs the upper half, by
// inserting the other list's elements one by one (the seed's way: O(k) per insertion). The other
// list is sorted, so the first element that does not fit ends the merge. lists is [k][blockDim.x];
// afterwards column 0 holds the block's top k. Contains barriers: call from every thread.
template <class Ins = Insert> __device__ inline void merge_tree(uint64_t* lists, int k) {
    const int stride = blockDim.x, t = threadIdx.x;
    uint64_t* mine = lists + t;
    for (int half = stride / 2; half > 0; half /= 2) {
        if (t < half) {
            const uint64_t* other = lists + t + half;
            for (int j = 0; j < k; ++j) {
                uint64_t x = other[j * stride];
                if (x <= mine[(k - 1) * stride]) break;
                Ins::apply(mine, stride, k, x);
            }
        }
        __syncthreads();   // the round is finished before the next reads it
    }
}

// One pass: m elements (the input, turned into packed keys, or packed candidates from an earlier
// pass) -> one list of k per block, written to out[blockIdx.x * k .. + k).
template <class T, bool kFromInput, class Ins = Insert>
__global__ void insertion_pass(const T* __restrict__ in, const uint64_t* __restrict__ cand, size_t m, int k,
                               bool smallest, uint64_t* __restrict__ out) {
    extern __shared__ uint64_t lists[];   // [k][blockDim.x]
    const int stride = blockDim.x, t = threadIdx.x;
    uint64_t* mine = lists + t;
    for (int j = 0; j < k; ++j) mine[j * stride] = kEmpty;
    // Each thread walks a grid-stride slice of the elements (coalesced reads) into its own list.
    uint64_t floor = kEmpty;   // a register copy of my k-th: most elements stop here
    for (size_t i = blockIdx.x * size_t(stride) + t; i < m; i += size_t(gridDim.x) * stride) {
        uint64_t x = kFromInput ? pack(to_key(in[i], smallest), uint32_t(i)) : cand[i];
        if (x <= floor) continue;
        Ins::apply(mine, stride, k, x);
        floor = mine[(k - 1) * stride];
    }
    __syncthreads();
    merge_tree<Ins>(lists, k);
    // List 0 is the block's answer: all threads copy it out (the seed had thread 0 do it alone).
    for (int j = t; j < k; j += stride) out[blockIdx.x * size_t(k) + j] = lists[j * stride];
}

// Launches one pass over m elements with `grid` blocks; returns the number of candidates written.
template <class T, bool kFromInput, class Ins = Insert>
size_t run_pass(const T* in, const uint64_t* cand, size_t m, size_t k, bool smallest, uint64_t* out, unsigned grid) {
    int block = block_for_k(k);
    size_t smem = size_t(block) * k * sizeof(uint64_t);
    insertion_pass<T, kFromInput, Ins><<<grid, block, smem>>>(in, cand, m, int(k), smallest, out);
    CUDA_CHECK_LAST();
    return size_t(grid) * k;
}

// The seed's shape: pass 1 over the input with `grid1` blocks, then one block over the
// grid1 * k candidates, then the k results are written out.
template <class T, class Ins = Insert>
void two_pass(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx, unsigned grid1) {
    uint64_t* cand = course::scratch_as<uint64_t>(0, size_t(grid1) * k);
    uint64_t* best = course::scratch_as<uint64_t>(1, k);
    size_t m = run_pass<T, true, Ins>(d_in, nullptr, n, k, smallest, cand, grid1);
    run_pass<T, false, Ins>(d_in, cand, m, k, smallest, best, 1);
    write_packed<<<course::blocks_for(k, 256), 256>>>(d_in, n, best, k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

inline Limits limits() {
    Limits lim;
    lim.max_k = kMaxK;
    lim.why = "per-thread lists in shared memory: block * k * 8 bytes";
    return lim;
}

}   // namespace insertion
}   // namespace topk
