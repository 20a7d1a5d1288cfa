// topk_00_cub_device_topk — the library's own top-k as the bar: cub::DeviceTopK (CCCL 3.3+), then a sort
// of its k results so that the output means what every version's means.
//
// DeviceTopK::MaxPairs finds the k largest keys of one array with their values (an AIR-style radix
// select, like 05). Its keys here are the lesson's order-preserving keys (NaN above +inf, -0.0 ==
// +0.0, inverted for --smallest), computed on the fly by a transform iterator over the input, and
// its values a counting iterator (the index): no n-sized scratch. CCCL 3.5 implements only the
// "not deterministic, unsorted" contract (a static_assert makes the caller ask for it): the k
// results come back in any order, and which copies of a tied k-th value are returned may change
// from run to run. The course's versions return them sorted; this bar pays for that with a radix
// sort of the k pairs after the select (topk_00_cub_device_topk --raw times the select alone, unsorted,
// and the checker then orders the results on the host). float16/bfloat16: 16-bit keys.
// Measured: not measured yet (no row in results/).
//
// Needs CCCL 3.5 headers: python3 -m pip install nvidia-cuda-cccl (SITE: its site-packages folder).
// Build alone:  nvcc -O3 -arch=native -I$SITE/nvidia/cu13/include/cccl -o cub_dtopk topk_00_cub_device_topk.cu
// Run:  build/lesson01_topk/topk_00_cub_device_topk --n 2^28 --k 1024      ... --test      ... --raw --test
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_topk.cuh>
#include <cuda/iterator>

#include "lesson.cuh"

namespace cubtopk {

template <class T> using Key = topk::NarrowKey<T>;   // lesson.cuh: 16-bit keys for 16-bit floats
template <class T> using KeyOf = topk::NarrowKeyOf<T>;

// Gathers out_vals[j] = in[idx[j]] (exact bits) and out_idx[j] = idx[j].
template <class T>
__global__ void gather(const T* __restrict__ in, const uint32_t* __restrict__ idx, size_t k, T* __restrict__ out_vals,
                       uint32_t* __restrict__ out_idx) {
    size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    out_idx[j] = idx[j];
    out_vals[j] = in[idx[j]];
}

inline bool& raw() {
    static bool on = false;
    return on;
}   // --raw: DeviceTopK alone, results unordered

template <class T> void device_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    using K = Key<T>;
    auto keys_in = cuda::make_transform_iterator(d_in, KeyOf<T>{smallest});
    auto idx_in = cuda::counting_iterator<uint32_t>(0);
    K* keys_out = course::scratch_as<K>(0, k);
    uint32_t* idx_out = course::scratch_as<uint32_t>(1, k);
    K* keys_sorted = course::scratch_as<K>(2, k);
    uint32_t* idx_sorted = course::scratch_as<uint32_t>(3, k);
    const auto env = cuda::std::execution::env{cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                                        cuda::execution::output_ordering::unsorted)};
    size_t topk_bytes = 0, sort_bytes = 0;
    CUDA_CHECK(cub::DeviceTopK::MaxPairs(nullptr, topk_bytes, keys_in, keys_out, idx_in, idx_out, int64_t(n),
                                         int64_t(k), env));
    CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, keys_out, keys_sorted, idx_out,
                                                         idx_sorted, int(k)));
    void* temp = course::scratch(4, std::max(topk_bytes, sort_bytes));
    CUDA_CHECK(
        cub::DeviceTopK::MaxPairs(temp, topk_bytes, keys_in, keys_out, idx_in, idx_out, int64_t(n), int64_t(k), env));
    const uint32_t* first = idx_out;
    if (!raw()) {
        CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, sort_bytes, keys_out, keys_sorted, idx_out,
                                                             idx_sorted, int(k)));
        first = idx_sorted;
    }
    gather<<<course::blocks_for(k, 256), 256>>>(d_in, first, k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace cubtopk

int main(int argc, char** argv) {
    using cubtopk::device_topk;
    // --raw is this program's own switch: taken out before the lesson's parser sees the options.
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::string(argv[i]) == "--raw") cubtopk::raw() = true;
        else args.push_back(argv[i]);
    }
    topk::Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB's sort of the k results takes an int count";
    lim.unsorted = cubtopk::raw();
    return topk::run_lesson(int(args.size()), args.data(),
                            cubtopk::raw() ? "topk_00_cub_device_topk_raw" : "topk_00_cub_device_topk",
                            device_topk<float>, device_topk<int32_t>, device_topk<uint32_t>, lim,
                            {device_topk<__half>, device_topk<__nv_bfloat16>});
}
