// 03_bitonic — bitonic sort: a sorting network, tiles in shared memory plus global merge steps,
// for ANY n (not only powers of two).
//
// What changed since 01: odd-even transposition needs n steps; the bitonic network needs only
// log2(P) * (log2(P) + 1) / 2 steps for P = n rounded up to a power of two (2^20 keys: 210 steps
// instead of a million), and every step is still n/2 independent compare-exchanges.
//   work:   P/2 compare-exchanges per step: O(n log^2 n) (more than the O(n log n) of a merge sort;
//           the price of being data-independent)
//   steps:  the first log2(TILE) stages (TILE = 4096 keys) run inside one block in shared memory,
//           78 steps, one barrier each: one launch, the keys read and written once.
//           Every later stage k (8192 .. P) has log2(k/TILE) steps whose partners are TILE or more
//           apart: each is a global launch that reads and writes all keys; the rest of the stage
//           (partners < TILE apart, 12 steps) runs inside each tile again, one more launch.
//   bytes:  2^28 uint32: 136 global steps + 16 tile launches + 1 tile sort, each ~2 GB of traffic:
//           ~300 GB, roughly 100x a copy. That is the bitonic sort's problem at scale; in shared
//           memory, where steps are barriers rather than passes, it is excellent (04, 09 reuse it).
// Any n: the network used is the "always ascending" form (see comparison.cuh): every
// compare-exchange puts the smaller key at the lower index, so the virtual +infinity padding at
// positions >= n never moves and every step whose partner is >= n is simply skipped. No sentinel
// key value is reserved, so the largest uint32 (or NaN) sorts like any other key.
// Keys: uint32, int32, float32, uint64. Not stable (no pairs).
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o bitonic 03_bitonic.cu
// Run:          ./bitonic --n 1000003     ./bitonic --test
#include "comparison.cuh"

constexpr int kBlock = 512;
constexpr int kItems = 8;
constexpr int kTile = kBlock * kItems;    // 4096 keys sorted per block in shared memory

template <class K>
void bitonic_sort(const K* d_in, K* d_out, size_t n) {
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
