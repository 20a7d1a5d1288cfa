// wrong/spmv_thread_per_row_guard — thread-per-row SpMV with the bounds guard off by one:
// `if (i > rows) return;` where `if (i >= rows)` belongs.
//
// CAUGHT-BY: memcheck --gen banded --n 1000 --reps 1
//
// The pitfall: the grid is rounded up to whole blocks (1000 rows -> 4 blocks of 256 = 1024
// threads), so threads with i >= rows exist and must leave at once. With `>`, thread i == rows
// stays: it reads row_ptr[rows + 1], one past the end of the rows + 1 offsets, and writes
// y[rows], one past the end of y. Usually nothing visible happens (the bytes past the end are
// allocation padding, so the right answer is still there and the checker passes): exactly why
// this bug survives testing. compute-sanitizer memcheck knows every allocation's exact size and
// reports both accesses. Correct version: spmv_01_thread_per_row.cu.
#include "../spmv.cuh"

constexpr int kBlock = 256;

// The bug: spmv_01's kernel guarded by i > rows, so thread i == rows reads and writes past the end.
__global__ void thread_per_row_bad_guard(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                                         const float* __restrict__ val, const float* __restrict__ x,
                                         float* __restrict__ y) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i > rows) return;                                 // BUG: must be i >= rows
    const int begin = row_ptr[i], end = row_ptr[i + 1];   // i == rows: row_ptr[rows + 1] is past the end
    float sum = 0.0f;
    for (int k = begin; k < end; ++k) sum += val[k] * x[col[k]];
    y[i] = sum;   // i == rows: past the end of y
}

void spmv_wrong(const spmv::Csr<float>& A, const float* x, float* y) {
    if (A.rows == 0) return;
    thread_per_row_bad_guard<<<course::blocks_for(A.rows, kBlock), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return spmv::run_lesson(argc, argv, "spmv_thread_per_row_guard", spmv_wrong); }
