// spmv_04_adaptive — rows binned by length, each bin processed by a matching unit of threads;
// the matrix read in chunks of 4 entries, several in flight per lane.
//
// What changed: 01 and 02 give every row the same unit (a thread, a warp): too small for a row of
// 100 entries, too big for a row of 16. Here each block takes a run of rows and bins them on the fly:
//   short   <= kChunks * W chunks       a group of W lanes per row (W from the mean row length:
//                                       4 for 16 a row)
//   medium  other rows of <= 2048       the whole warp, one row after another
//   long    other rows                  the whole block, one row after another (done first)
// No extra pass and no scratch: row_ptr is read anyway, the binning is a comparison in registers.
// A "chunk" is 4 entries at a multiple of 4; lane l of a group takes chunks cb + l, cb + l + W, ...,
// so a warp reads 32 / W consecutive rows as one stretch; entries outside the row are masked.
// Cost model: one launch; the matrix read once; log2(W) shuffle steps per short row.
// Limits: a block owns its long rows alone, so one row holding half the matrix (giant_row) runs
// on one SM. Version 05 (merge path) splits work by nonzeros AND rows. Tuning: TUNING.md.
//
// Build alone:  nvcc -O3 -arch=native -o spmv04 spmv_04_adaptive.cu -lcusparse
// Run:          ./spmv04 --gen powerlaw --n 2^22 --type float64      ./spmv04 --test
#include "spmv.cuh"

constexpr int kBlock = 256;   // threads per block
constexpr int kChunks = 2;    // chunks per lane per row loaded before use (loads in flight)
// Rows per group of lanes, all loaded before any is used: 2 for float, 1 for double. Two rows of
// doubles held 74 registers (3 blocks per SM); one row, capped at 64 registers by the 4 blocks
// asked below, runs 4 blocks and was faster on every family (TUNING.md). For float the bound
// costs: 5 blocks (48 registers) lost on random columns.
template <class T> constexpr int kRowsPerGroup = sizeof(T) == 4 ? 2 : 1;
template <class T> constexpr int kMinBlocks = sizeof(T) == 4 ? 1 : course::min_blocks_that_fit(4, kBlock);
constexpr int kVec = 4;            // entries per chunk
constexpr int kMediumMax = 2048;   // longer rows (not short) go to the whole block

// Chunk `chunk` = entries [4 chunk, 4 chunk + 4) of the whole matrix, of which only those inside
// the row [begin, end) are loaded: the others get column -1 and value 0, so no byte outside the
// row (and none outside the arrays) is read.
template <class T>
__device__ __forceinline__ void load_chunk(bool active, int64_t chunk, int64_t begin, int64_t end,
                                           const int* __restrict__ col, const T* __restrict__ val, int (&c)[kVec],
                                           T (&v)[kVec]) {
    const int64_t base = chunk * kVec;
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
        const int64_t k = base + e;
        const bool in = active && k >= begin && k < end;   // k < end <= nnz: in bounds
        c[e] = in ? spmv::ldg(col + k) : -1;
        v[e] = in ? spmv::ldg(val + k) : T(0);
    }
}

// sum of v[e] * x[c[e]] over the entries of a loaded chunk; no x read for padding (x may be empty)
template <class T>
__device__ __forceinline__ T chunk_dot(const int (&c)[kVec], const T (&v)[kVec], const T* __restrict__ x) {
    T sum = T(0);
#pragma unroll
    for (int e = 0; e < kVec; ++e)
        if (c[e] >= 0) sum += v[e] * spmv::ldg(x + c[e]);
    return sum;
}

// Partial sum of row [begin, end) by `kLanes` threads numbered `me`: lane me takes chunks
// cb + me, cb + me + kLanes, ..., kChunks of them loaded before any is used.
template <int kLanes, class T>
__device__ __forceinline__ T partial_row(int64_t begin, int64_t end, int me, const int* __restrict__ col,
                                         const T* __restrict__ val, const T* __restrict__ x) {
    const int64_t cb = begin / kVec, ce = (end + kVec - 1) / kVec;
    T sum = T(0);
    for (int64_t ch0 = cb + me; ch0 < ce; ch0 += int64_t(kLanes) * kChunks) {
        int c[kChunks][kVec];
        T v[kChunks][kVec];
#pragma unroll
        for (int u = 0; u < kChunks; ++u) {
            const int64_t ch = ch0 + int64_t(u) * kLanes;
            load_chunk(ch < ce, ch, begin, end, col, val, c[u], v[u]);
        }
#pragma unroll
        for (int u = 0; u < kChunks; ++u) sum += chunk_dot(c[u], v[u], x);
    }
    return sum;
}

// 02's warp per row for the medium rows, plus groups of W lanes for short rows and the whole block
// for long ones: each row binned by its length, in registers.
template <int W, class T>
__global__ void __launch_bounds__(kBlock, kMinBlocks<T>)
    adaptive_spmv(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col, const T* __restrict__ val,
                  const T* __restrict__ x, T* __restrict__ y) {
    constexpr int kGroups = kBlock / W;   // groups of W lanes in the block
    constexpr int kRowsPerBlock = kGroups * kRowsPerGroup<T>;
    constexpr int kShortMaxChunks = kChunks * W;   // a short row: at most this many chunks
    __shared__ int s_long[kRowsPerBlock];
    __shared__ int s_long_count;
    __shared__ T s_warp_sum[kBlock / 32];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int group = threadIdx.x / W, in_group = threadIdx.x % W;
    // Row q of this group: consecutive groups take consecutive rows, so a warp's loads of one
    // round q cover one contiguous stretch of the matrix.
    int64_t row[kRowsPerGroup<T>], begin[kRowsPerGroup<T>], end[kRowsPerGroup<T>];
    bool is_short[kRowsPerGroup<T>];
#pragma unroll
    for (int q = 0; q < kRowsPerGroup<T>; ++q) {
        row[q] = int64_t(blockIdx.x) * kRowsPerBlock + int64_t(q) * kGroups + group;
        const bool valid = row[q] < rows;
        begin[q] = valid ? row_ptr[row[q]] : 0;
        end[q] = valid ? row_ptr[row[q] + 1] : 0;
        if (!valid) row[q] = -1;
        // Bin by chunks touched (alignment included), not by length: an empty row is short (0 or
        // 1 chunk, every entry masked) and gets y = 0 from the short path.
        const int64_t chunks = (end[q] + kVec - 1) / kVec - begin[q] / kVec;
        is_short[q] = valid && chunks <= kShortMaxChunks;
    }

    // Bin: long rows go to the block's shared list. Short, medium and long partition the rows
    // whatever the knobs: medium and long are the rows that are not short, split by length.
    if (threadIdx.x == 0) s_long_count = 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kRowsPerGroup<T>; ++q)
        if (row[q] >= 0 && !is_short[q] && in_group == 0 && end[q] - begin[q] > kMediumMax)
            s_long[atomicAdd(&s_long_count, 1)] = int(row[q]);
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

    // Short rows: the group of W lanes, all its rows at once: every chunk of every row
    // is loaded (16 bytes of columns + 16 or 32 bytes of values per load pair) before the first
    // is used. Lane in_group takes chunks cb + in_group + u W: the group reads its row's aligned
    // chunks side by side, a warp reads 32 / W consecutive rows in one contiguous stretch. Every
    // lane takes part in the shuffles (no early exit).
    {
        int c[kRowsPerGroup<T>][kChunks][kVec];
        T v[kRowsPerGroup<T>][kChunks][kVec];
#pragma unroll
        for (int q = 0; q < kRowsPerGroup<T>; ++q) {
            const int64_t cb = begin[q] / kVec, ce = (end[q] + kVec - 1) / kVec;
#pragma unroll
            for (int u = 0; u < kChunks; ++u) {
                const int64_t ch = cb + in_group + int64_t(u) * W;
                load_chunk(is_short[q] && ch < ce, ch, begin[q], end[q], col, val, c[q][u], v[q][u]);
            }
        }
#pragma unroll
        for (int q = 0; q < kRowsPerGroup<T>; ++q) {
            T sum = T(0);
#pragma unroll
            for (int u = 0; u < kChunks; ++u) sum += chunk_dot(c[q][u], v[q][u], x);
            sum = spmv::group_sum<W>(sum);
            if (is_short[q] && in_group == 0) y[row[q]] = sum;
        }
    }

    // Medium rows: the whole warp, one row at a time. The ballot is warp-uniform, so is the loop.
#pragma unroll
    for (int q = 0; q < kRowsPerGroup<T>; ++q) {
        const bool is_medium = row[q] >= 0 && !is_short[q] && end[q] - begin[q] <= kMediumMax;
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

// The launch: the group width W from the mean row length, one block per 256 / W groups of rows.
// --plan prints adaptive_plan; the launcher uses the same group_width and adaptive_grid.
// W: the smallest power of two (1 .. 16) whose kChunks chunks per lane cover twice the mean row
// length: with the defaults (2 chunks) 16 entries a row give W = 4, one aligned chunk per lane,
// and every row of up to 29 entries, however aligned, stays in the short bin.
inline int group_width(double mean) {
    int w = 1;
    while (w < 16 && double(w) * kChunks * kVec < 2.0 * mean) w *= 2;
    return w;
}
template <class T> unsigned adaptive_grid(uint64_t rows, int w) {
    return course::blocks_for(rows, uint64_t(kBlock / w * kRowsPerGroup<T>));
}

template <class T> std::vector<course::KernelPlan> adaptive_plan(uint64_t rows, double mean) {
    const int w = group_width(mean);
    // The blocks per SM the compiled __launch_bounds__ asks for, clamped to the SM's threads.
    const int min_blocks = std::min(kMinBlocks<T>, course::device().threads_per_sm / kBlock);
    return {
        {"adaptive_spmv<" + std::to_string(w) + (sizeof(T) == 4 ? ", float>" : ", double>"), kBlock, 0, min_blocks, 1,
         "W=" + std::to_string(w) + " lanes a short row; " + std::to_string(adaptive_grid<T>(rows, w)) + " blocks"}};
}

template <int W, class T> void launch(const spmv::Csr<T>& A, const T* x, T* y) {
    static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0 && kBlock % W == 0, "W: a power of two <= 32");
    adaptive_spmv<W, T><<<adaptive_grid<T>(uint64_t(A.rows), W), kBlock>>>(A.rows, A.row_ptr, A.col, A.val, x, y);
    CUDA_CHECK_LAST();
}

template <class T> void spmv_adaptive(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    switch (group_width(double(A.nnz) / double(A.rows))) {
        case 1: launch<1>(A, x, y); break;
        case 2: launch<2>(A, x, y); break;
        case 4: launch<4>(A, x, y); break;
        case 8: launch<8>(A, x, y); break;
        case 16: launch<16>(A, x, y); break;
        default: launch<32>(A, x, y); break;
    }
}

// --plan: for the requested rows at the requested nonzeros per row (the matrix is not built).
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    return c.dtype == "float64" ? adaptive_plan<double>(c.n, double(c.param))
                                : adaptive_plan<float>(c.n, double(c.param));
});

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_04_adaptive", spmv_adaptive<float>, spmv_adaptive<double>);
}
