// 03_bitonic — bitonic sort: a sorting network, tiles in shared memory plus global merge steps,
// for ANY n (not only powers of two).
//
// What changed since 01: the bitonic network needs log2(P) (log2(P) + 1) / 2 steps for P = n
// rounded up to a power of two (2^20 keys: 210 steps instead of a million), each still n/2
// independent compare-exchanges: O(n log^2 n) work, the price of being data-independent.
//   steps:  the stages up to TILE = 4096 keys run in one block in shared memory (78 steps, one
//           barrier each, one launch); in every later stage the steps whose partners are TILE or
//           more apart are global launches, and the rest (12 steps) runs inside each tile again
//   bytes:  2^28 uint32: 136 global steps + 16 tile launches + 1 tile sort: ~300 GB of traffic
// Any n: in the "always ascending" network every compare-exchange puts the smaller key at the lower
// index, so the virtual +infinity padding at positions >= n never moves and a step whose partner
// is >= n is skipped; no key value is reserved as a sentinel.
// What limits it: ~150 passes over global memory; 04 merges sorted tiles in log2(n / 4096) passes.
// Keys: uint32, int32, float32, uint64. Not stable (no pairs).
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o bitonic 03_bitonic.cu
// Run:          ./bitonic --n 1000003     ./bitonic --test
#include "comparison.cuh"

constexpr int kBlock = 512;
constexpr int kItems = 8;
constexpr int kTile = kBlock * kItems;   // 4096 keys sorted per block in shared memory

namespace sorting {
namespace cmp {

// Delta from the tile sort: a step whose partners are TILE or more apart cannot stay in one
// block, so it is a launch of its own over all keys, one thread per pair (grid-stride over P/2).
template <class K> __global__ void bitonic_global_step(K* data, size_t n, size_t pairs, size_t k, size_t j) {
    for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < pairs; t += size_t(gridDim.x) * blockDim.x) {
        size_t i, p;
        bitonic_pair(t, k, j, i, p);
        if (p < n) {
            K a = data[i], b = data[p];
            if (key_less(b, a)) {
                data[i] = b;
                data[p] = a;
            }   // write only when something moves
        }
    }
}

// The half-cleaners j = TILE/2 .. 1 of a stage k > TILE, on one tile in shared memory: every
// pair (i, i + j) with j < TILE lies inside one aligned tile, so a block finishes the stage alone
// with barriers instead of one launch per step. `data` is the whole array; the tile is blockIdx.x.
template <int BLOCK, int ITEMS, class K> __device__ void block_bitonic_merge_tail(K* data, size_t n, K* s) {
    constexpr int TILE = BLOCK * ITEMS;
    const size_t base = size_t(blockIdx.x) * TILE;
    const int count = int(n - base < size_t(TILE) ? n - base : size_t(TILE));
    for (int x = threadIdx.x; x < count; x += BLOCK) s[x] = data[base + x];
    __syncthreads();
    for (int j = TILE / 2; j >= 1; j /= 2) {
        for (int t = threadIdx.x; t < TILE / 2; t += BLOCK) {
            int i = (t / j) * 2 * j + t % j;
            if (i + j < count) compare_exchange(s[i], s[i + j]);
        }
        __syncthreads();
    }
    for (int x = threadIdx.x; x < count; x += BLOCK) data[base + x] = s[x];
}

// Delta from the tile sort: the same shared-memory loop, but it starts at step TILE/2 of a stage
// k > TILE (the global steps above did the rest of the stage), so each tile needs no new launch per step.
template <int BLOCK, int ITEMS, class K>
__global__ void __launch_bounds__(BLOCK) bitonic_tile_merge_kernel(K* data, size_t n) {
    __shared__ K s[BLOCK * ITEMS];
    block_bitonic_merge_tail<BLOCK, ITEMS>(data, n, s);
}

}   // namespace cmp
}   // namespace sorting

template <class K> void bitonic_sort(const K* d_in, K* d_out, size_t n) {
    using namespace sorting::cmp;
    if (n == 0) return;
    const unsigned tiles = course::blocks_for(n, kTile);
    // Stages 2 .. TILE: every tile sorted ascending (the partial last tile as if padded with +inf).
    bitonic_tile_sort_kernel<kBlock, kItems, K><<<tiles, kBlock>>>(d_in, d_out, n);
    CUDA_CHECK_LAST();
    const size_t P = next_pow2(n), pairs = P / 2;
    const unsigned grid = std::min(course::blocks_for(pairs, 256), 1u << 20);   // grid-stride beyond
    for (size_t k = 2 * size_t(kTile); k <= P; k *= 2) {
        for (size_t j = k / 2; j >= size_t(kTile); j /= 2) {   // partners TILE or more apart: global
            bitonic_global_step<K><<<grid, 256>>>(d_out, n, pairs, k, j);
            CUDA_CHECK_LAST();
        }
        bitonic_tile_merge_kernel<kBlock, kItems, K><<<tiles, kBlock>>>(d_out, n);   // j = TILE/2 .. 1
        CUDA_CHECK_LAST();
    }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = bitonic_sort<uint32_t>;
    s.i32 = bitonic_sort<int32_t>;
    s.f32 = bitonic_sort<float>;
    s.u64 = bitonic_sort<uint64_t>;
    return sorting::run_lesson(argc, argv, "03_bitonic", s);
}
