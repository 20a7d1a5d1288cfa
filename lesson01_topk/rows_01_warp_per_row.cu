// rows_01_warp_per_row — row-wise top-k, step 1: a warp a row, the row in registers.
//
// What changed since the library bars (rows_00_*): no sort and no shared memory. Lane L holds
// columns L, L+32, ... of its row as packed (key, column) words, R of them (R = 1, 2, 4, 8: the row's
// length rounded up to 32 R, so a row of 64 keeps 2 registers busy, not 8). Each of k rounds takes the
// row's largest key: every lane offers its own best, one warp max finds the top key, a ballot the lanes
// that hold it; the lowest gives that element up (its column by shuffle) and finds its next best.
// Cost model: the row is read once, coalesced (R loads a lane); then k rounds of ~10 instructions a
// warp (a max, a ballot, a shuffle, a scan of R registers), 32 results stored per coalesced write.
// Target shape: many short rows (16384 x 128, k = 8; 65536 x 64, k = 2), where a block a row would
// leave most of its threads idle. Its limit: cols <= 256 (more registers a lane would spill or slow
// every round's rescan), and the rounds are serial: k = 256 is 256 rounds. Longer rows: rows_02.
// Exercise: exercises/row_warp_select.cu asks for this kernel.
//
// Build alone:  nvcc -O3 -arch=native -o rows01 rows_01_warp_per_row.cu
// Run:          ./rows01 --rows 16384 --n 128 --k 8      ./rows01 --test      ./rows01 --sweep
#include "rows_steps.cuh"

namespace warp_per_row {

using topk::kEmpty;
using topk::pack;
using topk::packed_index;
using topk::to_key;

constexpr int kMaxCols = 256;       // 8 keys a lane
constexpr int kWarpsPerBlock = 8;   // 8 rows a block of 256 threads

// The warp's largest 32-bit value, to every lane: one instruction on sm_80 and later; on Turing
// (sm_75, which CI builds for) five butterfly shuffles.
__device__ __forceinline__ uint32_t warp_max(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xFFFFFFFFu, x);
#else
    for (int d = 16; d > 0; d >>= 1) x = max(x, __shfl_xor_sync(0xFFFFFFFFu, x, d));
    return x;
#endif
}

// The largest of a lane's R packed keys (indices are constants after unrolling: the array stays in registers).
template <int R> __device__ __forceinline__ uint64_t best_of(const uint64_t (&v)[R]) {
    uint64_t b = v[0];
#pragma unroll
    for (int i = 1; i < R; ++i) b = v[i] > b ? v[i] : b;
    return b;
}

// A warp a row: the row's keys in R registers a lane, k rounds of a warp max, 32 results a coalesced store.
template <int R>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_rows(const float* __restrict__ in, size_t rows, uint32_t cols, uint32_t k, bool smallest,
              float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    const int lane = threadIdx.x & 31;
    const size_t r = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
    if (r >= rows) return;   // a whole warp leaves together
    const float* row = in + r * cols;
    uint64_t v[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
        const uint32_t c = lane + 32 * i;
        v[i] = c < cols ? pack(to_key(row[c], smallest), c) : kEmpty;
    }
    uint64_t best = best_of(v);
    uint32_t mine = 0;   // lane j % 32 keeps result j's column until the warp stores 32
    for (uint32_t j = 0; j < k; ++j) {
        const uint32_t key = uint32_t(best >> 32);
        const uint32_t top = warp_max(key);
        // Key 0 is an empty slot's and also a NaN's under --smallest: only real elements may answer.
        const unsigned holders = __ballot_sync(0xFFFFFFFFu, key == top && best != kEmpty);
        const int owner = __ffs(holders) - 1;
        const uint32_t col = __shfl_sync(0xFFFFFFFFu, packed_index(best), owner);
        if (lane == owner) {   // give it up, then find this lane's next best
#pragma unroll
            for (int i = 0; i < R; ++i) v[i] = v[i] == best ? kEmpty : v[i];
            best = best_of(v);
        }
        if (lane == int(j % 32)) mine = col;
        if (j % 32 == 31 || j == k - 1) {   // store results j - j % 32 .. j
            const uint32_t first = j - j % 32;
            if (first + lane <= j) {
                out_idx[r * k + first + lane] = mine;
                out_vals[r * k + first + lane] = row[mine];
            }
        }
    }
}

// The launcher: R from the row's length, a warp a row.
void topk_rows(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    const unsigned grid = course::blocks_for(rows, kWarpsPerBlock);
    const uint32_t c = uint32_t(cols), kk = uint32_t(k);
    constexpr int kThreads = 32 * kWarpsPerBlock;
    if (cols <= 32) warp_rows<1><<<grid, kThreads>>>(d_in, rows, c, kk, smallest, d_vals, d_idx);
    else if (cols <= 64) warp_rows<2><<<grid, kThreads>>>(d_in, rows, c, kk, smallest, d_vals, d_idx);
    else if (cols <= 128) warp_rows<4><<<grid, kThreads>>>(d_in, rows, c, kk, smallest, d_vals, d_idx);
    else warp_rows<8><<<grid, kThreads>>>(d_in, rows, c, kk, smallest, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace warp_per_row

int main(int argc, char** argv) {
    return rows_steps::run_step(argc, argv, "rows_01_warp_per_row", warp_per_row::topk_rows,
                                {warp_per_row::kMaxCols, ~uint64_t(0), "a warp holds its row in 8 registers a lane"});
}
