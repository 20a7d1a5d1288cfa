// exercises/spmv_warp_per_row — write warp-per-row SpMV: one warp computes one row's dot product.
//
// The kernel below already finds its row and guards the tail; you write the two missing parts:
//   1. the loop: lane l of the warp adds val[k] * x[col[k]] for k = begin + l, begin + l + 32, ...
//      (consecutive lanes read consecutive entries: one coalesced 128-byte load per step)
//   2. the reduction: add the 32 lanes' partial sums with __shfl_xor_sync (offsets 16, 8, 4, 2, 1:
//      all five; wrong/spmv_warp_reduce_missing_lane.cu shows what happens with four), then lane 0
//      writes y[row].
// Hints: the whole warp has the same row, so either all its lanes return at the guard or none do:
// the full mask 0xFFFFFFFF is right. Use int64_t for k (begin + lane must not wrap near 2^31).
// Empty rows must get y = 0 (your loop does nothing, the reduction adds zeros: nothing special).
// Given: spmv::Csr (row_ptr, col, val) and the battery in spmv.cuh; course::blocks_for in
// common/device.cuh. The notes: README_spmv.md, spmv_02_warp_per_row ("CSR vector").
// Until written, every non-empty row comes out 0 and the battery fails (exit 1).
// Check:  make grade EX=spmv_warp_per_row   (exit 0 once done):
//         by hand: make build/lesson03_compact_spmv/exercises/spmv_warp_per_row, then run it with --test --quick
// Solution:  ../spmv_02_warp_per_row.cu
#include "../spmv.cuh"

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / 32;

// spmv_02's warp_per_row with its loop and its shuffle reduction cut out (the exercise).
__global__ void student_warp_per_row(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                                     const float* __restrict__ val, const float* __restrict__ x,
                                     float* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
    if (row >= rows) return;
    const int64_t begin = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    // TODO 1: each lane sums its share of the row [begin, end), stride 32.
    // TODO 2: reduce `sum` across the 32 lanes with __shfl_xor_sync.
    (void)begin;
    (void)end;
    (void)col;
    (void)val;
    (void)x;
    if (lane == 0) y[row] = sum;
}

void spmv_student(const spmv::Csr<float>& A, const float* x, float* y) {
    if (A.rows == 0) return;
    student_warp_per_row<<<course::blocks_for(A.rows, kWarpsPerBlock), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return spmv::run_lesson(argc, argv, "spmv_warp_per_row", spmv_student); }
