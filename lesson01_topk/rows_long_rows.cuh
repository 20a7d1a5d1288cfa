// lesson01_topk/rows_long_rows.cuh — a row cut over several blocks of ONE kernel that must meet again: the
// row's blocks hand in candidates to a list in global memory, wait at a row barrier for the last one's
// verdict, and either collect the winners together (16-bit keys, the kk-th key known from counts) or,
// where the sample missed, finish the row with rows_digit_select.cuh's M steps, all in the same kernel.
// The grid is launched with every block resident (course::launch_together), so a waiting block never
// holds up one that has not started. Each call tags the row's steps with its number, so nothing needs
// clearing between calls.
// Entry points (for rows_sampled_pass.cuh's kernel): each_listed, MissedRows and its step tags,
// wait_for_call, set_step, publish_kth, finish_missed_row, Tally, gather_winners, collect_together.
#pragma once
#include "rows_digit_select.cuh"

namespace sampled {

using rowwise::kBlock;
using rowwise::RowSmem;
using topk::pack;
using topk::to_key;

// g(i, p) for each entry p = list[i], i < n, of a list in global memory, spread over the block's threads
// with U loads in flight a thread (the last block's reads of its row's list, below). Long rows' select
// reads its list 3-4 times: 8 in flight there, not 1 (TUNING.md); for the short rows' one load of a few
// thousand candidates 4 in flight and 1 measured the same.
template <uint32_t U, class G>
__device__ __forceinline__ void each_listed(const uint64_t* __restrict__ list, uint32_t n, G&& g) {
    for (uint32_t i0 = threadIdx.x; i0 < n; i0 += U * kBlock) {
        uint64_t p[U];
#pragma unroll
        for (uint32_t u = 0; u < U; ++u) p[u] = i0 + u * kBlock < n ? __ldcg(&list[i0 + u * kBlock]) : 0;
#pragma unroll
        for (uint32_t u = 0; u < U; ++u)
            if (i0 + u * kBlock < n) g(i0 + u * kBlock, p[u]);
    }
}

// A long row the sample missed is finished inside the kernel by the row's own blocks, with M's steps
// (finish_missed_row): M's scratch, and this call's number, which tags the row's steps (RowState::step =
// call * 8 + step) so that nothing needs clearing between calls. state == nullptr: not in this plan.
struct MissedRows {
    rowwise::RowState* state;
    uint32_t *hist, *sel_key, *sel_col;
    unsigned long long call;
};
// A row's steps: the verdict (kHit, kMissed, or kKthKnown: a long 16-bit row's kk-th key known from its counts,
// collect_together), then on a miss digit d chosen (kDigitChosen + d).
constexpr unsigned kHit = 1, kMissed = 2, kDigitChosen = 3, kKthKnown = 6;

// Thread 0 only: spins until row r's step word (another block of the row writes it) satisfies done(word),
// and returns the word.
template <class Done>
__device__ __forceinline__ unsigned long long spin_on_step(const MissedRows& miss, size_t r, Done&& done) {
    const volatile unsigned long long* step = &miss.state[r].step;
    unsigned long long v;
    while (!done(v = *step)) __nanosleep(64);
    __threadfence();
    return v;
}
// Thread 0 only: the row's step once it carries this call's tag (the verdict: kHit or kMissed).
__device__ __forceinline__ unsigned wait_for_call(const MissedRows& miss, size_t r) {
    return unsigned(spin_on_step(miss, r, [&](unsigned long long v) { return (v >> 3) == miss.call; }) & 7);
}
// The block waits until row r's step is `tag` (thread 0 spins), then goes on.
__device__ __forceinline__ void wait_for_step(const MissedRows& miss, size_t r, unsigned long long tag) {
    if (threadIdx.x == 0) spin_on_step(miss, r, [&](unsigned long long v) { return v == tag; });
    __syncthreads();
}
// Thread 0, after its block's writes: row r's step is now `step` of this call.
__device__ __forceinline__ void set_step(const MissedRows& miss, size_t r, unsigned step) {
    __threadfence();
    atomicExch(&miss.state[r].step, miss.call * 8 + step);
}

// Thread 0 of a long 16-bit row's last block, before its verdict kKthKnown: what the row's blocks need to collect its
// winners together (the kk-th key and k_rem, as M's m_choose leaves a digit), and the row's winner counters zeroed.
__device__ __forceinline__ void publish_kth(rowwise::RowState* st, uint32_t kth, uint32_t k_rem) {
    st->prefix = kth;
    st->k_rem = k_rem;
    st->nsel = 0;
    st->ties = 0;
}

// Every block of the row, with its share of a step done: the last to arrive (a ticket) runs last() with
// its whole block; then the others may go on (wait = true), or leave (wait = false: the row's last step).
// Returns whether this block was the last.
template <class Last>
__device__ bool row_step(const MissedRows& miss, size_t r, uint32_t chunks, unsigned step, bool wait, bool* s_last,
                         Last&& last) {
    rowwise::RowState* st = miss.state + r;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        *s_last = atomicAdd(&st->arrived, 1u) == chunks - 1;
    }
    __syncthreads();
    const bool is_last = *s_last;
    if (is_last) {
        __threadfence();
        last();
        __syncthreads();
        if (threadIdx.x == 0) {
            st->arrived = 0;
            if (wait) set_step(miss, r, step);
        }
    } else if (wait) {
        wait_for_step(miss, r, miss.call * 8 + step);
    }
    __syncthreads();
    return is_last;
}

// A missed long row, by all of its blocks (each its chunk [begin, end)): M over the row, the digit
// passes (m_count_digit, the last block m_choose), the collect (m_collect) and the last block's sort
// (m_sort_row), a row barrier (row_step) between the steps. The grid was launched with every block
// resident (course::launch_together), so a block that waits here never holds up one that has not started.
// Inlined. As a call (__noinline__) the kernel was slower also on rows never missed (not explained), and
// all-equal rows twenty times slower (TUNING.md).
template <class Reader, class T>
__device__ __forceinline__ void finish_missed_row(const T* __restrict__ in, size_t r, uint32_t cols, uint32_t begin,
                                                  uint32_t end, uint32_t chunks, uint32_t k, bool smallest,
                                                  MissedRows miss, RowSmem& sm, bool* s_last, T* __restrict__ out_vals,
                                                  uint32_t* __restrict__ out_idx) {
    rowwise::RowState* st = miss.state + r;
    uint32_t* hist = miss.hist + r * rowwise::kMaxBins;
    const int digits = topk::is_half_float<T> ? 2 : 3;
    uint32_t prefix = 0;
    int pbits = 0;
    for (int d = 0; d < digits; ++d) {
        rowwise::m_count_digit<Reader>(in, r * cols, begin, end, smallest, d, prefix, pbits, sm.hist, hist);
        row_step(miss, r, chunks, kDigitChosen + d, true, s_last,
                 [&] { rowwise::m_choose<T, true>(d, k, prefix, pbits, sm.hist, hist, st); });
        prefix = __ldcg(&st->prefix);
        pbits = int(__ldcg(&st->pbits));
    }
    rowwise::m_collect<Reader, true>(in, r, r * cols, begin, end, smallest, k, st, miss.sel_key, miss.sel_col);
    row_step(miss, r, chunks, 0, false, s_last,
             [&] { rowwise::m_sort_row<true>(in, r, cols, k, miss.sel_key, miss.sel_col, sm.sel, out_vals, out_idx); });
}

// A row's running total of candidates, how many of its blocks are done, and (rows with a list) the
// largest key and the complement of the smallest among its candidates; the row's last block sets them
// back to 0, so every call leaves them zeroed for the next.
struct Tally {
    uint32_t count, arrived, hi, lo_inv;
};

// The winners among a list's n entries, the kk-th key (kth) known: the keys above it to sm.sel from 0 (sm.nsel
// counts them; a list holds at most `above` of them), and up to k_rem of its copies from sm.sel[above] on (sm.ties
// counts those that came, at most k_rem placed). U loads in flight a thread (each_listed). A copy takes a slot by an
// atomic only while a plain read says slots are left: in a bfloat16 row of uniform [-1, 1) the kk-th key is the top
// one, ~16K copies, the whole list. (A second atomic on sm.nsel for each copy kept was slower on a ragged
// batch's long row, one block over the whole list.) Contains barriers: call from every thread.
template <uint32_t U>
__device__ __forceinline__ void gather_winners(const uint64_t* __restrict__ list, uint32_t n, uint32_t kth,
                                               uint32_t k_rem, uint32_t above, RowSmem& sm) {
    if (threadIdx.x == 0) {
        sm.nsel = 0;
        sm.ties = 0;
    }
    __syncthreads();
    const volatile uint32_t& ties_taken = sm.ties;
    each_listed<U>(list, n, [&](uint32_t, uint64_t p) {
        const uint32_t key = uint32_t(p >> 32);
        if (key > kth) sm.sel[atomicAdd(&sm.nsel, 1u)] = p;
        else if (key == kth && ties_taken < k_rem) {
            const uint32_t slot = atomicAdd(&sm.ties, 1u);
            if (slot < k_rem) sm.sel[above + slot] = p;
        }
    });
    __syncthreads();
}

// A long 16-bit row whose kk-th key (kth; k_rem of its copies to take) its whole-key counts gave, and whose list
// holds n candidates: every block of the row takes an equal share of the list, and the keys above kth and the
// first k_rem copies of it go to the row's winners (M's sel_key/sel_col: above kth in [0, k - k_rem), the copies
// after them); the last block to finish orders and writes them, and zeroes the list's count (tally) for the next
// call. One block took the whole list before, a large part of the row's time; now each block takes its share
// (TUNING.md).
// Each block gathers its share's winners in shared memory and takes its places among the row's with one atomic
// a kind (a uniform bfloat16 row's kk-th key is its top one, with ~16K copies in the list: an atomic on the
// row's counter for each copy was not measured apart). Called by every block of the row (k = kk: not ragged).
// Every block ordering an equal share of the winners (a winner's place counted by one warp), after a second row
// barrier, was slower (TUNING.md).
template <uint32_t kMaxK, class T>
__device__ __forceinline__ void collect_together(const T* __restrict__ row, uint32_t len, size_t r, uint32_t k,
                                                 uint32_t part, uint32_t chunks, const uint64_t* __restrict__ list,
                                                 uint32_t n, uint32_t kth, uint32_t k_rem, Tally* __restrict__ tally,
                                                 MissedRows miss, RowSmem& sm, bool* s_last, T* __restrict__ out_vals,
                                                 uint32_t* __restrict__ out_idx) {
    __shared__ uint32_t s_at[2];   // this block's first places among the row's winners: above kth, copies
    rowwise::RowState* st = miss.state + r;
    const uint32_t t = threadIdx.x, above = k - k_rem;
    const uint32_t lo = uint32_t(uint64_t(n) * part / chunks), hi = uint32_t(uint64_t(n) * (part + 1) / chunks);
    gather_winners<1>(list + lo, hi - lo, kth, k_rem, above, sm);
    const uint32_t mine = sm.nsel, copies = min(sm.ties, k_rem);
    if (t == 0) {
        s_at[0] = atomicAdd(&st->nsel, mine);
        s_at[1] = atomicAdd(&st->ties, copies);
    }
    __syncthreads();
    for (uint32_t i = t; i < mine; i += kBlock) {
        miss.sel_key[r * k + s_at[0] + i] = uint32_t(sm.sel[i] >> 32);
        miss.sel_col[r * k + s_at[0] + i] = topk::packed_index(sm.sel[i]);
    }
    for (uint32_t i = t; i < copies && s_at[1] + i < k_rem; i += kBlock) {
        miss.sel_key[r * k + above + s_at[1] + i] = kth;
        miss.sel_col[r * k + above + s_at[1] + i] = topk::packed_index(sm.sel[above + i]);
    }
    row_step(miss, r, chunks, 0, false, s_last, [&] {
        for (uint32_t i = t; i < k; i += kBlock)
            sm.sel[i] = pack(__ldcg(&miss.sel_key[r * k + i]), __ldcg(&miss.sel_col[r * k + i]));
        if (t == 0) tally[r].count = 0;
        __syncthreads();
        rowwise::write_winners<kMaxK>(row, len, r, k, k, sm, out_vals, out_idx);
    });
}

}   // namespace sampled
