// 06_rowwise — row-wise top-k: the k largest of every row of a rows x cols matrix, with the
// strategy picked from the shape.
//
// Build alone:  nvcc -O3 -arch=native -o topk06 06_rowwise.cu
// Run:          ./topk06 --rows 64 --n 128256 --k 50      ./topk06 --test      ./topk06 --sweep
//
// What changed since 05: the problem. 05 selects from one long array; here every row of a matrix
// is its own top-k (a language model's logits, mixture-of-experts routing, nearest-neighbour
// scores). The ideas are the lesson's: a warp with its keys in registers (03) for short rows, and
// radix select digit by digit from histograms (05) for long ones. What is new is how the work is
// cut: one row per WARP, one row per BLOCK, or one row over MANY blocks.
//   W  cols <= 256: a warp holds its row in registers (8 per lane) and takes the k largest one at
//      a time: a warp-wide max (5 shuffles), the lane that holds it drops it. No shared memory.
//   B  enough rows to fill the GPU, k <= 2048: a block per row in ONE launch. Histogram passes
//      over the row (11 + 11 + 10 bits of the key) narrow the k-th key's bucket until the keys
//      that share its prefix fit in shared memory (2048); one more pass collects them, with every
//      key above the bucket; the last digits are resolved in shared memory; a bitonic sort
//      (bitonic.cuh) orders the k winners. A row is read 2-4 times, from L2 when it fits there.
//   M  few long rows, or k > 2048: every row is cut into chunks, one block per chunk; the same
//      digit passes run as launches over all rows, the histograms summed in global memory and
//      the last block of each row choosing its bucket (05's C step, once per row); then one
//      collect launch and a sort of each row's k winners (k > 2048: CUB's segmented sort).
// Where each takes over, and why, measured: README.md, "Row-wise top-k".
// Measured (H100, same run): 64 x 128256 k 50 in 0.067 ms (torch.topk 0.183, 2.7x; the segmented
// sort bar 0.926, 13.7x); on the six benchmark shapes 2.2x-12.5x torch.topk, 5.9x-229x the bar.
#include "bitonic.cuh"
#include "../lesson02_scan/primitives.cuh"
#include "rows.cuh"

#include <cub/device/device_segmented_sort.cuh>

namespace rowwise {

using topk::kEmpty;
using topk::pack;
using topk::packed_index;
using topk::to_key;

// The three digits of a 32-bit key, most significant first: bits 31..21, 20..10, 9..0.
__host__ __device__ constexpr int digit_shift(int d) { return d == 0 ? 21 : d == 1 ? 10 : 0; }
__host__ __device__ constexpr int digit_bins(int d) { return d == 2 ? 1024 : 2048; }
constexpr int kMaxBins = 2048;

// Does `key` start with the `pbits` bits of `prefix`? (pbits 0: every key does.)
__device__ __forceinline__ bool has_prefix(uint32_t key, uint32_t prefix, int pbits) {
    return pbits == 0 || (key >> (32 - pbits)) == prefix;
}

// How B and M read a row: AlignedRows::each calls f(value, column) for every element of row r in
// [begin, end), each once, spread over `nthreads` threads (this one is `t`). A row starts wherever
// r * cols puts it: only when that is a multiple of 4 floats may it be read as float4. So: up to
// 3 single floats until the address is 16-byte aligned, the body as float4 (one 16-byte load per
// thread per step), the tail as floats. The kernels take the reader as a template parameter so
// that wrong/row_float4.cu can plug in the tempting broken one (every row read as float4 from
// element (r * cols) / 4 * 4: right only when cols is a multiple of 4).
struct AlignedRows {
    template <class F>
    __device__ __forceinline__ static void each(const float* __restrict__ in, size_t r, uint32_t cols, uint32_t begin,
                                                uint32_t end, int t, int nthreads, F&& f) {
        const float* row = in + r * cols;
        uint32_t head = uint32_t((16 - (reinterpret_cast<uintptr_t>(row + begin) & 15)) & 15) / 4;
        head = min(head, end - begin);
        if (t < int(head)) f(row[begin + t], begin + t);
        const uint32_t body = begin + head, quads = (end - body) / 4;
        const float4* row4 = reinterpret_cast<const float4*>(row + body);
#pragma unroll 4
        for (uint32_t q = t; q < quads; q += nthreads) {
            float4 v = row4[q];
            uint32_t c = body + 4 * q;
            f(v.x, c);
            f(v.y, c + 1);
            f(v.z, c + 2);
            f(v.w, c + 3);
        }
        for (uint32_t c = body + 4 * quads + t; c < end; c += nthreads) f(row[c], c);
    }
};

// ---- W: a warp per row --------------------------------------------------------------------------
constexpr int kWarpCols = 256;               // up to 8 keys per lane; longer rows go to B or M
constexpr int kWarpBlock = 256;              // 8 rows per block

// R keys per lane (R = 1, 2, 4, 8: the row's length rounded up to 32 R): a row of 64 keeps 2
// registers busy, not 8 (with 8 for every row, 65536 rows of 64 with k = 2 took 37.5 us, mostly
// comparisons of empty registers; sized to the row, see TUNING.md).
// One round per result: each lane keeps the largest of its own keys (`best`); the warp's largest
// key is one warp_max (a single __reduce_max_sync on sm_80 and later), a ballot says which
// lanes hold it, the lowest of them gives up that element (its column comes from a shuffle) and
// finds its next best. Ties between lanes may go either way: any of the tied columns is right.
// The warp's largest 32-bit value. Turing (sm_75, which CI also builds for) has no
// __reduce_max_sync: five butterfly shuffles give every lane the same answer there.
__device__ __forceinline__ uint32_t warp_max(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xFFFFFFFFu, x);
#else
    for (int d = 16; d > 0; d >>= 1) x = max(x, __shfl_xor_sync(0xFFFFFFFFu, x, d));
    return x;
#endif
}

template <int R>
__global__ void __launch_bounds__(kWarpBlock)
warp_rows(const float* __restrict__ in, size_t rows, uint32_t cols, uint32_t k, bool smallest,
          float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    const int lane = threadIdx.x & 31;
    const size_t r = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
    if (r >= rows) return;                   // whole warps leave together
    const float* row = in + r * cols;
    uint64_t v[R];                           // lane holds columns lane, lane + 32, ...
#pragma unroll
    for (int i = 0; i < R; ++i) {
        uint32_t c = lane + 32 * i;
        v[i] = c < cols ? pack(to_key(row[c], smallest), c) : kEmpty;
    }
    uint64_t best = v[0];
#pragma unroll
    for (int i = 1; i < R; ++i) best = v[i] > best ? v[i] : best;
    uint32_t mine = 0;                       // lane j % 32 keeps result j until the warp writes 32
    for (uint32_t j = 0; j < k; ++j) {
        const uint32_t my_key = uint32_t(best >> 32);
        const uint32_t top = warp_max(my_key);
        // key 0 is also the empty slot's (and a NaN's under --smallest): only real elements count
        const unsigned holders = __ballot_sync(0xFFFFFFFFu, my_key == top && best != kEmpty);
        const int owner = __ffs(holders) - 1;
        const uint32_t col = __shfl_sync(0xFFFFFFFFu, packed_index(best), owner);
        if (lane == owner) {                 // give it up, find this lane's next best
#pragma unroll
            for (int i = 0; i < R; ++i) if (v[i] == best) v[i] = kEmpty;
            best = v[0];
#pragma unroll
            for (int i = 1; i < R; ++i) best = v[i] > best ? v[i] : best;
        }
        if (lane == int(j % 32)) mine = col;
        if (j % 32 == 31 || j == k - 1) {    // a coalesced store of up to 32 results
            uint32_t first = j - j % 32;
            if (first + lane <= j) {
                out_idx[r * k + first + lane] = mine;
                out_vals[r * k + first + lane] = row[mine];
            }
        }
    }
}

// ---- choosing the bucket of the k-th key (B and M) ------------------------------------------------
struct Choice { uint32_t bucket, above, count; };

// hist[0..bins) counts keys by digit (bucket bins-1 holds the largest). Returns, to every thread,
// the bucket b with  above = hist[bins-1] + ... + hist[b+1] < target <= above + hist[b].
// Each thread sums bins/BLOCK consecutive bins from the top, one block-wide exclusive scan says
// how many keys lie above each thread's range, and the one thread whose range crosses `target`
// walks its bins. Contains barriers: call from every thread.
template <int BLOCK>
__device__ Choice choose_bucket(const uint32_t* hist, int bins, uint32_t target) {
    __shared__ uint32_t s_warp[BLOCK / 32];
    __shared__ Choice s_choice;
    const int per = bins / BLOCK, t = threadIdx.x;
    uint32_t mine = 0;
    for (int j = 0; j < per; ++j) mine += hist[bins - 1 - (t * per + j)];
    uint32_t total;
    uint32_t before = scan::block_exclusive_scan<BLOCK>(mine, 0u, total, s_warp);
    if (before < target && before + mine >= target) {
        uint32_t run = before;
        for (int j = 0; j < per; ++j) {
            uint32_t b = bins - 1 - (t * per + j), h = hist[b];
            if (run + h >= target) { s_choice = {b, run, h}; break; }
            run += h;
        }
    }
    __syncthreads();
    Choice c = s_choice;
    __syncthreads();
    return c;
}

// ---- B: a block per row, one launch ---------------------------------------------------------------
constexpr int kBlock = 1024;                 // 512 threads: 64 x 128256 took 94.7 us, not 67.3 (fewer warps ready)
constexpr int kBlockMaxK = 2048;             // the k winners sorted in shared memory
constexpr int kCand = 2048;                  // keys sharing the k-th key's prefix, kept in shared memory

template <class Reader>
__global__ void __launch_bounds__(kBlock)
block_rows(const float* __restrict__ in, uint32_t cols, uint32_t k, bool smallest,
           float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ uint32_t s_hist[kMaxBins];
    __shared__ uint64_t s_sel[kBlockMaxK];   // the winners: keys above the k-th, then its ties
    __shared__ uint64_t s_cand[kCand];       // keys that share the k-th key's known prefix
    __shared__ uint32_t s_nsel, s_ncand, s_ties;
    const int t = threadIdx.x;
    const size_t r = blockIdx.x;
    const float* row = in + r * cols;

    uint32_t prefix = 0, k_rem = k, match = cols;   // keys with the prefix: `match`; k_rem still to take
    int pbits = 0, d = 0;
    // 1. Passes over the row, one digit each, until the keys sharing the prefix fit in s_cand
    //    (or the prefix is the whole key: then only the k-th key's ties are left).
    for (; d < 3 && match > kCand; ++d) {
        const int bins = digit_bins(d), shift = digit_shift(d);
        for (int i = t; i < bins; i += kBlock) s_hist[i] = 0;
        __syncthreads();
        Reader::each(in, r, cols, 0, cols, t, kBlock, [&](float x, uint32_t) {
            uint32_t key = to_key(x, smallest);
            if (has_prefix(key, prefix, pbits)) atomicAdd(&s_hist[(key >> shift) & (bins - 1)], 1u);
        });
        __syncthreads();
        Choice c = choose_bucket<kBlock>(s_hist, bins, k_rem);
        k_rem -= c.above;
        prefix = (prefix << (32 - shift - pbits)) | c.bucket;
        pbits = 32 - shift;
        match = c.count;
    }
    // 2. One more pass: keys above the prefix are winners; keys with it are candidates (or, with
    //    the whole key known, ties: the first k_rem to arrive are taken).
    if (t == 0) { s_nsel = 0; s_ncand = 0; s_ties = 0; }
    __syncthreads();
    Reader::each(in, r, cols, 0, cols, t, kBlock, [&](float x, uint32_t c) {
        uint32_t key = to_key(x, smallest);
        uint32_t top = pbits == 0 ? 0 : key >> (32 - pbits);
        if (pbits > 0 && top > prefix) s_sel[atomicAdd(&s_nsel, 1u)] = pack(key, c);
        else if (top == prefix) {
            if (pbits == 32) {
                if (atomicAdd(&s_ties, 1u) < k_rem) s_sel[atomicAdd(&s_nsel, 1u)] = pack(key, c);
            } else {
                s_cand[atomicAdd(&s_ncand, 1u)] = pack(key, c);
            }
        }
    });
    __syncthreads();
    // 3. The remaining digits over the candidates in shared memory, then the last filter.
    const uint32_t ncand = s_ncand;
    for (; d < 3; ++d) {
        const int bins = digit_bins(d), shift = digit_shift(d);
        for (int i = t; i < bins; i += kBlock) s_hist[i] = 0;
        __syncthreads();
        for (uint32_t i = t; i < ncand; i += kBlock) {
            uint32_t key = uint32_t(s_cand[i] >> 32);
            if (has_prefix(key, prefix, pbits)) atomicAdd(&s_hist[(key >> shift) & (bins - 1)], 1u);
        }
        __syncthreads();
        Choice c = choose_bucket<kBlock>(s_hist, bins, k_rem);
        k_rem -= c.above;
        prefix = (prefix << (32 - shift - pbits)) | c.bucket;
        pbits = 32 - shift;
    }
    if (ncand > 0) {                         // prefix is now the k-th key itself
        for (uint32_t i = t; i < ncand; i += kBlock) {
            uint64_t p = s_cand[i];
            uint32_t key = uint32_t(p >> 32);
            if (key > prefix || (key == prefix && atomicAdd(&s_ties, 1u) < k_rem)) s_sel[atomicAdd(&s_nsel, 1u)] = p;
        }
        __syncthreads();
    }
    // 4. Order the k winners (bitonic.cuh) and write them.
    int m = 1;
    while (m < int(k)) m *= 2;
    for (int i = k + t; i < m; i += kBlock) s_sel[i] = kEmpty;
    __syncthreads();
    topk::bitonic::block_sort_desc(s_sel, m);
    for (uint32_t j = t; j < k; j += kBlock) {
        uint32_t c = packed_index(s_sel[j]);
        out_idx[r * k + j] = c;
        out_vals[r * k + j] = c < cols ? row[c] : 0.0f;   // a broken version's empty slot is reported, not read
    }
}

// ---- M: many blocks per row ----------------------------------------------------------------------
struct RowState {
    uint32_t prefix, pbits, k_rem;           // what is known of the row's k-th key
    uint32_t arrived;                        // blocks of this row done with the current pass
    uint32_t nsel, ties;                     // winners written; ties taken
};

// One digit pass over every row: block (row, chunk) counts the digit of its chunk's keys that have
// the row's prefix, adds its histogram to the row's in global memory, and the row's last block to
// arrive chooses the bucket, updates the row's state and clears the histogram for the next pass.
template <class Reader>
__global__ void __launch_bounds__(kBlock)
multi_digit_pass(const float* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest,
                 int d, RowState* __restrict__ state, uint32_t* __restrict__ g_hist) {
    __shared__ uint32_t s_hist[kMaxBins];
    __shared__ bool s_last;
    const int t = threadIdx.x, bins = digit_bins(d), shift = digit_shift(d);
    const size_t r = blockIdx.x / chunks;
    const uint32_t begin = (blockIdx.x % chunks) * chunk, end = min(cols, begin + chunk);
    RowState* st = state + r;
    const uint32_t prefix = st->prefix;
    const int pbits = int(st->pbits);
    uint32_t* hist = g_hist + r * kMaxBins;
    for (int i = t; i < bins; i += kBlock) s_hist[i] = 0;
    __syncthreads();
    Reader::each(in, r, cols, begin, end, t, kBlock, [&](float x, uint32_t) {
        uint32_t key = to_key(x, smallest);
        if (has_prefix(key, prefix, pbits)) atomicAdd(&s_hist[(key >> shift) & (bins - 1)], 1u);
    });
    __syncthreads();
    for (int i = t; i < bins; i += kBlock)
        if (s_hist[i]) atomicAdd(&hist[i], s_hist[i]);
    __threadfence();                         // our counts are visible before we say we are done
    __syncthreads();
    if (t == 0) s_last = atomicAdd(&st->arrived, 1u) == chunks - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    for (int i = t; i < bins; i += kBlock) { s_hist[i] = __ldcg(&hist[i]); hist[i] = 0; }
    __syncthreads();
    Choice c = choose_bucket<kBlock>(s_hist, bins, st->k_rem);
    if (t == 0) {
        st->k_rem -= c.above;
        st->prefix = (prefix << (32 - shift - pbits)) | c.bucket;
        st->pbits = 32 - shift;
        st->arrived = 0;
    }
}

// The collect launch: with the k-th key known, every key above it is a winner, and the first k_rem
// of its ties. Winners go to the row's slots of sel_key/sel_col in any order.
template <class Reader>
__global__ void __launch_bounds__(kBlock)
multi_collect(const float* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest, uint32_t k,
              RowState* __restrict__ state, uint32_t* __restrict__ sel_key, uint32_t* __restrict__ sel_col) {
    const size_t r = blockIdx.x / chunks;
    const uint32_t begin = (blockIdx.x % chunks) * chunk, end = min(cols, begin + chunk);
    RowState* st = state + r;
    const uint32_t kth = st->prefix, k_rem = st->k_rem;
    Reader::each(in, r, cols, begin, end, threadIdx.x, kBlock, [&](float x, uint32_t c) {
        uint32_t key = to_key(x, smallest);
        if (key > kth || (key == kth && atomicAdd(&st->ties, 1u) < k_rem)) {
            uint32_t j = atomicAdd(&st->nsel, 1u);
            sel_key[r * k + j] = key;
            sel_col[r * k + j] = c;
        }
    });
}

// k <= 2048: a block per row sorts its winners (bitonic.cuh) and writes them.
__global__ void __launch_bounds__(kBlock)
sort_winners(const float* __restrict__ in, uint32_t cols, uint32_t k, const uint32_t* __restrict__ sel_key,
             const uint32_t* __restrict__ sel_col, float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ uint64_t s[kBlockMaxK];
    const size_t r = blockIdx.x;
    int m = 1;
    while (m < int(k)) m *= 2;
    for (int i = threadIdx.x; i < m; i += kBlock) s[i] = i < int(k) ? pack(sel_key[r * k + i], sel_col[r * k + i]) : kEmpty;
    __syncthreads();
    topk::bitonic::block_sort_desc(s, m);
    for (uint32_t j = threadIdx.x; j < k; j += kBlock) {
        uint32_t c = packed_index(s[j]);
        out_idx[r * k + j] = c;
        out_vals[r * k + j] = c < cols ? in[r * cols + c] : 0.0f;
    }
}

// k > 2048: the winners were sorted by CUB's segmented sort; gather the values.
__global__ void write_sorted(const float* __restrict__ in, size_t rows, uint32_t cols, uint32_t k,
                             const uint32_t* __restrict__ cols_sorted, float* __restrict__ out_vals,
                             uint32_t* __restrict__ out_idx) {
    const size_t total = rows * k, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < total; j += stride) {
        uint32_t c = cols_sorted[j];
        out_idx[j] = c;
        out_vals[j] = c < cols ? in[(j / k) * cols + c] : 0.0f;
    }
}

// Every row starts with nothing known of its k-th key: a prefix of 0 bits, all k still to take.
__global__ void init_rows(RowState* state, size_t rows, uint32_t k) {
    size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (r < rows) state[r] = RowState{0, 0, k, 0, 0, 0};
}

__global__ void row_offsets(int64_t* offsets, size_t rows, size_t k) {
    for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r <= rows; r += size_t(gridDim.x) * blockDim.x)
        offsets[r] = int64_t(r * k);
}

// ---- the launcher: pick W, B or M from the shape ----------------------------------------------------
enum class Path { warp, block, multi };

inline Path choose_path(size_t rows, size_t cols, size_t k) {
    if (cols <= size_t(kWarpCols)) return Path::warp;
    if (k > size_t(kBlockMaxK)) return Path::multi;       // B keeps its winners in shared memory
    // One block reads its row at about 10 GB/s (three passes, bound by instructions per key, not
    // DRAM: ncu), M's split of a row over many blocks at the
    // whole GPU's rate after a fixed ~35 us of launches. Measured crossover (H100, k = 50): B
    // wins up to 65536 columns at any row count, and beyond that once rows * 8192 >= cols
    // (16 rows of 131072, 32 of 262144: the two tie there); see TUNING.md.
    if (cols <= 65536 || rows * 8192 >= cols) return Path::block;
    return Path::multi;
}

template <class Reader = AlignedRows>
void rowwise_topk(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    const uint32_t c32 = uint32_t(cols), k32 = uint32_t(k);
    switch (choose_path(rows, cols, k)) {
        case Path::warp: {
            const unsigned grid = course::blocks_for(rows, kWarpBlock / 32);
            if (cols <= 32) warp_rows<1><<<grid, kWarpBlock>>>(d_in, rows, c32, k32, smallest, d_vals, d_idx);
            else if (cols <= 64) warp_rows<2><<<grid, kWarpBlock>>>(d_in, rows, c32, k32, smallest, d_vals, d_idx);
            else if (cols <= 128) warp_rows<4><<<grid, kWarpBlock>>>(d_in, rows, c32, k32, smallest, d_vals, d_idx);
            else warp_rows<8><<<grid, kWarpBlock>>>(d_in, rows, c32, k32, smallest, d_vals, d_idx);
            CUDA_CHECK_LAST();
            return;
        }
        case Path::block: {
            if (rows > 0x7FFFFFFFu) throw course::SkipCase("more than 2^31 rows");
            block_rows<Reader><<<unsigned(rows), kBlock>>>(d_in, c32, k32, smallest, d_vals, d_idx);
            CUDA_CHECK_LAST();
            return;
        }
        case Path::multi: break;
    }
    // M: chunks of at least 4096 keys, enough blocks for 4 per SM.
    const size_t want_blocks = 4 * size_t(course::device().sm_count);
    size_t chunks = std::min((cols + 4095) / 4096, std::max<size_t>(1, (want_blocks + rows - 1) / rows));
    const uint32_t chunk = uint32_t(((cols + chunks - 1) / chunks + 3) / 4 * 4);   // whole float4s
    chunks = (cols + chunk - 1) / chunk;
    if (rows * chunks > 0x7FFFFFFFu) throw course::SkipCase("more than 2^31 blocks");
    const unsigned grid = unsigned(rows * chunks);
    RowState* state = course::scratch_as<RowState>(0, rows);
    uint32_t* hist = course::scratch_as<uint32_t>(1, rows * kMaxBins);
    uint32_t* sel_key = course::scratch_as<uint32_t>(2, rows * k);
    uint32_t* sel_col = course::scratch_as<uint32_t>(3, rows * k);
    CUDA_CHECK(cudaMemsetAsync(hist, 0, rows * kMaxBins * sizeof(uint32_t)));
    init_rows<<<course::blocks_for(rows, 256), 256>>>(state, rows, k32);
    CUDA_CHECK_LAST();
    for (int d = 0; d < 3; ++d) {
        multi_digit_pass<Reader><<<grid, kBlock>>>(d_in, c32, uint32_t(chunks), chunk, smallest, d, state, hist);
        CUDA_CHECK_LAST();
    }
    multi_collect<Reader><<<grid, kBlock>>>(d_in, c32, uint32_t(chunks), chunk, smallest, k32, state, sel_key, sel_col);
    CUDA_CHECK_LAST();
    if (k <= size_t(kBlockMaxK)) {
        sort_winners<<<unsigned(rows), kBlock>>>(d_in, c32, k32, sel_key, sel_col, d_vals, d_idx);
        CUDA_CHECK_LAST();
        return;
    }
    // Larger k: ordering the winners is a sort (lesson 04); here the library's segmented sort does it.
    uint32_t* key_out = course::scratch_as<uint32_t>(4, rows * k);
    uint32_t* col_out = course::scratch_as<uint32_t>(5, rows * k);
    int64_t* offsets = course::scratch_as<int64_t>(6, rows + 1);
    row_offsets<<<course::blocks_for(rows + 1, 256), 256>>>(offsets, rows, k);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(nullptr, temp_bytes, sel_key, key_out, sel_col, col_out,
                                                             int64_t(rows * k), int64_t(rows), offsets, offsets + 1));
    void* temp = course::scratch(7, temp_bytes);
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(temp, temp_bytes, sel_key, key_out, sel_col, col_out,
                                                             int64_t(rows * k), int64_t(rows), offsets, offsets + 1));
    write_sorted<<<course::blocks_for(rows * k, 256 * 4), 256>>>(d_in, rows, c32, k32, col_out, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}  // namespace rowwise

#ifndef COURSE_NO_MAIN   // exercises/row_warp_select.cu and wrong/row_float4.cu include this file for its kernels
int main(int argc, char** argv) { return topk::rows::run_rows(argc, argv, "06_rowwise", rowwise::rowwise_topk<>); }
#endif
