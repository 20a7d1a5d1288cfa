// 00_cub_sort — the library bar: sort everything, keep the first k.
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
// Library top-k: CCCL added cub::DeviceTopK (an AIR-style radix select; its documentation says
// "version added 3.3.0"). The toolkit here ships CUB 3.0 (CUB_VERSION 300001), which does not have
// it: when built against CUB >= 3.3 this file times cub::DeviceTopK::MaxPairs instead, followed by
// a sort of the k results (DeviceTopK returns them unordered). That path has never been compiled
// here (no CUB 3.3 on our machines).
//
// Build alone:  nvcc -O3 -arch=native -o cub_topk 00_cub_sort.cu
// Run:          ./cub_topk --n 2^28 --k 1024      ./cub_topk --test      ./cub_topk --help
#include <cub/device/device_radix_sort.cuh>
#include <cub/version.cuh>

#if CUB_VERSION >= 300300 && __has_include(<cub/device/device_topk.cuh>)
#include <cub/device/device_topk.cuh>
#define TOPK_HAVE_CUB_TOPK 1
#else
#define TOPK_HAVE_CUB_TOPK 0
#endif

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

template <class T>
void cub_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    uint32_t* keys = course::scratch_as<uint32_t>(0, n);
    uint32_t* idx = course::scratch_as<uint32_t>(1, n);
    uint32_t* keys_out = course::scratch_as<uint32_t>(2, n);
    uint32_t* idx_out = course::scratch_as<uint32_t>(3, n);
    const int block = 256;
    make_keys<<<course::blocks_for(n, block * 8), block>>>(d_in, n, smallest, keys, idx);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
#if TOPK_HAVE_CUB_TOPK
    // cub::DeviceTopK: the k largest keys with their indices (unordered), then sort those k.
    // DeviceTopK only offers unordered output without a run-to-run guarantee on ties, and a
    // static_assert makes the caller say it accepts both, through the execution environment.
    const auto env = cuda::std::execution::env{cuda::execution::require(
        cuda::execution::determinism::not_guaranteed, cuda::execution::output_ordering::unsorted)};
    CUDA_CHECK(cub::DeviceTopK::MaxPairs(nullptr, temp_bytes, keys, keys_out, idx, idx_out, n, k, env));
    size_t sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, keys_out, keys, idx_out, idx, int(k)));
    void* temp = course::scratch(4, std::max(temp_bytes, sort_bytes));
    CUDA_CHECK(cub::DeviceTopK::MaxPairs(temp, temp_bytes, keys, keys_out, idx, idx_out, n, k, env));
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, sort_bytes, keys_out, keys, idx_out, idx, int(k)));
    const uint32_t* first = idx;
#else
    // CUB's radix sort takes an int count per call here: n < 2^31 for this bar (2^28 is the largest
    // size the lesson measures).
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, keys, keys_out, idx, idx_out, int(n)));
    void* temp = course::scratch(4, temp_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys, keys_out, idx, idx_out, int(n)));
    const uint32_t* first = idx_out;
#endif
    CUDA_CHECK_LAST();
    take_first<<<course::blocks_for(k, block), block>>>(d_in, first, k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    topk::Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB's sort takes an int count";
    return topk::run_lesson(argc, argv, TOPK_HAVE_CUB_TOPK ? "00_cub_topk" : "00_cub_sort", cub_topk<float>,
                            cub_topk<int32_t>, cub_topk<uint32_t>, lim);
}
