// spmv_05_merge_path — merge-based SpMV (Merrill & Garland, SC16): balanced whatever the rows.
//
// What changed: version 03 split the work by nonzeros (balanced, but a matrix of mostly empty
// rows still gives one thread thousands of rows to write), version 04 by rows (fast on regular
// rows, but one giant row lands on one block). Merge path splits the SUM of both: think of
// merging two sorted lists,
//   A = the row end offsets row_ptr[1..rows]   (one item per row: "row i is finished, write y[i]")
//   B = the nonzero indices 0, 1, ..., nnz - 1 (one item per nonzero: "add val[k] * x[col[k]]")
// where row end A[i] comes before nonzero k exactly when A[i] <= k. Every block gets the same
// number of merge items (rows + nonzeros), every thread the same 11 (float) or 5 (double): a row
// of 4 million entries is spread over thousands of threads, a stretch of empty rows costs one item
// per row. Finding where a block's stretch of the merge starts is a search along its diagonal
// (d = i + j): the largest i with A[i - 1] <= d - i.
// Per block (tile = 256 threads x 11 items):
//   1. a first small kernel searches every tile boundary's diagonal in row_ptr, 8 lanes per
//      boundary probing 8 points at a time (8 dependent loads for 4M rows instead of 22), and
//      zeroes y at each boundary row; the block reads its two boundaries
//   2. the tile's row ends are copied to shared memory and its products val * x[col] computed
//      into shared memory, both with coalesced, unrolled loads (all loads in flight per thread)
//   3. each thread searches its own diagonal in shared memory and walks its items: a nonzero
//      adds to its running sum, a row end stores the sum to shared y and restarts it
//   4. the sum a thread is holding when it runs out of items belongs to a row that ends later:
//      the lanes of a warp holding the same row add theirs up (segmented shuffle reduction),
//      then one shared atomic per row and warp, into that row's shared y or the tile's carry
//   5. shared y is written out coalesced; the tile's first row (it may have begun in an earlier
//      tile) and its carry (the row open at its end) are ADDED to y with global atomics, one
//      each per tile: both are boundary rows, zeroed by step 1. No fix-up kernel.
// Cost model: the problem's bytes plus one boundary (4 bytes) per tile of ~2800 items and two
// global atomics per tile; two launches, the first a latency-bound search. Float results may
// differ in the last bits from run to run (the order of the atomic additions varies).
// What a thread pays beyond its items' loads: one binary search in shared memory (log2 of the
// tile), three barriers, a 5-step shuffle reduction and at most one shared atomic, the same
// whatever its item count: more items per thread (SPMV05_ITEMS_F32 / _F64, below) amortize
// them, at the price of registers and shared memory (block x items x (4 + 2 sizeof(T)) bytes,
// capped at 48 KB), hence fewer blocks per SM.
// Measured on the H100 (single-case probes, 2026-11-23 ~11:00 UTC, 2^22 rows x 16, float32,
// median of 15, cuSPARSE in the same run): banded 0.3229 ms (cuSPARSE 0.2456, spmv_04 0.2457),
// power-law 0.6186 (cuSPARSE 0.5841: 0.94x, our fastest there; spmv_04 0.7298), random 0.6319
// (cuSPARSE 0.5951, spmv_04 0.5829); float64 power-law 1.0122 (cuSPARSE 0.8543). Before this
// session's changes (7 items, one-thread binary-search partition, a third fix-up kernel):
// 0.3449 / 0.6335 / 0.6371 (09:55 UTC probe). The partition kernel: 10.7 us (8 lanes), 24.7 us (32 lanes).
// Knobs: SPMV05_ITEMS_F32 (11), SPMV05_ITEMS_F64 (5), SPMV05_BLOCK (256), SPMV05_MIN_BLOCKS (1),
// SPMV05_SEARCH_LANES (8), SPMV05_WARP_COMBINE (1).
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
#define SPMV05_ITEMS_F32 11       // merge items per thread, float32 (odd: fewer bank conflicts)
#endif
#ifndef SPMV05_MIN_BLOCKS
#define SPMV05_MIN_BLOCKS 1       // __launch_bounds__ minimum blocks per SM (caps the registers)
#endif
#ifndef SPMV05_SEARCH_LANES
#define SPMV05_SEARCH_LANES 8     // lanes searching one tile boundary together (2, 4, 8, 16)
#endif
#ifndef SPMV05_WARP_COMBINE
#define SPMV05_WARP_COMBINE 1     // 0: one shared atomic per thread for its open sum
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

// Row coordinate of every tile boundary: boundary t is diagonal min(t * tile, rows + nnz). A
// GROUP of kSearchLanes lanes per boundary searches kSearchLanes ways at once: lane l tests the
// l-th of kSearchLanes evenly spaced points of the interval still open, a ballot says how many
// passed (the test is monotone), and the interval shrinks kSearchLanes-fold per step. Each step
// is a DRAM round trip (row_ptr is not in L2 after a flush) and each probe a separate 32-byte
// sector: 8 lanes take 8 steps and ~60 sectors per boundary for 4M rows, against 22 steps for a
// binary search (one thread) and ~190 sectors for a whole warp (measured 24.7 us for the
// partition with 32 lanes at 2^22 x 16, ~40k boundaries: the probes' sectors, not the latency).
// It also zeroes y[r] for each boundary row r: the tiles on both sides of a boundary add their
// parts of row r into y[r] with atomics (see merge_path_spmv), and this kernel runs before them.
constexpr int kSearchLanes = SPMV05_SEARCH_LANES;
static_assert(kSearchLanes >= 2 && kSearchLanes <= 16 && (kSearchLanes & (kSearchLanes - 1)) == 0,
              "SPMV05_SEARCH_LANES: 2, 4, 8 or 16");
template <class T>
__global__ void partition_tiles(int rows, int nnz, int tile, int boundaries, const int* __restrict__ row_ptr,
                                int* __restrict__ tile_row, T* __restrict__ y) {
    constexpr int G = kSearchLanes;
    const int lane = threadIdx.x & 31, g = lane / G, gl = lane % G;
    const int64_t t = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / G;   // this group's boundary
    const int64_t total = int64_t(rows) + nnz;
    const int64_t d = t * tile < total ? t * tile : total;
    int64_t lo = 0, hi = 0;   // the answer lies in [lo, hi]; an empty interval for groups past the end
    if (t < boundaries) { lo = d > nnz ? d - nnz : 0; hi = d < rows ? d : rows; }
    // The whole warp loops while any of its groups is still searching (ballot and shuffles need
    // every lane); a finished group just idles along.
    while (__any_sync(0xFFFFFFFFu, lo < hi)) {
        const bool searching = lo < hi;
        const int64_t m = lo + (hi - lo) * gl / G;   // m < hi when searching: row end m exists
        const bool before = searching && int64_t(row_ptr[m + 1]) <= d - m - 1;   // row end m before nonzero d-m-1
        const unsigned pass = (__ballot_sync(0xFFFFFFFFu, before) >> (g * G)) & ((1u << G) - 1);
        const int c = __popc(pass);   // lanes 0 .. c-1 of the group passed (monotone)
        const int64_t last = __shfl_sync(0xFFFFFFFFu, m, g * G + (c > 0 ? c - 1 : 0));
        const int64_t next = __shfl_sync(0xFFFFFFFFu, m, g * G + (c < G ? c : 0));
        if (searching) {
            if (c == 0) hi = lo;   // row end lo is not before: the answer is lo
            else { lo = last + 1; if (c < G) hi = next; }
        }
    }
    if (gl == 0 && t < boundaries) {
        tile_row[t] = int(lo);
        if (lo < rows) y[lo] = T(0);
    }
}

template <class T>
__global__ void __launch_bounds__(kBlock, SPMV05_MIN_BLOCKS)
merge_path_spmv(int rows, int nnz, const int* __restrict__ row_ptr, const int* __restrict__ col,
                const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y,
                const int* __restrict__ tile_row) {
    constexpr int kI = kItems<T>, kT = kTile<T>;
    __shared__ int s_row_end[kT];
    __shared__ T s_prod[kT];
    __shared__ T s_y[kT];
    __shared__ T s_carry;   // the tile's part of row r1, which ends in a later tile

    const int64_t total = int64_t(rows) + nnz;
    const int64_t d0 = int64_t(blockIdx.x) * kT, d1 = d0 + kT < total ? d0 + kT : total;
    // every thread reads the two boundaries itself (one broadcast load each, no barrier)
    const int64_t r0 = spmv::ldg(tile_row + blockIdx.x), r1 = spmv::ldg(tile_row + blockIdx.x + 1);
    const int64_t k0 = d0 - r0, k1 = d1 - r1;
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
    if (threadIdx.x == 0) s_carry = T(0);
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
#if SPMV05_WARP_COMBINE
    // The open sums of a warp's lanes first combine per row inside the warp: row i never
    // decreases from lane to lane, so equal rows are runs of lanes, added up by a segmented
    // shuffle reduction (5 steps); only the first lane of each run then does the shared atomic.
    // Inside a long row every lane holds the same row: 1 atomic per warp instead of 32.
    {
        const int lane = threadIdx.x & 31;
        int key = dt < dt_end ? i : -1;   // i == n_rows: the tile's carry; -1: no items (last lanes)
#pragma unroll
        for (int off = 1; off < 32; off *= 2) {
            const T other = __shfl_down_sync(0xFFFFFFFFu, sum, off);
            const int other_key = __shfl_down_sync(0xFFFFFFFFu, key, off);
            if (lane + off < 32 && other_key == key) sum += other;
        }
        const int prev_key = __shfl_up_sync(0xFFFFFFFFu, key, 1);
        if (key >= 0 && (lane == 0 || prev_key != key)) {
            if (key < n_rows) atomicAdd(&s_y[key], sum);   // the row ends later in this tile
            else atomicAdd(&s_carry, sum);                 // the row ends in a later tile
        }
    }
#else
    if (dt < dt_end) {
        if (i < n_rows) atomicAdd(&s_y[i], sum);   // the row ends later in this tile
        else atomicAdd(&s_carry, sum);              // the row ends in a later tile
    }
#endif
    __syncthreads();
    // Row r0 may have begun in an earlier tile, whose carry goes to y[r0] too (zeroed by the
    // partition): add, do not store. Every other finished row is this tile's alone.
    // One global atomic per tile for the open row: a long row spans many tiles, and one global
    // atomic per THREAD into it measured 0.768 ms on power-law against 0.624 with one per tile.
    if (threadIdx.x == 0 && r1 < rows) atomicAdd(y + r1, s_carry);   // y[r1] was zeroed by the partition
    for (int r = threadIdx.x; r < n_rows; r += kBlock) {
        if (r == 0) atomicAdd(y + r0, s_y[0]);
        else y[r0 + r] = s_y[r];
    }
}

template <class T>
void spmv_merge_path(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    const uint64_t total = uint64_t(A.rows) + uint64_t(A.nnz);
    const unsigned tiles = course::blocks_for(total, kTile<T>);
    int* tile_row = course::scratch_as<int>(0, size_t(tiles) + 1);
    constexpr int kPartitionBlock = 256;   // 256 / kSearchLanes boundaries per block
    partition_tiles<T><<<course::blocks_for((uint64_t(tiles) + 1) * kSearchLanes, kPartitionBlock), kPartitionBlock>>>(
        A.rows, A.nnz, kTile<T>, int(tiles) + 1, A.row_ptr, tile_row, y);
    CUDA_CHECK_LAST();
    merge_path_spmv<T><<<tiles, kBlock>>>(A.rows, A.nnz, A.row_ptr, A.col, A.val, x, y, tile_row);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_05_merge_path", spmv_merge_path<float>, spmv_merge_path<double>);
}
