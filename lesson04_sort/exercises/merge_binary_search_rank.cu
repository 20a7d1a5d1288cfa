// exercises/merge_binary_search_rank — write the binary search that places a key in a merge.
//
// The program is 04_merge_sort.cu's design: sorted tiles of 4096 keys (the bitonic tile sort),
// then merge passes in which every key computes its own output position. A key at position i of
// the left run A goes to   i + (number of keys in the right run B strictly less than it),
// a key at position j of B goes to   j + (number of keys in A less than or equal to it).
// The two counts are the functions below; they return 0 for now, so keys collide, some output
// slots are never written, and the checker fails (exit 1).
// What to do: implement rank_less (a lower bound) and rank_less_equal (an upper bound) by binary
// search over the sorted run, comparing with sorting::key_less (lesson.cuh; never with <: float32
// and int32 keys use the lesson's order). The tile sort is given: sorting::cmp::bitonic_tile_sort_kernel
// (comparison.cuh), as in 04. Why < for one run and <= for the other: equal keys must not claim
// the same slot, and putting A's copies first makes the merge stable.
// Hints: keep the search on a half-open range [lo, hi) with size_t indices; "x <= key" is
// "!key_less(key, x)". Both run in O(log width) dependent loads.
// Check:  make grade EX=merge_binary_search_rank   (exit 0 once done):
//         by hand: make build/lesson04_sort/exercises/merge_binary_search_rank, then run it with --test --quick
// Solution: sorting::cmp::count_less / count_less_equal in comparison.cuh.
#include "../comparison.cuh"

constexpr int kBlock = 512;
constexpr int kItems = 8;
constexpr int kTile = kBlock * kItems;

// Number of keys in sorted run[0, len) strictly less than key.
template <class K> __device__ size_t rank_less(const K* run, size_t len, K key) {
    // TODO: binary search (lower bound) with sorting::key_less.
    (void)run;
    (void)len;
    (void)key;
    return 0;
}
// Number of keys in sorted run[0, len) less than or equal to key.
template <class K> __device__ size_t rank_less_equal(const K* run, size_t len, K key) {
    // TODO: binary search (upper bound) with sorting::key_less.
    (void)run;
    (void)len;
    (void)key;
    return 0;
}

// 04's merge pass: every key finds its output slot from its rank in the other run.
template <class K> __global__ void merge_pass(const K* __restrict__ src, K* __restrict__ dst, size_t n, size_t width) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const size_t a0 = (i / (2 * width)) * (2 * width);
        const size_t b0 = min(a0 + width, n), e = min(a0 + 2 * width, n);
        const K key = src[i];
        if (i < b0) dst[i + rank_less(src + b0, e - b0, key)] = key;
        else dst[a0 + (i - b0) + rank_less_equal(src + a0, b0 - a0, key)] = key;
    }
}

template <class K> void merge_exercise(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    int passes = 0;
    for (size_t w = kTile; w < n; w *= 2) ++passes;
    K* tmp = passes ? course::scratch_as<K>(0, n) : d_out;
    K* a = passes % 2 ? tmp : d_out;
    K* b = passes % 2 ? d_out : tmp;
    sorting::cmp::bitonic_tile_sort_kernel<kBlock, kItems, K><<<course::blocks_for(n, kTile), kBlock>>>(d_in, a, n);
    CUDA_CHECK_LAST();
    const unsigned grid = std::min(course::blocks_for(n, 256), 1u << 20);
    for (size_t w = kTile; w < n; w *= 2) {
        merge_pass<K><<<grid, 256>>>(a, b, n, w);
        CUDA_CHECK_LAST();
        std::swap(a, b);
    }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = merge_exercise<uint32_t>;
    s.i32 = merge_exercise<int32_t>;
    s.f32 = merge_exercise<float>;
    return sorting::run_lesson(argc, argv, "merge_binary_search_rank", s);
}
