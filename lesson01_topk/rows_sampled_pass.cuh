// lesson01_topk/rows_sampled_pass.cuh — a row read ONCE: a sample of the row sets a threshold, one pass
// keeps the keys at or above it, and the select finishes in shared memory.
// Every block of a row reads the same few thousand sampled keys (from L2 after the first block) and
// picks a threshold that about 4k of the row's keys pass; rows are cut into chunks, at most one block
// an SM in all, ONE pass keeps the passing keys, and the row's last block to finish selects the k among
// them in shared memory (short_select). If the sample misled it (fewer than k passed, or more than the
// buffer holds: all-equal rows, a few levels) that block runs rows_digit_select.cuh's block path on the
// row: slower, never wrong. Rows past 2^20 (to 2^25, several blocks each) keep their candidates in a
// list in global memory and finish together (rows_long_rows.cuh).
// Entry point: the kernel sampled_rows (launched by rows_serving.cuh, planned by rows_plan.cuh), and
// the host's arithmetic of its aim: wanted, short_want, long_margin, samples_for, and its constants.
#pragma once
#include "rows_long_rows.cuh"

#include <cooperative_groups.h>

namespace sampled {

constexpr uint32_t kShortLen = 1u << 20;   // rows up to this keep their candidates in shared memory
constexpr uint32_t kListCap = 1u << 17;    // a longer row's candidates: a list of 131072 in global memory
constexpr uint32_t kMaxLen = 1u << 25;     // longer rows: the threshold would be the 8192 samples' j-th, j < 8
constexpr uint32_t kMinChunk = 4096;       // keys a block reads at least (as M's chunks)
constexpr uint32_t kSmallK = kBlock / 4;   // k up to this: winners ranked by counting (write_winners)
// 16-byte vectors a thread keeps requested ahead in the pass (staged_pass), every row and type: 4 where
// the grid is at most one block an SM, as it always is past kShortLen (that build is bound to one block an
// SM, so its 64 registers hold them), else 2 (two blocks an SM). Slower, each measured in the same run
// (TUNING.md): 2 where 4 fit; long rows unstaged at two blocks an SM, or 2 ahead there (32 registers, spills);
// 4 with one block an SM on 256 rows (two waves), and, a little, on one row's 31 blocks (not kept apart).
constexpr uint32_t kAheadOneAnSm = 4, kAheadTwoAnSm = 2;
// A grid of two blocks an SM streams its rows past L1 (load_once; builds of their own, kStream) where a row holds at
// least this many keys for each candidate wanted() names (4 kk: the rule was measured before short_want lowered the
// aim of rows where k is large for their length): two blocks' shared memory leave L1 little
// room for the pass's 64 KB in flight an SM, and each byte is read once. Sparse rows (256 x 256000 k 1024,
// 256 x 262144 k 256) gained, both types; denser rows lost (1 key in 8 or 16 wanted; not explained), and at 1 in
// 32 the types split. Chosen per row at run time in the plain builds, it lost the gain (more spills). The
// one-an-SM builds gained and lost by shape and type: the short-row ones keep plain loads (16-bit long rows: see
// Plan). Each measured in the same run: TUNING.md.
constexpr uint32_t kStreamKeys = 32;

// How many of a row's keys the threshold should let through: 4 kk plus `margin`, at most half of the candidate
// buffer, and at least an eighth of it (not under 1024) in shared memory or a sixteenth of a long row's list;
// where that leaves less than 1.5 kk (k near cap / 2: a T4's 4096 at k = 2048), halfway from kk to cap. Fewer
// candidates shorten the hand-in and the select: a quarter in shared memory (2560 on an H100) was slower than an
// eighth (1280 still leaves ~20 of its 2048 samples above the threshold). A long row (its margin: long_margin)
// aimed at a quarter of its list before, slower on every long shape (TUNING.md). An eighth and no margin was
// faster on 1 x 2^25 k 2048, but there a row in 570 would miss (j = 4).
__host__ __device__ inline uint32_t least_wanted(uint32_t cap, bool list) {
    return list ? cap / 16 : max(cap / 8, 1024u);
}
__host__ __device__ inline uint32_t wanted(uint32_t kk, uint32_t cap, bool list, uint32_t margin = 0) {
    const uint32_t least = least_wanted(cap, list);
    const uint32_t w = min(max(4 * kk + margin, least), cap / 2);
    return w < kk + kk / 2 ? (kk + cap) / 2 : w;
}

// Keys sampled from a row of `len` (> cap): 2048 up to 2^18, then 2048 per 2^18 keys, at most
// 8192 and at most 2 cap (they are held in the candidate buffer, 8 bytes a candidate).
__host__ __device__ inline uint32_t samples_for(uint32_t len, uint32_t cap) {
    const uint32_t s = 2048u * max(1u, (len + (1u << 18) - 1) >> 18);
    return min(min(s, 8192u), 2 * cap);
}

// A long row's margin over 4 kk: 4 samples' worth of its keys. The threshold is the j-th largest of S samples, j =
// want S / len, and misses (fewer than kk keys pass) when j of them land among the row's top kk - 1 keys, a Poisson
// count of mean lambda = kk S / len; want = 4 kk + 4 len / S keeps j >= 4 lambda + 4, and a miss under 2 in 10^5 rows
// for any lambda. (The floor alone, 8192 of a list of 131072, would leave j = 2 where lambda is 0.5: 1 row in 11.)
__host__ __device__ inline uint32_t long_margin(uint32_t len, uint32_t cap) {
    return 4 * (len / samples_for(len, cap));
}

// A row in shared memory aims at no more than its sample needs either, where that is fewer than wanted's: kk + (4.5
// sqrt(lambda) + 3) len / S keys (j >= lambda + 4.5 sqrt(lambda) + 3: a miss under 1 row in 10^5 for any lambda), not
// under wanted's floor. 4 kk is more where lambda is large: k = 1024 at 256000 keys (lambda 8.2) aims at 3008, not
// 4096: faster where it aims lower; where the aim is the same, the arithmetic costs a little. Taken where it
// was more too (1454 at 256 x 262144 k 256), it was slower on the serving batch (not explained; TUNING.md).
__host__ __device__ inline uint32_t short_want(uint32_t kk, uint32_t len, uint32_t cap) {
    const float per = float(len) / float(samples_for(len, cap));
    const uint32_t need = kk + uint32_t((4.5f * sqrtf(float(kk) / per) + 3.f) * per);
    return min(wanted(kk, cap, false), max(need, least_wanted(cap, false)));
}

// The sample of a row longer than the candidate buffer: S keys read in pieces of 32 consecutive
// elements (one coalesced warp load each) spread evenly over the row, piece p at p * (len / pieces)
// (p * len / pieces, a 64-bit division a key, was slower), into shared memory. No barrier:
// threshold_of_sample's first one orders it. Called before the pass requests its first vectors, so that
// the sample's loads are not queued behind them (see the kernel).
template <class T>
__device__ __forceinline__ void sample_load(const T* __restrict__ row, uint32_t len, uint32_t cap, bool smallest,
                                            uint32_t* s_sample) {
    const uint32_t S = samples_for(len, cap), pieces = S / 32;
    for (uint32_t i = threadIdx.x; i < S; i += kBlock)
        s_sample[i] = to_key(row[(i / 32) * (len / pieces) + i % 32], smallest);
}

// The threshold key from the sample: the 22-bit prefix of the j-th largest, j = want S / len, by two
// radix digits over the sample in shared memory (rowwise::choose_bucket). About `want` of the row's
// keys are at or above it; every block of the row computes the same value from the same sample.
// Contains barriers: call from every thread.
template <class T>
__device__ uint32_t threshold_of_sample(uint32_t len, uint32_t want, uint32_t cap, const uint32_t* s_sample,
                                        RowSmem& sm) {
    const int t = threadIdx.x;
    const uint32_t S = samples_for(len, cap);
    uint32_t prefix = 0, rem = uint32_t((uint64_t(want) * S + len - 1) / len);
    int pbits = 0;
    for (int d = 0; d < 2; ++d)   // digits 0 and 1 of the three: bits 31..21, 20..10
        rowwise::narrow<T>(
            [&](auto f) {
                for (uint32_t i = t; i < S; i += kBlock) f(s_sample[i]);
            },
            prefix, pbits, d, rem, sm.hist);
    return pbits == 32 ? prefix : prefix << 10;   // (16-bit keys are whole after two digits)
}

// A 16-byte vector of a row read once: through the read-only path, without allocating its line in L1
// (ld.global.nc.L1::no_allocate; PTX ISA 7.4, sm_70 and later).
__device__ __forceinline__ uint4 load_once(const uint4* p) {
    uint4 x;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w)
                 : "l"(p));
    return x;
}

// The pass over a block's chunk, [begin, end) of `row`: fv(vector, column of its first element) for each
// aligned 16-byte vector and f(value, column) for the elements before and after them, with U vectors a
// thread requested before the previous U are filtered (AlignedRows::each's unrolled loop waits for each
// load in turn, a long wait on a loaded GPU: TUNING.md), and the first U requested before setup()
// runs, so that the threshold's select hides their latency. setup() is called once by every thread (it
// may hold barriers); f and fv may use what it set. kStream: the vectors are read with load_once.
template <uint32_t U, bool kStream, class T, class Setup, class F, class FV>
__device__ __forceinline__ void staged_pass(const T* __restrict__ row, uint32_t begin, uint32_t end, Setup&& setup,
                                            F&& f, FV&& fv) {
    static_assert(U >= 1, "at least one vector in flight");
    constexpr uint32_t V = 16 / sizeof(T);
    const uint32_t t = threadIdx.x;
    const uint32_t head = rowwise::unaligned_head(row, begin, end);
    const uint32_t body = begin + head, vecs = (end - body) / V;
    const uint4* rowv = reinterpret_cast<const uint4*>(row + body);
    uint4 cur[U], nxt[U];
    auto request = [&](uint4* v, uint32_t q0) {
#pragma unroll
        for (uint32_t u = 0; u < U; ++u) {
            if constexpr (kStream) v[u] = q0 + u * kBlock < vecs ? load_once(rowv + q0 + u * kBlock) : uint4{};
            else v[u] = q0 + u * kBlock < vecs ? rowv[q0 + u * kBlock] : uint4{};
        }
    };
    request(cur, t);
    setup();
    if (t < head) f(row[begin + t], begin + t);
    // The warp's 32 lanes take the same steps (while its first lane has vectors left), and each step ends in
    // __syncwarp(): lanes that kept keys (a divergent loop with atomics) rejoin the others before the next loads.
    // Without it the compiler may leave a warp split for the rest of the pass: builds with more code after it
    // (collect_together, or only timing stamps) issued several times the load requests and read more DRAM
    // bytes (ncu; TUNING.md).
    for (uint32_t w0 = t & ~31u; w0 < vecs; w0 += U * kBlock) {
        const uint32_t q0 = w0 + t % 32;
        request(nxt, q0 + U * kBlock);
#pragma unroll
        for (uint32_t u = 0; u < U; ++u)
            if (q0 + u * kBlock < vecs) fv(cur[u], body + V * (q0 + u * kBlock));
#pragma unroll
        for (uint32_t u = 0; u < U; ++u) cur[u] = nxt[u];
        __syncwarp();
    }
    for (uint64_t c = body + uint64_t(V) * vecs + t; c < end; c += kBlock) f(row[c], uint32_t(c));
}

// keep(value, column) for each element of a 16-byte vector (its first at column c) that passes(): the
// vector's pass mask (topk::passes_mask: four packed compares for 16-bit types), then a loop over its set
// bits. The threshold lets about 4 k of a row's keys through, so most masks are 0; a test and a branch
// on each element cost ~5 instructions, as much for 2 bytes as for 4. The mask was faster than testing each
// element everywhere but the float32 ragged batch (TUNING.md). A first test of a 16-bit vector's extreme pair
// (3 packed max, one compare) was slower: the pass is not short of instructions.
template <bool kSmallest, class T, class Keep>
__device__ __forceinline__ void keep_passing(const uint4& v, uint32_t c, float bar, Keep&& keep) {
    for (uint32_t m = topk::passes_mask<T>(v, bar, kSmallest); m != 0; m &= m - 1) {
        const int i = __ffs(m) - 1;
        keep(rowwise::vec_elem<T>(v, i), c + i);
    }
}

// The kk largest of the n (>= kk) candidates in s_cand, written as row r. The digit steps (narrow),
// with two changes: the first step is the first digit in which the candidates differ (from the smallest
// and largest key: the top 2 % of a uniform row share 11 bits), and the steps stop as soon as the
// bucket of the kk-th key holds at most kTieCap keys (uniform rows: a few after one step). Then the keys
// above the bucket win and the bucket's keys are ranked against each other directly: packed keys are
// distinct, so a key's place is the number above it (ties go to the lower column). A bucket that is
// one value (the whole key known) gives any k_rem of its copies. Contains barriers: call from every thread.
template <uint32_t kMaxK, class T>
__device__ void short_select(const T* __restrict__ row, uint32_t len, size_t r, uint32_t k, uint32_t kk,
                             const uint64_t* s_cand, uint32_t n, RowSmem& sm, T* __restrict__ out_vals,
                             uint32_t* __restrict__ out_idx) {
    // Ranking a bucket of c keys costs c * c / 32 shared loads a block (2048 for 256); a uniform row's
    // bucket after one step holds a few keys, so the cap matters only for clustered rows (not measured).
    constexpr uint32_t kTieCap = 256;
    static_assert(kTieCap * sizeof(uint64_t) <= sizeof(sm.hist), "the bucket's keys are held in sm.hist");
    __shared__ uint32_t s_lo[32], s_hi[32];
    const int t = threadIdx.x, lane = t & 31;
    // 1. The smallest and largest key: a warp's each, then every warp reads the 32 (no shared atomics).
    uint32_t lo = ~0u, hi = 0;
    for (uint32_t i = t; i < n; i += kBlock) {
        const uint32_t key = uint32_t(s_cand[i] >> 32);
        lo = min(lo, key);
        hi = max(hi, key);
    }
    lo = ~rowwise::warp_max(~lo);
    hi = rowwise::warp_max(hi);
    if (lane == 0) {
        s_lo[t / 32] = lo;
        s_hi[t / 32] = hi;
    }
    if (t == 0) {
        sm.nsel = 0;
        sm.ties = 0;
    }
    __syncthreads();
    lo = ~rowwise::warp_max(~s_lo[lane]);
    hi = rowwise::warp_max(s_hi[lane]);
    // 2. Digit steps from the first that differs, until the kk-th key's bucket is small or one value.
    uint32_t prefix, k_rem = kk, count = n;
    int pbits, d;
    rowwise::common_prefix(lo, hi, prefix, pbits, d);
    while (pbits < 32 && count > kTieCap) {
        count = rowwise::narrow<T>(
            [&](auto f) {
                for (uint32_t i = t; i < n; i += kBlock) f(uint32_t(s_cand[i] >> 32));
            },
            prefix, pbits, d, k_rem, sm.hist);
        ++d;   // (after the third digit, or a 16-bit key's second, pbits is 32)
    }
    // 3. Keys above the bucket win; its keys go to the tie list (one value: the first k_rem win).
    uint64_t* ties = reinterpret_cast<uint64_t*>(sm.hist);
    const uint32_t above = kk - k_rem;
    for (uint32_t i = t; i < n; i += kBlock) {
        const uint64_t p = s_cand[i];
        const uint32_t head = pbits == 0 ? 0u : uint32_t(p >> 32) >> (32 - pbits);
        if (pbits > 0 && head > prefix) sm.sel[atomicAdd(&sm.nsel, 1u)] = p;
        else if (head == prefix) {
            const uint32_t slot = atomicAdd(&sm.ties, 1u);
            if (pbits == 32) {
                if (slot < k_rem) sm.sel[above + slot] = p;
            } else ties[slot] = p;
        }
    }
    __syncthreads();
    // 4. The bucket's keys ranked among themselves: the k_rem highest take the places after the winners.
    if (pbits < 32)
        for (uint32_t i = t; i < count; i += kBlock) {
            const uint64_t p = ties[i];
            uint32_t rank = 0;
            for (uint32_t q = 0; q < count; ++q) rank += ties[q] > p;
            if (rank < k_rem) sm.sel[above + rank] = p;
        }
    __syncthreads();
    rowwise::write_winners<kMaxK>(row, len, r, k, kk, sm, out_vals, out_idx);
}

// 16-bit keys counted by whole key from `least`, the least key a candidate can have (the threshold's
// own): bin b holds key (least >> 16) + b, the last bin (kLastBin) that and every key above it.
constexpr uint32_t kLastBin = rowwise::kMaxBins - 1;
__device__ __forceinline__ uint32_t whole_key_bin(uint32_t key, uint32_t least) {
    return min((key >> 16) - (least >> 16), kLastBin);
}

// hist[] = the n candidates of s_cand counted by whole_key_bin. Contains barriers: call from every thread.
__device__ void count_whole_keys(const uint64_t* s_cand, uint32_t n, uint32_t least, uint32_t* hist) {
    const int t = threadIdx.x;
    for (int i = t; i < rowwise::kMaxBins; i += kBlock) hist[i] = 0;
    __syncthreads();
    for (uint32_t i = t; i < n; i += kBlock) atomicAdd(&hist[whole_key_bin(uint32_t(s_cand[i] >> 32), least)], 1u);
    __syncthreads();
}

// From counts by whole_key_bin, the k_rem-th largest key: the whole key (prefix, pbits 32, d 3, and
// k_rem then how many of its copies to take), unless it lies in the last bin (then all are left as
// they were). Contains barriers: call from every thread.
__device__ void key_of_counts(const uint32_t* hist, uint32_t least, uint32_t& prefix, int& pbits, int& d,
                              uint32_t& k_rem) {
    const rowwise::Choice c = rowwise::choose_bucket<kBlock>(hist, rowwise::kMaxBins, k_rem);
    if (c.bucket == kLastBin) return;
    prefix = ((least >> 16) + c.bucket) << 16;   // the whole key: no digits left (d = 3)
    pbits = 32;
    d = 3;
    k_rem -= c.above;
}

// A short row's 16-bit candidates in shared memory: one count of their whole keys, so that the kk-th key
// is known after one step, where the digits from the top take two. Contains barriers.
__device__ void whole_key_count(const uint64_t* s_cand, uint32_t n, uint32_t least, uint32_t& prefix, int& pbits,
                                int& d, uint32_t& k_rem, uint32_t* hist) {
    count_whole_keys(s_cand, n, least, hist);
    key_of_counts(hist, least, prefix, pbits, d, k_rem);
}

// A long row's 16-bit candidates are counted as they are handed in: each block counts its own in shared
// memory and adds every bin that holds any to the row's counts in global memory (g_row), so that the
// row's last block knows the kk-th key without a pass over the row's list (select_row's digit passes over
// the list were slower: TUNING.md). Contains barriers.
__device__ void add_whole_key_counts(const uint64_t* s_cand, uint32_t n, uint32_t least, uint32_t* hist,
                                     uint32_t* __restrict__ g_row) {
    count_whole_keys(s_cand, n, least, hist);
    for (int i = threadIdx.x; i < rowwise::kMaxBins; i += kBlock)
        if (hist[i] != 0) atomicAdd(&g_row[i], hist[i]);
}

// Block (row, chunk): the row's threshold from the sample, one pass over its chunk keeping the keys
// at or above it, the candidates appended to the row's list; the row's last block selects from them.
// A row longer than kShortLen (with several blocks) aims at 8192-24576 candidates (wanted), which its list in
// global memory holds (lcap = kListCap) and its last block selects from there (16-bit keys: the kk-th
// key from the row's whole-key counts, then one pass; else select_row); a
// block whose shared buffer fills spills the rest straight to the list. When `miss` is given, the row's
// other blocks wait for the last one's verdict, and a row the sample missed is finished by all of them
// (finish_missed_row) instead of one block's pass over it.
// kList: the plan has such rows (a second build of the kernel, so that the others' code stays lean).
// kMaxK: the largest k of this build. k <= 256 (kSmallK) gets its own, without the block sort of more
// winners: with that sort in, ptxas spilled 100-136 bytes a thread, which was slower. Two blocks an SM where it holds 2048 threads (44 registers without the bound: one an SM).
// kAhead: vectors a thread keeps requested in the pass; with kAheadOneAnSm the build is bound to one block
// an SM instead (64 registers: the plan's grid is at most one block an SM; every kList build).
// kStream: the pass reads past L1 (the plan's `stream`: see Plan).
template <class Reader, class T, bool kList, uint32_t kMaxK, uint32_t kAhead = kAheadTwoAnSm, bool kStream = false>
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(kAhead == kAheadOneAnSm ? 1 : 2, kBlock))
    sampled_rows(const T* __restrict__ in, const int64_t* __restrict__ offsets, uint32_t cols, uint32_t k,
                 bool smallest, uint32_t cap, uint32_t lcap, uint32_t chunks, uint32_t chunk, Tally* __restrict__ tally,
                 uint64_t* __restrict__ g_cand, uint32_t* __restrict__ g_counts, MissedRows miss,
                 T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ RowSmem sm;
    __shared__ uint32_t s_base;
    __shared__ bool s_last;
    __shared__ unsigned s_verdict;                 // a long row's, for its other blocks
    __shared__ uint32_t s_full;                    // a long row's list is full (set and read atomically)
    __shared__ uint32_t s_range[kBlock / 32][2];   // a long row's candidates' largest key and ~smallest, by warp
    extern __shared__ uint64_t s_cand[];           // cap candidates (the sample before them)
    const int t = threadIdx.x;
    const size_t r = blockIdx.x / chunks;
    const uint32_t part = blockIdx.x % chunks;
    const size_t start = offsets ? size_t(offsets[r]) : r * cols;
    const uint32_t len = offsets ? uint32_t(offsets[r + 1] - offsets[r]) : cols;
    const uint32_t kk = min(k, len);
    const T* row = in + start;
    const bool long_row = kList && len > kShortLen;
    uint64_t* list = g_cand + r * lcap;
    float bar = __int_as_float(0x7FC00000);   // the pass's bar (below); NaN: none, every key was kept
    // A long row of 16-bit keys: its candidates counted by whole key (from `least`) in g_row (g_counts given).
    const bool counted = sizeof(T) == 2 && long_row && g_counts != nullptr;
    uint32_t* g_row = counted ? g_counts + r * rowwise::kMaxBins : nullptr;
    uint32_t least = 0;   // the least key a candidate can have (to_key(T(bar)), 0 without a bar)
    if (kk == 0) {        // an empty row: only padding, written by its first block
        if (part == 0) rowwise::write_padding(r, k, kk, smallest, out_vals, out_idx);
        return;
    }
    const uint32_t begin = uint64_t(part) * chunk < len ? part * chunk : len;
    const uint32_t end = topk::rows::chunk_end(len, begin, chunk);
    // 1. The threshold: every key when the whole row fits in the buffer, else from the sample, computed
    //    while this thread's first vectors of the chunk are on their way (staged_pass). The sample's loads
    //    are issued before those vectors (after them was slower). (Prefetching the whole chunk into L2
    //    meanwhile was slower too.)
    // 2. One pass over this block's chunk: the elements that pass go to shared memory. The test is a
    //    float comparison with bar_of(tau) (lesson.cuh), not the key transform on every element;
    //    the keys that pass are an upper set of the row's order holding every key >= tau.
    auto keep = [&](T x, uint32_t c) {
        const uint32_t i = atomicAdd(&sm.ncand, 1u);
        if (i < cap) s_cand[i] = pack(to_key(x, smallest), c);
        else if (kList && long_row && !atomicOr(&s_full, 0u)) {   // spill: one atomic a warp on the row's count
            namespace cg = cooperative_groups;
            const cg::coalesced_group g = cg::coalesced_threads();
            uint32_t j = 0;
            if (g.thread_rank() == 0) j = atomicAdd(&tally[r].count, g.size());
            j = g.shfl(j, 0) + g.thread_rank();
            if (j < lcap) {
                const uint32_t key = to_key(x, smallest);
                list[j] = pack(key, c);
                if (counted) atomicAdd(&g_row[whole_key_bin(key, least)], 1u);
                atomicMax(&tally[r].hi, key);
                atomicMax(&tally[r].lo_inv, ~key);
            } else {
                atomicExch(&s_full, 1u);   // the row has overflowed: stop spilling
            }
        }
    };
    // go(one, vec) with the pass's test for one element and for one 16-byte vector, the direction a
    // constant in each (one instance a direction).
    auto filtered = [&](auto&& go) {
        auto in_direction = [&](auto smallest_t) {
            constexpr bool kSmallest = decltype(smallest_t)::value;
            auto one = [&](T x, uint32_t c) {
                if (topk::passes(x, bar, kSmallest)) keep(x, c);
            };
            auto vec = [&](const uint4& v, uint32_t c) { keep_passing<kSmallest, T>(v, c, bar, keep); };
            go(one, vec);
        };
        if (smallest) in_direction(std::true_type{});
        else in_direction(std::false_type{});
    };
    auto start_count = [&] {
        if (t == 0) {
            sm.ncand = 0;
            s_full = 0;
        }
        __syncthreads();
    };
    if (len <= cap) {   // the whole row fits the buffer: every key is a candidate
        start_count();
        Reader::each(in, start, begin, end, t, kBlock, keep);
    } else {   // the sample's loads go out ahead of the pass's first ones
        sample_load(row, len, cap, smallest, reinterpret_cast<uint32_t*>(s_cand));
        auto threshold = [&] {
            const uint32_t want = long_row ? wanted(kk, lcap, true, long_margin(len, cap)) : short_want(kk, len, cap);
            const uint32_t tau = threshold_of_sample<T>(len, want, cap, reinterpret_cast<uint32_t*>(s_cand), sm);
            bar = topk::bar_of<T>(tau, smallest);
            if constexpr (kList && sizeof(T) == 2)
                if (tau != 0) least = to_key(T(bar), smallest);
            start_count();
        };
        filtered([&](auto& one, auto& vec) { staged_pass<kAhead, kStream>(row, begin, end, threshold, one, vec); });
    }
    __syncthreads();
    // Kept in shared memory: n. A short row counts the ones that did not fit too (then the row's total
    // is over cap and it falls back); a long row's spilled ones were counted as they went.
    uint32_t n = long_row ? min(sm.ncand, cap) : sm.ncand;
    uint32_t list_lo = 0, list_hi = ~0u;   // a long row's candidate keys lie in [list_lo, list_hi]
    // 3. Several blocks a row: each appends its candidates to the row's list in global memory, and
    //    the last to arrive (a ticket, as M's) loads the whole list into its shared memory.
    if (chunks > 1) {
        if (t == 0) s_base = atomicAdd(&tally[r].count, n);
        __syncthreads();
        const uint32_t base = s_base;
        uint32_t hi = 0, lo_inv = 0;   // a long row's: the list's key range, for its select
        // A short row's n counts the keys its buffer had no room for too (the row's total then says it falls
        // back): only the cap held are handed in. In a list build (lcap past cap) a short row beside long ones
        // read past the buffer without this; elsewhere lcap = cap bounds it, and the build is as it was.
        const uint32_t held = kList ? min(n, cap) : n;
        for (uint32_t i = t; i < held && base + i < lcap; i += kBlock) {
            list[base + i] = s_cand[i];
            hi = max(hi, uint32_t(s_cand[i] >> 32));
            lo_inv = max(lo_inv, ~uint32_t(s_cand[i] >> 32));
        }
        // A long row's key range: one atomic pair a block (one a warp made the hand-in three times longer).
        if (long_row) {
            hi = rowwise::warp_max(hi);
            lo_inv = rowwise::warp_max(lo_inv);
            if (t % 32 == 0) {
                s_range[t / 32][0] = hi;
                s_range[t / 32][1] = lo_inv;
            }
            __syncthreads();
            if (t < 32) {
                hi = rowwise::warp_max(s_range[t][0]);
                lo_inv = rowwise::warp_max(s_range[t][1]);
                if (t == 0) {
                    atomicMax(&tally[r].hi, hi);
                    atomicMax(&tally[r].lo_inv, lo_inv);
                }
            }
        }
        if (counted) add_whole_key_counts(s_cand, n, least, sm.hist, g_row);
        __threadfence();   // our candidates are visible before we say we are done
        __syncthreads();
        if (t == 0) s_last = atomicAdd(&tally[r].arrived, 1u) == chunks - 1;
        __syncthreads();
        if (!s_last) {
            if (!(kList && long_row && miss.state)) return;
            // A long row's other blocks: the verdict, then on a miss their share of the row's M, or with its
            // kk-th key known (16-bit keys) their share of the collect.
            if (t == 0) s_verdict = wait_for_call(miss, r);
            __syncthreads();
            if (s_verdict == kMissed)
                finish_missed_row<Reader>(in, r, cols, begin, end, chunks, k, smallest, miss, sm, &s_last, out_vals,
                                          out_idx);
            else if (counted && s_verdict == kKthKnown)
                collect_together<kMaxK>(row, len, r, k, part, chunks, list, __ldcg(&tally[r].count),
                                        __ldcg(&miss.state[r].prefix), __ldcg(&miss.state[r].k_rem), tally, miss, sm,
                                        &s_last, out_vals, out_idx);
            return;
        }
        __threadfence();
        n = __ldcg(&tally[r].count);
        list_hi = __ldcg(&tally[r].hi);
        list_lo = ~__ldcg(&tally[r].lo_inv);
        if (counted)   // the row's counts, zeroed for the next call as they are read
            for (int i = t; i < rowwise::kMaxBins; i += kBlock) {
                sm.hist[i] = __ldcg(&g_row[i]);
                g_row[i] = 0;
            }
        if (n >= kk && n <= cap) each_listed<4>(list, n, [&](uint32_t i, uint64_t p) { s_cand[i] = p; });
        __syncthreads();   // every thread has read the tally before it is cleared
        // (A counted long row keeps its list's length there until collect_together, or key_of_counts says no. The
        // kk-th key found right here instead, so that the tally is cleared once, was slower; TUNING.md.)
        if (t == 0) tally[r] = {counted && miss.state ? n : 0u, 0u, 0u, 0u};
    }
    // 4. The k among the candidates (an upper set of the row's order: the kk largest when n >= kk):
    //    from shared memory, or from a long row's list; when the sample missed, M over the row by
    //    all of its blocks (`miss`), or the block path B over the whole row by this one.
    const bool hit = n >= kk && n <= (long_row ? lcap : cap);
    const bool by_all = kList && long_row && miss.state;
    // The verdict, for the row's other blocks; a counted long row's waits for its kk-th key (below).
    const bool kth_first = counted && by_all && hit && n > cap;
    if (by_all && !kth_first && t == 0) {
        if (counted) tally[r].count = 0;
        set_step(miss, r, hit ? kHit : kMissed);
    }
    if (hit && n <= cap) {
        rowwise::write_padding(r, k, kk, smallest, out_vals, out_idx);
        if constexpr (sizeof(T) == 4) {
            short_select<kMaxK>(row, len, r, k, kk, s_cand, n, sm, out_vals, out_idx);
        } else {   // 16-bit keys: one count from the least key, else the digits from the top
            if (t == 0) {
                sm.nsel = 0;
                sm.ties = 0;
            }
            uint32_t prefix = 0, k_rem = kk;
            int pbits = 0, d = 0;
            // bar is a value of T, and passes() kept the keys at or above its. One count where the digits take two
            // steps, each a zeroed 2048-bin count, a block scan and their barriers. Not in the two-an-SM k <= 256
            // build (32 registers): ptxas spilled 88 bytes there, which was slower.
            if ((kMaxK > kSmallK || kAhead == kAheadOneAnSm) && !isnan(bar))
                whole_key_count(s_cand, n, to_key(T(bar), smallest), prefix, pbits, d, k_rem, sm.hist);
            __syncthreads();
            rowwise::finish_row<kMaxK, kMaxK == kSmallK && !kList>(row, len, r, k, kk, s_cand, n, prefix, pbits, d,
                                                                   k_rem, sm, out_vals, out_idx);
        }
    } else if (kList && hit) {
        rowwise::write_padding(r, k, kk, smallest, out_vals, out_idx);
        uint32_t kth = 0, k_rem = kk;
        int pbits = 0, d = 0;
        if (counted) key_of_counts(sm.hist, least, kth, pbits, d, k_rem);
        if (kth_first) {
            if (t == 0) {
                if (pbits == 32) publish_kth(miss.state + r, kth, k_rem);
                else tally[r].count = 0;
                set_step(miss, r, pbits == 32 ? kKthKnown : kHit);
            }
            __syncthreads();   // the row's counters are zeroed before this block counts
            if (pbits == 32) {
                collect_together<kMaxK>(row, len, r, k, part, chunks, list, n, kth, k_rem, tally, miss, sm, &s_last,
                                        out_vals, out_idx);
                return;
            }
        }
        if (pbits == 32) {   // 16-bit keys, the kk-th key known (a ragged batch): one pass over the list
            gather_winners<8>(list, n, kth, k_rem, kk - k_rem, sm);
            rowwise::write_winners<kMaxK>(row, len, r, k, kk, sm, out_vals, out_idx);
        } else {
            // The list is read 2-4 times from L2 by this one block (from the first digit its keys differ in,
            // which saves passes): 8 loads in flight a thread, not 1 (one at a time, each pass waited ~32 L2
            // round trips).
            rowwise::select_row<kMaxK>(
                row, len, n, r, k, kk, cap, s_cand, sm, out_vals, out_idx, list_lo, list_hi, [&](auto f) {
                    each_listed<8>(list, n, [&](uint32_t, uint64_t p) { f(uint32_t(p >> 32), topk::packed_index(p)); });
                });
        }
    } else if (by_all) {
        finish_missed_row<Reader>(in, r, cols, begin, end, chunks, k, smallest, miss, sm, &s_last, out_vals, out_idx);
    } else {
        rowwise::block_row<Reader, kMaxK>(in, start, len, r, k, smallest, cap, s_cand, sm, out_vals, out_idx);
    }
}

}   // namespace sampled
