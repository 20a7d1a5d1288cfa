// rows_03_blocks_per_row — row-wise top-k, step 3: many blocks a row, for a few long rows.
//
// What changed since rows_02: a row is cut into chunks of at least 4096 keys, one block a chunk, so
// that 4 rows of 2^24 keep every SM busy, not 4 of them. A digit is now a launch over all rows: each
// block counts its chunk's digit in shared memory and adds the counts to its row's histogram in global
// memory; the row's last block to arrive (an atomic ticket, part 1's "last block decides") reads the
// row's histogram, picks the bucket of the k-th key (block_select.cuh's choose_bucket), stores the
// longer prefix in the row's state and clears the histogram and the ticket for the next launch. After
// three digits the k-th key is known exactly; a collect launch appends every key above it and the
// first copies of it to the row's k slots, and a block a row sorts them (block_select.cuh).
// Cost model: four reads of the matrix (three digits and the collect, from DRAM when it does not fit
// L2) at the whole GPU's rate, plus five launches in a row (a fixed cost of a few microseconds each).
// Target shape: few long rows, 4 x 2^24, k = 1024, which rows_02 runs on 4 blocks. Its limit: k <= 2048
// (the sort's shared memory); four reads where one would do, and on many short rows the fixed cost of
// the launches and a global histogram a row (8 KB) cost more than rows_02's one launch.
//
// Build alone:  nvcc -O3 -arch=native -o rows03 rows_03_blocks_per_row.cu
// Run:          ./rows03 --rows 4 --n 2^24 --k 1024      ./rows03 --test      ./rows03 --sweep
#include "block_select.cuh"
#include "rows_steps.cuh"

namespace blocks_per_row {

using namespace block_select;

constexpr uint32_t kMinChunk = 4096;   // keys a block reads at least: fewer and the hand-in dominates

// What a row's blocks share between launches (every call leaves arrived, nsel and ties at 0).
struct RowState {
    uint32_t prefix, rem;   // the k-th key's known prefix; keys still wanted in its bucket
    uint32_t arrived;       // blocks of the row done with this launch (the ticket)
    uint32_t nsel, ties;    // winners appended; copies of the k-th key taken
};

// Block (row, chunk) of `chunks` a row: its columns [begin, end), the end in 64 bits (cols near 2^32).
__device__ __forceinline__ void chunk_of(uint32_t cols, uint32_t chunks, uint32_t chunk, size_t& r, uint32_t& begin,
                                         uint32_t& end) {
    r = blockIdx.x / chunks;
    begin = (blockIdx.x % chunks) * chunk;
    end = topk::rows::chunk_end(cols, begin, chunk);
}

// Digit d of every row: a block counts its chunk's digit in shared memory and adds it to the row's
// global histogram; the row's last block picks the bucket, extends the prefix, clears the histogram.
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    digit_pass(const float* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest, uint32_t k,
               int pbits, RowState* __restrict__ state, uint32_t* __restrict__ g_hist) {
    __shared__ DigitSmem sm;
    __shared__ bool s_last;
    size_t r;
    uint32_t begin, end;
    chunk_of(cols, chunks, chunk, r, begin, end);
    RowState* st = state + r;
    uint32_t* hist = g_hist + r * kBins;
    const uint32_t prefix = pbits == 0 ? 0u : st->prefix;   // written by the previous launch
    const int shift = digit_shift(pbits), width = 32 - pbits - shift, bins = 1 << width;
    for (int i = threadIdx.x; i < bins; i += kBlock) sm.hist[i] = 0;
    __syncthreads();
    for_each_in_row(in + r * cols, begin, end, [&](float x, uint32_t) {
        const uint32_t key = to_key(x, smallest);
        if (has_prefix(key, prefix, pbits)) atomicAdd(&sm.hist[(key >> shift) & (bins - 1)], 1u);
    });
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += kBlock)
        if (sm.hist[i]) atomicAdd(&hist[i], sm.hist[i]);
    __threadfence();   // this block's counts are visible before its ticket
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&st->arrived, 1u) == chunks - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();   // the last block: every other block's counts are in
    for (int i = threadIdx.x; i < bins; i += kBlock) {
        sm.hist[i] = __ldcg(&hist[i]);
        hist[i] = 0;
    }
    __syncthreads();
    const uint32_t rem = pbits == 0 ? k : st->rem;
    const Choice c = choose_bucket(sm, bins, rem);
    if (threadIdx.x == 0) {
        st->prefix = (prefix << width) | c.bucket;
        st->rem = rem - c.above;
        st->arrived = 0;
    }
}

// The collect: with the k-th key known, every key above it and the first rem copies of it go to the
// row's k slots of `sel`, in any order.
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    collect(const float* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest, uint32_t k,
            RowState* __restrict__ state, uint64_t* __restrict__ sel) {
    size_t r;
    uint32_t begin, end;
    chunk_of(cols, chunks, chunk, r, begin, end);
    RowState* st = state + r;
    const uint32_t kth = st->prefix, rem = st->rem;
    for_each_in_row(in + r * cols, begin, end, [&](float x, uint32_t c) {
        const uint32_t key = to_key(x, smallest);
        if (key > kth || (key == kth && atomicAdd(&st->ties, 1u) < rem))
            sel[r * k + atomicAdd(&st->nsel, 1u)] = pack(key, c);
    });
}

// A block a row sorts the row's k winners in shared memory and writes them; it clears the row's counters.
__global__ void __launch_bounds__(kBlock)
    sort_rows(const float* __restrict__ in, uint32_t cols, uint32_t k, RowState* __restrict__ state,
              const uint64_t* __restrict__ sel, float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ SelectSmem sm;
    const size_t r = blockIdx.x;
    for (uint32_t i = threadIdx.x; i < k; i += kBlock) sm.cand[i] = sel[r * k + i];
    if (threadIdx.x == 0) {
        state[r].nsel = 0;
        state[r].ties = 0;
    }
    __syncthreads();
    sort_and_write(in + r * cols, cols, r, k, k, sm, out_vals, out_idx);
}

// The plan, from the shape and the GPU: chunks of at least kMinChunk keys, and about as many blocks
// as the SMs hold at two an SM (one wave; a T4's SM holds one block of 1024 threads).
struct Plan {
    size_t chunks;
    uint32_t chunk;
    int per_sm;
};
inline Plan plan_chunks(size_t rows, size_t cols) {
    const int per_sm = course::blocks_that_fit(2, kBlock);
    const size_t want = size_t(per_sm) * course::device().sm_count;
    size_t chunks = std::min((cols + kMinChunk - 1) / kMinChunk, std::max<size_t>(1, (want + rows - 1) / rows));
    const uint32_t chunk = uint32_t(((cols + chunks - 1) / chunks + 3) / 4 * 4);   // whole float4s
    chunks = (cols + chunk - 1) / chunk;
    if (rows * chunks > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 blocks (rows x chunks)");
    return {chunks, chunk, per_sm};
}

// --plan prints the launches the launcher makes.
inline std::vector<course::KernelPlan> kernel_plans(const course::Options& o, const course::Case& c) {
    const topk::rows::Shape s = topk::rows::parse_case(o, c);
    const Plan p = plan_chunks(s.rows, s.cols);
    const std::string m = std::to_string(p.chunks) + " blocks a row of " + std::to_string(p.chunk) + " keys";
    return {{"digit_pass", kBlock, 0, p.per_sm, 1, m + ", a launch a digit (3)"},
            {"collect", kBlock, 0, p.per_sm, 1, m},
            {"sort_rows", kBlock, 0, 1, 1, "a block a row"}};
}
static course::PlanHook plan_hook(kernel_plans);

// The launcher: the plan's launches; the scratch (row states, histograms) zeroed once when it is
// new, left zeroed by every call.
void topk_rows(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    const Plan p = plan_chunks(rows, cols);
    const size_t chunks = p.chunks;
    const uint32_t chunk = p.chunk;
    RowState* state = course::scratch_as<RowState>(0, rows);
    uint32_t* hist = course::scratch_as<uint32_t>(1, rows * kBins);
    uint64_t* sel = course::scratch_as<uint64_t>(2, rows * k);
    static const void* zeroed = nullptr;
    static size_t zeroed_rows = 0;
    if (zeroed != hist || zeroed_rows < rows) {   // new scratch: zero it once
        CUDA_CHECK(cudaMemsetAsync(state, 0, rows * sizeof(RowState)));
        CUDA_CHECK(cudaMemsetAsync(hist, 0, rows * kBins * sizeof(uint32_t)));
        zeroed = hist;
        zeroed_rows = rows;
    }
    const unsigned grid = unsigned(rows * chunks);
    const uint32_t c32 = uint32_t(cols), k32 = uint32_t(k), n = uint32_t(chunks);
    for (int pbits : {0, 11, 22}) {   // the three digits: bits 31..21, 20..10, 9..0
        digit_pass<<<grid, kBlock>>>(d_in, c32, n, chunk, smallest, k32, pbits, state, hist);
        CUDA_CHECK_LAST();
    }
    collect<<<grid, kBlock>>>(d_in, c32, n, chunk, smallest, k32, state, sel);
    CUDA_CHECK_LAST();
    sort_rows<<<unsigned(rows), kBlock>>>(d_in, c32, k32, state, sel, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace blocks_per_row

int main(int argc, char** argv) {
    return rows_steps::run_step(argc, argv, "rows_03_blocks_per_row", blocks_per_row::topk_rows,
                                {~uint64_t(0), block_select::kMaxK, "a row's winners are sorted in shared memory"});
}
