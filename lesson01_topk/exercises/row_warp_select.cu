// exercises/row_warp_select — a warp per row: rows_01_warp_per_row's kernel (README_rows.md, rows_01).
//
// TODO: complete my_warp_rows below. Each warp owns one row of at most 256 columns (cols <= 256,
// 1 <= k <= cols). Write the row's k largest to out_vals[r*k .. r*k+k) in descending order and
// their columns to out_idx (lesson.cuh's semantics: use topk::to_key(value, smallest) to compare,
// so NaN, -0.0 and --smallest come out right). pack, packed_index, kEmpty: lesson.cuh too.
// Hints, the notes' round: lane L loads columns L, L+32, ..., L+224 into 8 registers as
// topk::pack(key, column) (topk::kEmpty past the end of the row); best = the largest of its 8.
// Then k times: a warp max of the 32-bit keys (best >> 32) gives the row's top key:
// __reduce_max_sync(0xFFFFFFFF, key) on sm_80 and later, five __shfl_xor_sync steps on a T4;
// __ballot_sync(0xFFFFFFFF, key == top && best != kEmpty) finds the lanes that hold it (an empty
// slot's key is 0, like a NaN's under --smallest); the lowest (__ffs) gives it up: result j's
// column is topk::packed_index of its best, sent by __shfl_sync; it replaces that register by
// kEmpty and rescans its 8. (A max of the whole 64-bit packed words by shuffles also works, at
// twice the shuffles.) Index the 8 registers only with constants (#pragma unroll), or they become
// local memory (wrong/local_list.cu). Longer rows go to rows_serving.cuh's other paths; until
// my_warp_rows is written the short rows stay unwritten and the checker fails (exit 1).
// Check:  make grade EX=row_warp_select   (exit 0 once done):
//         by hand: make build/lesson01_topk/exercises/row_warp_select, then run it with --test --quick
// Solution: rows_01_warp_per_row.cu, warp_rows (and its warp_max).
#include "../rows_serving.cuh"

// warp_rows (rows_digit_select.cuh) with its body cut out: one warp per row of at most 256 columns (the exercise).
__global__ void my_warp_rows(const float* __restrict__ in, size_t rows, uint32_t cols, uint32_t k, bool smallest,
                             float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    // TODO: one warp per row (see above).
    (void)in;
    (void)rows;
    (void)cols;
    (void)k;
    (void)smallest;
    (void)out_vals;
    (void)out_idx;
}

void my_rowwise(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    if (cols > size_t(rowwise::kWarpCols)) return rowwise::rowwise_topk<>(d_in, rows, cols, k, smallest, d_vals, d_idx);
    my_warp_rows<<<course::blocks_for(rows, 8), 256>>>(d_in, rows, uint32_t(cols), uint32_t(k), smallest, d_vals,
                                                       d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return topk::rows::run_rows(argc, argv, "exercise_row_warp_select", my_rowwise); }
