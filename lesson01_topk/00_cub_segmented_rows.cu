// 00_cub_segmented_rows — the library bar for row-wise top-k: sort every row, keep its first k.
//
// Each value becomes its order-preserving key (lesson.cuh: NaN above +inf, -0.0 equal to +0.0,
// inverted for --smallest), paired with its column; cub::DeviceSegmentedSort::SortPairsDescending
// sorts every row (one segment per row) and the first k pairs of each row are written out. The
// row-wise twin of 00_cub_sort: the simplest correct answer, measured against 06_rowwise.
//
// Cost model: CUB's segmented sort picks a warp, a block or a full radix sort per segment by its
// length; for long rows that is a radix sort reading and writing 8 bytes per element per 8-bit
// pass, about 16x the bytes the problem must move, whatever k is. Measured (H100): 64 x 128256
// k 50 in 0.926 ms, 4 x 2^24 k 1024 in 98.8 ms; every shape: README_rows.md.
//
// Build alone:  nvcc -O3 -arch=native -o cub_rows 00_cub_segmented_rows.cu
// Run:          ./cub_rows --rows 64 --n 128256 --k 50      ./cub_rows --test      ./cub_rows --sweep
#include <cub/device/device_segmented_sort.cuh>

#include "rows.cuh"

// keys[i] = order-preserving key of in[i], cols_of[i] = its column; offsets[r] = r * cols (r <= rows).
__global__ void make_row_keys(const float* __restrict__ in, size_t rows, size_t cols, bool smallest,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ col_of, int64_t* __restrict__ offsets) {
    const size_t n = rows * cols, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
        keys[i] = topk::to_key(in[i], smallest);
        col_of[i] = uint32_t(i % cols);
    }
    for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r <= rows; r += stride) offsets[r] = int64_t(r * cols);
}

// The first k sorted pairs of each row -> values (gathered from the input, exact bits) and columns.
__global__ void take_first_per_row(const float* __restrict__ in, size_t rows, size_t cols, size_t k,
                                   const uint32_t* __restrict__ sorted_cols, float* __restrict__ out_vals,
                                   uint32_t* __restrict__ out_idx) {
    const size_t total = rows * k, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < total; j += stride) {
        size_t r = j / k, i = j % k;
        uint32_t c = sorted_cols[r * cols + i];
        out_idx[j] = c;
        out_vals[j] = in[r * cols + c];
    }
}

void cub_rows(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    const size_t n = rows * cols;
    uint32_t* keys = course::scratch_as<uint32_t>(0, n);
    uint32_t* col_of = course::scratch_as<uint32_t>(1, n);
    uint32_t* keys_out = course::scratch_as<uint32_t>(2, n);
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
    take_first_per_row<<<course::blocks_for(rows * k, block * 4), block>>>(d_in, rows, cols, k, cols_out, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return topk::rows::run_rows(argc, argv, "00_cub_segmented_rows", cub_rows); }
