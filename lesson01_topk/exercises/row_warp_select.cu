// exercises/row_warp_select — a warp per row: the short-row path of rows_05_serving.
//
// TODO: complete my_warp_rows below. Each warp owns one row of at most 256 columns (cols <= 256,
// 1 <= k <= cols). Write the row's k largest to out_vals[r*k .. r*k+k) in descending order and
// their columns to out_idx (lesson.cuh's semantics: use topk::to_key(value, smallest) to compare,
// so NaN, -0.0 and --smallest come out right).
// Hints: lane L loads columns L, L+32, ..., L+224 into 8 registers as topk::pack(key, column)
// (topk::kEmpty past the end of the row). Then k times: each lane takes the largest of its 8, a
// warp-wide maximum (__shfl_xor_sync, 5 steps) gives the row's largest, the lane that holds it
// replaces it by kEmpty, and result j is topk::packed_index(best). Index the 8 registers only
// with constants (#pragma unroll), or they become local memory (wrong/local_list.cu).
// Rows longer than 256 are done by rows_serving.cuh's other paths; until my_warp_rows is written, the short
// rows stay unwritten and the checker fails (exit 1).
// Check:  make grade EX=row_warp_select   (exit 0 once done):
//         by hand: make build/lesson01_topk/exercises/row_warp_select, then run it with --test --quick
// Solution: rows_digit_select.cuh, warp_rows.
#include "../rows_serving.cuh"

// warp_rows (rows_digit_select.cuh) with its body cut out: one warp per row of at most 256 columns (the exercise).
__global__ void my_warp_rows(const float* __restrict__ in, size_t rows, uint32_t cols, uint32_t k, bool smallest,
                             float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    // TODO: one warp per row (see above).
    (void)in; (void)rows; (void)cols; (void)k; (void)smallest; (void)out_vals; (void)out_idx;
}

void my_rowwise(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    if (cols > size_t(rowwise::kWarpCols)) return rowwise::rowwise_topk<>(d_in, rows, cols, k, smallest, d_vals, d_idx);
    my_warp_rows<<<course::blocks_for(rows, 8), 256>>>(d_in, rows, uint32_t(cols), uint32_t(k), smallest, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return topk::rows::run_rows(argc, argv, "exercise_row_warp_select", my_rowwise); }
