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
// Each group handles 4 rows of its block (rows g, g + G, g + 2G, g + 3G for G groups): the loads
// of all 4 are issued before any product is formed. Fewer threads fit on an SM (more registers),
// but each keeps up to 16 column/value pairs in flight: a memory-bound kernel needs bytes in
// flight, not threads.
// Cost model: one launch; the matrix read once with group-contiguous (mostly full-sector) loads;
// log2(W) shuffle steps per short row.
// Limits: a block owns its long rows alone, so one row holding half the matrix (giant_row) runs
// on one SM while the others idle. Version 05 (merge path) splits work by nonzeros AND rows.
//
// Build alone:  nvcc -O3 -arch=native -o spmv04 spmv_04_adaptive.cu -lcusparse
// Run:          ./spmv04 --gen powerlaw --n 2^22 --type float64      ./spmv04 --test
#include "spmv.cuh"

constexpr int kBlock = 256;
constexpr int kUnroll = 4;          // entries per lane per step: independent loads in flight
constexpr int kMediumMax = 2048;    // longer rows go to the whole block
constexpr int kRowsPerGroup = 4;    // rows per group of lanes per block: more loads in flight

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
    constexpr int kGroups = kBlock / W;                        // groups of W lanes in the block
    constexpr int kRowsPerBlock = kGroups * kRowsPerGroup;
    constexpr int kShortMax = kUnroll * W;
    __shared__ int s_long[kRowsPerBlock];
    __shared__ int s_long_count;
    __shared__ T s_warp_sum[kBlock / 32];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int group = threadIdx.x / W, in_group = threadIdx.x % W;
    // Row q of this group: consecutive groups take consecutive rows, so a warp's loads of one
    // round q cover one contiguous stretch of the matrix.
    int64_t row[kRowsPerGroup], begin[kRowsPerGroup], end[kRowsPerGroup];
#pragma unroll
    for (int q = 0; q < kRowsPerGroup; ++q) {
        row[q] = int64_t(blockIdx.x) * kRowsPerBlock + int64_t(q) * kGroups + group;
        const bool valid = row[q] < rows;
        begin[q] = valid ? row_ptr[row[q]] : 0;
        end[q] = valid ? row_ptr[row[q] + 1] : 0;
        if (!valid) row[q] = -1;
    }

    // Bin: long rows go to the block's shared list.
    if (threadIdx.x == 0) s_long_count = 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kRowsPerGroup; ++q)
        if (row[q] >= 0 && in_group == 0 && end[q] - begin[q] > kMediumMax) s_long[atomicAdd(&s_long_count, 1)] = int(row[q]);
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

    // Short rows: the group of W lanes, all kRowsPerGroup rows at once: every load of every row is
    // issued before the first is used (up to 2 x 16 in flight per lane). Every lane takes part in
    // the shuffles (no early exit).
    {
        int c[kRowsPerGroup][kUnroll];
        T v[kRowsPerGroup][kUnroll];
#pragma unroll
        for (int q = 0; q < kRowsPerGroup; ++q) {
            const bool is_short = row[q] >= 0 && end[q] - begin[q] <= kShortMax;
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const int64_t k = begin[q] + in_group + int64_t(u) * W;
                const bool use = is_short && k < end[q];
                c[q][u] = use ? spmv::ldg(col + k) : -1;
                v[q][u] = use ? spmv::ldg(val + k) : T(0);
            }
        }
#pragma unroll
        for (int q = 0; q < kRowsPerGroup; ++q) {
            T sum = T(0);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u)
                if (c[q][u] >= 0) sum += v[q][u] * spmv::ldg(x + c[q][u]);   // no x read for padding (x may be empty)
            sum = spmv::group_sum<W>(sum);
            if (row[q] >= 0 && end[q] - begin[q] <= kShortMax && in_group == 0) y[row[q]] = sum;
        }
    }

    // Medium rows: the whole warp, one row at a time. The ballot is warp-uniform, so is the loop.
#pragma unroll
    for (int q = 0; q < kRowsPerGroup; ++q) {
        const int64_t len = end[q] - begin[q];
        const bool is_medium = row[q] >= 0 && len > kShortMax && len <= kMediumMax;
        unsigned pending = __ballot_sync(0xFFFFFFFFu, is_medium && in_group == 0);
        while (pending) {
            const int src = __ffs(pending) - 1;
            pending &= pending - 1;
            const int64_t b = __shfl_sync(0xFFFFFFFFu, begin[q], src), e = __shfl_sync(0xFFFFFFFFu, end[q], src);
            const int64_t r = __shfl_sync(0xFFFFFFFFu, row[q], src);
            T sum = partial_row<32>(b, e, lane, col, val, x);
            sum = spmv::group_sum<32>(sum);
            if (lane == 0) y[r] = sum;
        }
    }
}

template <int W, class T>
void launch(const spmv::Csr<T>& A, const T* x, T* y) {
    adaptive_spmv<W, T><<<course::blocks_for(A.rows, kBlock / W * kRowsPerGroup), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
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
