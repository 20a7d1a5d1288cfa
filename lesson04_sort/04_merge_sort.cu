// 04_merge_sort — merge sort: sorted tiles, then merge passes in which every key finds its own
// output position by binary search in the other list.
//
// What changed since 03: log2(n / 4096) merge passes instead of O(log^2 n) network steps. The
// merge is parallel per KEY (the CS344 notes' "medium merges"): a key at position i of run A lands
// at i + (keys of run B strictly less than it), a key at position j of B at j + (keys of A less
// than or equal to it). Ties go to A, so the merge is stable and no slot is claimed twice.
//   tile sort:  03's bitonic network in shared memory, 4096 keys per block
//   passes:     log2(n / 4096) (12 at 2^24, 16 at 2^28), each reading and writing every key, plus
//               log2(width) dependent probes per key (the first cached, the last scattered)
// Faster than 03's bitonic network, far from CUB's radix sort.
// What limits it: the probes are chains of dependent loads, ~28 per key in the last pass. 05 makes
// one search per 4096 keys (merge path) and streams the keys through shared memory.
// Keys: uint32, int32, float32, uint64 (no pairs: the bitonic tile sort is not stable).
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o merge 04_merge_sort.cu
// Run:          ./merge --n 2^24     ./merge --test
#include "comparison.cuh"

constexpr int kBlock = 512;
constexpr int kItems = 8;
constexpr int kTile = kBlock * kItems;   // runs after the tile sort

// One merge pass: runs of `width` keys in src become runs of 2*width in dst.
template <class K>
__global__ void merge_by_rank(const K* __restrict__ src, K* __restrict__ dst, size_t n, size_t width) {
    using namespace sorting::cmp;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const size_t a0 = (i / (2 * width)) * (2 * width);   // this run pair: A = [a0, b0), B = [b0, e)
        const size_t b0 = min(a0 + width, n), e = min(a0 + 2 * width, n);
        const K key = src[i];
        if (i < b0) dst[i + count_less(src + b0, e - b0, key)] = key;   // i - a0 + rank + a0
        else dst[a0 + (i - b0) + count_less_equal(src + a0, b0 - a0, key)] = key;
    }
}

template <class K> void merge_sort(const K* d_in, K* d_out, size_t n) {
    using namespace sorting::cmp;
    if (n == 0) return;
    int passes = 0;
    for (size_t w = kTile; w < n; w *= 2) ++passes;
    K* tmp = passes ? course::scratch_as<K>(0, n) : d_out;
    // Ping-pong so that the last pass writes d_out.
    K* a = passes % 2 ? tmp : d_out;
    K* b = passes % 2 ? d_out : tmp;
    bitonic_tile_sort_kernel<kBlock, kItems, K><<<course::blocks_for(n, kTile), kBlock>>>(d_in, a, n);
    CUDA_CHECK_LAST();
    const unsigned grid = std::min(course::blocks_for(n, 256), 1u << 20);
    for (size_t w = kTile; w < n; w *= 2) {
        merge_by_rank<K><<<grid, 256>>>(a, b, n, w);
        CUDA_CHECK_LAST();
        std::swap(a, b);
    }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = merge_sort<uint32_t>;
    s.i32 = merge_sort<int32_t>;
    s.f32 = merge_sort<float>;
    s.u64 = merge_sort<uint64_t>;
    return sorting::run_lesson(argc, argv, "04_merge_sort", s);
}
