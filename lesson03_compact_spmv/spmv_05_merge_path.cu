// spmv_05_merge_path — merge-based SpMV (Merrill & Garland, SC16): balanced whatever the rows.
//
// What changed: version 03 split the work by nonzeros (balanced, but a matrix of mostly empty
// rows still gives one thread thousands of rows to write), version 04 by rows (fast on regular
// rows, but one giant row lands on one block). Merge path splits the SUM of both: think of
// merging two sorted lists,
//   A = the row end offsets row_ptr[1..rows]   (one item per row: "row i is finished, write y[i]")
//   B = the nonzero indices 0, 1, ..., nnz - 1 (one item per nonzero: "add val[k] * x[col[k]]")
// where row end A[i] comes before nonzero k exactly when A[i] <= k. Every block gets the same
// number of merge items (rows + nonzeros), every thread the same 7 (float) or 5 (double): a row of
// 4 million entries is spread over thousands of threads, a stretch of empty rows costs one item
// per row. Finding where a block's stretch of the merge starts is a binary search along its
// diagonal (d = i + j): the largest i with A[i - 1] <= d - i.
// Per block (tile = 256 threads x 7 items):
//   1. a first small kernel searches every tile boundary's diagonal in row_ptr, one thread per
//      boundary, all at once (log2(rows) dependent loads: ~10 us in total instead of stalling
//      every block for that long at its start); the block reads its two boundaries
//   2. the tile's row ends are copied to shared memory and its products val * x[col] computed
//      into shared memory, both with coalesced, unrolled loads (all 7 loads in flight per thread)
//   3. each thread searches its own diagonal in shared memory and walks its 7 items: a nonzero
//      adds to its running sum, a row end stores the sum to shared y and restarts it
//   4. the sum a thread is holding when it runs out of items belongs to a row that ends later:
//      it is added (shared atomic) to that row's shared y, or to the tile's carry-out when the
//      row ends in a later tile; shared y is written out coalesced
//   5. a last small kernel adds each tile's carry-out to its row (global atomics: a giant row
//      receives one per tile it spans; it runs after the first, so the rows' plain stores are done)
// Cost model: the problem's bytes plus one boundary (8 bytes) and one carry (row, value) per tile
// of ~1800 items; three launches, the first a latency-bound search. Float results may
// differ in the last bits from run to run (the order of the atomic additions varies).
// What a thread pays beyond its items' loads: one binary search in shared memory (log2 of the
// tile), three barriers and one shared atomic, the same whatever its item count: more items per
// thread (SPMV05_ITEMS_F32 / _F64, below) amortize them, at the price of registers and shared
// memory (block x items x (4 + 2 sizeof(T)) bytes, capped at 48 KB), hence fewer blocks per SM.
// Knobs: SPMV05_ITEMS_F32 (7), SPMV05_ITEMS_F64 (5), SPMV05_BLOCK (256).
//
// Build alone:  nvcc -O3 -arch=native -o spmv05 spmv_05_merge_path.cu -lcusparse
// Run:          ./spmv05 --gen giant_row --n 2^22      ./spmv05 --test
#include "spmv.cuh"

// Tuning knobs (defaults first; the lead measures variants with -D, see README.md, Part 3). The tile
// is staged in shared memory (row ends, products, partial y: 4 + 2 sizeof(T) bytes per item), so
// block x items is capped by the 48 KB of static shared memory: float <= 4096 items, double <= 2457.
#ifndef SPMV05_BLOCK
#define SPMV05_BLOCK 256
#endif
#ifndef SPMV05_ITEMS_F32
#define SPMV05_ITEMS_F32 7        // merge items per thread, float32 (odd: fewer bank conflicts)
#endif
#ifndef SPMV05_ITEMS_F64
#define SPMV05_ITEMS_F64 5        // merge items per thread, float64
#endif

constexpr int kBlock = SPMV05_BLOCK;
template <class T> constexpr int kItems = sizeof(T) == 4 ? SPMV05_ITEMS_F32 : SPMV05_ITEMS_F64;
template <class T> constexpr int kTile = kBlock * kItems<T>;
static_assert(kBlock % 32 == 0 && kBlock >= 32 && kBlock <= 1024, "SPMV05_BLOCK: a multiple of 32, <= 1024");
static_assert(SPMV05_ITEMS_F32 >= 1 && SPMV05_ITEMS_F64 >= 1, "SPMV05_ITEMS_*: >= 1");
static_assert(kTile<float> * (4 + 2 * 4) + 64 <= 48 * 1024, "SPMV05_BLOCK x SPMV05_ITEMS_F32: over 48 KB of shared memory");
static_assert(kTile<double> * (4 + 2 * 8) + 64 <= 48 * 1024, "SPMV05_BLOCK x SPMV05_ITEMS_F64: over 48 KB of shared memory");

// Merge-path search: how many row ends (i) are among the first `diag` merge items. `row_end(i)`
// is A[i]; nonzero j is B[j] = j. Invariant: the answer lies in [lo, hi].
template <class RowEnd>
__device__ __forceinline__ int64_t merge_search(int64_t diag, int64_t rows, int64_t nnz, RowEnd row_end) {
    int64_t lo = diag > nnz ? diag - nnz : 0, hi = diag < rows ? diag : rows;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;   // mid < hi <= rows: A[mid] exists
        if (row_end(mid) <= diag - mid - 1) lo = mid + 1;   // row end mid comes before nonzero diag-mid-1
        else hi = mid;
    }
    return lo;
}

// Row coordinate of every tile boundary: boundary t is diagonal min(t * tile, rows + nnz).
__global__ void partition_tiles(int rows, int nnz, int tile, int boundaries, const int* __restrict__ row_ptr,
                                int* __restrict__ tile_row) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= boundaries) return;
    const int64_t total = int64_t(rows) + nnz;
    const int64_t d = int64_t(t) * tile < total ? int64_t(t) * tile : total;
    tile_row[t] = int(merge_search(d, rows, nnz, [&](int64_t i) { return int64_t(row_ptr[i + 1]); }));
}

template <class T>
__global__ void __launch_bounds__(kBlock)
merge_path_spmv(int rows, int nnz, const int* __restrict__ row_ptr, const int* __restrict__ col,
                const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y,
                const int* __restrict__ tile_row, int* __restrict__ carry_row, T* __restrict__ carry_value) {
    constexpr int kI = kItems<T>, kT = kTile<T>;
    __shared__ int s_row_end[kT];
    __shared__ T s_prod[kT];
    __shared__ T s_y[kT];
    __shared__ int64_t s_r0, s_r1;
    __shared__ T s_carry;

    const int64_t total = int64_t(rows) + nnz;
    const int64_t d0 = int64_t(blockIdx.x) * kT, d1 = d0 + kT < total ? d0 + kT : total;
    if (threadIdx.x == 0) { s_r0 = tile_row[blockIdx.x]; s_r1 = tile_row[blockIdx.x + 1]; s_carry = T(0); }
    __syncthreads();
    const int64_t r0 = s_r0, r1 = s_r1, k0 = d0 - r0, k1 = d1 - r1;
    const int n_rows = int(r1 - r0), n_nz = int(k1 - k0);   // both <= kT

    // Stage the tile: row ends and products, coalesced. All row-end, column and value loads are
    // issued before any is used (one memory round trip), then the x gathers (a second).
    {
        int c[kI], re[kI];
        T v[kI];
#pragma unroll
        for (int u = 0; u < kI; ++u) {
            int j = u * kBlock + threadIdx.x;
            re[u] = j < n_rows ? spmv::ldg(row_ptr + r0 + 1 + j) : 0;
            c[u] = j < n_nz ? spmv::ldg(col + k0 + j) : 0;
            v[u] = j < n_nz ? spmv::ldg(val + k0 + j) : T(0);
        }
#pragma unroll
        for (int u = 0; u < kI; ++u) {
            int j = u * kBlock + threadIdx.x;
            if (j < n_rows) s_row_end[j] = re[u];
        }
#pragma unroll
        for (int u = 0; u < kI; ++u) {
            int j = u * kBlock + threadIdx.x;
            if (j < n_nz) s_prod[j] = v[u] * spmv::ldg(x + c[u]);
        }
    }
    __syncthreads();

    // This thread's items: diagonals [dt, dt_end) of the tile's n_rows + n_nz.
    const int tile_items = n_rows + n_nz;
    const int dt = min(int(threadIdx.x) * kI, tile_items), dt_end = min(dt + kI, tile_items);
    auto local_end = [&](int64_t i) { return int64_t(s_row_end[i]) - k0; };   // in tile-local nonzeros
    int i = int(merge_search(dt, n_rows, n_nz, local_end));
    int j = dt - i;
    T sum = T(0);
#pragma unroll
    for (int u = 0; u < kI; ++u) {
        if (dt + u < dt_end) {
            if (i < n_rows && s_row_end[i] - k0 <= j) {   // row i ends here
                s_y[i] = sum;
                sum = T(0);
                ++i;
            } else if (j < n_nz) {                          // always true for a right split
                sum += s_prod[j];
                ++j;
            }
        }
    }
    __syncthreads();   // every finished row's partial is stored before the carries are added
    if (dt < dt_end) {
        if (i < n_rows) atomicAdd(&s_y[i], sum);   // the row ends later in this tile
        else atomicAdd(&s_carry, sum);              // the row ends in a later tile
    }
    __syncthreads();
    for (int r = threadIdx.x; r < n_rows; r += kBlock) y[r0 + r] = s_y[r];
    if (threadIdx.x == 0) {
        carry_row[blockIdx.x] = r1 < rows ? int(r1) : -1;   // r1 == rows: nothing left open
        carry_value[blockIdx.x] = s_carry;
    }
}

template <class T>
__global__ void add_carries(int tiles, const int* __restrict__ carry_row, const T* __restrict__ carry_value,
                            T* __restrict__ y) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    const int r = carry_row[t];
    if (r >= 0) atomicAdd(y + r, carry_value[t]);
}

template <class T>
void spmv_merge_path(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    const uint64_t total = uint64_t(A.rows) + uint64_t(A.nnz);
    const unsigned tiles = course::blocks_for(total, kTile<T>);
    int* carry_row = course::scratch_as<int>(0, tiles);
    T* carry_value = course::scratch_as<T>(1, tiles);
    int* tile_row = course::scratch_as<int>(2, size_t(tiles) + 1);
    partition_tiles<<<course::blocks_for(uint64_t(tiles) + 1, 256), 256>>>(A.rows, A.nnz, kTile<T>, int(tiles) + 1,
                                                                           A.row_ptr, tile_row);
    CUDA_CHECK_LAST();
    merge_path_spmv<T><<<tiles, kBlock>>>(A.rows, A.nnz, A.row_ptr, A.col, A.val, x, y, tile_row, carry_row,
                                          carry_value);
    CUDA_CHECK_LAST();
    add_carries<T><<<course::blocks_for(tiles, 256), 256>>>(int(tiles), carry_row, carry_value, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_05_merge_path", spmv_merge_path<float>, spmv_merge_path<double>);
}
