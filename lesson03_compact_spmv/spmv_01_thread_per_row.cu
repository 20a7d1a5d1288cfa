// spmv_01_thread_per_row — the naive end: one thread computes one row's dot product.
//
// The obvious mapping: thread i walks row i from row_ptr[i] to row_ptr[i+1] and writes y[i].
// Cost model: it moves the right bytes, but badly. At any moment the 32 threads of a warp read
// element k of 32 different rows: 32 addresses row_length apart, so each load instruction touches
// up to 32 separate 32-byte sectors and uses 4 bytes of each (with 16 nonzeros a row, most of a
// sector is re-fetched 8 times over, or served from L1 when it survived). A warp also runs as
// long as its longest row: on power-law or giant-row matrices one thread works while 31 wait, and
// a row of 4 million entries is summed by a single thread.
// What it does right: no atomics, no scratch, one launch, every y[i] written (0 for empty rows).
//
// Build alone:  nvcc -O3 -arch=native -o spmv01 spmv_01_thread_per_row.cu -lcusparse
// Run:          ./spmv01 --gen powerlaw --n 2^20      ./spmv01 --test
#include "spmv.cuh"

constexpr int kBlock = 256;

// The naive end: thread i sums row i alone, so a warp's loads touch 32 rows at once.
template <class T>
__global__ void __launch_bounds__(kBlock)
    thread_per_row(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col, const T* __restrict__ val,
                   const T* __restrict__ x, T* __restrict__ y) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows) return;   // the guard matters: row_ptr[i + 1] is read below (see wrong/)
    const int begin = row_ptr[i], end = row_ptr[i + 1];
    T sum = T(0);
    for (int k = begin; k < end; ++k) sum += val[k] * x[col[k]];
    y[i] = sum;
}

template <class T> void spmv_thread_per_row(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    thread_per_row<T><<<course::blocks_for(A.rows, kBlock), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_01_thread_per_row", spmv_thread_per_row<float>);
}
