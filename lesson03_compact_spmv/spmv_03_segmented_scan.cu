// spmv_03_segmented_scan — multiply every nonzero by its x, then a segmented scan over the
// products (segments = rows) sums each row; row i's total is the scanned value at its last entry.
//
// What changed: the work is split by NONZEROS, not rows: every thread handles 8 products whatever
// the row lengths, so the load imbalance of versions 01-02 is gone. Four launches:
//   1. heads:    head[row_ptr[i]] = 1 for every non-empty row (after a memset of the nnz flags)
//   2. scan:     per tile of 2048 nonzeros: products, a segmented inclusive scan in the block,
//                scanned products written out, the tile's aggregate (any head?, open sum) saved
//   3. carries:  one block scans the tile aggregates (segmented, exclusive)
//   4. gather:   y[i] = scanned[end_i - 1] (+ the carry into its tile if row i began earlier)
// Segmented scan operator on (flag, value) pairs, a before b:
//   a (+) b = (a.flag | b.flag,  b.flag ? b.value : a.value + b.value)      (associative)
// Cost model: beyond the problem's bytes it writes and re-reads the products and the head flags
// and re-reads row_ptr: about twice an ideal SpMV's traffic, plus four launches.
// What limits it next: memory traffic; versions 04-05 keep the products on chip.
//
// Build alone:  nvcc -O3 -arch=native -o spmv03 spmv_03_segmented_scan.cu -lcusparse
// Run:          ./spmv03 --gen giant_row --n 2^20      ./spmv03 --test
#include "spmv.cuh"

constexpr int kBlock = 256;
constexpr int kItems = 8;
constexpr int kTile = kBlock * kItems;   // 2048 nonzeros per tile
constexpr int kCarryBlock = 1024;

template <class T> struct Seg {
    int flag;   // 1 if a row starts somewhere in this stretch
    T value;    // sum from the last row start in the stretch (or from its beginning) to its end
};

template <class T> __device__ __forceinline__ Seg<T> combine(Seg<T> a, Seg<T> b) {   // a comes before b
    return {a.flag | b.flag, b.flag ? b.value : a.value + b.value};
}

// Inclusive segmented scan across a warp: the pair is shuffled as two registers.
template <class T> __device__ __forceinline__ Seg<T> warp_seg_scan(Seg<T> s) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        int f = __shfl_up_sync(0xFFFFFFFFu, s.flag, offset);
        T v = __shfl_up_sync(0xFFFFFFFFu, s.value, offset);
        if (lane >= offset) s = combine(Seg<T>{f, v}, s);
    }
    return s;
}

// Exclusive segmented scan of one pair per thread over a block of BLOCK threads. Returns the
// thread's exclusive prefix (identity {0, 0} for thread 0) and the block total in `total`.
template <int BLOCK, class T> __device__ __forceinline__ Seg<T> block_seg_exclusive(Seg<T> s, Seg<T>& total) {
    constexpr int kWarps = BLOCK / 32;
    __shared__ int s_flag[kWarps];
    __shared__ T s_value[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Seg<T> incl = warp_seg_scan(s);
    if (lane == 31) {
        s_flag[warp] = incl.flag;
        s_value[warp] = incl.value;
    }
    __syncthreads();
    if (warp == 0) {
        Seg<T> w = lane < kWarps ? Seg<T>{s_flag[lane], s_value[lane]} : Seg<T>{0, T(0)};
        w = warp_seg_scan(w);
        if (lane < kWarps) {
            s_flag[lane] = w.flag;
            s_value[lane] = w.value;
        }
    }
    __syncthreads();
    total = {s_flag[kWarps - 1], s_value[kWarps - 1]};
    Seg<T> warp_prefix = warp == 0 ? Seg<T>{0, T(0)} : Seg<T>{s_flag[warp - 1], s_value[warp - 1]};
    int f_below = __shfl_up_sync(0xFFFFFFFFu, incl.flag, 1);
    T v_below = __shfl_up_sync(0xFFFFFFFFu, incl.value, 1);
    Seg<T> lane_prefix = lane == 0 ? Seg<T>{0, T(0)} : Seg<T>{f_below, v_below};
    __syncthreads();   // the shared totals may be reused by the next call
    return combine(warp_prefix, lane_prefix);
}

// Step 1: head[row_ptr[i]] = 1 where row i is non-empty (the launcher zeroed the flags first).
__global__ void mark_heads(int rows, const int* __restrict__ row_ptr, unsigned char* __restrict__ head) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    int b = row_ptr[i];
    if (row_ptr[i + 1] > b) head[b] = 1;   // empty rows share their offset with the next row: skip
}

// Delta from 01-02 (work split by rows): a block takes a tile of nonzeros, multiplies and segment-scans it.
template <class T>
__global__ void __launch_bounds__(kBlock)
    multiply_scan_tiles(int nnz, const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
                        const unsigned char* __restrict__ head, T* __restrict__ scanned, int* __restrict__ agg_flag,
                        T* __restrict__ agg_value) {
    // One padding slot per 32 elements: thread t reading element 8t + j would otherwise hit the
    // same bank as threads t + 4, t + 8, ... (an 8-way conflict).
    __shared__ T s_prod[kTile + kTile / 32];
    __shared__ unsigned char s_head[kTile];
    auto pad = [](int e) { return e + (e >> 5); };
    const int64_t base = int64_t(blockIdx.x) * kTile;
    // Load warp-striped (coalesced): item j of thread t is tile element j * kBlock + t.
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        int e = j * kBlock + threadIdx.x;
        int64_t k = base + e;
        bool in = k < nnz;
        s_prod[pad(e)] = in ? val[k] * x[col[k]] : T(0);
        s_head[e] = in ? head[k] : 0;
    }
    __syncthreads();
    // Each thread scans 8 consecutive elements of the tile (blocked arrangement).
    T v[kItems];
    int f[kItems];
    Seg<T> agg{0, T(0)};
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        v[j] = s_prod[pad(threadIdx.x * kItems + j)];
        f[j] = s_head[threadIdx.x * kItems + j];
        agg = combine(agg, Seg<T>{f[j], v[j]});
    }
    Seg<T> total;
    Seg<T> prefix = block_seg_exclusive<kBlock>(agg, total);
    T run = prefix.value;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        run = f[j] ? v[j] : run + v[j];
        s_prod[pad(threadIdx.x * kItems + j)] = run;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        int e = j * kBlock + threadIdx.x;
        if (base + e < nnz) scanned[base + e] = s_prod[pad(e)];
    }
    if (threadIdx.x == 0) {
        agg_flag[blockIdx.x] = total.flag;
        agg_value[blockIdx.x] = total.value;
    }
}

// One block walks the tile aggregates in chunks of 1024, carrying the running pair between chunks.
template <class T>
__global__ void __launch_bounds__(kCarryBlock)
    scan_tile_carries(int tiles, const int* __restrict__ agg_flag, const T* __restrict__ agg_value,
                      T* __restrict__ carry_in) {
    __shared__ int s_run_flag;
    __shared__ T s_run_value;
    if (threadIdx.x == 0) {
        s_run_flag = 0;
        s_run_value = T(0);
    }
    __syncthreads();
    for (int base = 0; base < tiles; base += kCarryBlock) {
        int t = base + threadIdx.x;
        Seg<T> a = t < tiles ? Seg<T>{agg_flag[t], agg_value[t]} : Seg<T>{0, T(0)};
        Seg<T> total;
        Seg<T> excl = block_seg_exclusive<kCarryBlock>(a, total);
        Seg<T> run{s_run_flag, s_run_value};
        if (t < tiles) carry_in[t] = combine(run, excl).value;
        __syncthreads();   // everyone has read s_run before it moves on
        if (threadIdx.x == 0) {
            Seg<T> r = combine(run, total);
            s_run_flag = r.flag;
            s_run_value = r.value;
        }
        __syncthreads();
    }
}

// Step 4: y[i] = the scanned value at row i's last entry, plus its tile's carry if the row began earlier.
template <class T>
__global__ void gather_rows(int rows, const int* __restrict__ row_ptr, const T* __restrict__ scanned,
                            const T* __restrict__ carry_in, T* __restrict__ y) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    const int64_t begin = row_ptr[i], end = row_ptr[i + 1];
    if (end == begin) {
        y[i] = T(0);
        return;
    }
    const int64_t last = end - 1, tile = last / kTile;
    T sum = scanned[last];
    if (begin < tile * kTile) sum += carry_in[tile];   // the row began in an earlier tile
    y[i] = sum;
}

template <class T> void spmv_segmented_scan(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    const size_t nnz = size_t(A.nnz);
    const unsigned tiles = course::blocks_for(nnz, kTile);
    T* scanned = course::scratch_as<T>(0, nnz);
    unsigned char* head = course::scratch_as<unsigned char>(1, nnz);
    int* agg_flag = course::scratch_as<int>(2, tiles);
    T* agg_value = course::scratch_as<T>(3, tiles);
    T* carry_in = course::scratch_as<T>(4, tiles);
    if (nnz) {
        CUDA_CHECK(cudaMemsetAsync(head, 0, nnz));
        mark_heads<<<course::blocks_for(A.rows, 256), 256>>>(A.rows, A.row_ptr, head);
        CUDA_CHECK_LAST();
        multiply_scan_tiles<T><<<tiles, kBlock>>>(A.nnz, A.col, A.val, x, head, scanned, agg_flag, agg_value);
        CUDA_CHECK_LAST();
        scan_tile_carries<T><<<1, kCarryBlock>>>(int(tiles), agg_flag, agg_value, carry_in);
        CUDA_CHECK_LAST();
    }
    gather_rows<T><<<course::blocks_for(A.rows, 256), 256>>>(A.rows, A.row_ptr, scanned, carry_in, y);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_03_segmented_scan", spmv_segmented_scan<float>);
}
