// 08_sampled_rows — row-wise top-k that reads each row ONCE: a sample of the row sets a threshold,
// one pass keeps the keys at or above it, and the select finishes in shared memory.
//
// What changed since 06: 06's block path reads a row 2-4 times (a digit pass, then a collect
// pass), and its one block a row leaves SMs idle when rows are few. Here every block first reads
// the same few thousand sampled keys of its row (2 KB - 32 KB, from L2 after the first block) and
// picks a threshold that about 4k of the row's keys pass (at least 1280 on an H100); then rows
// are cut into chunks, at most one block an SM in all, ONE pass keeps the passing keys, and the
// row's last block to finish selects the k among them in shared memory (short_select). If the
// sample misled it (fewer than k passed, or more than the buffer holds: all-equal rows, a few
// levels) that block runs 06's block path on the row: slower, never wrong. One launch in all.
// Rows past 2^20 (to 2^25, several blocks each) keep 8192-24576 candidates in global memory (16-bit keys also counted
// by whole key at hand-in, so all the row's blocks collect its winners); a row the sample misses is finished by all its
// blocks with 06's M steps, in the same kernel. k <= 2048 (else M); rows <= 256: 06's W. Ragged batches too.
// Measured (H100, before rows were read past L1 and long rows kept fewer candidates): 64 x 131072 k 256 in 0.0275-
// 0.0276 ms, bfloat16 0.0197-0.0199; 4 x 2^24 k 1024 0.1312-0.1314, bfloat16 0.0833-0.0840. H200: 64 x 131072 0.0250,
// bfloat16 0.0197-0.0198; 256 x 262144 k 256 0.0827, bfloat16 0.0517; 4 x 2^24 0.0945-0.0946, bfloat16 0.0631-0.0632.
// Build alone:  nvcc -O3 -arch=native -o topk08 08_sampled_rows.cu
// Run:          ./topk08 --rows 64 --n 131072 --k 256 [--type bfloat16]     ./topk08 --test     --plan
#define COURSE_NO_MAIN
#include "06_rowwise.cu"
#undef COURSE_NO_MAIN

#include <cooperative_groups.h>

namespace sampled {

using rowwise::kBlock;
using rowwise::RowSmem;
using topk::pack;
using topk::to_key;

constexpr uint32_t kShortLen = 1u << 20;     // rows up to this keep their candidates in shared memory
constexpr uint32_t kListCap = 1u << 17;      // a longer row's candidates: a list of 131072 in global memory
constexpr uint32_t kMaxLen = 1u << 25;       // longer rows: the threshold would be the 8192 samples' j-th, j < 8
constexpr uint32_t kMinChunk = 4096;         // keys a block reads at least (as 06's M)
constexpr uint32_t kSmallK = kBlock / 4;     // k up to this: winners ranked by counting (06's write_winners)
// 16-byte vectors a thread keeps requested ahead in the pass (staged_pass), every row and type: 4 where
// the grid is at most one block an SM, as it always is past kShortLen (that build is bound to one block an
// SM, so its 64 registers hold them), else 2 (two blocks an SM). Measured (H100, same run): 2 where 4 fit
// cost 0.0303 ms against 0.0294 (float32 64 x 131072 k 256) and 0.0380 against 0.0329 (serving k 2048); long
// rows unstaged, two blocks an SM, 0.0971-0.0974 against 0.0905-0.0907 (bfloat16 4 x 2^24 k 1024) and 0.1393
// against 0.1320-0.1321 (float32), 2 ahead there (32 registers, ~500 bytes of spills) 0.1004-0.1076. 4 with
// one block an SM on 256 rows (two waves) cost 0.0743 against 0.0697 (bfloat16 256 x 262144); on one row's
// 31 blocks of 4136 keys 0.0148 against 0.0144-0.0145 (bfloat16 1 x 128256 k 50; not kept apart).
constexpr uint32_t kAheadOneAnSm = 4, kAheadTwoAnSm = 2;
// A grid of two blocks an SM streams its rows past L1 (load_once; builds of their own, kStream) where a row holds at
// least this many keys for each candidate wanted() names (4 kk: the rule was measured before short_want lowered the
// aim of rows where k is large for their length): two blocks' shared memory leave L1 little
// room for the pass's 64 KB in flight an SM, and each byte is read once. Measured (H200, same run, ms, plain loads /
// streamed): bfloat16 256 x 256000 k 1024 0.0688-0.0690 / 0.0649-0.0652, 256 x 262144 k 256 0.0556 / 0.0516-0.0517;
// float32 0.0982-0.0984 / 0.0957, 0.0855-0.0858 / 0.0829-0.0830. Denser rows lost (not explained): 512 x 32768 k 1024
// (1 key in 8 wanted) 0.0597-0.0599 / 0.0632-0.0633, 512 x 65536 k 1024 0.0687-0.0688 / 0.0748; at 1 in 32, bfloat16
// 512 x 131072 k 1024 0.0895 / 0.0917-0.0920 (float32 0.1205-0.1206 / 0.1167-0.1170). Chosen per row at run time in the
// plain builds, it lost the gain (0.0683-0.0684; more spills). The one-an-SM builds gained and lost by shape and type
// (float32 64 x 131072 k 256 0.0249-0.0251 / 0.0237-0.0239, bfloat16 0.0196 / 0.0198, float32 4 x 2^24 k 1024
// 0.1013-0.1014 / 0.1041-0.1044): the short-row ones keep plain loads (16-bit long rows: see Plan).
constexpr uint32_t kStreamKeys = 32;

// How many of a row's keys the threshold should let through: 4 kk plus `margin`, at most half of the candidate
// buffer, and at least an eighth of it (not under 1024) in shared memory or a sixteenth of a long row's list;
// where that leaves less than 1.5 kk (k near cap / 2: a T4's 4096 at k = 2048), halfway from kk to cap. Fewer
// candidates shorten the hand-in and the select: a quarter in shared memory (2560 on an H100) cost 0.0320 ms
// against 0.0310 (64 x 131072 k 256, same run), where 1280 still leaves ~20 of its 2048 samples above the threshold.
// A long row (its margin: long_margin) aimed at a quarter of its list before; then / now (H200, same run, ms): 4 x
// 2^24 k 1024 0.1021-0.1024 / 0.0946-0.0947, bfloat16 0.0662-0.0663 / 0.0630-0.0632; 2 x 1048583 k 1024 0.0372-0.0373
// / 0.0237; bfloat16 ragged 8 x 4194309 k 2048 0.0595 / 0.0442-0.0443. An eighth and no margin ran float32 1 x 2^25
// k 2048 in 0.0602-0.0613 ms (0.0687-0.0693 now, 0.0749-0.0758 then), but there a row in 570 would miss (j = 4).
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
// 4096. Then / now (H200, same run, ms): float32 512 x 32768 k 1024 0.0715-0.0716 / 0.0612-0.0613, 256 x 256000 k 1024
// 0.0958 / 0.0948, serving k 2048 0.0323-0.0324 / 0.0297-0.0298; bfloat16 serving 0.0305-0.0306 / 0.0281. Where the aim
// is the same, the arithmetic cost up to 1.7 % (bfloat16 64 x 128256 k 50 0.0178-0.0179 / 0.0181). Taken where it was
// more too (1454 at 256 x 262144 k 256), it cost bfloat16 serving 0.0305 / 0.0325-0.0326 (not explained).
__host__ __device__ inline uint32_t short_want(uint32_t kk, uint32_t len, uint32_t cap) {
    const float per = float(len) / float(samples_for(len, cap));
    const uint32_t need = kk + uint32_t((4.5f * sqrtf(float(kk) / per) + 3.f) * per);
    return min(wanted(kk, cap, false), max(need, least_wanted(cap, false)));
}

// The sample of a row longer than the candidate buffer: S keys read in pieces of 32 consecutive
// elements (one coalesced warp load each) spread evenly over the row, piece p at p * (len / pieces)
// (p * len / pieces, a 64-bit division a key, cost 0.0310 ms against 0.0306-0.0307 on 64 x 131072 k 256
// and 0.1628 against 0.1601-0.1613 on 4 x 2^24 k 1024, same run), into shared memory. No barrier:
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
__device__ uint32_t threshold_of_sample(uint32_t len, uint32_t want, uint32_t cap, const uint32_t* s_sample, RowSmem& sm) {
    const int t = threadIdx.x;
    const uint32_t S = samples_for(len, cap);
    uint32_t prefix = 0, rem = uint32_t((uint64_t(want) * S + len - 1) / len);
    int pbits = 0;
    for (int d = 0; d < 2; ++d)              // digits 0 and 1 of 06's three: bits 31..21, 20..10
        rowwise::narrow<T>([&](auto f) { for (uint32_t i = t; i < S; i += kBlock) f(s_sample[i]); }, prefix, pbits, d,
                           rem, sm.hist);
    return pbits == 32 ? prefix : prefix << 10;   // (16-bit keys are whole after two digits)
}

// A 16-byte vector of a row read once: through the read-only path, without allocating its line in L1
// (ld.global.nc.L1::no_allocate; PTX ISA 7.4, sm_70 and later).
__device__ __forceinline__ uint4 load_once(const uint4* p) {
    uint4 x;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "l"(p));
    return x;
}

// The pass over a block's chunk, [begin, end) of `row`: fv(vector, column of its first element) for each
// aligned 16-byte vector and f(value, column) for the elements before and after them, with U vectors a
// thread requested before the previous U are filtered (AlignedRows::each's unrolled loop waits for each
// load in turn: ~1.5 us each on a loaded H100, TUNING.md), and the first U requested before setup()
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
    // (collect_together, or only timing stamps) issued 3.5x the load requests and read 29 % more DRAM bytes,
    // bfloat16 4 x 2^24 k 1024 0.1229-0.1285 ms against 0.0840 (ncu and events, H100; TUNING.md).
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
// on each element cost ~5 instructions, as much for 2 bytes as for 4. Measured (H100, same run), each
// element tested / the mask: bfloat16 256 x 256000 k 1024 0.0936 / 0.0804 ms, 4 x 2^24 k 1024 0.1448 /
// 0.1331; float32 serving k 2048 0.0401 / 0.0378, but the ragged batch 0.1136 / 0.1159 (TUNING.md). A first test
// of a 16-bit vector's extreme pair (3 packed max, one compare) was slower: bfloat16 256 x 256000 k 1024 0.0695-0.0697
// ms against 0.0687 (H200, same run): the pass is not short of instructions.
template <bool kSmallest, class T, class Keep>
__device__ __forceinline__ void keep_passing(const uint4& v, uint32_t c, float bar, Keep&& keep) {
    for (uint32_t m = topk::passes_mask<T>(v, bar, kSmallest); m != 0; m &= m - 1) {
        const int i = __ffs(m) - 1;
        keep(rowwise::vec_elem<T>(v, i), c + i);
    }
}

// g(i, p) for each entry p = list[i], i < n, of a list in global memory, spread over the block's threads
// with U loads in flight a thread (the last block's reads of its row's list, below). Long rows' select
// reads its list 3-4 times: 8 in flight there, not 1 (TUNING.md); the short rows' one load of ~2560
// candidates measured the same with 4 in flight as with 1 (within 1 %).
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

// The kk largest of the n (>= kk) candidates in s_cand, written as row r. 06's digit steps (narrow),
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
    if (lane == 0) { s_lo[t / 32] = lo; s_hi[t / 32] = hi; }
    if (t == 0) { sm.nsel = 0; sm.ties = 0; }
    __syncthreads();
    lo = ~rowwise::warp_max(~s_lo[lane]);
    hi = rowwise::warp_max(s_hi[lane]);
    // 2. Digit steps from the first that differs, until the kk-th key's bucket is small or one value.
    uint32_t prefix, k_rem = kk, count = n;
    int pbits, d;
    rowwise::common_prefix(lo, hi, prefix, pbits, d);
    while (pbits < 32 && count > kTieCap) {
        count = rowwise::narrow<T>([&](auto f) { for (uint32_t i = t; i < n; i += kBlock) f(uint32_t(s_cand[i] >> 32)); },
                                   prefix, pbits, d, k_rem, sm.hist);
        ++d;                                 // (after the third digit, or a 16-bit key's second, pbits is 32)
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
            if (pbits == 32) { if (slot < k_rem) sm.sel[above + slot] = p; }
            else ties[slot] = p;
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
// is known after one step, where 06's digits from the top take two. Contains barriers.
__device__ void whole_key_count(const uint64_t* s_cand, uint32_t n, uint32_t least, uint32_t& prefix, int& pbits,
                                int& d, uint32_t& k_rem, uint32_t* hist) {
    count_whole_keys(s_cand, n, least, hist);
    key_of_counts(hist, least, prefix, pbits, d, k_rem);
}

// A long row's 16-bit candidates are counted as they are handed in: each block counts its own in shared
// memory and adds every bin that holds any to the row's counts in global memory (g_row), so that the
// row's last block knows the kk-th key without a pass over the row's list: bfloat16 4 x 2^24 k 1024 took
// 0.1329-0.1337 ms with select_row's digit passes over the list, 0.1127-0.1128 with the counts (H100,
// same run). Contains barriers.
__device__ void add_whole_key_counts(const uint64_t* s_cand, uint32_t n, uint32_t least, uint32_t* hist,
                                     uint32_t* __restrict__ g_row) {
    count_whole_keys(s_cand, n, least, hist);
    for (int i = threadIdx.x; i < rowwise::kMaxBins; i += kBlock)
        if (hist[i] != 0) atomicAdd(&g_row[i], hist[i]);
}

// A long row the sample missed is finished inside the kernel by the row's own blocks, with 06's M steps
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

// A missed long row, by all of its blocks (each its chunk [begin, end)): 06's M over the row, the digit
// passes (m_count_digit, the last block m_choose), the collect (m_collect) and the last block's sort
// (m_sort_row), a row barrier (row_step) between the steps. The grid was launched with every block
// resident (course::launch_together), so a block that waits here never holds up one that has not started.
// Inlined. As a call (__noinline__) the kernel was slower also on rows never missed (bfloat16 4 x 2^24 k 1024
// 0.1417 ms against 0.1034 before this step, float32 0.2725 against 0.1466; not explained), and all-equal
// rows took 48.5-50.0 ms against 2.15 (H100).
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
struct Tally { uint32_t count, arrived, hi, lo_inv; };

// The winners among a list's n entries, the kk-th key (kth) known: the keys above it to sm.sel from 0 (sm.nsel
// counts them; a list holds at most `above` of them), and up to k_rem of its copies from sm.sel[above] on (sm.ties
// counts those that came, at most k_rem placed). U loads in flight a thread (each_listed). A copy takes a slot by an
// atomic only while a plain read says slots are left: in a bfloat16 row of uniform [-1, 1) the kk-th key is the top
// one, ~16K copies, the whole list. A ragged batch's long row (one block, the whole list) put each copy it kept after
// a second atomic on sm.nsel before: bfloat16 8 x 4194309 ragged k 2048 0.0610-0.0612 ms, now 0.0590-0.0592 (H200,
// same run). Contains barriers: call from every thread.
template <uint32_t U>
__device__ __forceinline__ void gather_winners(const uint64_t* __restrict__ list, uint32_t n, uint32_t kth,
                                               uint32_t k_rem, uint32_t above, RowSmem& sm) {
    if (threadIdx.x == 0) { sm.nsel = 0; sm.ties = 0; }
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
// call. One block took the whole list before (32768 entries, 13.3 us of bfloat16 4 x 2^24 k 1024 in an older
// build's stamps); now its share takes ~2 us, and that shape 0.0840 ms against 0.0903-0.0906 (H100, same run).
// Each block gathers its share's winners in shared memory and takes its places among the row's with one atomic
// a kind (a uniform bfloat16 row's kk-th key is its top one, with ~16K copies in the list: an atomic on the
// row's counter for each copy was not measured apart). Called by every block of the row (k = kk: not ragged).
// Every block ordering an equal share of the winners (a winner's place counted by one warp), after a second row
// barrier, was slower (H200, same run): bfloat16 4 x 2^24 k 1024 0.0698-0.0704 ms against 0.0691, 3 x 4194309 k 2048
// 0.0451-0.0453 against 0.0393-0.0394.
template <uint32_t kMaxK, class T>
__device__ __forceinline__ void collect_together(const T* __restrict__ row, uint32_t len, size_t r, uint32_t k,
                                                 uint32_t part, uint32_t chunks, const uint64_t* __restrict__ list,
                                                 uint32_t n, uint32_t kth, uint32_t k_rem, Tally* __restrict__ tally,
                                                 MissedRows miss, RowSmem& sm, bool* s_last, T* __restrict__ out_vals,
                                                 uint32_t* __restrict__ out_idx) {
    __shared__ uint32_t s_at[2];             // this block's first places among the row's winners: above kth, copies
    rowwise::RowState* st = miss.state + r;
    const uint32_t t = threadIdx.x, above = k - k_rem;
    const uint32_t lo = uint32_t(uint64_t(n) * part / chunks), hi = uint32_t(uint64_t(n) * (part + 1) / chunks);
    gather_winners<1>(list + lo, hi - lo, kth, k_rem, above, sm);
    const uint32_t mine = sm.nsel, copies = min(sm.ties, k_rem);
    if (t == 0) { s_at[0] = atomicAdd(&st->nsel, mine); s_at[1] = atomicAdd(&st->ties, copies); }
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

// Block (row, chunk): the row's threshold from the sample, one pass over its chunk keeping the keys
// at or above it, the candidates appended to the row's list; the row's last block selects from them.
// A row longer than kShortLen (with several blocks) aims at 8192-24576 candidates (wanted), which its list in
// global memory holds (lcap = kListCap) and its last block selects from there (16-bit keys: the kk-th
// key from the row's whole-key counts, then one pass; else 06's select_row); a
// block whose shared buffer fills spills the rest straight to the list. When `miss` is given, the row's
// other blocks wait for the last one's verdict, and a row the sample missed is finished by all of them
// (finish_missed_row) instead of one block's pass over it.
// kList: the plan has such rows (a second build of the kernel, so that the others' code stays lean).
// kMaxK: the largest k of this build. k <= 256 (kSmallK) gets its own, without the block sort of more
// winners: with that sort in, ptxas spilled 100-136 bytes a thread and 64 x 131072 k 256 took 0.0335 ms
// against 0.0307. Two blocks an SM where it holds 2048 threads (44 registers without the bound: one an SM).
// kAhead: vectors a thread keeps requested in the pass; with kAheadOneAnSm the build is bound to one block
// an SM instead (64 registers: the plan's grid is at most one block an SM; every kList build).
// kStream: the pass reads past L1 (the plan's `stream`: see Plan).
template <class Reader, class T, bool kList, uint32_t kMaxK, uint32_t kAhead = kAheadTwoAnSm, bool kStream = false>
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(kAhead == kAheadOneAnSm ? 1 : 2, kBlock))
sampled_rows(const T* __restrict__ in, const int64_t* __restrict__ offsets, uint32_t cols, uint32_t k, bool smallest,
             uint32_t cap, uint32_t lcap, uint32_t chunks, uint32_t chunk, Tally* __restrict__ tally,
             uint64_t* __restrict__ g_cand, uint32_t* __restrict__ g_counts, MissedRows miss,
             T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ RowSmem sm;
    __shared__ uint32_t s_base;
    __shared__ bool s_last;
    __shared__ unsigned s_verdict;           // a long row's, for its other blocks
    __shared__ uint32_t s_full;              // a long row's list is full (set and read atomically)
    __shared__ uint32_t s_range[kBlock / 32][2];   // a long row's candidates' largest key and ~smallest, by warp
    extern __shared__ uint64_t s_cand[];     // cap candidates (the sample before them)
    const int t = threadIdx.x;
    const size_t r = blockIdx.x / chunks;
    const uint32_t part = blockIdx.x % chunks;
    const size_t start = offsets ? size_t(offsets[r]) : r * cols;
    const uint32_t len = offsets ? uint32_t(offsets[r + 1] - offsets[r]) : cols;
    const uint32_t kk = min(k, len);
    const T* row = in + start;
    const bool long_row = kList && len > kShortLen;
    uint64_t* list = g_cand + r * lcap;
    float bar = __int_as_float(0x7FC00000);  // the pass's bar (below); NaN: none, every key was kept
    // A long row of 16-bit keys: its candidates counted by whole key (from `least`) in g_row (g_counts given).
    const bool counted = sizeof(T) == 2 && long_row && g_counts != nullptr;
    uint32_t* g_row = counted ? g_counts + r * rowwise::kMaxBins : nullptr;
    uint32_t least = 0;                      // the least key a candidate can have (to_key(T(bar)), 0 without a bar)
    if (kk == 0) {                           // an empty row: only padding, written by its first block
        if (part == 0) rowwise::write_padding(r, k, kk, smallest, out_vals, out_idx);
        return;
    }
    const uint32_t begin = uint64_t(part) * chunk < len ? part * chunk : len;
    const uint32_t end = topk::rows::chunk_end(len, begin, chunk);
    // 1. The threshold: every key when the whole row fits in the buffer, else from the sample, computed
    //    while this thread's first vectors of the chunk are on their way (staged_pass). The sample's loads
    //    are issued before those vectors (after them: 0.0367-0.0369 ms against 0.0362, 64 x 131072 k 256).
    //    (Prefetching the whole chunk into L2 meanwhile was slower: 0.0437 ms against 0.0408.)
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
                atomicExch(&s_full, 1u);     // the row has overflowed: stop spilling
            }
        }
    };
    // go(one, vec) with the pass's test for one element and for one 16-byte vector, the direction a
    // constant in each (one instance a direction).
    auto filtered = [&](auto&& go) {
        auto in_direction = [&](auto smallest_t) {
            constexpr bool kSmallest = decltype(smallest_t)::value;
            auto one = [&](T x, uint32_t c) { if (topk::passes(x, bar, kSmallest)) keep(x, c); };
            auto vec = [&](const uint4& v, uint32_t c) { keep_passing<kSmallest, T>(v, c, bar, keep); };
            go(one, vec);
        };
        if (smallest) in_direction(std::true_type{});
        else in_direction(std::false_type{});
    };
    auto start_count = [&] {
        if (t == 0) { sm.ncand = 0; s_full = 0; }
        __syncthreads();
    };
    if (len <= cap) {                        // the whole row fits the buffer: every key is a candidate
        start_count();
        Reader::each(in, start, begin, end, t, kBlock, keep);
    } else {                                 // the sample's loads go out ahead of the pass's first ones
        sample_load(row, len, cap, smallest, reinterpret_cast<uint32_t*>(s_cand));
        auto threshold = [&] {
            const uint32_t want = long_row ? wanted(kk, lcap, true, long_margin(len, cap)) : short_want(kk, len, cap);
            const uint32_t tau = threshold_of_sample<T>(len, want, cap, reinterpret_cast<uint32_t*>(s_cand), sm);
            bar = topk::bar_of<T>(tau, smallest);
            if constexpr (kList && sizeof(T) == 2) if (tau != 0) least = to_key(T(bar), smallest);
            start_count();
        };
        filtered([&](auto& one, auto& vec) { staged_pass<kAhead, kStream>(row, begin, end, threshold, one, vec); });
    }
    __syncthreads();
    // Kept in shared memory: n. A short row counts the ones that did not fit too (then the row's total
    // is over cap and it falls back); a long row's spilled ones were counted as they went.
    uint32_t n = long_row ? min(sm.ncand, cap) : sm.ncand;
    uint32_t list_lo = 0, list_hi = ~0u;     // a long row's candidate keys lie in [list_lo, list_hi]
    // 3. Several blocks a row: each appends its candidates to the row's list in global memory, and
    //    the last to arrive (a ticket, as 06's M) loads the whole list into its shared memory.
    if (chunks > 1) {
        if (t == 0) s_base = atomicAdd(&tally[r].count, n);
        __syncthreads();
        const uint32_t base = s_base;
        uint32_t hi = 0, lo_inv = 0;         // a long row's: the list's key range, for its select
        for (uint32_t i = t; i < n && base + i < lcap; i += kBlock) {
            list[base + i] = s_cand[i];
            hi = max(hi, uint32_t(s_cand[i] >> 32));
            lo_inv = max(lo_inv, ~uint32_t(s_cand[i] >> 32));
        }
        // A long row's key range: one atomic pair a block (one a warp: the hand-in took 12.4 us, not 3.7).
        if (long_row) {
            hi = rowwise::warp_max(hi);
            lo_inv = rowwise::warp_max(lo_inv);
            if (t % 32 == 0) { s_range[t / 32][0] = hi; s_range[t / 32][1] = lo_inv; }
            __syncthreads();
            if (t < 32) {
                hi = rowwise::warp_max(s_range[t][0]);
                lo_inv = rowwise::warp_max(s_range[t][1]);
                if (t == 0) { atomicMax(&tally[r].hi, hi); atomicMax(&tally[r].lo_inv, lo_inv); }
            }
        }
        if (counted) add_whole_key_counts(s_cand, n, least, sm.hist, g_row);
        __threadfence();                     // our candidates are visible before we say we are done
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
                finish_missed_row<Reader>(in, r, cols, begin, end, chunks, k, smallest, miss, sm, &s_last, out_vals, out_idx);
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
        if (counted)                         // the row's counts, zeroed for the next call as they are read
            for (int i = t; i < rowwise::kMaxBins; i += kBlock) {
                sm.hist[i] = __ldcg(&g_row[i]);
                g_row[i] = 0;
            }
        if (n >= kk && n <= cap)
            each_listed<4>(list, n, [&](uint32_t i, uint64_t p) { s_cand[i] = p; });
        __syncthreads();                     // every thread has read the tally before it is cleared
        // (A counted long row keeps its list's length there until collect_together, or key_of_counts says no. The
        // kk-th key found right here instead, so that the tally is cleared once, cost bfloat16 4 x 2^24 k 1024 0.0695-0.0697
        // ms against 0.0684-0.0685, float16 0.0670-0.0671 against 0.0658-0.0660: H200, same run; not in one ncu launch.)
        if (t == 0) tally[r] = {counted && miss.state ? n : 0u, 0u, 0u, 0u};
    }
    // 4. The k among the candidates (an upper set of the row's order: the kk largest when n >= kk):
    //    from shared memory, or from a long row's list; when the sample missed, 06's M over the row by
    //    all of its blocks (`miss`), or 06's block path over the whole row by this one.
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
        } else {                             // 16-bit keys: one count from the least key, else 06's digits from the top
            if (t == 0) { sm.nsel = 0; sm.ties = 0; }
            uint32_t prefix = 0, k_rem = kk;
            int pbits = 0, d = 0;
            // bar is a value of T, and passes() kept the keys at or above its. One count where 06's digits take two
            // steps, each a zeroed 2048-bin count, a block scan and their barriers (bfloat16 64 x 131072 k 256: 0.0219
            // ms against 0.0234-0.0235, H100). Not in the two-an-SM k <= 256 build (32 registers): ptxas spilled 88
            // bytes there, and that shape took 0.0268 ms against 0.0256.
            if ((kMaxK > kSmallK || kAhead == kAheadOneAnSm) && !isnan(bar))
                whole_key_count(s_cand, n, to_key(T(bar), smallest), prefix, pbits, d, k_rem, sm.hist);
            __syncthreads();
            rowwise::finish_row<kMaxK, kMaxK == kSmallK && !kList>(row, len, r, k, kk, s_cand, n, prefix, pbits, d, k_rem, sm,
                                                                  out_vals, out_idx);
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
            __syncthreads();                 // the row's counters are zeroed before this block counts
            if (pbits == 32) {
                collect_together<kMaxK>(row, len, r, k, part, chunks, list, n, kth, k_rem, tally, miss, sm, &s_last,
                                        out_vals, out_idx);
                return;
            }
        }
        if (pbits == 32) {                   // 16-bit keys, the kk-th key known (a ragged batch): one pass over the list
            gather_winners<8>(list, n, kth, k_rem, kk - k_rem, sm);
            rowwise::write_winners<kMaxK>(row, len, r, k, kk, sm, out_vals, out_idx);
        } else {
            // The list is read 2-4 times from L2 by this one block (from the first digit its keys differ in:
            // on 4 x 2^24 k 1024 the digit passes took 6.8-10.2 us, not 13.1-18.3): 8 loads in flight a
            // thread, not 1 (one at a time, each pass waited ~32 L2 round trips).
            rowwise::select_row<kMaxK>(row, len, n, r, k, kk, cap, s_cand, sm, out_vals, out_idx, list_lo, list_hi,
                                       [&](auto f) {
                each_listed<8>(list, n, [&](uint32_t, uint64_t p) { f(uint32_t(p >> 32), topk::packed_index(p)); });
            });
        }
    } else if (by_all) {
        finish_missed_row<Reader>(in, r, cols, begin, end, chunks, k, smallest, miss, sm, &s_last, out_vals, out_idx);
    } else {
        rowwise::block_row<Reader, kMaxK>(in, start, len, r, k, smallest, cap, s_cand, sm, out_vals, out_idx);
    }
}

// ---- the plan and the launchers -------------------------------------------------------------------
// The candidate buffer is 06's (rowwise::block_candidates: 10240 on an H100, 4096 on a T4). Rows up to
// kShortLen are cut into at most one block an SM in all (rows x chunks <= SMs), each chunk at least
// kMinChunk keys: 64 rows of 131072 on 132 SMs take 2 chunks of 65536 (1 for k <= 256); 128 or 256 rows take 1 (the
// block keeps its candidates in shared memory, no hand-in). The read needs no more: 32 blocks, one an
// SM, read 32 MB as fast as 132 or 256 do (H100), and every extra chunk adds a sample select, a
// hand-in and list entries. Measured (H100, same run): one block for every resident slot (2 an SM)
// cost 0.0362 ms against 0.0320 (64 x 131072 k 256) and 0.0734 against 0.0534 (serving k 2048); chunks
// rounded to nearest put 8 rows in 17 chunks, 136 blocks on 132 SMs: bfloat16 8 x 131072 k 256 took 0.0233 ms,
// against 0.0181 in 8 chunks and 0.0177 in 16 with 4 vectors ahead. Such a grid (at most one block an
// SM) runs the build with 4 vectors in flight a thread, bound to one block an SM (kAheadOneAnSm).
// Longer rows fill every slot of that build, one block an SM: 4 x 2^24 k 1024 in 33 chunks a row (bfloat16
// 0.0905-0.0907 ms; 66, two an SM with no loads ahead: 0.0971-0.0974). Those cut in several chunks get a list
// of kListCap candidates each (lcap), and never more blocks than the slots (rounded down), since a missed
// row's blocks wait for each other (launch_together).
struct Plan {
    uint32_t cap = 0, lcap = 0;
    size_t smem = 0;
    uint32_t chunks = 1, chunk = 0;
    unsigned grid = 0;
    bool one_an_sm = false;                  // grid <= SMs (always so for long rows): the kAheadOneAnSm build
    // The pass reads past L1 (load_once, the kStream builds): two-an-SM grids whose rows hold kStreamKeys keys a wanted
    // candidate, and every 16-bit long row (H200, same run, ms, plain / past L1: bfloat16 4 x 2^24 k 1024 0.0685-0.0687 /
    // 0.0661-0.0664, 2 x 2^24 k 256 0.0475-0.0477 / 0.0447-0.0448, float16 8 x 4194309 k 1024 0.0522-0.0523 /
    // 0.0497-0.0498; the ragged batch with such rows lost 1 %). float32 long rows lost (4 x 2^24 k 1024 0.1013-0.1014 /
    // 0.1041-0.1044) and keep the plain load.
    bool stream = false;
};

template <class T>
Plan plan_sampled(size_t rows, size_t len, size_t k) {
    rowwise::RowPlan b{rowwise::Path::block};
    rowwise::block_candidates(b);
    Plan p;
    p.cap = b.cand;
    p.smem = b.smem;
    const auto small_k = sampled_rows<rowwise::AlignedRows, T, true, kSmallK, kAheadOneAnSm, sizeof(T) == 2>;
    const auto large_k = sampled_rows<rowwise::AlignedRows, T, true, rowwise::kBlockMaxK, kAheadOneAnSm, sizeof(T) == 2>;
    const size_t per_sm = len > kShortLen ? size_t(std::min(course::resident_blocks(small_k, kBlock, p.smem),
                                                            course::resident_blocks(large_k, kBlock, p.smem)))
                                          : 1;
    const size_t slots = size_t(course::device().sm_count) * per_sm;
    size_t chunks = std::max<size_t>(1, slots / rows);
    // A row cut in two pays a hand-in to halve a pass that a block reads about as fast alone. For k <= kSmallK
    // (1280 candidates a row on an H100) one block a row is faster: 64 x 131072 k 256 bfloat16 0.0207-0.0208 ms
    // against 0.0219, float32 0.0281-0.0282 against 0.0294; for k 2048 (8192 candidates, a shared atomic each,
    // in one block) bfloat16 took 0.0296 against 0.0284 (H100, same run; k 2048 in a build with timing stamps).
    if (len <= kShortLen && k <= kSmallK && chunks == 2) chunks = 1;
    chunks = std::min(chunks, std::max<size_t>(1, len / kMinChunk));
    p.chunk = uint32_t(((std::max<size_t>(len, 1) + chunks - 1) / chunks + 7) / 8 * 8);   // whole 16-byte vectors
    p.chunks = uint32_t((std::max<size_t>(len, 1) + p.chunk - 1) / p.chunk);
    if (rows * p.chunks > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 blocks (rows x chunks)");
    p.grid = unsigned(rows * p.chunks);
    p.lcap = len > kShortLen && p.chunks > 1 ? kListCap : p.cap;
    p.one_an_sm = p.grid <= unsigned(course::device().sm_count);
    p.stream = p.lcap > p.cap ? sizeof(T) == 2
                              : !p.one_an_sm && len / kStreamKeys >= wanted(uint32_t(std::min(k, len)), p.cap, false);
    return p;
}

// Which rows this version takes: longer than 06's warp path, k <= 2048, and at most kShortLen long,
// or at most kMaxLen when few enough rows give each several blocks (else 06's plan).
// Its plan for them goes to *plan (planned once a call).
template <class T>
bool takes(size_t rows, size_t cols, size_t k, Plan* plan = nullptr) {
    if (cols <= size_t(rowwise::kWarpCols) || k > size_t(rowwise::kBlockMaxK) || cols > kMaxLen) return false;
    const Plan p = plan_sampled<T>(rows, cols, k);
    if (cols > kShortLen && p.chunks <= 1) return false;
    if (plan) *plan = p;
    return true;
}

// The number a call's row steps carry (RowState::step = call * 8 + step): one count for every type and build of this
// program, since they share M's row states. A count in each launch<T> (as before) let a float32 call's verdict pass for
// that of the bfloat16 call with the same number: after one float32 call, the first bfloat16 call on 4 x 4194309 k 1024
// returned wrong winners (H200; TUNING.md).
inline unsigned long long next_call() {
    static unsigned long long calls = 0;
    return ++calls;
}

template <class T, class Reader>
void launch(const Plan& p, const T* d_in, const int64_t* d_offsets, size_t rows, size_t len, size_t k, bool smallest,
            T* d_vals, uint32_t* d_idx) {
    Tally* tally = course::scratch_as<Tally>(8, rows);   // slots 0-7 are 06's
    uint64_t* g_cand = course::scratch_as<uint64_t>(9, p.chunks > 1 ? rows * p.lcap : 1);
    rowwise::zero_fresh_scratch(2, tally, rows * sizeof(Tally));
    // 16-bit long rows' whole-key counts (kMaxBins a row), left zeroed by each call for the next.
    uint32_t* counts = sizeof(T) == 2 && p.lcap > p.cap ? course::scratch_as<uint32_t>(11, rows * rowwise::kMaxBins) : nullptr;
    if (counts) rowwise::zero_fresh_scratch(3, counts, rows * rowwise::kMaxBins * sizeof(uint32_t));
    // Equal long rows: a row the sample missed is finished by its own blocks with 06's M (its scratch),
    // so every block is resident at once. (06's M launches after the kernel, which mostly found no row
    // to do: bfloat16 4 x 2^24 k 1024 took 0.1029-0.1030 ms with them, 0.0970-0.0971 now, H100; TUNING.md.)
    const bool by_all = !d_offsets && p.lcap > p.cap;
    MissedRows miss{};
    if (by_all) {
        const rowwise::MultiScratch m = rowwise::multi_scratch(rows, k);
        miss = {m.state, m.hist, m.sel_key, m.sel_col, next_call()};
    }
    auto run = [&](auto kernel) {
        course::allow_dynamic_smem(kernel, p.smem);
        if (by_all) {
            course::launch_together(kernel, p.grid, kBlock, p.smem, d_in, d_offsets, uint32_t(len), uint32_t(k), smallest,
                                    p.cap, p.lcap, p.chunks, p.chunk, tally, g_cand, counts, miss, d_vals, d_idx);
            return;
        }
        kernel<<<p.grid, kBlock, p.smem>>>(d_in, d_offsets, uint32_t(len), uint32_t(k), smallest, p.cap, p.lcap, p.chunks,
                                           p.chunk, tally, g_cand, counts, miss, d_vals, d_idx);
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
        by_k(sampled_rows<Reader, T, false, kSmallK, kAheadOneAnSm>, sampled_rows<Reader, T, false, rowwise::kBlockMaxK, kAheadOneAnSm>);
    else if (p.stream)
        by_k(sampled_rows<Reader, T, false, kSmallK, kAheadTwoAnSm, true>,
             sampled_rows<Reader, T, false, rowwise::kBlockMaxK, kAheadTwoAnSm, true>);
    else
        by_k(sampled_rows<Reader, T, false, kSmallK>, sampled_rows<Reader, T, false, rowwise::kBlockMaxK>);
}

inline std::vector<course::KernelPlan> kernel_plans(const course::Options& o, const course::Case& c) {
    const topk::rows::Shape s = topk::rows::parse_case(o, c);
    const bool ragged = topk::rows::is_ragged(c.dist) || o.has("lengths");
    Plan p;                                  // the case's type's plan (16-bit long rows read past L1)
    auto plan_as = [&](auto t) {
        using T = decltype(t);
        if (ragged) p = plan_sampled<T>(s.rows, s.cols, c.param);
        return ragged || takes<T>(s.rows, s.cols, c.param, &p);
    };
    if (!(c.dtype == "float32" ? plan_as(float{}) : plan_as(__half{}))) return rowwise::kernel_plans(o, c);
    std::vector<course::KernelPlan> v{
        {"sampled_rows", kBlock, p.smem, 1, 1,
         std::to_string(p.chunks) + (p.chunks == 1 ? " block a row of " : " blocks a row of ") + std::to_string(p.chunk) + " keys, " + std::to_string(p.grid) +
             " blocks, " + std::to_string(p.lcap > p.cap ? p.lcap : p.cap) +
             (p.lcap > p.cap ? " candidates a row (a list in global memory)" : " candidates a row") +
             (!ragged && p.lcap > p.cap ? ", all resident (a missed row: 06's M by its blocks)" : "") +
             (p.one_an_sm ? ", 4 vectors in flight a thread" : "") + (p.stream ? ", read past L1" : "")}};
    return v;
}
static course::PlanHook plan_hook(kernel_plans);

// The row-wise launcher: this version's one pass where it applies, 06's paths elsewhere.
template <class T = float, class Reader = rowwise::AlignedRows>
void sampled_topk(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    Plan p;
    if (!takes<T>(rows, cols, k, &p)) return rowwise::rowwise_topk<T, Reader>(d_in, rows, cols, k, smallest, d_vals, d_idx);
    launch<T, Reader>(p, d_in, nullptr, rows, cols, k, smallest, d_vals, d_idx);
}

// A ragged batch: always the one pass (k <= 2048), chunks cut from the longest row.
template <class T = float>
void sampled_ragged(const T* d_in, const int64_t* d_offsets, size_t rows, size_t, size_t max_len, size_t k,
                    bool smallest, T* d_vals, uint32_t* d_idx) {
    if (k > size_t(rowwise::kBlockMaxK)) throw course::UsageError("ragged rows: k <= 2048 (the k are sorted in shared memory)");
    launch<T, rowwise::AlignedRows>(plan_sampled<T>(rows, max_len, k), d_in, d_offsets, rows, max_len, k, smallest, d_vals, d_idx);
}

}  // namespace sampled

int main(int argc, char** argv) {
    using sampled::sampled_topk;
    using sampled::sampled_ragged;
    return topk::rows::run_rows(argc, argv, "08_sampled_rows", sampled_topk<float>, sampled_topk<__half>,
                                sampled_topk<__nv_bfloat16>, {},
                                {sampled_ragged<float>, sampled_ragged<__half>, sampled_ragged<__nv_bfloat16>});
}
