// wrong/row_float4 — every row read as float4, as if each row started on a 16-byte boundary.
// CAUGHT-BY: checker
//
// The tempting shortcut in a row-wise kernel: "the matrix is cudaMalloc'ed, so it is aligned; read
// each row four floats at a time", with the row's start in float4 units computed as (r * cols) / 4.
// The matrix IS aligned, but row r starts at element r * cols, which is a multiple of 4 only when
// cols is. For cols = 4097, row 1 starts one float past a boundary; (r * cols) / 4 rounds that
// down, so the kernel reads the last element of row 0 as row 1's column 0 and shifts every
// column by one: wrong values, wrong indices, no fault (every load is aligned and in bounds).
// The checker reports it on the first row that starts off a boundary (odd cols in the battery).
// rows_digit_select.cuh's AlignedRows reads up to 3 floats singly until the address is aligned.
//   build/lesson01_topk/wrong/row_float4 --test --quick     -> FAIL ... row 1: ... (exit 1)
#include "../rows_serving.cuh"

struct Float4Rows {   // BROKEN for cols % 4 != 0
    template <class F>
    __device__ __forceinline__ static void each(const float* __restrict__ in, size_t start, uint32_t begin,
                                                uint32_t end, int t, int nthreads, F&& f) {
        const float4* row4 = reinterpret_cast<const float4*>(in) + start / 4;   // rounds down
        const uint32_t quads = (end - begin) / 4;
        for (uint32_t q = t; q < quads; q += nthreads) {
            float4 v = row4[begin / 4 + q];
            uint32_t c = begin + 4 * q;
            f(v.x, c);
            f(v.y, c + 1);
            f(v.z, c + 2);
            f(v.w, c + 3);
        }
        for (uint32_t c = begin + 4 * quads + t; c < end; c += nthreads) f(in[start + c], c);
    }
};

int main(int argc, char** argv) {
    return topk::rows::run_rows(argc, argv, "wrong_row_float4", rowwise::rowwise_topk<float, Float4Rows>);
}
