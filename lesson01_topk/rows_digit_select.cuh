// lesson01_topk/rows_digit_select.cuh — the k-th key of a row found by radix digits (the 1-D radix select
// applied to every row), cut three ways by the shape:
//   W  cols <= 256: a warp holds its row in registers and takes the k largest one warp max at a time.
//   B  a block per row: digit passes over the row narrow the k-th key's bucket until its keys fit in
//      shared memory, one more pass collects the winners, a sort by bins orders them.
//   M  a row cut into chunks, one block a chunk: each digit pass is a launch over all rows, the
//      histograms summed in global memory and the row's last block picking the bucket; a collect
//      launch, a sort of the winners.
// float16/bfloat16: 16-byte loads of 8 values; their 16-bit keys are whole after two digits.
// Entry points: the kernels warp_rows (W), block_rows (B), multi_digit_pass, multi_collect and
// sort_winners (M), which rows_serving.cuh launches; and the device steps the sampled pass
// (rows_sampled_pass.cuh, rows_long_rows.cuh) reuses: narrow, choose_bucket, common_prefix,
// select_row, finish_row, block_row, write_winners, write_padding, AlignedRows, warp_max, and M's
// m_count_digit, m_choose, m_collect, m_sort_row over a RowState.
// Layering: rows_serving.cuh -> rows_plan.cuh -> rows_sampled_pass.cuh -> rows_long_rows.cuh -> this
// -> rows.cuh, bitonic.cuh -> lesson.cuh -> common/.
#pragma once
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

// float16/bfloat16 keys are 16 bits in the top half (lesson.cuh): once 16 bits of the prefix are
// known it is the whole key, and the key's low bits are all 0. whole_key then makes the prefix the
// 32-bit key itself (pbits 32) and says so: the 10-bit third digit is never counted for them.
template <class T> __device__ __forceinline__ bool whole_key(uint32_t& prefix, uint32_t& pbits) {
    if (!topk::is_half_float<T> || pbits < 16 || pbits == 32) return false;
    prefix <<= 32 - pbits;
    pbits = 32;
    return true;
}
template <class T> __device__ __forceinline__ bool whole_key(uint32_t& prefix, int& pbits) {
    uint32_t pb = uint32_t(pbits);
    bool w = whole_key<T>(prefix, pb);
    pbits = int(pb);
    return w;
}

// Does `key` start with the `pbits` bits of `prefix`? (pbits 0: every key does.)
__device__ __forceinline__ bool has_prefix(uint32_t key, uint32_t prefix, int pbits) {
    return pbits == 0 || (key >> (32 - pbits)) == prefix;
}

using topk::vec_elem;   // element i of a 16-byte vector (lesson.cuh)

// The elements of [begin, end) before row + begin reaches a 16-byte boundary (at most end - begin).
template <class T> __device__ __forceinline__ uint32_t unaligned_head(const T* row, uint32_t begin, uint32_t end) {
    const uint32_t head = uint32_t((16 - (reinterpret_cast<uintptr_t>(row + begin) & 15)) & 15) / sizeof(T);
    return min(head, end - begin);
}

// How B and M read a row: AlignedRows::each calls f(value, column) for every element of the row
// that starts at element `start` of `in` (r * cols; a ragged batch's offsets[r]) in columns
// [begin, end), each once, spread over `nthreads` threads (this one is `t`). A row starts wherever
// `start` puts it: only when that is a multiple of 16 bytes may it be read in 16-byte vectors
// (4 floats, 8 halves). So: single elements until the address is 16-byte aligned, the body in
// vectors (one 16-byte load per thread per step), the tail singly (its column in 64 bits, so that
// c + nthreads cannot wrap when end is near 2^32). The kernels take the reader as a template
// parameter so that wrong/row_float4.cu can plug in the tempting broken one (every row read as
// float4 from element (r * cols) / 4 * 4: right only when cols is a multiple of 4).
// each(..., f, fv) hands each 16-byte vector of the body to fv(vector, column of its first element)
// instead (the sampled pass tests a vector of 16-bit values at once).
struct AlignedRows {
    template <class T, class F>
    __device__ __forceinline__ static void each(const T* __restrict__ in, size_t start, uint32_t begin, uint32_t end,
                                                int t, int nthreads, F&& f) {
        each(in, start, begin, end, t, nthreads, f, [&](const uint4& v, uint32_t c) {
#pragma unroll
            for (int i = 0; i < int(16 / sizeof(T)); ++i) f(vec_elem<T>(v, i), c + i);
        });
    }
    template <class T, class F, class FV>
    __device__ __forceinline__ static void each(const T* __restrict__ in, size_t start, uint32_t begin, uint32_t end,
                                                int t, int nthreads, F&& f, FV&& fv) {
        constexpr uint32_t V = 16 / sizeof(T);
        const T* row = in + start;
        const uint32_t head = unaligned_head(row, begin, end);
        if (t < int(head)) f(row[begin + t], begin + t);
        const uint32_t body = begin + head, vecs = (end - body) / V;
        const uint4* rowv = reinterpret_cast<const uint4*>(row + body);
#pragma unroll 4
        for (uint32_t q = t; q < vecs; q += nthreads) {
            const uint4 v = rowv[q];   // a copy: fv given rowv[q] itself (a reference to global memory) read
            fv(v, body + V * q);       // it again for each element (slower: TUNING.md)
        }
        for (uint64_t c = body + uint64_t(V) * vecs + t; c < end; c += nthreads) f(row[c], uint32_t(c));
    }
};

// ---- W: a warp per row --------------------------------------------------------------------------
constexpr int kWarpCols = 256;    // up to 8 keys per lane; longer rows go to B or M
constexpr int kWarpBlock = 256;   // 8 rows per block

// R keys per lane (R = 1, 2, 4, 8: the row's length rounded up to 32 R): a row of 64 keeps 2
// registers busy, not 8 (with 8 for every row, short rows spent most of their time comparing empty
// registers; sized to the row, see TUNING.md).
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

// W (cols <= 256): one warp per row, its keys in registers, the k largest taken one warp_max at a time.
template <int R, class T>
__global__ void __launch_bounds__(kWarpBlock)
    warp_rows(const T* __restrict__ in, size_t rows, uint32_t cols, uint32_t k, bool smallest, T* __restrict__ out_vals,
              uint32_t* __restrict__ out_idx) {
    const int lane = threadIdx.x & 31;
    const size_t r = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
    if (r >= rows) return;   // whole warps leave together
    const T* row = in + r * cols;
    uint64_t v[R];   // lane holds columns lane, lane + 32, ...
#pragma unroll
    for (int i = 0; i < R; ++i) {
        uint32_t c = lane + 32 * i;
        v[i] = c < cols ? pack(to_key(row[c], smallest), c) : kEmpty;
    }
    uint64_t best = v[0];
#pragma unroll
    for (int i = 1; i < R; ++i) best = v[i] > best ? v[i] : best;
    uint32_t mine = 0;   // lane j % 32 keeps result j until the warp writes 32
    for (uint32_t j = 0; j < k; ++j) {
        const uint32_t my_key = uint32_t(best >> 32);
        const uint32_t top = warp_max(my_key);
        // key 0 is also the empty slot's (and a NaN's under --smallest): only real elements count
        const unsigned holders = __ballot_sync(0xFFFFFFFFu, my_key == top && best != kEmpty);
        const int owner = __ffs(holders) - 1;
        const uint32_t col = __shfl_sync(0xFFFFFFFFu, packed_index(best), owner);
        if (lane == owner) {   // give it up, find this lane's next best
#pragma unroll
            for (int i = 0; i < R; ++i)
                if (v[i] == best) v[i] = kEmpty;
            best = v[0];
#pragma unroll
            for (int i = 1; i < R; ++i) best = v[i] > best ? v[i] : best;
        }
        if (lane == int(j % 32)) mine = col;
        if (j % 32 == 31 || j == k - 1) {   // a coalesced store of up to 32 results
            uint32_t first = j - j % 32;
            if (first + lane <= j) {
                out_idx[r * k + first + lane] = mine;
                out_vals[r * k + first + lane] = row[mine];
            }
        }
    }
}

// ---- choosing the bucket of the k-th key (B and M) ------------------------------------------------
struct Choice {
    uint32_t bucket, above, count;
};

// hist[0..bins) counts keys by digit (bucket bins-1 holds the largest). Returns, to every thread,
// the bucket b with  above = hist[bins-1] + ... + hist[b+1] < target <= above + hist[b].
// Each thread sums bins/BLOCK consecutive bins from the top, one block-wide exclusive scan says
// how many keys lie above each thread's range, and the one thread whose range crosses `target`
// walks its bins. Contains barriers: call from every thread.
template <int BLOCK> __device__ Choice choose_bucket(const uint32_t* hist, int bins, uint32_t target) {
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
            if (run + h >= target) {
                s_choice = {b, run, h};
                break;
            }
            run += h;
        }
    }
    __syncthreads();
    Choice c = s_choice;
    __syncthreads();
    return c;
}

// ---- B: a block per row, one launch ---------------------------------------------------------------
constexpr int kBlock = 1024;       // 512 threads were slower on 64 x 128256 (fewer warps ready; TUNING.md)
constexpr int kBlockMaxK = 2048;   // the k winners sorted in shared memory
static_assert(kBlockMaxK % kBlock == 0, "block_merge_sort_desc: kBlockMaxK / kBlock values a thread");
// B's candidates (keys sharing the k-th key's known prefix) live in DYNAMIC shared memory sized by
// the plan (plan_rows: as many as fit with 2 blocks an SM, at most kCandMax): a bucket that fits is
// collected in the next pass instead of needing another digit pass over the row. Uniform [-1, 1)
// floats put about cols / 16 keys in digit 0's top bucket (8K of 131072): with 2048 (the size before)
// a row of 131072 took 3 passes; with 10240 it takes 2. Not measured yet.
constexpr uint32_t kCandMax = 10240;
constexpr size_t kBlockStaticSmem = 26 * 1024;   // B's static shared memory, rounded up (s_hist, s_sel, the scan's)

// The shared memory of one block's select of one row (B, and the finishing block of the sampled pass).
struct RowSmem {
    alignas(16) uint32_t hist[kMaxBins];   // also the winners' 32-bit ranks (write_winners), read 4 at a time
    uint64_t sel[kBlockMaxK];              // the winners: keys above the k-th, then its ties
    uint32_t nsel, ncand, ties;
};

// A winner's value, read from the row at its column c (a broken version's empty slot, c >= len, is not read).
template <class T> __device__ __forceinline__ T winner_value(const T* __restrict__ row, uint32_t len, uint32_t c) {
    return c < len ? row[c] : T{};
}
// Output slot `slot` gets the winner at column c and its value v (an empty slot: only its column is reported).
template <class T>
__device__ __forceinline__ void store_winner(size_t slot, uint32_t c, T v, uint32_t len, T* __restrict__ out_vals,
                                             uint32_t* __restrict__ out_idx) {
    out_idx[slot] = c;
    if (c < len) out_vals[slot] = v;
}
// Both at once (the bin sort's callback): store_winner(slot, c, winner_value(row, len, c), ...) written out; in that
// form ptxas scheduled the sm_90 code differently from the build the GPU checks ran on.
template <class T>
__device__ __forceinline__ void write_winner(const T* __restrict__ row, uint32_t len, size_t slot, uint64_t p,
                                             T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    const uint32_t c = packed_index(p);
    out_idx[slot] = c;
    if (c < len) out_vals[slot] = row[c];
}

// One radix digit of the k-th key, by one block: count by digit d the keys that have the known
// prefix (`each_key(f)` calls f(key) for every key of the set, spread over the block's threads),
// then narrow the prefix to the bucket holding the k_rem-th largest (choose_bucket). Updates prefix,
// pbits, k_rem (and d, when a 16-bit key is whole); returns the bucket's count. The one digit step of
// B's passes over a row, of finish_row over the candidates and of the sampled pass's sample. Barriers inside.
template <class T, class EachKey>
__device__ uint32_t narrow(EachKey&& each_key, uint32_t& prefix, int& pbits, int& d, uint32_t& k_rem, uint32_t* hist) {
    const int t = threadIdx.x, bins = digit_bins(d), shift = digit_shift(d);
    for (int i = t; i < bins; i += kBlock) hist[i] = 0;
    __syncthreads();
    each_key([&](uint32_t key) {
        if (has_prefix(key, prefix, pbits)) atomicAdd(&hist[(key >> shift) & (bins - 1)], 1u);
    });
    __syncthreads();
    const Choice c = choose_bucket<kBlock>(hist, bins, k_rem);
    k_rem -= c.above;
    prefix = (prefix << (32 - shift - pbits)) | c.bucket;
    pbits = 32 - shift;
    if (whole_key<T>(prefix, pbits)) d = 2;   // 16-bit keys: known after 2 digits, no third
    return c.count;
}

// The digits every key of a set shares, from its smallest and largest key (lo, hi): the first digit d
// in which they differ and the prefix above it (pbits bits). A set of one value: the whole key (pbits 32,
// d 3). lo = 0 and hi = ~0u (not known) give d = 0 and no prefix.
__device__ __forceinline__ void common_prefix(uint32_t lo, uint32_t hi, uint32_t& prefix, int& pbits, int& d) {
    const uint32_t diff = lo ^ hi;
    if (diff == 0) {
        prefix = lo;
        pbits = 32;
        d = 3;
        return;
    }
    d = diff >> 21 ? 0 : diff >> 10 ? 1 : 2;
    pbits = d == 0 ? 0 : 32 - digit_shift(d - 1);
    prefix = pbits ? lo >> (32 - pbits) : 0u;
}

// How many of ranks[0, n) exceed m, all of them below 2^31 (then m - x has its top bit set exactly when x > m),
// ranks[n, n + 3] zero: thread q of 4 reads every 4th group of 4 (one 16-byte load), into 4 sums.
__device__ __forceinline__ uint32_t ranks_above(const uint32_t* ranks, uint32_t n, uint32_t m, uint32_t q) {
    const uint4* four = reinterpret_cast<const uint4*>(ranks);
    uint32_t a = 0, b = 0, c = 0, d = 0;
    for (uint32_t j = q; j < (n + 3) / 4; j += 4) {
        const uint4 x = four[j];
        a += (m - x.x) >> 31;
        b += (m - x.y) >> 31;
        c += (m - x.z) >> 31;
        d += (m - x.w) >> 31;
    }
    return a + b + c + d;
}
constexpr uint32_t kNoLeast = 0xFFFFFFFFu;   // write_winners: the least winner's key is not known
constexpr uint32_t kRankCols = 1u << 20;     // a 32-bit rank holds a column below this in its low 20 bits
constexpr uint32_t kRankKeys =
    1u << 11;   // and above it how far the key lies above the k-th's, less than this (< 2^31 in all)
// Ranks from this many winners on: their barrier and stores cost more than they save on few (TUNING.md).
constexpr uint32_t kRankMinK = 128;

// Order the kk winners in sm.sel and write them as row r of the output. Packed keys are distinct, so a
// winner's place is the number of winners above it: for kk <= 256, 4 threads a winner count it in
// kk / 4 steps with no barrier (the bitonic sort's 36 barriers for 256 were a sixth of a row's time:
// TUNING.md); more are placed by bins (block_bin_rank_desc, faster than the merge sort by rank in a
// probe kernel). Contains barriers: call from every thread.
// kMaxK: the most winners the calling kernel has (the sampled pass's build for k <= 256 leaves the block sort out).
// kRanks (the sampled pass's k <= 256 short-row builds), least: the k-th key. kRankMinK or more 16-bit winners less than kRankKeys
// keys above it, in a row shorter than kRankCols, are counted by 32-bit ranks (key - least, then the column
// reversed): 2 instructions a comparison where the packed 64-bit keys take 6, for one barrier more. Not in
// the block path B: compiled into it, unused, the code alone slowed it (TUNING.md).
template <uint32_t kMaxK = kBlockMaxK, bool kRanks = false, class T>
__device__ void write_winners(const T* __restrict__ row, uint32_t len, size_t r, uint32_t k, uint32_t kk, RowSmem& sm,
                              T* __restrict__ out_vals, uint32_t* __restrict__ out_idx, uint32_t least = kNoLeast) {
    const int t = threadIdx.x;
    if (kMaxK <= kBlock / 4 || kk <= kBlock / 4) {
        const uint32_t e = t / 4, q = t % 4;
        const uint64_t mine = e < kk ? sm.sel[e] : kEmpty;
        // The winner's value is requested before its place is counted, so that the read overlaps the count.
        const uint32_t c = packed_index(mine);
        T v{};
        if (e < kk && q == 0) v = winner_value(row, len, c);
        uint32_t above = 0;
        bool by_rank = false;
        if constexpr (kRanks && topk::is_half_float<T>) {
            if (least != kNoLeast && len <= kRankCols && kk >= kRankMinK) {
                const uint32_t apart = e < kk ? (uint32_t(mine >> 32) - least) >> 16 : 0;
                const uint32_t m = apart * kRankCols | (kRankCols - 1 - c);
                if (e < kk && q == 0) sm.hist[e] = m;
                if (t < 4) sm.hist[kk + t] = 0;
                by_rank = !__syncthreads_or(apart >= kRankKeys);
                if (by_rank && e < kk) above = ranks_above(sm.hist, kk, m, q);
            }
        }
        if (!by_rank && e < kk)
            for (uint32_t j = q; j < kk; j += 4) above += sm.sel[j] > mine;
        above += __shfl_xor_sync(0xFFFFFFFFu, above, 1);
        above += __shfl_xor_sync(0xFFFFFFFFu, above, 2);
        if (e < kk && q == 0) store_winner(r * k + above, c, v, len, out_vals, out_idx);
        return;
    }
    constexpr int kKeyShift = topk::is_half_float<T> ? 16 : 0;   // 16-bit keys: the low half is 0
    topk::bitonic::block_bin_rank_desc<kBlockMaxK / kBlock, kKeyShift, kBlock>(
        sm.sel, int(kk), sm.hist,
        [&](uint32_t at, uint64_t p) { write_winner(row, len, r * k + at, p, out_vals, out_idx); });
}

// The end of a block's select: `ncand` candidates in s_cand share the k-th key's known prefix (pbits
// bits; digits from d on unknown), sm.nsel winners are already in sm.sel and k_rem are still to take.
// The remaining digits over the candidates in shared memory, the last filter, then write_winners.
// Contains barriers: call from every thread. kRanks: write_winners'.
template <uint32_t kMaxK = kBlockMaxK, bool kRanks = false, class T>
__device__ void finish_row(const T* __restrict__ row, uint32_t len, size_t r, uint32_t k, uint32_t kk, uint64_t* s_cand,
                           uint32_t ncand, uint32_t prefix, int pbits, int d, uint32_t k_rem, RowSmem& sm,
                           T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    const int t = threadIdx.x;
    for (; d < 3; ++d)
        narrow<T>(
            [&](auto f) {
                for (uint32_t i = t; i < ncand; i += kBlock) f(uint32_t(s_cand[i] >> 32));
            },
            prefix, pbits, d, k_rem, sm.hist);
    if (ncand > 0) {   // prefix is now the k-th key itself
        for (uint32_t i = t; i < ncand; i += kBlock) {
            uint64_t p = s_cand[i];
            uint32_t key = uint32_t(p >> 32);
            if (key > prefix || (key == prefix && atomicAdd(&sm.ties, 1u) < k_rem)) sm.sel[atomicAdd(&sm.nsel, 1u)] = p;
        }
        __syncthreads();
    }
    write_winners<kMaxK, kRanks>(row, len, r, k, kk, sm, out_vals, out_idx, ncand > 0 ? prefix : kNoLeast);
}

// A short row's padding: its slots [kk, k) get index kNoIndex and value pad_value (rows.cuh).
template <class T>
__device__ void write_padding(size_t r, uint32_t k, uint32_t kk, bool smallest, T* __restrict__ out_vals,
                              uint32_t* __restrict__ out_idx) {
    for (uint32_t j = kk + threadIdx.x; j < k; j += kBlock) {
        out_idx[r * k + j] = topk::rows::kNoIndex;
        out_vals[r * k + j] = topk::rows::pad_value<T>(smallest);
    }
}

// One block selects the kk largest of a set of `count` (key, column) pairs of row r, which
// `each(f)` hands over by calling f(key, column) for each, spread over the block's threads: digit
// passes over the set (narrow), from the first digit in which its keys lo..hi differ (common_prefix;
// 0 and ~0u when not known), until the keys sharing the k-th key's prefix fit in s_cand (cand_cap),
// one more pass to collect them, then finish_row (values read from `row` by column). The set is a row
// (block_row below) or the list of a long row's candidates (rows_sampled_pass.cuh). Contains barriers: call from every thread.
template <uint32_t kMaxK = kBlockMaxK, class T, class Each>
__device__ void select_row(const T* __restrict__ row, uint32_t len, uint32_t count, size_t r, uint32_t k, uint32_t kk,
                           uint32_t cand_cap, uint64_t* s_cand, RowSmem& sm, T* __restrict__ out_vals,
                           uint32_t* __restrict__ out_idx, uint32_t lo, uint32_t hi, Each&& each) {
    const int t = threadIdx.x;
    uint32_t prefix, k_rem = kk, match = count;   // keys with the prefix: `match`; k_rem still to take
    int pbits, d;
    common_prefix(lo, hi, prefix, pbits, d);
    // 1. Passes over the set, one digit each, until the keys sharing the prefix fit in s_cand
    //    (cand_cap of them; or the prefix is the whole key: then only the k-th key's ties are left).
    for (; d < 3 && match > cand_cap; ++d)
        match =
            narrow<T>([&](auto f) { each([&](uint32_t key, uint32_t) { f(key); }); }, prefix, pbits, d, k_rem, sm.hist);
    // 2. One more pass: keys above the prefix are winners; keys with it are candidates (or, with
    //    the whole key known, ties: the first k_rem to arrive are taken).
    if (t == 0) {
        sm.nsel = 0;
        sm.ncand = 0;
        sm.ties = 0;
    }
    __syncthreads();
    each([&](uint32_t key, uint32_t c) {
        uint32_t top = pbits == 0 ? 0 : key >> (32 - pbits);
        if (pbits > 0 && top > prefix) sm.sel[atomicAdd(&sm.nsel, 1u)] = pack(key, c);
        else if (top == prefix) {
            if (pbits == 32) {
                if (atomicAdd(&sm.ties, 1u) < k_rem) sm.sel[atomicAdd(&sm.nsel, 1u)] = pack(key, c);
            } else {
                s_cand[atomicAdd(&sm.ncand, 1u)] = pack(key, c);
            }
        }
    });
    __syncthreads();
    // 3. The remaining digits over the candidates in shared memory, the last filter, the sort.
    finish_row<kMaxK>(row, len, r, k, kk, s_cand, sm.ncand, prefix, pbits, d, k_rem, sm, out_vals, out_idx);
}

// One block selects row r (elements [start, start + len) of `in`), read through Reader: select_row
// over the row's keys. Writes the row's padding slots [kk, k) too. Call from every thread.
template <class Reader, uint32_t kMaxK = kBlockMaxK, class T>
__device__ void block_row(const T* __restrict__ in, size_t start, uint32_t len, size_t r, uint32_t k, bool smallest,
                          uint32_t cand_cap, uint64_t* s_cand, RowSmem& sm, T* __restrict__ out_vals,
                          uint32_t* __restrict__ out_idx) {
    const int t = threadIdx.x;
    const uint32_t kk = min(k, len);   // results this row has (the same for the whole block)
    write_padding(r, k, kk, smallest, out_vals, out_idx);
    if (kk == 0) return;
    select_row<kMaxK>(in + start, len, len, r, k, kk, cand_cap, s_cand, sm, out_vals, out_idx, 0u, ~0u, [&](auto f) {
        Reader::each(in, start, 0, len, t, kBlock, [&](T x, uint32_t c) { f(to_key(x, smallest), c); });
    });
}

// B: one block per row, radix digits over the row until the k-th key's bucket fits in shared memory.
// A ragged batch (offsets != nullptr) gives row r the elements [offsets[r], offsets[r + 1]): a row
// shorter than k returns all of them, and its slots from its length on are padding (rows.cuh).
// Bound to the plan's two blocks an SM: unbound, ptxas gave the float32 build 44 registers a thread with
// the bin sort in (one block an SM), which was slower (TUNING.md).
template <class Reader, class T>
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    block_rows(const T* __restrict__ in, const int64_t* __restrict__ offsets, uint32_t cols, uint32_t k, bool smallest,
               uint32_t cand_cap, T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ RowSmem sm;
    extern __shared__ uint64_t s_cand[];   // cand_cap keys that share the k-th key's known prefix
    const size_t r = blockIdx.x;
    const size_t start = offsets ? size_t(offsets[r]) : r * cols;
    const uint32_t len = offsets ? uint32_t(offsets[r + 1] - offsets[r]) : cols;
    block_row<Reader>(in, start, len, r, k, smallest, cand_cap, s_cand, sm, out_vals, out_idx);
}

// ---- M: many blocks per row ----------------------------------------------------------------------
struct RowState {
    uint32_t prefix, pbits, k_rem;   // what is known of the row's k-th key
    uint32_t arrived;                // blocks of this row done with the current pass
    uint32_t nsel, ties;             // winners written; ties taken
    unsigned long long step;         // M inside the sampled kernel: the row's last step done, tagged with the call
};

// M's steps, as device functions: the launches below run each over every row, and the sampled pass runs
// them inside its kernel for a row its sample missed (the row's blocks, a barrier between steps:
// rows_long_rows.cuh). Each is called by every thread of a block. kFresh: what another block of the same
// kernel wrote is read through L2 (__ldcg; the sampled kernel). M's launches read plain loads: __ldcg
// there was slower (TUNING.md).
template <bool kFresh, class U> __device__ __forceinline__ U written(const U* p) { return kFresh ? __ldcg(p) : *p; }

// Digit pass d over [begin, end) of the row at `start`: the digit of the keys that have the row's prefix,
// counted in s_hist (kMaxBins) and added to the row's histogram `hist` in global memory.
template <class Reader, class T>
__device__ void m_count_digit(const T* __restrict__ in, size_t start, uint32_t begin, uint32_t end, bool smallest,
                              int d, uint32_t prefix, int pbits, uint32_t* s_hist, uint32_t* __restrict__ hist) {
    const int t = threadIdx.x, bins = digit_bins(d), shift = digit_shift(d);
    for (int i = t; i < bins; i += kBlock) s_hist[i] = 0;
    __syncthreads();
    Reader::each(in, start, begin, end, t, kBlock, [&](T x, uint32_t) {
        uint32_t key = to_key(x, smallest);
        if (has_prefix(key, prefix, pbits)) atomicAdd(&s_hist[(key >> shift) & (bins - 1)], 1u);
    });
    __syncthreads();
    for (int i = t; i < bins; i += kBlock)
        if (s_hist[i]) atomicAdd(&hist[i], s_hist[i]);
    __threadfence();   // our counts are visible before we say we are done
}

// The row's last block of pass d: the bucket from the row's histogram (read, and cleared for the next
// pass), into the row's state (pass 0 knows it without reading: no prefix, k to take, and writes all of it).
template <class T, bool kFresh = false>
__device__ void m_choose(int d, uint32_t k, uint32_t prefix, int pbits, uint32_t* s_hist, uint32_t* __restrict__ hist,
                         RowState* st) {
    const int t = threadIdx.x, bins = digit_bins(d), shift = digit_shift(d);
    for (int i = t; i < bins; i += kBlock) {
        s_hist[i] = __ldcg(&hist[i]);
        hist[i] = 0;
    }
    __syncthreads();
    const uint32_t k_rem = d == 0 ? k : written<kFresh>(&st->k_rem);
    Choice c = choose_bucket<kBlock>(s_hist, bins, k_rem);
    if (t == 0) {
        uint32_t p = (prefix << (32 - shift - pbits)) | c.bucket, pb = 32 - shift;
        whole_key<T>(p, pb);
        st->k_rem = k_rem - c.above;
        st->prefix = p;
        st->pbits = pb;
        st->arrived = 0;
        if (d == 0) {
            st->nsel = 0;
            st->ties = 0;
        }   // for the collect
    }
}

// The collect over [begin, end): with the k-th key known, every key above it is a winner, and the first
// k_rem of its ties. Winners go to the row's slots of sel_key/sel_col (k a row) in any order.
template <class Reader, bool kFresh = false, class T>
__device__ void m_collect(const T* __restrict__ in, size_t r, size_t start, uint32_t begin, uint32_t end, bool smallest,
                          uint32_t k, RowState* st, uint32_t* __restrict__ sel_key, uint32_t* __restrict__ sel_col) {
    const uint32_t kth = written<kFresh>(&st->prefix), k_rem = written<kFresh>(&st->k_rem);
    Reader::each(in, start, begin, end, threadIdx.x, kBlock, [&](T x, uint32_t c) {
        uint32_t key = to_key(x, smallest);
        if (key > kth || (key == kth && atomicAdd(&st->ties, 1u) < k_rem)) {
            uint32_t j = atomicAdd(&st->nsel, 1u);
            sel_key[r * k + j] = key;
            sel_col[r * k + j] = c;
        }
    });
}

// k <= 2048: one block sorts row r's winners (bitonic.cuh) in s (kBlockMaxK) and writes them.
template <bool kFresh = false, class T>
__device__ void m_sort_row(const T* __restrict__ in, size_t r, uint32_t cols, uint32_t k,
                           const uint32_t* __restrict__ sel_key, const uint32_t* __restrict__ sel_col, uint64_t* s,
                           T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    int m = 1;
    while (m < int(k)) m *= 2;
    for (int i = threadIdx.x; i < m; i += kBlock)
        s[i] = i < int(k) ? pack(written<kFresh>(&sel_key[r * k + i]), written<kFresh>(&sel_col[r * k + i])) : kEmpty;
    __syncthreads();
    topk::bitonic::block_merge_sort_desc<kBlockMaxK / kBlock>(s, m);
    for (uint32_t j = threadIdx.x; j < k; j += kBlock) {
        uint32_t c = packed_index(s[j]);
        out_idx[r * k + j] = c;
        if (c < cols) out_vals[r * k + j] = in[r * cols + c];
    }
}

// M: one digit pass over every row: block (row, chunk) counts the digit of its chunk's keys that
// have the row's prefix (m_count_digit), and the row's last block to arrive chooses the bucket
// (m_choose), which clears the histogram and its ticket for the next pass: a call needs no
// initialising launch, since every call leaves the tickets and histograms zeroed (the launcher zeroes
// fresh scratch once). Two blocks an SM where it holds 2048 threads: unbounded, the 16-bit builds took
// 38 registers, one block an SM, and were slower (TUNING.md).
template <class Reader, class T>
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    multi_digit_pass(const T* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest,
                     uint32_t k, int d, RowState* __restrict__ state, uint32_t* __restrict__ g_hist) {
    __shared__ uint32_t s_hist[kMaxBins];
    __shared__ bool s_last;
    course::let_dependents_launch();   // M's launches follow each other closely (launch_dependent)
    course::wait_for_prior_grid();
    const size_t r = blockIdx.x / chunks;
    const uint32_t begin = (blockIdx.x % chunks) * chunk, end = topk::rows::chunk_end(cols, begin, chunk);
    RowState* st = state + r;
    const uint32_t prefix = d == 0 ? 0u : st->prefix;
    const int pbits = d == 0 ? 0 : int(st->pbits);
    uint32_t* hist = g_hist + r * kMaxBins;
    m_count_digit<Reader>(in, r * cols, begin, end, smallest, d, prefix, pbits, s_hist, hist);
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&st->arrived, 1u) == chunks - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    m_choose<T>(d, k, prefix, pbits, s_hist, hist, st);
}

// The collect launch (m_collect over every row's chunks).
template <class Reader, class T>
__global__ void __launch_bounds__(kBlock)
    multi_collect(const T* __restrict__ in, uint32_t cols, uint32_t chunks, uint32_t chunk, bool smallest, uint32_t k,
                  RowState* __restrict__ state, uint32_t* __restrict__ sel_key, uint32_t* __restrict__ sel_col) {
    course::let_dependents_launch();
    course::wait_for_prior_grid();
    const size_t r = blockIdx.x / chunks;
    const uint32_t begin = (blockIdx.x % chunks) * chunk, end = topk::rows::chunk_end(cols, begin, chunk);
    m_collect<Reader>(in, r, r * cols, begin, end, smallest, k, state + r, sel_key, sel_col);
}

// M, k <= 2048: a block per row sorts its winners and writes them (m_sort_row).
template <class T>
__global__ void __launch_bounds__(kBlock)
    sort_winners(const T* __restrict__ in, uint32_t cols, uint32_t k, const uint32_t* __restrict__ sel_key,
                 const uint32_t* __restrict__ sel_col, T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ uint64_t s[kBlockMaxK];
    course::let_dependents_launch();
    course::wait_for_prior_grid();
    const size_t r = blockIdx.x;
    m_sort_row(in, r, cols, k, sel_key, sel_col, s, out_vals, out_idx);
}

}   // namespace rowwise
