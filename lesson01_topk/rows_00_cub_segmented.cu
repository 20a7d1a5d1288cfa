// rows_00_cub_segmented — the library bar for row-wise top-k: sort every row, keep its first k.
//
// Each value becomes its order-preserving key (lesson.cuh: NaN above +inf, -0.0 equal to +0.0,
// inverted for --smallest), paired with its column; cub::DeviceSegmentedSort::SortPairsDescending
// sorts every row (one segment per row) and the first k pairs of each row are written out. The
// row-wise twin of the 1-D sort bar: the simplest correct answer, measured against rows_05_serving.
//
// Cost model: CUB's segmented sort picks a warp, a block or a full radix sort per segment by its
// length; for long rows that is a radix sort reading and writing 8 bytes per element per 8-bit
// pass, about 16x the bytes the problem must move, whatever k is (every shape's time: README_rows.md).
// float16/bfloat16: 16-bit keys (half the sort's passes). The library's own row-wise top-k: rows_00_cub_batched_topk.
// Build alone:  nvcc -O3 -arch=native -o cub_rows rows_00_cub_segmented.cu
// Run:          ./cub_rows --rows 64 --n 128256 --k 50      ./cub_rows --test      ./cub_rows --sweep
#include <cub/device/device_segmented_sort.cuh>

#include "rows.cuh"

// The sort's key: 32 bits, or the 16-bit key itself for float16/bfloat16.
template <class T> using Key = std::conditional_t<topk::is_half_float<T>, uint16_t, uint32_t>;

// keys[i] = order-preserving key of in[i], cols_of[i] = its column; offsets[r] = r * cols (r <= rows).
template <class T>
__global__ void make_row_keys(const T* __restrict__ in, size_t rows, size_t cols, bool smallest,
                              Key<T>* __restrict__ keys, uint32_t* __restrict__ col_of, int64_t* __restrict__ offsets) {
    const size_t n = rows * cols, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
        keys[i] = Key<T>(topk::to_key(in[i], smallest) >> (topk::is_half_float<T> ? 16 : 0));
        col_of[i] = uint32_t(i % cols);
    }
    for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r <= rows; r += stride)
        offsets[r] = int64_t(r * cols);
}

template <class T>
void cub_rows(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    const size_t n = rows * cols;
    Key<T>* keys = course::scratch_as<Key<T>>(0, n);
    uint32_t* col_of = course::scratch_as<uint32_t>(1, n);
    Key<T>* keys_out = course::scratch_as<Key<T>>(2, n);
    uint32_t* cols_out = course::scratch_as<uint32_t>(3, n);
    int64_t* offsets = course::scratch_as<int64_t>(4, rows + 1);
    const int block = 256;
    make_row_keys<<<course::blocks_for(std::max(n, rows + 1), block * 8), block>>>(d_in, rows, cols, smallest, keys,
                                                                                   col_of, offsets);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(nullptr, temp_bytes, keys, keys_out, col_of, cols_out,
                                                             int64_t(n), int64_t(rows), offsets, offsets + 1));
    void* temp = course::scratch(5, temp_bytes);
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(temp, temp_bytes, keys, keys_out, col_of, cols_out,
                                                             int64_t(n), int64_t(rows), offsets, offsets + 1));
    topk::rows::gather_sorted_rows<<<course::blocks_for(rows * k, block * 4), block>>>(d_in, rows, cols, k, cols,
                                                                                       cols_out, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

// Ragged rows: one block a row writes its keys and columns (offsets come from the caller).
template <class T>
__global__ void make_ragged_keys(const T* __restrict__ in, const int64_t* __restrict__ offsets, bool smallest,
                                 Key<T>* __restrict__ keys, uint32_t* __restrict__ col_of) {
    const int64_t b = offsets[blockIdx.x], e = offsets[blockIdx.x + 1];
    for (int64_t i = b + threadIdx.x; i < e; i += blockDim.x) {
        keys[i] = Key<T>(topk::to_key(in[i], smallest) >> (topk::is_half_float<T> ? 16 : 0));
        col_of[i] = uint32_t(i - b);
    }
}

// Each row's first min(k, length) sorted columns; a shorter row's other slots are padding (rows.cuh).
template <class T>
__global__ void take_first_ragged(const T* __restrict__ in, const int64_t* __restrict__ offsets, size_t k,
                                  bool smallest, const uint32_t* __restrict__ sorted_cols, T* __restrict__ out_vals,
                                  uint32_t* __restrict__ out_idx) {
    const size_t r = blockIdx.x;
    const int64_t b = offsets[r], len = offsets[r + 1] - b;
    for (size_t j = threadIdx.x; j < k; j += blockDim.x) {
        if (int64_t(j) < len) {
            const uint32_t c = sorted_cols[b + j];
            out_idx[r * k + j] = c;
            out_vals[r * k + j] = in[b + c];
        } else {
            out_idx[r * k + j] = topk::rows::kNoIndex;
            out_vals[r * k + j] = topk::rows::pad_value<T>(smallest);
        }
    }
}

template <class T>
void cub_ragged(const T* d_in, const int64_t* d_offsets, size_t rows, size_t total, size_t, size_t k, bool smallest,
                T* d_vals, uint32_t* d_idx) {
    const int64_t n = int64_t(total);
    Key<T>* keys = course::scratch_as<Key<T>>(0, size_t(n));
    uint32_t* col_of = course::scratch_as<uint32_t>(1, size_t(n));
    Key<T>* keys_out = course::scratch_as<Key<T>>(2, size_t(n));
    uint32_t* cols_out = course::scratch_as<uint32_t>(3, size_t(n));
    if (rows > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 rows");
    make_ragged_keys<<<unsigned(rows), 256>>>(d_in, d_offsets, smallest, keys, col_of);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(nullptr, temp_bytes, keys, keys_out, col_of, cols_out, n,
                                                             int64_t(rows), d_offsets, d_offsets + 1));
    void* temp = course::scratch(5, temp_bytes);
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(temp, temp_bytes, keys, keys_out, col_of, cols_out, n,
                                                             int64_t(rows), d_offsets, d_offsets + 1));
    take_first_ragged<<<unsigned(rows), 256>>>(d_in, d_offsets, k, smallest, cols_out, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return topk::rows::run_rows(argc, argv, "rows_00_cub_segmented", cub_rows<float>, cub_rows<__half>,
                                cub_rows<__nv_bfloat16>, {},
                                {cub_ragged<float>, cub_ragged<__half>, cub_ragged<__nv_bfloat16>});
}
