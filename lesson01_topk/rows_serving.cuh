// lesson01_topk/rows_serving.cuh — the row-wise launchers: the k largest of every row of a rows x cols
// matrix (float32, float16, bfloat16), or of a ragged batch, with the path each shape takes from
// rows_plan.cuh: the sampled pass where it applies (k <= 2048, rows of 257 to 2^25 keys), else W, B or M.
// Entry points: sampled::serving_topk (a dense matrix) and sampled::serving_ragged (a ragged batch),
// of the shapes topk::rows::Launcher and RaggedLauncher (ragged: k <= 2048). rowwise::rowwise_topk runs W, B
// or M alone, rowwise::ragged_topk a ragged batch by B.
#pragma once
#include "rows_plan.cuh"

namespace rowwise {

// Scratch that a kernel leaves zeroed for its next call (M's row states and histograms, the sampled pass's
// tallies): fresh scratch (a new allocation, or more bytes than were zeroed) is zeroed once here.
// `slot` says which of a program's few such buffers this is.
inline void zero_fresh_scratch(int slot, void* p, size_t bytes) {
    static const void* zeroed[4] = {};
    static size_t zeroed_bytes[4] = {};
    if (p == zeroed[slot] && bytes <= zeroed_bytes[slot]) return;
    CUDA_CHECK(cudaMemsetAsync(p, 0, bytes));
    zeroed[slot] = p;
    zeroed_bytes[slot] = bytes;
}

// M's scratch for rows x k: the row states and histograms (zeroed when fresh; every call leaves them
// zeroed), and the winners. The sampled pass uses it for the long rows its sample missed.
struct MultiScratch {
    RowState* state;
    uint32_t *hist, *sel_key, *sel_col;
};
inline MultiScratch multi_scratch(size_t rows, size_t k) {
    const MultiScratch m{course::scratch_as<RowState>(0, rows), course::scratch_as<uint32_t>(1, rows * kMaxBins),
                         course::scratch_as<uint32_t>(2, rows * k), course::scratch_as<uint32_t>(3, rows * k)};
    zero_fresh_scratch(0, m.state, rows * sizeof(RowState));
    zero_fresh_scratch(1, m.hist, rows * kMaxBins * sizeof(uint32_t));
    return m;
}

// M's launches for a plan p of path M.
template <class T, class Reader>
void multi_topk(const RowPlan& p, const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals,
                uint32_t* d_idx) {
    const uint32_t c32 = uint32_t(cols), k32 = uint32_t(k);
    const uint32_t chunks = uint32_t(p.chunks);
    const MultiScratch m = multi_scratch(rows, k);
    RowState* state = m.state;
    uint32_t *hist = m.hist, *sel_key = m.sel_key, *sel_col = m.sel_col;
    // 16-bit keys are whole after two digits (whole_key): the third pass is not launched for them.
    // Each launch may start as the one before ends (sm_90: launch_dependent, common/device.cuh): their
    // gaps are a good part of M's fixed cost (measured in lesson01 TUNING.md).
    const int digits = topk::is_half_float<T> ? 2 : 3;
    for (int d = 0; d < digits; ++d)
        course::launch_dependent(multi_digit_pass<Reader, T>, p.grid, kBlock, 0, d_in, c32, chunks, p.chunk, smallest,
                                 k32, d, state, hist);
    course::launch_dependent(multi_collect<Reader, T>, p.grid, kBlock, 0, d_in, c32, chunks, p.chunk, smallest, k32,
                             state, sel_key, sel_col);
    if (k <= size_t(kBlockMaxK)) {
        course::launch_dependent(sort_winners<T>, unsigned(rows), kBlock, 0, d_in, c32, k32, sel_key, sel_col, d_vals,
                                 d_idx);
        return;
    }
    // Larger k: ordering the winners is a sort (lesson 04); here the library's segmented sort does it.
    uint32_t* key_out = course::scratch_as<uint32_t>(4, rows * k);
    uint32_t* col_out = course::scratch_as<uint32_t>(5, rows * k);
    int64_t* offsets = course::scratch_as<int64_t>(6, rows + 1);
    topk::rows::row_offsets<<<course::blocks_for(rows + 1, 256), 256>>>(offsets, rows, k);
    CUDA_CHECK_LAST();
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(nullptr, temp_bytes, sel_key, key_out, sel_col, col_out,
                                                             int64_t(rows * k), int64_t(rows), offsets, offsets + 1));
    void* temp = course::scratch(7, temp_bytes);
    CUDA_CHECK(cub::DeviceSegmentedSort::SortPairsDescending(temp, temp_bytes, sel_key, key_out, sel_col, col_out,
                                                             int64_t(rows * k), int64_t(rows), offsets, offsets + 1));
    topk::rows::gather_sorted_rows<T>
        <<<course::blocks_for(rows * k, 256 * 4), 256>>>(d_in, rows, cols, k, k, col_out, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

template <class T = float, class Reader = AlignedRows>
void rowwise_topk(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    const uint32_t c32 = uint32_t(cols), k32 = uint32_t(k);
    const RowPlan p = plan_rows(rows, cols, k);
    switch (p.path) {
        case Path::warp: {
            auto args = [&](auto kernel) {
                kernel<<<p.grid, kWarpBlock>>>(d_in, rows, c32, k32, smallest, d_vals, d_idx);
            };
            if (p.per_lane == 1) args(warp_rows<1, T>);
            else if (p.per_lane == 2) args(warp_rows<2, T>);
            else if (p.per_lane == 4) args(warp_rows<4, T>);
            else args(warp_rows<8, T>);
            CUDA_CHECK_LAST();
            return;
        }
        case Path::block: {
            course::allow_dynamic_smem(block_rows<Reader, T>, p.smem);
            block_rows<Reader, T><<<p.grid, kBlock, p.smem>>>(d_in, nullptr, c32, k32, smallest, p.cand, d_vals, d_idx);
            CUDA_CHECK_LAST();
            return;
        }
        case Path::multi: break;
    }
    multi_topk<T, Reader>(p, d_in, rows, cols, k, smallest, d_vals, d_idx);
}

// A ragged batch (rows.cuh): B's kernel, each block reading its row's bounds from the offsets.
// k <= 2048 (B sorts a row's k in shared memory); rows of any length, 0 included.
template <class T = float, class Reader = AlignedRows>
void ragged_topk(const T* d_in, const int64_t* d_offsets, size_t rows, size_t, size_t max_len, size_t k, bool smallest,
                 T* d_vals, uint32_t* d_idx) {
    if (k > size_t(kBlockMaxK))
        throw course::UsageError("ragged rows: k <= 2048 (one block a row sorts its k in shared memory)");
    if (rows > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 rows: one block per row");
    RowPlan p{Path::block};
    block_candidates(p);
    course::allow_dynamic_smem(block_rows<Reader, T>, p.smem);
    block_rows<Reader, T><<<unsigned(rows), kBlock, p.smem>>>(d_in, d_offsets, uint32_t(max_len), uint32_t(k), smallest,
                                                              p.cand, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace rowwise

namespace sampled {

// The number a call's row steps carry (RowState::step = call * 8 + step): one count for every type and build of this
// program, since they share M's row states. A count in each launch<T> (as before) let a float32 call's verdict pass for
// that of the bfloat16 call with the same number: after one float32 call, the first bfloat16 call on 4 x 4194309 k 1024
// returned wrong winners (TUNING.md).
inline unsigned long long next_call() {
    static unsigned long long calls = 0;
    return ++calls;
}

template <class T, class Reader>
void launch(const Plan& p, const T* d_in, const int64_t* d_offsets, size_t rows, size_t len, size_t k, bool smallest,
            T* d_vals, uint32_t* d_idx) {
    Tally* tally = course::scratch_as<Tally>(8, rows);   // slots 0-7 are W/B/M's
    uint64_t* g_cand = course::scratch_as<uint64_t>(9, p.chunks > 1 ? rows * p.lcap : 1);
    rowwise::zero_fresh_scratch(2, tally, rows * sizeof(Tally));
    // 16-bit long rows' whole-key counts (kMaxBins a row), left zeroed by each call for the next.
    uint32_t* counts =
        sizeof(T) == 2 && p.lcap > p.cap ? course::scratch_as<uint32_t>(11, rows * rowwise::kMaxBins) : nullptr;
    if (counts) rowwise::zero_fresh_scratch(3, counts, rows * rowwise::kMaxBins * sizeof(uint32_t));
    // Equal long rows: a row the sample missed is finished by its own blocks with M's steps (its scratch),
    // so every block is resident at once. (M's launches after the kernel, which mostly found no row to do,
    // were slower: TUNING.md.)
    const bool by_all = !d_offsets && p.lcap > p.cap;
    MissedRows miss{};
    if (by_all) {
        const rowwise::MultiScratch m = rowwise::multi_scratch(rows, k);
        miss = {m.state, m.hist, m.sel_key, m.sel_col, next_call()};
    }
    auto run = [&](auto kernel) {
        course::allow_dynamic_smem(kernel, p.smem);
        if (by_all) {
            course::launch_together(kernel, p.grid, kBlock, p.smem, d_in, d_offsets, uint32_t(len), uint32_t(k),
                                    smallest, p.cap, p.lcap, p.chunks, p.chunk, tally, g_cand, counts, miss, d_vals,
                                    d_idx);
            return;
        }
        kernel<<<p.grid, kBlock, p.smem>>>(d_in, d_offsets, uint32_t(len), uint32_t(k), smallest, p.cap, p.lcap,
                                           p.chunks, p.chunk, tally, g_cand, counts, miss, d_vals, d_idx);
        CUDA_CHECK_LAST();
    };
    // Eight builds a type: long rows (kList), grids of at most one block an SM, the rest (read past L1 or not); each for
    // k <= kSmallK or not. Long rows read past L1 in 16-bit types, always (p.stream), in float32 never.
    auto by_k = [&](auto small_k, auto large_k) {
        if (k <= kSmallK) run(small_k);
        else run(large_k);
    };
    if (p.lcap > p.cap)
        by_k(sampled_rows<Reader, T, true, kSmallK, kAheadOneAnSm, sizeof(T) == 2>,
             sampled_rows<Reader, T, true, rowwise::kBlockMaxK, kAheadOneAnSm, sizeof(T) == 2>);
    else if (p.one_an_sm)
        by_k(sampled_rows<Reader, T, false, kSmallK, kAheadOneAnSm>,
             sampled_rows<Reader, T, false, rowwise::kBlockMaxK, kAheadOneAnSm>);
    else if (p.stream)
        by_k(sampled_rows<Reader, T, false, kSmallK, kAheadTwoAnSm, true>,
             sampled_rows<Reader, T, false, rowwise::kBlockMaxK, kAheadTwoAnSm, true>);
    else by_k(sampled_rows<Reader, T, false, kSmallK>, sampled_rows<Reader, T, false, rowwise::kBlockMaxK>);
}

// The row-wise launcher: the sampled pass where it applies (takes), W, B or M elsewhere.
template <class T = float, class Reader = rowwise::AlignedRows>
void serving_topk(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    Plan p;
    if (!takes<T>(rows, cols, k, &p))
        return rowwise::rowwise_topk<T, Reader>(d_in, rows, cols, k, smallest, d_vals, d_idx);
    launch<T, Reader>(p, d_in, nullptr, rows, cols, k, smallest, d_vals, d_idx);
}

// A ragged batch: always the one pass (k <= 2048), chunks cut from the longest row.
template <class T = float>
void serving_ragged(const T* d_in, const int64_t* d_offsets, size_t rows, size_t, size_t max_len, size_t k,
                    bool smallest, T* d_vals, uint32_t* d_idx) {
    if (k > size_t(rowwise::kBlockMaxK))
        throw course::UsageError("ragged rows: k <= 2048 (the k are sorted in shared memory)");
    launch<T, rowwise::AlignedRows>(plan_sampled<T>(rows, max_len, k), d_in, d_offsets, rows, max_len, k, smallest,
                                    d_vals, d_idx);
}

}   // namespace sampled
