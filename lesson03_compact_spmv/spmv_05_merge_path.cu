// spmv_05_merge_path — merge-based SpMV (Merrill & Garland, SC16): balanced whatever the rows.
//
// What changed: 03 split the work by nonzeros (a run of empty rows still lands on one thread), 04
// by rows (one giant row lands on one block). Merge path splits the SUM of both: merge the row
// ends A = row_ptr[1..rows] with the nonzero indices B = 0..nnz-1 (row end A[i] comes before
// nonzero k when A[i] <= k); every block gets the same number of merge items, every thread 10
// (float) or 5 (double): a row of 4 million entries is spread over thousands of threads.
//   1. partition_tiles: 8 lanes per tile boundary search its diagonal in row_ptr, starting from
//      the straight-line guess d * rows / (rows + nnz); it also zeroes y at each boundary row
//   2. merge_path_spmv stages the tile in shared memory (loads, then x gathers; products and
//      rebased row ends), each thread searches its diagonal there and walks its items, the open
//      sums are combined per row in the warp, and the tile's first and last rows go to y with one
//      global atomic each (no fix-up kernel)
// Cost model: the problem's bytes, plus 4 bytes and two atomics a tile of 2560 items; two launches.
// Float results may differ in the last bits from run to run (the atomics' order varies).
// Why the loads are aligned and "evict first": TUNING.md.
//
// Build alone:  nvcc -O3 -arch=native -o spmv05 spmv_05_merge_path.cu -lcusparse
// Run:          ./spmv05 --gen giant_row --n 2^22      ./spmv05 --test
#include "spmv.cuh"

// The tile is staged in shared memory (row ends, products, partial y: 4 + 2 sizeof(T) bytes per
// item), so block x items is capped by the 48 KB of static shared memory.
constexpr int kBlock = 256;   // threads per block (128 with 10 blocks per SM: faster on banded only)
// Merge items per thread: 10 for float (11: slower on power-law and random, faster on banded;
// 12, measured without the hint, no faster than 11: TUNING.md), 5 for double.
template <class T> constexpr int kItems = sizeof(T) == 4 ? 10 : 5;
template <class T> constexpr int kTile = kBlock* kItems<T>;
static_assert(kTile<float> * (4 + 2 * 4) + 64 <= 48 * 1024, "float tile over 48 KB of shared memory");
static_assert(kTile<double> * (4 + 2 * 8) + 64 <= 48 * 1024, "double tile over 48 KB of shared memory");
// Blocks per SM asked of __launch_bounds__: 5 caps the registers at 48 with no spill (6: 40
// registers: the gathers on random and power-law columns much slower). Clamped to the SM's thread limit (a Turing SM
// holds fewer than 5 x 256 threads).
template <class T> constexpr int kStaticSmem = sizeof(int) * (kTile<T> + 1) + sizeof(T) * (2 * kTile<T> + 2);
template <class T> constexpr int kMinBlocks = course::min_blocks_that_fit(5, kBlock, kStaticSmem<T>);

// Row coordinate of every tile boundary: boundary t is diagonal min(t * tile, rows + nnz). A
// GROUP of kSearchLanes (G) lanes per boundary probes G row ends at once; each step is a DRAM round
// trip (row_ptr is not in L2 after a flush), so the steps are what the kernel waits on. First step:
// half the lanes probe around the straight-line guess (spmv::merge::probe), where a matrix of
// near-equal rows (banded, random) crosses the diagonal: most boundaries are found in this one
// round trip; the other half split the interval, so a boundary far from the line still shrinks
// it G/2-fold. Later steps: G evenly spaced points, G-fold per step (8 steps for 4M rows with
// 8 lanes, against 22 for a binary search by one thread). The probes are not sorted, so the group
// keeps the largest passing and smallest failing probe (shuffle max / min over its G lanes). Why
// not a whole warp: each probe is a separate 32-byte sector; an earlier evenly spaced version of
// this search measured over twice as long with 32 lanes as with 8 (TUNING.md).
// It also zeroes y[r] for each boundary row r: the tiles on both sides of a boundary add their
// parts of row r into y[r] with atomics (see merge_path_spmv), and this kernel runs before them.
constexpr int kSearchLanes = 8;
static_assert(kSearchLanes >= 2 && kSearchLanes <= 16 && (kSearchLanes & (kSearchLanes - 1)) == 0,
              "kSearchLanes: 2, 4, 8 or 16");
// New in this version: each tile's first row, found by searching the merge path (03 cut by nonzeros).
template <class T>
__global__ void partition_tiles(int rows, int nnz, int tile, int boundaries, const int* __restrict__ row_ptr,
                                int* __restrict__ tile_row, T* __restrict__ y) {
    constexpr int G = kSearchLanes;
    const int gl = (threadIdx.x & 31) % G;
    const int64_t t = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / G;   // this group's boundary
    const int64_t total = int64_t(rows) + nnz;
    const int64_t d = t * tile < total ? t * tile : total;
    int64_t lo = 0, hi = 0;   // the answer lies in [lo, hi]; an empty interval for groups past the end
    if (t < boundaries) {
        lo = d > nnz ? d - nnz : 0;
        hi = d < rows ? d : rows;
    }
    const int64_t guess = spmv::merge::linear_guess(d, rows, nnz);
    for (bool first = true; __any_sync(0xFFFFFFFFu, lo < hi); first = false) {
        const bool searching = lo < hi;   // the same for the G lanes of a group
        int64_t new_lo = lo, new_hi = hi;
        if (searching) {
            const int64_t m = spmv::merge::probe<G>(lo, hi, guess, gl, first);   // lo <= m < hi
            spmv::merge::narrow_proposal(int64_t(row_ptr[m + 1]) <= d - m - 1, m, new_lo, new_hi);
        }
#pragma unroll
        for (int off = G / 2; off > 0; off /= 2) {   // xor partners stay inside the aligned group
            const int64_t o_lo = __shfl_xor_sync(0xFFFFFFFFu, new_lo, off);
            const int64_t o_hi = __shfl_xor_sync(0xFFFFFFFFu, new_hi, off);
            new_lo = o_lo > new_lo ? o_lo : new_lo;
            new_hi = o_hi < new_hi ? o_hi : new_hi;
        }
        lo = new_lo;
        hi = new_hi;
    }
    if (gl == 0 && t < boundaries) {
        tile_row[t] = int(lo);
        if (lo < rows) y[lo] = T(0);
    }
}

// The matrix's loads carry the L2 hint "evict first" (spmv::ldg_hint): each of its lines is read
// once, while x's lines are gathered again and again, so the hint keeps x in the L2 and lets the
// streamed lines go first. With the aligned loads below it gains on every family (TUNING.md).
// Before the loads were aligned it cost time on banded and 2-D Poisson rows. A likely reading, not profiled: a warp's 32 columns then straddled two lines,
// the next warp read the second line again, and "evict first" had let it go in between.
// 03's balanced split, but over rows + nonzeros and with the products kept on chip: one block
// per tile of merge items, each thread walking its own 10 (float) or 5 (double).
template <class T>
__global__ void __launch_bounds__(kBlock, kMinBlocks<T>)
    merge_path_spmv(int rows, int nnz, const int* __restrict__ row_ptr, const int* __restrict__ col,
                    const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y,
                    const int* __restrict__ tile_row) {
    constexpr int kI = kItems<T>, kT = kTile<T>;
    __shared__ int s_row_end[kT + 1];   // + the sentinel after the tile's last row end
    __shared__ T s_prod[kT + 1];        // + one readable slot after the last product (the walk reads ahead)
    __shared__ T s_y[kT];
    __shared__ T s_carry;   // the tile's part of row r1, which ends in a later tile

    const int64_t total = int64_t(rows) + nnz;
    const int64_t d0 = int64_t(blockIdx.x) * kT, d1 = d0 + kT < total ? d0 + kT : total;
    // every thread reads the two boundaries itself (one broadcast load each, no barrier)
    const int64_t r0 = spmv::ldg(tile_row + blockIdx.x), r1 = spmv::ldg(tile_row + blockIdx.x + 1);
    const int64_t k0 = d0 - r0, k1 = d1 - r1;
    const int n_rows = int(r1 - r0), n_nz = int(k1 - k0);   // both <= kT

    // Stage the tile: the column and value loads first (all in flight), then the row ends,
    // rebased to tile-local nonzeros (A[r] - k0 lies in [0, n_nz]: 32 bits), two per thread per
    // round: rows are about 1 item in 17 at 16 nonzeros per row, so one round covers a tile and
    // two registers hold them instead of kI (kI row ends live next to the columns and values took
    // 64 registers: header). Their loads overlap the column/value loads; then the x gathers (the
    // second round trip) and the products.
    {
        const int k0i = int(k0);
        const uint64_t policy = spmv::l2_evict_first_policy();
        // The loads start at the 128-byte line that holds col[k0], not at k0: `lead` slots before
        // the tile's first nonzero are skipped. A tile starts at any nonzero, so a warp's 32
        // columns from k0 straddle two lines: two L2 requests where one will do, and the L2's
        // request rate is this kernel's bound (ncu, power-law f32: 78.9 M requests against
        // cuSPARSE's 74.8 M for the same sectors). The `lead` + n_nz slots may pass the kTile the
        // batch covers, by at most 31: those few (tiles inside a row longer than a tile) are
        // loaded after the batch.
        const int lead = int((reinterpret_cast<uintptr_t>(col + k0) & 127) / sizeof(int));
        const int* col0 = col + (k0 - lead);
        const T* val0 = val + (k0 - lead);
        int c[kI];
        T v[kI];
#pragma unroll
        for (int u = 0; u < kI; ++u) {
            const int p = u * kBlock + threadIdx.x, j = p - lead;   // slot p, tile nonzero j
            if (j >= 0 && j < n_nz) {
                c[u] = spmv::ldg_hint(col0 + p, policy);
                v[u] = spmv::ldg_hint(val0 + p, policy);
            } else {
                c[u] = 0;
                v[u] = T(0);
            }
        }
        for (int base = 0; base < n_rows; base += 2 * kBlock) {   // block-uniform trip count
            const int ja = base + int(threadIdx.x), jb = ja + kBlock;
            const int a = ja < n_rows ? spmv::ldg(row_ptr + r0 + 1 + ja) : 0;
            const int b = jb < n_rows ? spmv::ldg(row_ptr + r0 + 1 + jb) : 0;
            if (ja < n_rows) s_row_end[ja] = a - k0i;
            if (jb < n_rows) s_row_end[jb] = b - k0i;
        }
        if (threadIdx.x == 0) s_row_end[n_rows] = 0x7FFFFFFF;   // the sentinel: never <= a nonzero index
        // Every gather issued before the first product is stored, and unpredicated: a lane past
        // the tile's nonzeros reads x[0] (its c is 0; x has an entry since the tile has a nonzero).
        // Predicated gathers interleaved with the stores compiled into two batches of 5-6
        // gathers: two round trips instead of one (SASS, sm_90).
        if (n_nz > 0) {   // block-uniform
            T xv[kI];
#pragma unroll
            for (int u = 0; u < kI; ++u) xv[u] = spmv::ldg(x + c[u]);
#pragma unroll
            for (int u = 0; u < kI; ++u) {
                const int j = u * kBlock + threadIdx.x - lead;
                if (j >= 0 && j < n_nz) s_prod[j] = v[u] * xv[u];
            }
        }
        const int rest = lead + n_nz - kT;   // slots past the batch (block-uniform, at most 31)
        if (int(threadIdx.x) < rest) {
            const int j = kT - lead + threadIdx.x;
            s_prod[j] = spmv::ldg(val + k0 + j) * spmv::ldg(x + spmv::ldg(col + k0 + j));
        }
    }
    if (threadIdx.x == 0) s_carry = T(0);
    __syncthreads();

    // This thread's items: diagonals [dt, dt_end) of the tile's n_rows + n_nz.
    const int tile_items = n_rows + n_nz;
    const int dt = min(int(threadIdx.x) * kI, tile_items), dt_end = min(dt + kI, tile_items);
    // 32-bit search on the rebased row ends, then the walk: one shared load per item, and no
    // per-item test at all on a thread with kI items (every thread but those at the matrix's end).
    int i = spmv::merge::search_local(dt, n_rows, n_nz, s_row_end);
    int j = dt - i;
    T sum = T(0);
    if (dt_end - dt == kI) spmv::merge::walk<kI, true>(s_row_end, s_prod, s_y, i, j, kI, sum);
    else spmv::merge::walk<kI, false>(s_row_end, s_prod, s_y, i, j, dt_end - dt, sum);
    __syncthreads();   // every finished row's partial is stored before the carries are added
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
    __syncthreads();
    // Row r0 may have begun in an earlier tile, whose carry goes to y[r0] too (zeroed by the
    // partition): add, do not store. Every other finished row is this tile's alone.
    // One global atomic per tile for the open row: a long row spans many tiles, and one global
    // atomic per THREAD into it measured slower on power-law (TUNING.md).
    if (threadIdx.x == 0 && r1 < rows) atomicAdd(y + r1, s_carry);   // y[r1] was zeroed by the partition
    for (int r = threadIdx.x; r < n_rows; r += kBlock) {
        if (r == 0) atomicAdd(y + r0, s_y[0]);
        else y[r0 + r] = s_y[r];
    }
}

// The launch, from rows + nnz alone: one block per tile, and kSearchLanes lanes per tile boundary
// for the partition. --plan prints merge_path_plan; the launcher uses the same merge_path_grids.
constexpr int kPartitionBlock = 256;   // 256 / kSearchLanes boundaries per block
struct MergePathGrids {
    unsigned tiles = 0, partition_blocks = 0;
};
template <class T> MergePathGrids merge_path_grids(uint64_t rows, uint64_t nnz) {
    MergePathGrids g;
    g.tiles = course::blocks_for(rows + nnz, kTile<T>);
    g.partition_blocks = course::blocks_for((uint64_t(g.tiles) + 1) * kSearchLanes, kPartitionBlock);
    return g;
}
template <class T> std::vector<course::KernelPlan> merge_path_plan(uint64_t rows, uint64_t nnz) {
    const MergePathGrids g = merge_path_grids<T>(rows, nnz);
    // The blocks per SM that the compiled __launch_bounds__ asks for: kMinBlocks, clamped to the
    // SM's threads (4 on a Turing SM).
    const int min_blocks = course::blocks_that_fit(5, kBlock, kStaticSmem<T>);
    const size_t smem = kStaticSmem<T>;
    return {
        {"partition_tiles", kPartitionBlock, 0, 0, 1,
         std::to_string(g.partition_blocks) + " blocks, " + std::to_string(kSearchLanes) + " lanes a tile boundary"},
        {std::string("merge_path_spmv<") + (sizeof(T) == 4 ? "float" : "double") + ">", kBlock, 0, min_blocks, 1,
         std::to_string(g.tiles) + " blocks, one per tile of " + std::to_string(kTile<T>) + " merge items; " +
             std::to_string(smem) + " B of static shared memory a block"}};
}

template <class T> void spmv_merge_path(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    const MergePathGrids g = merge_path_grids<T>(uint64_t(A.rows), uint64_t(A.nnz));
    int* tile_row = course::scratch_as<int>(0, size_t(g.tiles) + 1);
    partition_tiles<T>
        <<<g.partition_blocks, kPartitionBlock>>>(A.rows, A.nnz, kTile<T>, int(g.tiles) + 1, A.row_ptr, tile_row, y);
    CUDA_CHECK_LAST();
    merge_path_spmv<T><<<g.tiles, kBlock>>>(A.rows, A.nnz, A.row_ptr, A.col, A.val, x, y, tile_row);
    CUDA_CHECK_LAST();
}

// --plan: the grids for the requested rows at the requested nonzeros per row (the matrix is not built).
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    return c.dtype == "float64" ? merge_path_plan<double>(c.n, c.n * c.param)
                                : merge_path_plan<float>(c.n, c.n * c.param);
});

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_05_merge_path", spmv_merge_path<float>, spmv_merge_path<double>);
}
