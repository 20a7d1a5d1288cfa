// topk_05_radix_select — the best version: radix select from the most significant bits (after AIR
// Top-K, Zhang et al., SC'23), all on the device, no host round trips.
//
// What changed: no per-element lists or sorting networks. The k-th largest key is found digit by
// digit from histograms (11 + 11 + 10 bits): each pass counts the next digit of the keys that
// still match the k-th key's known top bits, the last block picks the bucket that holds the k-th
// key, and the next pass writes every element above it to the output and keeps the candidates.
// Large inputs (2^22 keys and up) first guess a threshold from a 1/256 sample, so that one pass F
// copies the few keys above it and the digit passes read only those: ~1.01 reads of the input.
// Small inputs (every 4096-key tile a resident block) run it all in ONE cooperative launch.
// float16/bfloat16: 16-bit keys in the top half of the 32-bit key (lesson.cuh), 8-byte loads in F.
// Measured (H100, float32 uniform): 2^28: 0.423 ms at k = 1, 0.433 at k = 1024 (83-85 % of a copy
// up to k = 2048); 2^20: 24 us at k = 32. The passes in detail, the cost model and the tuning
// runs: TUNING.md, "topk_05_radix_select: the passes". Limits: n < 2^31 (CUB's int count for k > 4096).
//
// Build alone:  nvcc -O3 -arch=native -o topk05 topk_05_radix_select.cu
// Run:          ./topk05 --n 2^28 --k 1024       ./topk05 --test       ./topk05 --sweep --csv r.csv
#include <cmath>
#include <cooperative_groups.h>
#include <cub/device/device_radix_sort.cuh>

#include "../lesson02_scan/primitives.cuh"
#include "bitonic.cuh"
#include "lesson.cuh"

namespace topk {
namespace radix {
namespace cg = cooperative_groups;

constexpr int kBlock = 256, kItems = 16, kTile = kBlock * kItems;   // 4096 elements per tile
constexpr int kBins = 2048;                                          // 11-bit digits
// Sample every 256th tile (2^28 keys: 256 tiles, 1 M keys). Every 32nd made S0 + S1 (they count
// every sampled key) 8 times the work: 0.564 -> 0.465 ms at k = 32 (TUNING.md, the sample stride).
constexpr int kSampleStride = 256;
// Inputs of at least 2^22 keys are sampled first (S0, S1, then the filter F); smaller ones go
// straight to the passes, where the sample's two extra launches would cost more than they save
// (TUNING.md has the measurements).
constexpr size_t kSampleMinN = size_t(1) << 22;

__host__ __device__ constexpr int digit_shift(int level) { return level == 0 ? 21 : level == 1 ? 10 : 0; }
__host__ __device__ constexpr int digit_bins(int level) { return level == 2 ? 1024 : 2048; }
__device__ __forceinline__ uint32_t digit_of(uint32_t key, int level) {
    return (key >> digit_shift(level)) & uint32_t(digit_bins(level) - 1);
}

// What the next pass does with the candidates (those whose top digits equal the k-th key's so far).
enum Mode : uint32_t {
    kContinue = 0,   // count their next digit
    kTakeAll = 1,    // they number exactly k_rem: all are in the answer
    kTies = 2,       // the k-th key is known: > it is output, == it are ties (k_rem of them)
    kTiesOnly = 3,   // all candidates are the k-th key and nothing above is left: ties only
    kFinished = 4,
};

// Device state: zeroed by one cudaMemsetAsync per call (so "k_rem" is kept as k - above).
struct State {
    uint32_t hist[3][kBins];
    uint32_t sample_hist[2][kBins];
    uint32_t prefix[3], mask[3], bucket[3];
    uint32_t above;           // answer elements known above the k-th key's bucket so far
    uint32_t mode;            // for the next pass
    uint32_t src, src_count;  // next pass reads: 0 the input, 1 + b candidate buffer b (src_count of them)
    uint32_t write_buf;       // the next pass copies its candidates to its buffer
    uint32_t buf_count[3];
    uint32_t sample_bucket, sample_above;   // S0's choice, for S1
    uint32_t est_threshold, est_ok;         // the guess (keys >= it go to the buffer), and whether F runs
    uint32_t out_count, tie_count;
    uint32_t not_min[3], max[3];   // over the keys counted in pass L (atomicMax of ~key and of key)
    uint32_t done_blocks[7];   // K0..K3, S0, S1, F
};

// ---- choosing the bucket (exercise 3) -------------------------------------------------------------
// Finds the bucket b of the k-th largest: above = hist[bins-1] + ... + hist[b+1] < target and
// above + hist[b] >= target. Every thread of the block (kBlock) calls it; the result is returned to
// all. found = false when the histogram holds fewer than `target` keys.
struct Choice { uint32_t bucket, above, count; bool found; };

struct FindBucket {
    __device__ static Choice apply(const uint32_t* hist, int bins, uint32_t target) {
        __shared__ uint32_t s_warp[kBlock / 32];
        __shared__ Choice s_choice;
        const int per = bins / kBlock;             // 8 (or 4) bins per thread, from the top down
        const int t = threadIdx.x;
        uint32_t mine = 0;
        for (int j = 0; j < per; ++j) mine += hist[bins - 1 - (t * per + j)];
        if (t == 0) s_choice = {0, 0, 0, false};
        uint32_t total;
        uint32_t before = scan::block_exclusive_scan<kBlock>(mine, 0u, total, s_warp);   // keys in higher bins
        if (before < target && before + mine >= target) {    // exactly one thread's range crosses
            uint32_t run = before;
            for (int j = 0; j < per; ++j) {
                uint32_t b = bins - 1 - (t * per + j), h = hist[b];
                if (run + h >= target) { s_choice = {b, run, h, true}; break; }
                run += h;
            }
        }
        __syncthreads();
        Choice c = s_choice;
        __syncthreads();
        return c;
    }
};

// ---- helpers --------------------------------------------------------------------------------------

// Counts `dv` (< 2048) into a shared histogram: one shared atomic per counted key, even when many
// lanes of a warp hold the same digit. Grouping equal digits first (12 ballots, then one atomic of
// the group's size) looked cheaper and was slower on the H100: the one-launch path at 2^20 took
// 37.0 us with the groups, 25.7 us without (k = 1, uniform floats, whose top digits pile onto four
// bins); TUNING.md has every shape. All lanes of a warp may call it (no warp-wide step).
__device__ __forceinline__ void count_digit(uint32_t* s_hist, bool counted, uint32_t dv) {
    if (counted) atomicAdd(&s_hist[dv], 1u);
}

// Class of one element in a pass.
enum Cls : uint8_t { kNone = 0, kOut = 1, kTie = 2, kCount = 4, kBuf = 8 };

struct Buffers { uint2* b[3]; uint32_t cap; };

template <bool kKeepTies>
struct Policy { static constexpr bool keep_ties = kKeepTies; };

// ---- one pass -------------------------------------------------------------------------------------
// LEVEL 0: histogram of digit 0 (+ the sampled-guess buffer). LEVEL 1, 2: filter by digit L-1,
// histogram digit L. LEVEL 3: the last filter. The last block to finish chooses the bucket.
template <class T, int LEVEL, class Find, class Pol>
__global__ void __launch_bounds__(kBlock)
select_pass(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, State* st, Buffers bufs,
            uint32_t* __restrict__ out_keys, uint32_t* __restrict__ out_idx) {
    __shared__ uint32_t s_hist[kBins];
    __shared__ uint64_t s_warp64[kBlock / 32];
    // The three bases, padded to 16 aligned bytes: nvcc reads them with one 16-byte load, which
    // with 3 words included s_flag (placed right after them), and thread 0 writes s_flag for the
    // next tile while slower threads still load the bases: racecheck reported that (the flag's
    // value was never used). Padded, the load covers s_base alone.
    __shared__ alignas(16) uint32_t s_base[4];
    __shared__ uint32_t s_flag;
    const int t = threadIdx.x;
    const uint32_t mode = LEVEL == 0 ? kContinue : st->mode;
    if (mode == kFinished) return;                       // the same for every block: nobody counts
    const uint32_t src = st->src;                        // 0: the input; 1 + b: buffer b
    const size_t count = src == 0 ? n : st->src_count;
    const uint2* buf_in = src == 0 ? nullptr : bufs.b[src - 1];
    const bool counting = LEVEL < 3 && mode == kContinue;
    const bool write_buf = LEVEL > 0 && LEVEL < 3 && st->write_buf != 0;
    uint2* buf_out = bufs.b[LEVEL < 3 ? LEVEL : 0];
    const uint32_t k_rem = k - (LEVEL == 0 ? 0 : st->above);
    const uint32_t pm = LEVEL >= 2 ? st->mask[LEVEL - 2] : 0, pp = LEVEL >= 2 ? st->prefix[LEVEL - 2] : 0;
    const uint32_t b_prev = LEVEL >= 1 ? st->bucket[LEVEL - 1] : 0;
    if (counting) for (int i = t; i < kBins; i += kBlock) s_hist[i] = 0;
    uint32_t kmin = 0xFFFFFFFFu, kmax = 0;
    __syncthreads();

    // Keys per thread: 16, except on a candidate buffer that the grid covers with one key a
    // thread. After F the buffer holds a few thousand keys: 16 a thread put them all on one or two
    // blocks, whose 16 chained count_digit calls were the pass's time (ncu, TUNING.md). A larger
    // buffer keeps 16 (2 to 15 a thread, sized to the grid, measured slower at 2^21).
    const size_t grid_keys = size_t(gridDim.x) * kBlock;
    const int items = (src == 0 || count > grid_keys) ? kItems : 1;
    const size_t tile_keys = size_t(items) * kBlock;
    const size_t tiles = (count + tile_keys - 1) / tile_keys;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        if (mode == kTiesOnly) {                         // enough ties taken (by any block): stop
            if (t == 0) s_flag = *(volatile uint32_t*)&st->tie_count >= k_rem;
            __syncthreads();
            if (s_flag) break;
        }
        uint32_t key[kItems], idx[kItems];
        uint8_t cls[kItems];
        uint32_t n_out = 0, n_tie = 0, n_buf = 0;
        // Every load of the tile first, unconditionally (past the end: the last element again,
        // masked out below), then the work. A load under `if (e < count)` became a branch per
        // item with its use inside, so the 16 loads waited for DRAM one after another: ncu put
        // the stalls evenly on the 16 first uses, and the kernel ran at a fraction of the
        // bandwidth (README: measured).
        const size_t last = count - 1;
        if (src == 0) {
#pragma unroll
            for (int j = 0; j < kItems; ++j) {
                size_t e = tile * tile_keys + size_t(j) * kBlock + t;   // coalesced: a warp reads 32 neighbours
                key[j] = to_key(in[e < count ? e : last], smallest);
                idx[j] = uint32_t(e);
            }
        } else {
#pragma unroll
            for (int j = 0; j < kItems; ++j) {
                size_t e = tile * tile_keys + size_t(j) * kBlock + t;
                uint2 p = buf_in[j < items && e < count ? e : last];
                key[j] = p.x;
                idx[j] = p.y;
            }
        }
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const bool valid = j < items && tile * tile_keys + size_t(j) * kBlock + t < count;
            uint8_t c = kNone;
            if (valid) {
                if (LEVEL == 0) {
                    c = kCount;
                } else if ((key[j] & pm) == pp) {        // a candidate of the level before
                    uint32_t d = digit_of(key[j], LEVEL - 1);
                    if (d > b_prev) c = kOut;
                    else if (d == b_prev) {
                        if (mode == kTakeAll) c = kOut;
                        else if (mode == kContinue) c = kCount | (write_buf ? kBuf : 0);
                        else c = Pol::keep_ties ? kTie : kNone;
                    }
                }
            }
            cls[j] = c;
            if (counting) {
                bool cnt = c & kCount;
                count_digit(s_hist, cnt, digit_of(key[j], LEVEL < 3 ? LEVEL : 0));
                if (cnt) { kmin = min(kmin, key[j]); kmax = max(kmax, key[j]); }
            }
            n_out += (c & kOut) != 0;
            n_tie += (c & kTie) != 0;
            n_buf += (c & kBuf) != 0;
        }
        if constexpr (LEVEL == 0) continue;             // K0 only counts
        // One atomic per counter per tile: a block scan of the three counts (packed in 21-bit
        // fields: a tile has at most 4096 of each) gives each thread its offsets.
        uint64_t packed = uint64_t(n_out) | (uint64_t(n_tie) << 21) | (uint64_t(n_buf) << 42), total;
        uint64_t offs = scan::block_exclusive_scan<kBlock>(packed, uint64_t(0), total, s_warp64);
        const uint64_t f = (uint64_t(1) << 21) - 1;
        if (t == 0) {
            s_base[0] = (total & f) ? atomicAdd(&st->out_count, uint32_t(total & f)) : 0;
            s_base[1] = ((total >> 21) & f) ? atomicAdd(&st->tie_count, uint32_t((total >> 21) & f)) : 0;
            s_base[2] = (total >> 42) ? atomicAdd(&st->buf_count[LEVEL < 3 ? LEVEL : 0], uint32_t(total >> 42)) : 0;
        }
        __syncthreads();
        uint32_t o = s_base[0] + uint32_t(offs & f), ti = s_base[1] + uint32_t((offs >> 21) & f),
                 bo = s_base[2] + uint32_t(offs >> 42);
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            uint8_t c = cls[j];
            if (c & kOut) {
                if (o < k) { out_keys[o] = key[j]; out_idx[o] = idx[j]; }
                ++o;
            }
            if (c & kTie) {                               // the first k_rem tickets win
                if (ti < k_rem) { out_keys[k - k_rem + ti] = key[j]; out_idx[k - k_rem + ti] = idx[j]; }
                ++ti;
            }
            if (c & kBuf) {
                if (bo < bufs.cap) buf_out[bo] = make_uint2(key[j], idx[j]);
                ++bo;
            }
        }
    }
    if (counting) {
        __syncthreads();
        for (int i = t; i < digit_bins(LEVEL < 3 ? LEVEL : 0); i += kBlock)
            if (s_hist[i]) atomicAdd(&st->hist[LEVEL < 3 ? LEVEL : 0][i], s_hist[i]);
        uint32_t nm = scan::warp_reduce(~kmin, scan::Max{}), mx = scan::warp_reduce(kmax, scan::Max{});
        if ((t & 31) == 0 && mx >= ~nm) {                // this warp counted something
            atomicMax(&st->not_min[LEVEL < 3 ? LEVEL : 0], nm);
            atomicMax(&st->max[LEVEL < 3 ? LEVEL : 0], mx);
        }
    }
    // The last block to finish sees every other block's counts (their atomics and writes are
    // ordered before their increment by __threadfence) and decides the next pass.
    __threadfence();
    __syncthreads();
    if (t == 0) s_flag = atomicAdd(&st->done_blocks[LEVEL], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_flag) return;
    __threadfence();
    if (!counting) {                                     // this pass wrote the rest of the answer
        if (t == 0) st->mode = kFinished;
        return;
    }
    constexpr int L = LEVEL < 3 ? LEVEL : 0;
    // __ldcg: read at L2, where the other blocks' atomics landed (never a stale L1 line).
    for (int i = t; i < digit_bins(L); i += kBlock) s_hist[i] = __ldcg(&st->hist[L][i]);
    __syncthreads();
    Choice c = Find::apply(s_hist, digit_bins(L), k_rem);
    if (t == 0) {
        if (!c.found) c = {0, 0, 0, false};             // cannot happen for 1 <= k <= n
        uint32_t b = c.bucket;
        uint32_t rest = k_rem - c.above;                 // still needed from bucket b
        st->bucket[L] = b;
        st->prefix[L] = (L ? st->prefix[L - 1] : 0u) | (b << digit_shift(L));
        st->mask[L] = (L ? st->mask[L - 1] : 0u) | (uint32_t(digit_bins(L) - 1) << digit_shift(L));
        st->above += c.above;
        bool all_equal = ~__ldcg(&st->not_min[L]) == __ldcg(&st->max[L]);
        uint32_t next = c.count == rest ? kTakeAll : all_equal ? kTiesOnly : L == 2 ? kTies : kContinue;
        st->mode = next;
        // Where the next pass reads: the buffer this pass wrote, when it holds every element the
        // next pass needs; otherwise the same source as this pass.
        // (After K0 the next pass reads what K0 read: the input, or F's buffer.)
        if (write_buf) {
            st->src = 1 + L;
            st->src_count = min(__ldcg(&st->buf_count[L]), bufs.cap);   // (always <= cap when right)
        }
        st->write_buf = next == kContinue && c.count <= bufs.cap;
    }
}

// The sample, two launches: every kSampleStride-th tile is read. S0 (LVL 0) counts digit 0 of the
// sampled keys and picks the bucket holding the sample's `target`-th largest key, where `target`
// is the sample's expected share of k plus a margin of 4 standard deviations + 8 (so the guess
// very likely lies below the true k-th key). S1 (LVL 1) counts digit 1 of the sampled keys in that
// bucket and picks the bucket of the same key again: the two digits make a 22-bit threshold.
// S1 also estimates how many keys of the input lie above the threshold and says whether they would
// fit in a candidate buffer (est_ok); if not, F does nothing and K0 reads the input.
template <class T, int LVL, class Find>
__global__ void __launch_bounds__(kBlock)
sample_pass(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, State* st, uint32_t cap,
            size_t sampled) {
    __shared__ uint32_t s_hist[kBins];
    __shared__ uint32_t s_flag;
    const int t = threadIdx.x;
    if (LVL == 1 && !st->est_ok) return;                 // S0 found nothing (the same for every block)
    const uint32_t bucket0 = LVL == 1 ? st->sample_bucket : 0;
    for (int i = t; i < kBins; i += kBlock) s_hist[i] = 0;
    __syncthreads();
    const size_t tiles = (n + kTile - 1) / kTile, stiles = (tiles + kSampleStride - 1) / kSampleStride;
    for (size_t s = blockIdx.x; s < stiles; s += gridDim.x) {
        size_t base = s * kSampleStride * kTile;
        uint32_t key[kItems];
#pragma unroll
        for (int j = 0; j < kItems; ++j) {               // all loads first, unconditional (see select_pass)
            size_t e = base + size_t(j) * kBlock + t;
            key[j] = to_key(in[e < n ? e : n - 1], smallest);
        }
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            bool counted = base + size_t(j) * kBlock + t < n && (LVL == 0 || digit_of(key[j], 0) == bucket0);
            count_digit(s_hist, counted, digit_of(key[j], LVL));
        }
    }
    __syncthreads();
    for (int i = t; i < kBins; i += kBlock) if (s_hist[i]) atomicAdd(&st->sample_hist[LVL][i], s_hist[i]);
    __threadfence();
    __syncthreads();
    if (t == 0) s_flag = atomicAdd(&st->done_blocks[4 + LVL], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_flag) return;
    __threadfence();
    double expect = double(k) * double(sampled) / double(n);
    uint32_t target = uint32_t(std::ceil(expect + 4.0 * std::sqrt(expect) + 8.0));
    if (LVL == 1) target -= st->sample_above;            // keys of the sample above S0's bucket
    for (int i = t; i < kBins; i += kBlock) s_hist[i] = __ldcg(&st->sample_hist[LVL][i]);
    __syncthreads();
    Choice c = Find::apply(s_hist, kBins, target);
    if (t == 0) {
        if (LVL == 0) {
            st->sample_bucket = c.bucket;
            st->sample_above = c.above;
            st->est_ok = c.found;
        } else {
            double above = double(st->sample_above) + c.above + c.count;   // sampled keys >= threshold
            double est = above * double(n) / double(sampled);
            st->est_threshold = (st->sample_bucket << digit_shift(0)) | (c.bucket << digit_shift(1));
            st->est_ok = c.found && 1.25 * est + 65536.0 <= double(cap);
        }
    }
}

constexpr int kFilterVecs = 8;                               // 16-byte loads per thread and tile
constexpr int kFilterItems = 4 * kFilterVecs;                // 32 keys: 128 bytes in flight a thread
constexpr int kFilterTile = kBlock * kFilterItems;           // 8192 keys

template <class T> __device__ __forceinline__ T from_bits(uint32_t w) {
    if constexpr (std::is_same_v<T, float>) return __uint_as_float(w);
    else if constexpr (is_half_float<T>) return half_from_bits<T>(uint16_t(w));
    else return T(w);
}
template <class T> __device__ __forceinline__ uint32_t bits_of(T v) {
    if constexpr (is_half_float<T>) return half_bits(v);
    else return reinterpret_cast<const uint32_t&>(v);
}

// F: copies every key >= the guessed threshold (with its index) to candidate buffer 0, in any
// order: a stream compaction whose output is tiny, so a warp with nothing to keep in a tile costs
// its loads, a compare per key and one vote. 16-byte loads, 32 keys a thread: 128 bytes in flight
// each. The last block checks the guess: at least k keys copied means
// the k-th largest key is >= the threshold, so every key the answer needs (and every tie of the
// k-th key) is in the buffer; then K0..K3 read the buffer instead of the input.
template <class T>
__global__ void __launch_bounds__(kBlock)
filter_pass(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, bool aligned, State* st, Buffers bufs) {
    __shared__ uint32_t s_flag;
    const int t = threadIdx.x;
    if (!st->est_ok) return;                             // no usable guess: K0 reads the input
    const uint32_t threshold = st->est_threshold;
    const size_t tiles = (n + kFilterTile - 1) / kFilterTile;
    // Key i of this thread is element base + (v * kBlock + t) * 4 + c for i = 4v + c: each 16-byte
    // load of a warp covers 512 consecutive bytes.
    auto element = [&](size_t base, int i) { return base + (size_t(i / 4) * kBlock + t) * 4 + i % 4; };
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * kFilterTile;
        uint32_t w[kFilterItems];
        if (aligned && base + kFilterTile <= n) {        // a whole tile: 16-byte loads (8-byte: 16-bit types)
            if constexpr (sizeof(T) == 4) {
                const uint4* v4 = reinterpret_cast<const uint4*>(in + base);
#pragma unroll
                for (int v = 0; v < kFilterVecs; ++v) {
                    uint4 q = v4[v * kBlock + t];
                    w[4 * v] = q.x; w[4 * v + 1] = q.y; w[4 * v + 2] = q.z; w[4 * v + 3] = q.w;
                }
            } else {
                const uint2* v2 = reinterpret_cast<const uint2*>(in + base);
#pragma unroll
                for (int v = 0; v < kFilterVecs; ++v) {
                    uint2 q = v2[v * kBlock + t];
                    w[4 * v] = q.x & 0xFFFFu; w[4 * v + 1] = q.x >> 16;
                    w[4 * v + 2] = q.y & 0xFFFFu; w[4 * v + 3] = q.y >> 16;
                }
            }
        } else {                                          // the last tile (or a misaligned input)
#pragma unroll
            for (int i = 0; i < kFilterItems; ++i) {
                size_t e = element(base, i);
                w[i] = e < n ? bits_of(in[e]) : 0u;
            }
        }
        uint32_t keep = 0, n_keep = 0;                    // keep: bit i for key i
#pragma unroll
        for (int i = 0; i < kFilterItems; ++i) {
            w[i] = to_key(from_bits<T>(w[i]), smallest);
            bool kept = element(base, i) < n && w[i] >= threshold;
            keep |= uint32_t(kept) << i;
            n_keep += kept;
        }
        // No barrier in the tile loop: each warp votes alone. A warp with nothing to keep (the
        // common case) goes on to its next tile; a warp with survivors reserves its slots with one
        // global atomic (a warp scan of the counts; lane 31 adds the warp's total) and writes them.
        // The survivors' keys are read again (a few a tile, just loaded, so likely cached) instead
        // of kept in w[] across the atomic: w[] dies at the compare, and F stays within 64
        // registers (60; keeping w[] took 80, so part of pass_grid's grid ran as a second wave).
        if (!__any_sync(scan::kFullMask, n_keep != 0)) continue;
        const uint32_t incl = scan::warp_inclusive_scan(n_keep, scan::Plus{});
        uint32_t wbase = 0;
        if ((t & 31) == 31) wbase = atomicAdd(&st->buf_count[0], incl);
        uint32_t o = __shfl_sync(scan::kFullMask, wbase, 31) + incl - n_keep;
        for (uint32_t m = keep; m; m &= m - 1, ++o) {
            const size_t e = element(base, __ffs(m) - 1);
            if (o < bufs.cap) bufs.b[0][o] = make_uint2(to_key(in[e], smallest), uint32_t(e));
        }
    }
    __threadfence();
    __syncthreads();
    if (t == 0) s_flag = atomicAdd(&st->done_blocks[6], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_flag || t != 0) return;
    __threadfence();
    uint32_t kept = __ldcg(&st->buf_count[0]);
    bool ok = kept >= k && kept <= bufs.cap;
    st->src = ok ? 1u : 0u;
    st->src_count = ok ? kept : 0u;
}

// k > 4096: CUB's radix sort orders the k pairs; this gathers their values into the output.
template <class T>
__global__ void gather_sorted(const T* __restrict__ in, size_t n, const uint32_t* __restrict__ idx, size_t k,
                              T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    out_idx[j] = idx[j];
    if (idx[j] < n) out_vals[j] = in[idx[j]];
}


// ---- small inputs: the whole selection in ONE cooperative launch ------------------------------------
// At n = 2^20 the input is 4 MB: one read from DRAM takes ~2 us, so the multi-launch pipeline above
// (a memset, K0..K3 and a sort: six launches, each with its launch gap and a last-block ticket, and
// the 4 MB read twice) spends its time on everything but the data. Here every block loads ONE tile
// (4096 keys: 16 per thread) into registers once and keeps it there; the passes become phases of one
// kernel separated by grid-wide barriers (cooperative launch: every block is resident, so the
// barrier cannot deadlock):
//   three times: count the next digit of the candidates (keys whose top digits equal the k-th key's
//     so far) in shared memory, add to the global histogram, barrier, and EVERY block reads the
//     2048 bins and finds the bucket itself (the same answer everywhere: no extra barrier to
//     broadcast it); after 11 + 11 + 10 bits the k-th key is known exactly (stop sooner when the
//     bucket holds exactly the keys still needed: all of it is in the answer);
//   write: key > k-th: an output slot (block-aggregated atomic), key == k-th: a tie ticket, the first
//     k_rem win; barrier;
//   rank: the k unordered results are ordered by counting, for each, how many results beat it
//     (packed (key, index) values are all distinct, so the ranks are a permutation): one warp per
//     result, k compares spread over its lanes, from a copy of the k results in shared memory. k^2
//     compares (1 M at k = 1024) spread over the whole grid cost less than a one-block bitonic sort.
// Used when k <= kSmallSortMax and every tile gets its own resident block (on the H100 n = 2^20 fits,
// 2^21 does not). 16 keys per thread measured best (8: 36.0 us, 32: 61.1 us at 2^20, k = 32, vs 34.9,
// when count_digit still grouped equal digits).
constexpr int kSmallWarps = kBlock / 32;
constexpr int kSmallItems = 16, kSmallTile = kBlock * kSmallItems;   // 8 or 32 keys per thread: slower (above)

// The small path's own device state. It is left zeroed by the kernel itself (the last phase clears
// what the earlier ones counted), so a call needs no memset: one cudaMemsetAsync when first used.
struct SmallState {
    uint32_t hist[3][kBins];
    uint32_t out_count, tie_count;
};
inline SmallState* small_state() {
    static SmallState* p = nullptr;
    if (!p) {
        p = static_cast<SmallState*>(course::scratch(7, sizeof(SmallState)));
        CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof(SmallState)));
    }
    return p;
}

// Results r0 .. r0 + R - 1 (those < k) of the k in s[] (distinct packed values) each go to position
// #{results larger than it}: one warp, one pass over s[] with the k compares per result spread
// over its lanes, then a warp sum per result; lane 0 writes index and value.
template <int R, class T>
__device__ __forceinline__ void rank_and_write(const uint64_t* s, uint32_t k, uint32_t r0, int lane,
                                               const T* __restrict__ in, size_t n, T* __restrict__ out_vals,
                                               uint32_t* __restrict__ out_idx) {
    uint64_t mine[R];
    uint32_t above[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
        mine[q] = r0 + q < k ? s[r0 + q] : ~uint64_t(0);   // past k: ranked, never written
        above[q] = 0;
    }
    for (uint32_t j = lane; j < k; j += 32) {
        const uint64_t v = s[j];
#pragma unroll
        for (int q = 0; q < R; ++q) above[q] += v > mine[q];
    }
#pragma unroll
    for (int q = 0; q < R; ++q) {
        const uint32_t a = scan::warp_reduce(above[q], scan::Plus{});
        if (lane == 0 && r0 + q < k && a < k) {      // (a broken version may leave slots unset)
            const uint32_t i = packed_index(mine[q]);
            out_idx[a] = i;
            if (i < n) out_vals[a] = in[i];
        }
    }
}

// Three blocks per SM asked of the compiler: left alone it took 201 registers (one block per SM, so
// 2^20's 256 tiles no longer fit a cooperative grid on 132 SMs and the call fell back to the
// launch sequence: 48.8 us); with 3 it takes 80 registers, no spill (2 blocks: 128, with spills).
template <class T, class Find, class Pol>
__global__ void __launch_bounds__(kBlock, 3)
small_select(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, SmallState* st,
             uint32_t* __restrict__ res_keys, uint32_t* __restrict__ res_idx,
             T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    __shared__ uint64_t s_packed[kSmallSortMax];          // the k results (rank phase); the bins before
    __shared__ uint32_t s_warp[kBlock / 32];
    __shared__ uint32_t s_base[2];
    uint32_t* s_hist = reinterpret_cast<uint32_t*>(s_packed);
    cg::grid_group grid = cg::this_grid();
    const int t = threadIdx.x;
    const size_t base = size_t(blockIdx.x) * kSmallTile;   // blocks past the last tile hold nothing
    uint32_t key[kSmallItems];
#pragma unroll
    for (int j = 0; j < kSmallItems; ++j) {                   // all loads first, unconditional (see select_pass)
        size_t e = base + size_t(j) * kBlock + t;
        key[j] = to_key(in[e < n ? e : n - 1], smallest);
    }
    uint32_t prefix = 0, mask = 0, k_rem = k;
    for (int L = 0; L < 3; ++L) {
        for (int i = t; i < kBins; i += kBlock) s_hist[i] = 0;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kSmallItems; ++j) {
            bool cnt = base + size_t(j) * kBlock + t < n && (key[j] & mask) == prefix;
            count_digit(s_hist, cnt, digit_of(key[j], L));
        }
        __syncthreads();
        for (int i = t; i < digit_bins(L); i += kBlock)
            if (s_hist[i]) atomicAdd(&st->hist[L][i], s_hist[i]);
        grid.sync();
        for (int i = t; i < digit_bins(L); i += kBlock) s_hist[i] = __ldcg(&st->hist[L][i]);
        __syncthreads();
        Choice c = Find::apply(s_hist, digit_bins(L), k_rem);
        __syncthreads();                                  // every thread is done with the bins
        if (!c.found) c = {0, 0, 0, false};               // cannot happen for 1 <= k <= n
        prefix |= c.bucket << digit_shift(L);
        mask |= uint32_t(digit_bins(L) - 1) << digit_shift(L);
        k_rem -= c.above;
        if (c.count == k_rem) break;                      // the whole bucket is needed: stop early
    }                                                     // (the same decision in every block)
    // Keys whose top bits (mask) are above prefix: in the answer (k - k_rem of them); equal to it:
    // "ties" (after all three digits, the k-th key itself), k_rem of them are needed.
    uint32_t n_out = 0, n_tie = 0;
#pragma unroll
    for (int j = 0; j < kSmallItems; ++j) {
        bool valid = base + size_t(j) * kBlock + t < n;
        n_out += valid && (key[j] & mask) > prefix;
        n_tie += Pol::keep_ties && valid && (key[j] & mask) == prefix;
    }
    if (__syncthreads_or(n_out + n_tie != 0)) {          // most blocks hold no result
        uint32_t total;                                   // both counts < 2^13: one scan of n_out | n_tie << 16
        uint32_t offs = scan::block_exclusive_scan<kBlock>(n_out | (n_tie << 16), 0u, total, s_warp);
        if (t == 0) {
            s_base[0] = (total & 0xFFFFu) ? atomicAdd(&st->out_count, total & 0xFFFFu) : 0;
            s_base[1] = (total >> 16) ? atomicAdd(&st->tie_count, total >> 16) : 0;
        }
        __syncthreads();
        uint32_t o = s_base[0] + (offs & 0xFFFFu), ti = s_base[1] + (offs >> 16);
#pragma unroll
        for (int j = 0; j < kSmallItems; ++j) {
            bool valid = base + size_t(j) * kBlock + t < n;
            uint32_t e = uint32_t(base + size_t(j) * kBlock + t);
            if (valid && (key[j] & mask) > prefix) {
                if (o < k) { res_keys[o] = key[j]; res_idx[o] = e; }
                ++o;
            } else if (Pol::keep_ties && valid && (key[j] & mask) == prefix) {
                if (ti < k_rem) { res_keys[k - k_rem + ti] = key[j]; res_idx[k - k_rem + ti] = e; }
                ++ti;
            }
        }
    }
    grid.sync();
    // Every count of this call has been read: leave the state zeroed for the next call.
    for (uint32_t i = blockIdx.x * kBlock + t; i < 3 * kBins; i += gridDim.x * kBlock) (&st->hist[0][0])[i] = 0;
    if (blockIdx.x == 0 && t == 0) { st->out_count = 0; st->tie_count = 0; }
    // Rank: result r goes to position #{results with a larger packed value}. Warp w of the grid
    // takes results w, w + warps, ...; only blocks that own a result load the k results.
    const uint32_t warps = gridDim.x * kSmallWarps, first = blockIdx.x * kSmallWarps;
    if (first >= k) return;
    for (uint32_t i = t; i < k; i += kBlock) s_packed[i] = pack(__ldcg(&res_keys[i]), __ldcg(&res_idx[i]));
    __syncthreads();
    const int lane = t & 31;
    for (uint32_t r = first + t / 32; r < k; r += warps) rank_and_write<1>(s_packed, k, r, lane, in, n, out_vals, out_idx);
}

// The large path's last step: K3 leaves the k results unordered (atomic positions); they are
// ordered by the same counting as the small path's rank phase, spread over ceil(k / 32) blocks:
// each block copies the k results to shared memory (every load issued before the first store),
// each warp ranks 4 of them in one pass. ncu at k = 2048: 33.0 us for one block's bitonic sort
// (66 barrier-separated steps), 11.7 us for this with a load loop and one pass per result, 9.0 us
// as written (TUNING.md).
constexpr uint32_t kRankPerWarp = 4;   // results per warp
// Delta from small_select's rank phase: the same counting, in a launch of its own for the large path's results.
template <class T>
__global__ void __launch_bounds__(kBlock)
rank_results(const T* __restrict__ in, size_t n, const uint32_t* __restrict__ keys, const uint32_t* __restrict__ idx,
             uint32_t k, T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    constexpr int kPerThread = int(kSmallSortMax) / kBlock;
    __shared__ uint64_t s[kSmallSortMax];
    uint32_t key[kPerThread], id[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const uint32_t i = threadIdx.x + uint32_t(u) * kBlock;
        key[u] = i < k ? keys[i] : 0;
        id[u] = i < k ? idx[i] : 0;
    }
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const uint32_t i = threadIdx.x + uint32_t(u) * kBlock;
        if (i < k) s[i] = pack(key[u], id[u]);
    }
    __syncthreads();
    const uint32_t first = (blockIdx.x * kSmallWarps + threadIdx.x / 32) * kRankPerWarp;
    if (first < k) rank_and_write<kRankPerWarp>(s, k, first, int(threadIdx.x & 31), in, n, out_vals, out_idx);
}

// The largest grid small_select can launch with every block resident (0: no cooperative launch):
// blocks per SM from the occupancy of the code compiled (course::resident_blocks; under --plan
// without a GPU, the GPU's limits), capped by its static shared memory and the 3 its launch bounds
// ask for, times the SMs.
template <class T, class Find, class Pol>
int small_grid_max() {
    static int cached = -1;
    if (cached < 0) {
        const course::DeviceInfo& d = course::device();
        int coop = 1;
        if (!course::planning_without_gpu()) {
            int dev = 0;
            CUDA_CHECK(cudaGetDevice(&dev));
            CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        }
        const size_t static_smem = sizeof(uint64_t) * kSmallSortMax + 64;
        int per_sm = std::min(course::resident_blocks(small_select<T, Find, Pol>, kBlock, 0),
                              std::min(3, int(d.smem_per_sm / (static_smem + 1024))));
        cached = coop ? per_sm * d.sm_count : 0;
    }
    return cached;
}

inline unsigned pass_grid(size_t n) {
    // Enough resident blocks to keep HBM busy (about 4 per SM), never more than there are tiles.
    return std::min<unsigned>(course::blocks_for(n, kTile), unsigned(4 * course::device().sm_count));
}

// The plan of one call, from n, k and the GPU: the one-launch path (every tile a resident block),
// or the launch sequence (sampled first from 2^22 keys). --plan prints it; radix_topk runs it.
struct RadixPlan {
    bool one_launch = false;
    unsigned grid = 0;                       // one launch: its cooperative grid; else K0..K3's grid
    bool sampled = false;
    unsigned sample_grid = 0;
};

template <class T, class Find = FindBucket, class Pol = Policy<true>>
RadixPlan plan_radix(size_t n, size_t k) {
    RadixPlan p;
    const size_t tiles = (n + kSmallTile - 1) / kSmallTile;
    const size_t want = std::max<size_t>(tiles, (k + kSmallWarps - 1) / kSmallWarps);   // a warp per result
    const int grid_max = small_grid_max<T, Find, Pol>();   // cached after the first call
    if (k <= kSmallSortMax && tiles <= size_t(grid_max)) {
        p.one_launch = true;
        p.grid = unsigned(std::min<size_t>(want, size_t(grid_max)));
        return p;
    }
    p.grid = pass_grid(n);
    if (n >= kSampleMinN) {
        const size_t big_tiles = (n + kTile - 1) / kTile;
        p.sampled = true;
        p.sample_grid = std::min<unsigned>(unsigned((big_tiles + kSampleStride - 1) / kSampleStride),
                                           unsigned(4 * course::device().sm_count));
    }
    return p;
}

inline std::vector<course::KernelPlan> kernel_plans(const course::Options&, const course::Case& c) {
    const RadixPlan p = plan_radix<float>(c.n, c.param);
    if (p.one_launch)
        return {{"small_select", kBlock, 0, 3, 1,
                 "one cooperative launch of " + std::to_string(p.grid) + " resident blocks (every tile one)"}};
    std::vector<course::KernelPlan> v;
    if (p.sampled) {
        v.push_back({"sample_pass", kBlock, 0, 0, 1, "S0, S1: " + std::to_string(p.sample_grid) + " blocks"});
        v.push_back({"filter_pass", kBlock, 0, 0, 1, "F: " + std::to_string(p.grid) + " blocks"});
    }
    v.push_back({"select_pass", kBlock, 0, 0, 1, "K0..K3: " + std::to_string(p.grid) + " blocks (4 an SM at most)"});
    if (c.param <= kSmallSortMax) v.push_back({"rank_results", kBlock, 0, 0, 1, "order the k results"});
    else v.push_back({"gather_sorted", 256, 0, 0, 1, "after CUB's radix sort of the k results"});
    return v;
}
static course::PlanHook plan_hook(kernel_plans);

template <class T, class Find = FindBucket, class Pol = Policy<true>>
void radix_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    State* st = static_cast<State*>(course::scratch(0, sizeof(State)));
    uint32_t cap = uint32_t(std::min<size_t>(n / 16 + 65536, 0xFFFFFFFFu));
    uint2* all = course::scratch_as<uint2>(1, 3 * size_t(cap));
    Buffers bufs{{all, all + cap, all + 2 * size_t(cap)}, cap};
    uint32_t* out_keys = course::scratch_as<uint32_t>(2, k);
    uint32_t* out_idx = course::scratch_as<uint32_t>(3, k);
    const RadixPlan p = plan_radix<T, Find, Pol>(n, k);
    if (p.one_launch) {
        course::launch_together(small_select<T, Find, Pol>, p.grid, kBlock, 0, d_in, n, uint32_t(k), smallest,
                                small_state(), out_keys, out_idx, d_vals, d_idx);
        return;
    }
    CUDA_CHECK(cudaMemsetAsync(st, 0, sizeof(State)));
    if (p.sampled) {
        size_t tiles = (n + kTile - 1) / kTile, sampled = 0;
        for (size_t s = 0; s < tiles; s += kSampleStride) sampled += std::min<size_t>(kTile, n - s * kTile);
        sample_pass<T, 0, Find><<<p.sample_grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, cap, sampled);
        CUDA_CHECK_LAST();
        sample_pass<T, 1, Find><<<p.sample_grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, cap, sampled);
        CUDA_CHECK_LAST();
        const bool aligned = reinterpret_cast<uintptr_t>(d_in) % 16 == 0;
        filter_pass<T><<<p.grid, kBlock>>>(d_in, n, uint32_t(k), smallest, aligned, st, bufs);
        CUDA_CHECK_LAST();
    }
    const unsigned grid = p.grid;
    select_pass<T, 0, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 1, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 2, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 3, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    if (k <= kSmallSortMax) {
        const uint32_t per_block = kSmallWarps * kRankPerWarp;
        rank_results<T><<<unsigned((k + per_block - 1) / per_block), kBlock>>>(d_in, n, out_keys, out_idx, uint32_t(k), d_vals, d_idx);
        CUDA_CHECK_LAST();
    } else {
        uint32_t* sk = course::scratch_as<uint32_t>(4, k);
        uint32_t* si = course::scratch_as<uint32_t>(5, k);
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, out_keys, sk, out_idx, si, int(k)));
        void* temp = course::scratch(6, bytes);
        CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, bytes, out_keys, sk, out_idx, si, int(k)));
        CUDA_CHECK_LAST();
        gather_sorted<<<course::blocks_for(k, 256), 256>>>(d_in, n, si, k, d_vals, d_idx);
        CUDA_CHECK_LAST();
    }
}

inline Limits limits() {
    Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB sorts the k results with an int count";
    lim.best = true;
    return lim;
}

}  // namespace radix
}  // namespace topk

#ifndef COURSE_NO_MAIN   // exercises/ and wrong/ programs include this file for its kernels
int main(int argc, char** argv) {
    using namespace topk::radix;
    return topk::run_lesson(argc, argv, "topk_05_radix_select", radix_topk<float>, radix_topk<int32_t>,
                            radix_topk<uint32_t>, limits(), {radix_topk<__half>, radix_topk<__nv_bfloat16>});
}
#endif
