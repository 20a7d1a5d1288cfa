// rows_00_cub_batched_topk — the library's own row-wise top-k as the bar: cub::DeviceBatchedTopK
// (CCCL 3.5), every row a segment, then CUB's segmented sort of each row's k results.
//
// DeviceBatchedTopK::MaxPairs finds the k largest keys of every segment with their values. Keys
// are the lesson's order-preserving keys (16 bits for float16/bfloat16), computed on the fly by a
// transform iterator over each row; values a counting iterator (the column). Its limits in CCCL
// 3.5: one block per segment, its keys in shared memory, so the largest row size must be a small
// compile-time bound (16384 fails its static_assert: no policy fits the shared memory); this file
// instantiates 256 and 4096 and refuses longer rows (of the benchmark: 4096 x 256, 16384 x 128 and
// 65536 x 64 run, the long-row shapes are refused).
// Like DeviceTopK it implements only "not deterministic, unsorted": each row's k come back in any
// order, and which copies of a tied k-th value may change between runs. The course returns them
// sorted, so this bar sorts them (cub::DeviceSegmentedSort); --raw times the select alone and lets
// the checker order each row on the host.
// Measured: not measured yet (no row in results/).
//
// Needs CCCL 3.5 headers: python3 -m pip install nvidia-cuda-cccl (SITE: its site-packages folder).
// Build alone:  nvcc -O3 -arch=native -I$SITE/nvidia/cu13/include/cccl -o cub_btopk rows_00_cub_batched_topk.cu
// Run:  build/lesson01_topk/rows_00_cub_batched_topk --rows 16384 --n 128 --k 8     ... --test
#include <cub/device/device_batched_topk.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda/iterator>

#include "rows.cuh"

namespace cubrows {

template <class T> using Key = topk::NarrowKey<T>;   // lesson.cuh: 16-bit keys for 16-bit floats
template <class T> using KeyOf = topk::NarrowKeyOf<T>;

// Segment r's iterators: its keys (over row r of the input), its columns, and its k output slots.
template <class T> struct RowKeys {
    const T* in;
    size_t cols;
    bool smallest;
    __host__ __device__ auto operator()(int64_t r) const {
        return cuda::make_transform_iterator(in + r * cols, KeyOf<T>{smallest});
    }
};
struct RowCols {
    __host__ __device__ cuda::counting_iterator<uint32_t> operator()(int64_t) const {
        return cuda::counting_iterator<uint32_t>(0);
    }
};
template <class P> struct RowSlots {
    P* base;
    size_t k;
    __host__ __device__ P* operator()(int64_t r) const { return base + r * k; }
};

constexpr int64_t kMaxCols = 4096;   // CCCL 3.5: one block a segment, its keys in shared memory
inline bool& raw() {
    static bool on = false;
    return on;
}

template <int64_t MAX, class T>
void select(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, Key<T>* keys_out, uint32_t* cols_out) {
    auto counting = cuda::counting_iterator<int64_t>(0);
    auto keys_in = cuda::make_transform_iterator(counting, RowKeys<T>{d_in, cols, smallest});
    auto vals_in = cuda::make_transform_iterator(counting, RowCols{});
    auto keys_o = cuda::make_transform_iterator(counting, RowSlots<Key<T>>{keys_out, k});
    auto vals_o = cuda::make_transform_iterator(counting, RowSlots<uint32_t>{cols_out, k});
    const auto sizes = cuda::args::immediate{int64_t(cols), cuda::args::bounds<int64_t(1), MAX>()};
    const auto env = cuda::std::execution::env{cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                                        cuda::execution::tie_break::unspecified,
                                                                        cuda::execution::output_ordering::unsorted)};
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceBatchedTopK::MaxPairs(nullptr, bytes, keys_in, keys_o, vals_in, vals_o, sizes, int64_t(k),
                                                int64_t(rows), env));
    void* temp = course::scratch(4, bytes);
    CUDA_CHECK(cub::DeviceBatchedTopK::MaxPairs(temp, bytes, keys_in, keys_o, vals_in, vals_o, sizes, int64_t(k),
                                                int64_t(rows), env));
}

template <class T>
void batched_topk(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    using K = Key<T>;
    if (cols > size_t(kMaxCols))
        throw course::UsageError("DeviceBatchedTopK takes rows of at most 4096 here (one block a row)");
    K* keys_out = course::scratch_as<K>(0, rows * k);
    uint32_t* cols_out = course::scratch_as<uint32_t>(1, rows * k);
    if (cols <= 256) select<256>(d_in, rows, cols, k, smallest, keys_out, cols_out);
    else select<kMaxCols>(d_in, rows, cols, k, smallest, keys_out, cols_out);
    const uint32_t* first = cols_out;
    if (!raw()) {   // each row's k in output order: CUB's segmented sort
        K* keys_sorted = course::scratch_as<K>(2, rows * k);
        uint32_t* cols_sorted = course::scratch_as<uint32_t>(3, rows * k);
        int64_t* offsets = course::scratch_as<int64_t>(5, rows + 1);
        topk::rows::row_offsets<<<course::blocks_for(rows + 1, 256), 256>>>(offsets, rows, k);
        CUDA_CHECK_LAST();
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(nullptr, bytes, keys_out, keys_sorted, cols_out,
                                                                 cols_sorted, int64_t(rows * k), int64_t(rows), offsets,
                                                                 offsets + 1));
        void* temp = course::scratch(6, bytes);
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(temp, bytes, keys_out, keys_sorted, cols_out,
                                                                 cols_sorted, int64_t(rows * k), int64_t(rows), offsets,
                                                                 offsets + 1));
        first = cols_sorted;
    }
    topk::rows::gather_sorted_rows<<<course::blocks_for(rows * k, 256 * 4), 256>>>(d_in, rows, cols, k, k, first,
                                                                                   d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace cubrows

int main(int argc, char** argv) {
    using cubrows::batched_topk;
    std::vector<char*> args;   // --raw is this program's own switch
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::string(argv[i]) == "--raw") cubrows::raw() = true;
        else args.push_back(argv[i]);
    }
    topk::rows::RowsLimits lim;
    lim.unsorted = cubrows::raw();
    lim.max_cols = uint64_t(cubrows::kMaxCols);
    lim.why = "CCCL 3.5's DeviceBatchedTopK: one block a row";
    return topk::rows::run_rows(int(args.size()), args.data(),
                                cubrows::raw() ? "rows_00_cub_batched_topk_raw" : "rows_00_cub_batched_topk",
                                batched_topk<float>, batched_topk<__half>, batched_topk<__nv_bfloat16>, lim);
}
