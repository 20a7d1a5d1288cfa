// topk_00_cub_sort — the library bar: sort everything, keep the first k.
//
// The simplest correct top-k on a GPU: turn each value into its order-preserving key (lesson.cuh:
// NaN above +inf, -0.0 equal to +0.0, inverted for --smallest), pair it with its index, sort the
// pairs by key in descending order with cub::DeviceRadixSort::SortPairsDescending, and copy out
// the first k. Every later version is measured against this bar.
//
// Cost model: a radix sort of 32-bit keys with 32-bit values makes 4 passes of 8 bits (CUB's
// onesweep), each reading and writing 8 bytes per element, plus the key pass (read 4n, write 8n):
// about 76 bytes per element moved for a problem that must move 4. It does not depend on k at all
// (torch.topk on the same GPU also takes about the same time at every k, see README).
//
// The library's own top-k (cub::DeviceTopK, CCCL 3.3+, unordered results) is the other bar:
// topk_00_cub_device_topk.cu. float16/bfloat16 keys are 16-bit keys in the top half (lesson.cuh).
//
// Build alone:  nvcc -O3 -arch=native -o cub_topk topk_00_cub_sort.cu
// Run:          ./cub_topk --n 2^28 --k 1024      ./cub_topk --test      ./cub_topk --help
#include <cub/device/device_radix_sort.cuh>

#include "lesson.cuh"

// keys[i] = order-preserving key of in[i]; idx[i] = i.
template <class T>
__global__ void make_keys(const T* __restrict__ in, size_t n, bool smallest, uint32_t* __restrict__ keys,
                          uint32_t* __restrict__ idx) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        keys[i] = topk::to_key(in[i], smallest);
        idx[i] = uint32_t(i);
    }
}

// The first k sorted pairs -> values (gathered from the input, exact bits) and indices.
template <class T>
__global__ void take_first(const T* __restrict__ in, const uint32_t* __restrict__ sorted_idx, size_t k,
                           T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    uint32_t i = sorted_idx[j];
    out_idx[j] = i;
    out_vals[j] = in[i];
}

template <class T> void cub_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    uint32_t* keys = course::scratch_as<uint32_t>(0, n);
    uint32_t* idx = course::scratch_as<uint32_t>(1, n);
    uint32_t* keys_out = course::scratch_as<uint32_t>(2, n);
    uint32_t* idx_out = course::scratch_as<uint32_t>(3, n);
    const int block = 256;
    make_keys<<<course::blocks_for(n, block * 8), block>>>(d_in, n, smallest, keys, idx);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
    // CUB's radix sort takes an int count per call here: n < 2^31 for this bar (2^28 is the largest
    // size the lesson measures).
    // 16-bit floats: only the key's top 16 bits vary (lesson.cuh), so only they are sorted (2 passes, not 4).
    const int begin_bit = topk::is_half_float<T> ? 16 : 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, keys, keys_out, idx, idx_out, int(n),
                                                         begin_bit, 32));
    void* temp = course::scratch(4, temp_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys, keys_out, idx, idx_out, int(n),
                                                         begin_bit, 32));
    const uint32_t* first = idx_out;
    CUDA_CHECK_LAST();
    take_first<<<course::blocks_for(k, block), block>>>(d_in, first, k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    topk::Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB's sort takes an int count";
    return topk::run_lesson(argc, argv, "topk_00_cub_sort", cub_topk<float>, cub_topk<int32_t>, cub_topk<uint32_t>, lim,
                            {cub_topk<__half>, cub_topk<__nv_bfloat16>});
}
