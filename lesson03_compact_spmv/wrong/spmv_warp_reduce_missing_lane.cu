// wrong/spmv_warp_reduce_missing_lane — warp-per-row SpMV whose shuffle reduction stops one step
// early: offsets 16, 8, 4, 2 but not 1.
//
// CAUGHT-BY: checker
//
// The pitfall: a butterfly (xor) reduction over 32 lanes needs log2(32) = 5 steps. Written as
// `for (offset = 16; offset > 1; offset /= 2)` (a `> 1` where `> 0` belongs) it does four, and
// lane 0 ends with the sum of the EVEN lanes only: the entries at begin + 1, begin + 3, ... are
// lost. Rows of one entry still come out right (lane 0 held everything), so a test on a diagonal
// matrix passes; any row with two or more entries is wrong by roughly half its terms. The
// checker's per-row tolerance (README.md, Part 3) is far below a missing term. Correct version:
// spmv_02_warp_per_row.cu.
#include "../spmv.cuh"

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / 32;

// The bug: spmv_02's kernel whose shuffle reduction stops at offset 2 (four steps of five).
__global__ void warp_per_row_missing_lane(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                                          const float* __restrict__ val, const float* __restrict__ x,
                                          float* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
    if (row >= rows) return;
    const int64_t begin = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int64_t k = begin + lane; k < end; k += 32) sum += val[k] * x[col[k]];
    for (int offset = 16; offset > 1; offset /= 2)   // BUG: stops before offset 1
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
    if (lane == 0) y[row] = sum;
}

void spmv_wrong(const spmv::Csr<float>& A, const float* x, float* y) {
    if (A.rows == 0) return;
    warp_per_row_missing_lane<<<course::blocks_for(A.rows, kWarpsPerBlock), kBlock>>>(A.rows, A.row_ptr, A.col, A.val,
                                                                                      x, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return spmv::run_lesson(argc, argv, "spmv_warp_reduce_missing_lane", spmv_wrong); }
