// lesson01_topk/block_select.cuh — one block of 1024 threads selects the k largest keys of a set by
// radix digits counted in shared memory, and writes them sorted: the machinery of the row-wise steps
// rows_02_block_per_row (a block a row), rows_03_blocks_per_row (its bucket choice and final sort) and
// rows_04_sampled_threshold (the same select on the few keys a sample lets through). float32 rows.
//
// A key is lesson.cuh's to_key (NaN largest, -0.0 == +0.0, inverted for --smallest); a candidate is
// pack(key, column), so candidates are distinct and the lower column wins a tie. The 32-bit key is
// found in three digits, most significant first: bits 31..21, 20..10, 9..0 (2048, 2048, 1024 bins).
// After each digit the k-th key's known prefix grows (pbits = 0, 11, 22, 32 bits) and `rem` says how
// many keys are still wanted inside the bucket that carries the prefix.
#pragma once
#include "bitonic.cuh"
#include "rows.cuh"

namespace block_select {

using topk::kEmpty;
using topk::pack;
using topk::packed_index;
using topk::to_key;

constexpr int kBlock = 1024;       // threads a block: one row's select
constexpr int kBins = 2048;        // the widest digit (11 bits)
constexpr uint32_t kMaxK = 2048;   // the winners are sorted in shared memory: k <= this
constexpr uint32_t kCap = 4096;    // candidates a block holds (32 KB): with the counts, under 48 KB
constexpr uint32_t kPerThread = kCap / kBlock;
static_assert(kMaxK <= kCap && kCap % kBlock == 0 && kMaxK % kBlock == 0, "block_select's sizes");

// The digit below a prefix of pbits bits: its shift, and its width in bits (11, 11, 10).
__host__ __device__ constexpr int digit_shift(int pbits) { return pbits == 0 ? 21 : pbits == 11 ? 10 : 0; }
__device__ __forceinline__ bool has_prefix(uint32_t key, uint32_t prefix, int pbits) {
    return pbits == 0 || (key >> (32 - pbits)) == prefix;
}

struct Choice {
    uint32_t bucket, above, count;
};
// Shared memory of one digit step: the counts, the scan's warp totals, the chosen bucket.
struct DigitSmem {
    uint32_t hist[kBins];
    uint32_t warp_totals[kBlock / 32];
    Choice choice;
};
// Shared memory of a whole select: a digit step's, and the candidates (then the winners).
struct SelectSmem {
    DigitSmem digit;
    uint64_t cand[kCap];
    uint32_t n, ties;   // candidates appended; copies of the k-th key taken
};

// The bucket b of hist[0..bins) that holds the target-th largest key (bucket bins-1 holds the largest):
// above = hist[bins-1] + ... + hist[b+1] < target <= above + hist[b]. Each thread sums bins / kBlock
// bins from the top, a block scan (lesson 02) says how many keys lie above each thread's bins, and the
// thread whose bins cross the target walks them. 1 <= target <= the keys counted. Barriers inside.
__device__ inline Choice choose_bucket(DigitSmem& sm, int bins, uint32_t target) {
    const int per = bins / kBlock, t = threadIdx.x;
    uint32_t mine = 0, total;
    for (int j = 0; j < per; ++j) mine += sm.hist[bins - 1 - (t * per + j)];
    const uint32_t before = scan::block_exclusive_scan<kBlock>(mine, 0u, total, sm.warp_totals);
    if (before < target && before + mine >= target) {
        uint32_t run = before;
        for (int j = 0; j < per; ++j) {
            const uint32_t b = bins - 1 - (t * per + j), h = sm.hist[b];
            if (run + h >= target) {
                sm.choice = {b, run, h};
                break;
            }
            run += h;
        }
    }
    __syncthreads();
    const Choice c = sm.choice;
    __syncthreads();
    return c;
}

// One digit step over a set of keys: count the next digit of the keys that carry the prefix, choose
// the bucket of the rem-th largest, and extend the prefix by it. each_key(g) calls g(key) for this
// thread's share of the set. Returns the keys in the chosen bucket. Barriers inside: every thread calls.
template <class EachKey>
__device__ uint32_t narrow(EachKey&& each_key, uint32_t& prefix, int& pbits, uint32_t& rem, DigitSmem& sm) {
    const int shift = digit_shift(pbits), width = 32 - pbits - shift, bins = 1 << width;
    for (int i = threadIdx.x; i < bins; i += kBlock) sm.hist[i] = 0;
    __syncthreads();
    const uint32_t p = prefix;
    const int pb = pbits;
    each_key([&](uint32_t key) {
        if (has_prefix(key, p, pb)) atomicAdd(&sm.hist[(key >> shift) & (bins - 1)], 1u);
    });
    __syncthreads();
    const Choice c = choose_bucket(sm, bins, rem);
    rem -= c.above;
    prefix = (prefix << width) | c.bucket;
    pbits += width;
    return c.count;
}

// f(value, column) for every element of row[begin, end), spread over the block: single elements until
// the address is 16-byte aligned (a row starts wherever r * cols puts it: wrong/row_float4.cu), then
// float4 loads, two in flight a thread, then the tail (its column in 64 bits: end may be near 2^32).
template <class F>
__device__ __forceinline__ void for_each_in_row(const float* __restrict__ row, uint32_t begin, uint32_t end, F&& f) {
    const uint32_t t = threadIdx.x;
    const uint32_t head = min(end - begin, uint32_t((16 - (reinterpret_cast<uintptr_t>(row + begin) & 15)) & 15) / 4);
    if (t < head) f(row[begin + t], begin + t);
    const uint32_t body = begin + head, vecs = (end - body) / 4;
    const float4* v = reinterpret_cast<const float4*>(row + body);
    for (uint32_t q = t; q < vecs; q += 2 * kBlock) {
        const float4 a = v[q], b = q + kBlock < vecs ? v[q + kBlock] : float4{};
        const uint32_t c = body + 4 * q;
        f(a.x, c);
        f(a.y, c + 1);
        f(a.z, c + 2);
        f(a.w, c + 3);
        if (q + kBlock < vecs) {
            const uint32_t d = c + 4 * kBlock;
            f(b.x, d);
            f(b.y, d + 1);
            f(b.z, d + 2);
            f(b.w, d + 3);
        }
    }
    for (uint64_t c = body + uint64_t(4) * vecs + t; c < end; c += kBlock) f(row[c], uint32_t(c));
}

// One pass over the row: every key at or above tau goes to sm.cand (the first kCap of them). Returns how
// many passed, which may be more than kCap (then only kCap were kept). Barriers inside.
__device__ inline uint32_t keep_at_or_above(const float* __restrict__ row, uint32_t len, bool smallest, uint32_t tau,
                                            SelectSmem& sm) {
    if (threadIdx.x == 0) sm.n = 0;
    __syncthreads();
    for_each_in_row(row, 0, len, [&](float x, uint32_t c) {
        const uint32_t key = to_key(x, smallest);
        if (key >= tau) {
            const uint32_t slot = atomicAdd(&sm.n, 1u);
            if (slot < kCap) sm.cand[slot] = pack(key, c);
        }
    });
    __syncthreads();
    return sm.n;
}

// With the k-th key known (kth) and rem of its copies wanted: every key above it and the first rem
// copies of it, from the row, appended to sm.cand (kk of them in all). Barriers inside.
__device__ inline void collect_from_row(const float* __restrict__ row, uint32_t len, bool smallest, uint32_t kth,
                                        uint32_t rem, SelectSmem& sm) {
    if (threadIdx.x == 0) {
        sm.n = 0;
        sm.ties = 0;
    }
    __syncthreads();
    for_each_in_row(row, 0, len, [&](float x, uint32_t c) {
        const uint32_t key = to_key(x, smallest);
        if (key > kth || (key == kth && atomicAdd(&sm.ties, 1u) < rem)) sm.cand[atomicAdd(&sm.n, 1u)] = pack(key, c);
    });
    __syncthreads();
}

// The full select over a row in global memory: three digit passes find the kk-th key, a fourth pass
// collects the winners into sm.cand[0, kk). Four reads of the row; any row. Barriers inside.
__device__ inline void select_from_row(const float* __restrict__ row, uint32_t len, bool smallest, uint32_t kk,
                                       SelectSmem& sm) {
    uint32_t prefix = 0, rem = kk;
    int pbits = 0;
    while (pbits < 32)
        narrow([&](auto g) { for_each_in_row(row, 0, len, [&](float x, uint32_t) { g(to_key(x, smallest)); }); },
               prefix, pbits, rem, sm.digit);
    collect_from_row(row, len, smallest, prefix, rem, sm);
}

// The select over n candidates already in sm.cand (kk <= n <= kCap): three digit steps over them in
// shared memory find the kk-th key, then the winners move to sm.cand[0, kk) (each thread holds its
// kPerThread candidates in registers first, so the moves cannot overwrite one not yet read). Barriers inside.
__device__ inline void select_candidates(uint32_t n, uint32_t kk, SelectSmem& sm) {
    const int t = threadIdx.x;
    uint32_t prefix = 0, rem = kk;
    int pbits = 0;
    while (pbits < 32)
        narrow(
            [&](auto g) {
                for (uint32_t i = t; i < n; i += kBlock) g(uint32_t(sm.cand[i] >> 32));
            },
            prefix, pbits, rem, sm.digit);
    uint64_t mine[kPerThread];
#pragma unroll
    for (uint32_t j = 0; j < kPerThread; ++j) mine[j] = t + j * kBlock < n ? sm.cand[t + j * kBlock] : kEmpty;
    if (t == 0) {
        sm.n = 0;
        sm.ties = 0;
    }
    __syncthreads();
#pragma unroll
    for (uint32_t j = 0; j < kPerThread; ++j) {
        const uint32_t key = uint32_t(mine[j] >> 32);
        if (mine[j] != kEmpty && (key > prefix || (key == prefix && atomicAdd(&sm.ties, 1u) < rem)))
            sm.cand[atomicAdd(&sm.n, 1u)] = mine[j];
    }
    __syncthreads();
}

// The kk winners in sm.cand[0, kk), in any order, sorted (part 1's merge sort, bitonic.cuh) and written
// as row r of the output: their columns and their values read back from the row (exact bits; a column
// past the row, a broken step's empty slot, is reported and not read). Barriers inside.
__device__ inline void sort_and_write(const float* __restrict__ row, uint32_t len, size_t r, uint32_t k, uint32_t kk,
                                      SelectSmem& sm, float* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    uint32_t m = 1;
    while (m < kk) m *= 2;
    for (uint32_t i = kk + threadIdx.x; i < m; i += kBlock) sm.cand[i] = kEmpty;
    __syncthreads();
    topk::bitonic::block_merge_sort_desc<kMaxK / kBlock>(sm.cand, int(m));
    for (uint32_t j = threadIdx.x; j < kk; j += kBlock) {
        const uint32_t c = packed_index(sm.cand[j]);
        out_idx[r * k + j] = c;
        if (c < len) out_vals[r * k + j] = row[c];
    }
}

}   // namespace block_select
