// lesson01_topk/radix_select.cuh — radix select's digit passes, shared by topk_05_radix_select and
// topk_06_sampled_one_launch: the key's digits (11 + 11 + 10 bits), the device state, choosing the
// bucket of the k-th key from a histogram (FindBucket; the exercise choose_bucket writes it), and
// the pass kernel K0..K3 (select_pass). order_results.cuh puts the k results in order after.
//
//   PassScratch sc = pass_scratch(n, k);     // state, candidate buffers, the k results
//   cudaMemsetAsync(sc.st, 0, sizeof(State));
//   run_passes<T, Find, Pol>(d_in, n, k, smallest, sc.st, sc.bufs, sc.out_keys, sc.out_idx, grid);
//
// The state holds the fields of topk_06's sampled guess too; zeroed, they make K0 read the input.
#pragma once
#include "../lesson02_scan/primitives.cuh"
#include "bitonic.cuh"
#include "lesson.cuh"

namespace topk {
namespace radix {

constexpr int kBlock = 256, kItems = 16, kTile = kBlock * kItems;   // 4096 elements per tile
constexpr int kBins = 2048;                                         // 11-bit digits

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
    uint32_t above;            // answer elements known above the k-th key's bucket so far
    uint32_t mode;             // for the next pass
    uint32_t src, src_count;   // next pass reads: 0 the input, 1 + b candidate buffer b (src_count of them)
    uint32_t write_buf;        // the next pass copies its candidates to its buffer
    uint32_t buf_count[3];
    uint32_t sample_bucket, sample_above;   // S0's choice, for S1
    uint32_t est_threshold, est_ok;         // the guess (keys >= it go to the buffer), and whether F runs
    uint32_t out_count, tie_count;
    uint32_t not_min[3], max[3];   // over the keys counted in pass L (atomicMax of ~key and of key)
    uint32_t done_blocks[7];       // K0..K3, S0, S1, F
};

// ---- choosing the bucket (exercise 3) -------------------------------------------------------------
// Finds the bucket b of the k-th largest: above = hist[bins-1] + ... + hist[b+1] < target and
// above + hist[b] >= target. Every thread of the block (kBlock) calls it; the result is returned to
// all. found = false when the histogram holds fewer than `target` keys.
struct Choice {
    uint32_t bucket, above, count;
    bool found;
};

struct FindBucket {
    __device__ static Choice apply(const uint32_t* hist, int bins, uint32_t target) {
        __shared__ uint32_t s_warp[kBlock / 32];
        __shared__ Choice s_choice;
        const int per = bins / kBlock;   // 8 (or 4) bins per thread, from the top down
        const int t = threadIdx.x;
        uint32_t mine = 0;
        for (int j = 0; j < per; ++j) mine += hist[bins - 1 - (t * per + j)];
        if (t == 0) s_choice = {0, 0, 0, false};
        uint32_t total;
        uint32_t before = scan::block_exclusive_scan<kBlock>(mine, 0u, total, s_warp);   // keys in higher bins
        if (before < target && before + mine >= target) {   // exactly one thread's range crosses
            uint32_t run = before;
            for (int j = 0; j < per; ++j) {
                uint32_t b = bins - 1 - (t * per + j), h = hist[b];
                if (run + h >= target) {
                    s_choice = {b, run, h, true};
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
};

// ---- helpers --------------------------------------------------------------------------------------

// Counts `dv` (< 2048) into a shared histogram: one shared atomic per counted key, even when many
// lanes of a warp hold the same digit. Grouping equal digits first (12 ballots, then one atomic of
// the group's size) looked cheaper and measured slower, even on uniform floats, whose top digits
// pile onto four bins: the ballots cost more than the atomics' contention. All lanes of a warp may
// call it (no warp-wide step).
__device__ __forceinline__ void count_digit(uint32_t* s_hist, bool counted, uint32_t dv) {
    if (counted) atomicAdd(&s_hist[dv], 1u);
}

// A key's raw bits and back (16-bit types in the low half), for loads wider than the type.
template <class T> __device__ __forceinline__ T from_bits(uint32_t w) {
    if constexpr (std::is_same_v<T, float>) return __uint_as_float(w);
    else if constexpr (is_half_float<T>) return half_from_bits<T>(uint16_t(w));
    else return T(w);
}
template <class T> __device__ __forceinline__ uint32_t bits_of(T v) {
    if constexpr (is_half_float<T>) return half_bits(v);
    else return reinterpret_cast<const uint32_t&>(v);
}

// Class of one element in a pass.
enum Cls : uint8_t { kNone = 0, kOut = 1, kTie = 2, kCount = 4, kBuf = 8 };

struct Buffers {
    uint2* b[3];
    uint32_t cap;
};

template <bool kKeepTies> struct Policy { static constexpr bool keep_ties = kKeepTies; };

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
    if (mode == kFinished) return;   // the same for every block: nobody counts
    const uint32_t src = st->src;    // 0: the input; 1 + b: buffer b
    const size_t count = src == 0 ? n : st->src_count;
    const uint2* buf_in = src == 0 ? nullptr : bufs.b[src - 1];
    const bool counting = LEVEL < 3 && mode == kContinue;
    const bool write_buf = LEVEL > 0 && LEVEL < 3 && st->write_buf != 0;
    uint2* buf_out = bufs.b[LEVEL < 3 ? LEVEL : 0];
    const uint32_t k_rem = k - (LEVEL == 0 ? 0 : st->above);
    const uint32_t pm = LEVEL >= 2 ? st->mask[LEVEL - 2] : 0, pp = LEVEL >= 2 ? st->prefix[LEVEL - 2] : 0;
    const uint32_t b_prev = LEVEL >= 1 ? st->bucket[LEVEL - 1] : 0;
    if (counting)
        for (int i = t; i < kBins; i += kBlock) s_hist[i] = 0;
    uint32_t kmin = 0xFFFFFFFFu, kmax = 0;
    __syncthreads();

    // Keys per thread: 16, except on a candidate buffer that the grid covers with one key a
    // thread. After F the buffer holds a few thousand keys: 16 a thread put them all on one or two
    // blocks, whose 16 chained count_digit calls were the pass's time. A larger buffer keeps 16
    // (2 to 15 a thread, sized to the grid, was slower).
    const size_t grid_keys = size_t(gridDim.x) * kBlock;
    const int items = (src == 0 || count > grid_keys) ? kItems : 1;
    const size_t tile_keys = size_t(items) * kBlock;
    const size_t tiles = (count + tile_keys - 1) / tile_keys;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        if (mode == kTiesOnly) {   // enough ties taken (by any block): stop
            if (t == 0) s_flag = *(volatile uint32_t*)&st->tie_count >= k_rem;
            __syncthreads();
            if (s_flag) break;
        }
        uint32_t key[kItems], idx[kItems];
        uint8_t cls[kItems];
        uint32_t n_out = 0, n_tie = 0, n_buf = 0;
        // Every load of the tile first, unconditionally (past the end: the last element again,
        // masked out below), then the work. A load under `if (e < count)` became a branch per
        // item with its use inside, so the 16 loads waited for DRAM one after another (the
        // stalls sat evenly on the 16 first uses) and the kernel ran at a fraction of the bandwidth.
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
                } else if ((key[j] & pm) == pp) {   // a candidate of the level before
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
                if (cnt) {
                    kmin = min(kmin, key[j]);
                    kmax = max(kmax, key[j]);
                }
            }
            n_out += (c & kOut) != 0;
            n_tie += (c & kTie) != 0;
            n_buf += (c & kBuf) != 0;
        }
        if constexpr (LEVEL == 0) continue;   // K0 only counts
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
                if (o < k) {
                    out_keys[o] = key[j];
                    out_idx[o] = idx[j];
                }
                ++o;
            }
            if (c & kTie) {   // the first k_rem tickets win
                if (ti < k_rem) {
                    out_keys[k - k_rem + ti] = key[j];
                    out_idx[k - k_rem + ti] = idx[j];
                }
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
        if ((t & 31) == 0 && mx >= ~nm) {   // this warp counted something
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
    if (!counting) {   // this pass wrote the rest of the answer
        if (t == 0) st->mode = kFinished;
        return;
    }
    constexpr int L = LEVEL < 3 ? LEVEL : 0;
    // __ldcg: read at L2, where the other blocks' atomics landed (never a stale L1 line).
    for (int i = t; i < digit_bins(L); i += kBlock) s_hist[i] = __ldcg(&st->hist[L][i]);
    __syncthreads();
    Choice c = Find::apply(s_hist, digit_bins(L), k_rem);
    if (t == 0) {
        if (!c.found) c = {0, 0, 0, false};   // cannot happen for 1 <= k <= n
        uint32_t b = c.bucket;
        uint32_t rest = k_rem - c.above;   // still needed from bucket b
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

inline unsigned pass_grid(size_t n) {
    // Enough resident blocks to keep HBM busy (about 4 per SM), never more than there are tiles.
    return std::min<unsigned>(course::blocks_for(n, kTile), unsigned(4 * course::device().sm_count));
}

// One call's device scratch: the state, three candidate buffers of n/16 + 65536 pairs, the k results.
struct PassScratch {
    State* st;
    Buffers bufs;
    uint32_t* out_keys;
    uint32_t* out_idx;
};
inline PassScratch pass_scratch(size_t n, size_t k) {
    State* st = static_cast<State*>(course::scratch(0, sizeof(State)));
    uint32_t cap = uint32_t(std::min<size_t>(n / 16 + 65536, 0xFFFFFFFFu));
    uint2* all = course::scratch_as<uint2>(1, 3 * size_t(cap));
    Buffers bufs{{all, all + cap, all + 2 * size_t(cap)}, cap};
    return {st, bufs, course::scratch_as<uint32_t>(2, k), course::scratch_as<uint32_t>(3, k)};
}

// K0..K3 on `grid` blocks: K0 counts digit 0 of what it reads (the input, or the sampled buffer
// when topk_06's filter left one), K1 and K2 filter by the digit before and count the next, K3
// writes the rest of the answer. Each pass's last block decides what the next one does.
template <class T, class Find, class Pol>
void run_passes(const T* d_in, size_t n, size_t k, bool smallest, State* st, Buffers bufs, uint32_t* out_keys,
                uint32_t* out_idx, unsigned grid) {
    select_pass<T, 0, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 1, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 2, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
    select_pass<T, 3, Find, Pol><<<grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, bufs, out_keys, out_idx);
    CUDA_CHECK_LAST();
}

}   // namespace radix
}   // namespace topk
