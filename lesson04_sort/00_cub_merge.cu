// 00_cub_merge — the second library bar: cub::DeviceMergeSort (a comparison sort).
//
// CUB's merge sort sorts tiles in shared memory, then merges pairs of runs with merge-path
// partitioning: log2(n / tile) global merge passes, each reading and writing keys (and values)
// once. It needs only a less-than, so it sorts anything, but for 2^28 keys that is ~16 passes
// against the radix sort's 4: the bar the comparison sorts (04, 05) aim at, not the radix ones.
//
// StableSortKeys / StableSortPairs sort in place, so the launcher first copies the input to the
// output (the input must stay intact); that copy is included in the time. The comparator is the lesson's order
// (sorting::key_less), so float -0.0 < +0.0 and NaNs after +inf hold here too.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o cub_merge 00_cub_merge.cu
// Run:          ./cub_merge --n 2^24     ./cub_merge --type pairs     ./cub_merge --test
#include <cub/device/device_merge_sort.cuh>

#include "lesson.cuh"

template <class K> struct LessonLess {
    __device__ bool operator()(const K& a, const K& b) const { return sorting::key_less(a, b); }
};

template <class K> void cub_merge_keys(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(K), cudaMemcpyDeviceToDevice));
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceMergeSort::StableSortKeys(nullptr, temp_bytes, d_out, n, LessonLess<K>{}));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceMergeSort::StableSortKeys(temp, temp_bytes, d_out, n, LessonLess<K>{}));
    CUDA_CHECK_LAST();
}

void cub_merge_pairs(const uint32_t* d_keys_in, const uint32_t* d_vals_in, uint32_t* d_keys_out, uint32_t* d_vals_out,
                     size_t n) {
    if (n == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(d_keys_out, d_keys_in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpyAsync(d_vals_out, d_vals_in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
    size_t temp_bytes = 0;
    CUDA_CHECK(
        cub::DeviceMergeSort::StableSortPairs(nullptr, temp_bytes, d_keys_out, d_vals_out, n, LessonLess<uint32_t>{}));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(
        cub::DeviceMergeSort::StableSortPairs(temp, temp_bytes, d_keys_out, d_vals_out, n, LessonLess<uint32_t>{}));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = cub_merge_keys<uint32_t>;
    s.i32 = cub_merge_keys<int32_t>;
    s.f32 = cub_merge_keys<float>;
    s.u64 = cub_merge_keys<uint64_t>;
    s.pairs = cub_merge_pairs;
    return sorting::run_lesson(argc, argv, "00_cub_merge", s);
}
