// 00_cub — the library bar: cub::DeviceRadixSort::SortKeys and SortPairs.
//
// CUB's radix sort on Hopper is the one-sweep design (Adinets & Merrill 2022, as in our 08): one
// kernel counts the digits of all passes, then each 8-bit pass is a single kernel that ranks a
// tile, learns its digits' global offsets by decoupled look-back and scatters. 32-bit keys take
// 4 passes, each reading and writing the keys once: about 8 x 4 bytes of traffic per key plus the
// histogram read, so ~10 copies' worth of bytes. Every radix version of this lesson is measured
// against it.
//
// Keys: uint32, int32 and uint64 go to CUB as they are. float32 does NOT: CUB treats -0.0 and
// +0.0 as equal (and may write one for the other) and sorts negative NaNs first, which breaks the
// lesson's semantics (-0.0 < +0.0, every NaN after +inf, bits preserved). So floats are mapped to
// their ordered uint32 codes (sorting::float_to_ordered), sorted as uint32 and mapped back: two
// extra light passes, an honest price for exact semantics.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o cub_sort 00_cub.cu
// Run:          ./cub_sort --n 2^28     ./cub_sort --type pairs --n 2^28     ./cub_sort --test
#include <cub/device/device_radix_sort.cuh>

#include "lesson.cuh"

template <class K> void cub_sort_keys(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    size_t temp_bytes = 0;
    // First call: CUB only reports how much scratch it needs (it keeps d_in intact and uses its
    // own alternate buffer inside the scratch).
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_in, d_out, n));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_in, d_out, n));
    CUDA_CHECK_LAST();
}

// float32 through the ordered codes (see the header).
__global__ void to_codes(const float* in, uint32_t* codes, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        codes[i] = sorting::Ordered<float>::to(in[i]);
}
// The way back: the sorted codes become floats again, in the same buffer (no second array).
__global__ void from_codes_in_place(float* data, size_t n) {
    uint32_t* codes = reinterpret_cast<uint32_t*>(data);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        codes[i] = sorting::ordered_to_float(codes[i]);
}

void cub_sort_floats(const float* d_in, float* d_out, size_t n) {
    if (n == 0) return;
    uint32_t* codes = course::scratch_as<uint32_t>(1, n);
    unsigned grid = std::min(course::blocks_for(n, 256), 65535u * 8);
    to_codes<<<grid, 256>>>(d_in, codes, n);
    CUDA_CHECK_LAST();
    cub_sort_keys<uint32_t>(codes, reinterpret_cast<uint32_t*>(d_out), n);
    from_codes_in_place<<<grid, 256>>>(d_out, n);
    CUDA_CHECK_LAST();
}

// Radix sort is stable: equal keys keep their input order, as the lesson's pairs require.
void cub_sort_pairs(const uint32_t* d_keys_in, const uint32_t* d_vals_in, uint32_t* d_keys_out, uint32_t* d_vals_out,
                    size_t n) {
    if (n == 0) return;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, d_keys_in, d_keys_out, d_vals_in, d_vals_out, n));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys_in, d_keys_out, d_vals_in, d_vals_out, n));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = cub_sort_keys<uint32_t>;
    s.i32 = cub_sort_keys<int32_t>;
    s.f32 = cub_sort_floats;
    s.u64 = cub_sort_keys<uint64_t>;
    s.pairs = cub_sort_pairs;
    return sorting::run_lesson(argc, argv, "00_cub", s);
}
