// spmv_04_adaptive — rows binned by length, each bin processed by a matching unit of threads.
//
// What changed: versions 01 and 02 give every row the same unit (a thread, a warp), which is
// wrong for most rows of most matrices: a thread is too small for a row of 100 entries (uncoalesced,
// serial), a warp is too big for a row of 16 (half its lanes idle, 5 shuffle steps for 16 adds).
// Here each block takes a run of consecutive rows and sorts them on the fly into three bins:
//   short   len <= 4W        a group of W lanes per row, W = the power of two >= half the mean
//                            row length (1 .. 16, chosen on the host from nnz / rows): each
//                            lane loads up to 4 entries, all issued before any is used
//   medium  4W < len <= 2048 the whole warp, one row after another (ballot finds them)
//   long    len > 2048       the whole block, one row after another (a shared list finds them)
// The bins cost no extra pass over memory and no scratch: row_ptr is read anyway, and the binning
// is a comparison in registers. Long rows are done first, behind one barrier, so that no warp
// waits at a barrier for a slow neighbour's medium rows.
// Cost model: one launch; the matrix read once with group-contiguous (mostly full-sector) loads;
// 4 independent loads in flight per lane; log2(W) shuffle steps per short row.
// Limits: a block owns its long rows alone, so one row holding half the matrix (giant_row) runs
// on one SM while the others idle. Version 05 (merge path) splits work by nonzeros AND rows.
//
// Build alone:  nvcc -O3 -arch=native -o spmv04 spmv_04_adaptive.cu -lcusparse
// Run:          ./spmv04 --gen powerlaw --n 2^22 --type float64      ./spmv04 --test
#include "spmv.cuh"

constexpr int kBlock = 256;
constexpr int kUnroll = 4;          // entries per lane per step: independent loads in flight
constexpr int kMediumMax = 2048;    // longer rows go to the whole block

// Sums row [begin, end) with `lanes` threads numbered `me`, kUnroll loads issued together.
template <int kLanes, class T>
__device__ __forceinline__ T partial_row(int64_t begin, int64_t end, int me, const int* __restrict__ col,
                                         const T* __restrict__ val, const T* __restrict__ x) {
    T sum = T(0);
    for (int64_t k0 = begin + me; k0 < end; k0 += int64_t(kLanes) * kUnroll) {
        int c[kUnroll];
        T v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            int64_t k = k0 + int64_t(u) * kLanes;
            c[u] = k < end ? spmv::ldg(col + k) : -1;
            v[u] = k < end ? spmv::ldg(val + k) : T(0);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            if (c[u] >= 0) sum += v[u] * spmv::ldg(x + c[u]);   // no x read for padding (x may be empty)
    }
    return sum;
}

template <int W, class T>
__global__ void __launch_bounds__(kBlock)
adaptive_spmv(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col, const T* __restrict__ val,
              const T* __restrict__ x, T* __restrict__ y) {
    constexpr int kRowsPerBlock = kBlock / W;
    constexpr int kShortMax = kUnroll * W;
    __shared__ int s_long[kRowsPerBlock];
    __shared__ int s_long_count;
    __shared__ T s_warp_sum[kBlock / 32];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int in_group = threadIdx.x % W;
    const int64_t row = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / W;
    const bool valid = row < rows;
    const int64_t begin = valid ? row_ptr[row] : 0, end = valid ? row_ptr[row + 1] : 0;
    const int64_t len = end - begin;

    // Bin: long rows go to the block's shared list.
    if (threadIdx.x == 0) s_long_count = 0;
    __syncthreads();
    if (valid && in_group == 0 && len > kMediumMax) s_long[atomicAdd(&s_long_count, 1)] = int(row);
    __syncthreads();
    const int n_long = s_long_count;   // the same for every thread: the loop below is block-uniform
    for (int i = 0; i < n_long; ++i) {
        const int r = s_long[i];
        T sum = partial_row<kBlock>(row_ptr[r], row_ptr[r + 1], threadIdx.x, col, val, x);
        sum = spmv::group_sum<32>(sum);
        if (lane == 0) s_warp_sum[warp] = sum;
        __syncthreads();
        if (warp == 0) {
            T t = lane < kBlock / 32 ? s_warp_sum[lane] : T(0);
            t = spmv::group_sum<32>(t);
            if (lane == 0) y[r] = t;
        }
        __syncthreads();   // s_warp_sum is reused by the next long row
    }

    // Short rows: the group of W lanes. Every lane takes part in the shuffles (no early exit).
    const bool is_short = valid && len <= kShortMax;
    {
        T sum = T(0);
        if (is_short) {
            int c[kUnroll];
            T v[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int64_t k = begin + in_group + int64_t(u) * W;
                c[u] = k < end ? spmv::ldg(col + k) : -1;
                v[u] = k < end ? spmv::ldg(val + k) : T(0);
            }
#pragma unroll
            for (int u = 0; u < kUnroll; ++u)
                if (c[u] >= 0) sum += v[u] * spmv::ldg(x + c[u]);
        }
        sum = spmv::group_sum<W>(sum);
        if (is_short && in_group == 0) y[row] = sum;
    }

    // Medium rows: the whole warp, one row at a time. The ballot is warp-uniform, so is the loop.
    const bool is_medium = valid && len > kShortMax && len <= kMediumMax;
    unsigned pending = __ballot_sync(0xFFFFFFFFu, is_medium && in_group == 0);
    while (pending) {
        const int src = __ffs(pending) - 1;
        pending &= pending - 1;
        const int64_t b = __shfl_sync(0xFFFFFFFFu, begin, src), e = __shfl_sync(0xFFFFFFFFu, end, src);
        const int64_t r = __shfl_sync(0xFFFFFFFFu, row, src);
        T sum = partial_row<32>(b, e, lane, col, val, x);
        sum = spmv::group_sum<32>(sum);
        if (lane == 0) y[r] = sum;
    }
}

template <int W, class T>
void launch(const spmv::Csr<T>& A, const T* x, T* y) {
    adaptive_spmv<W, T><<<course::blocks_for(A.rows, kBlock / W), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

template <class T>
void spmv_adaptive(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    // Group width: the smallest power of two >= half the mean row length, 1 .. 16. The mean row
    // then takes about two loads per lane, and rows up to twice the mean stay in the short bin.
    const double mean = double(A.nnz) / double(A.rows);
    int w = 1;
    while (w < 16 && 2.0 * w < mean) w *= 2;
    switch (w) {
        case 1: launch<1>(A, x, y); break;
        case 2: launch<2>(A, x, y); break;
        case 4: launch<4>(A, x, y); break;
        case 8: launch<8>(A, x, y); break;
        default: launch<16>(A, x, y); break;
    }
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_04_adaptive", spmv_adaptive<float>, spmv_adaptive<double>);
}
