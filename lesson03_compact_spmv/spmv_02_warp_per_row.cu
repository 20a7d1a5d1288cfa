// spmv_02_warp_per_row — one warp per row ("CSR vector", Bell & Garland 2009).
//
// What changed: the 32 lanes of a warp share a row. Lane l reads entries begin + l, begin + l + 32,
// ... so one load instruction reads 32 consecutive values (128 bytes) and 32 consecutive column
// indices: the matrix is read coalesced. Each lane keeps a partial sum; five shuffle steps add
// the 32 partials (no shared memory, no barrier) and lane 0 writes y[i].
// Cost model: the matrix bytes now arrive in full sectors; a row of length L costs ceil(L / 32)
// load steps plus a 5-step reduction. Long rows no longer stall 31 idle threads.
// Limits: a row shorter than 32 leaves lanes idle (16 nonzeros a row: half the warp does
// nothing, and the 5 shuffle steps cost as much as the loads); one warp still owns a 4-million
// entry row alone. Version 04 picks the group width from the row lengths.
//
// Build alone:  nvcc -O3 -arch=native -o spmv02 spmv_02_warp_per_row.cu -lcusparse
// Run:          ./spmv02 --gen random --n 2^22      ./spmv02 --test
#include "spmv.cuh"

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / 32;

// Delta from 01: a warp shares a row, its lanes read consecutive entries, and five shuffles add their sums.
template <class T>
__global__ void __launch_bounds__(kBlock)
    warp_per_row(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col, const T* __restrict__ val,
                 const T* __restrict__ x, T* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
    // The whole warp leaves together (row is the same for all its lanes), so the full-mask
    // shuffles below always have all 32 lanes present.
    if (row >= rows) return;
    const int64_t begin = row_ptr[row], end = row_ptr[row + 1];   // 64-bit: begin + lane cannot wrap
    T sum = T(0);
    for (int64_t k = begin + lane; k < end; k += 32) sum += spmv::ldg(val + k) * spmv::ldg(x + spmv::ldg(col + k));
    sum = spmv::group_sum<32>(sum);
    if (lane == 0) y[row] = sum;
}

template <class T> void spmv_warp_per_row(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    warp_per_row<T><<<course::blocks_for(A.rows, kWarpsPerBlock), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_02_warp_per_row", spmv_warp_per_row<float>);
}
