// topk_06_sampled_one_launch — the best version: topk_05's digit passes, each end of the size
// range cut down to one read of the input.
//
// What changed vs topk_05_radix_select: (1) large inputs (2^22 keys and up) first guess a
// threshold from a 1/256 sample of the tiles (S0, S1: two digits, 22 bits), then one pass F copies
// the few keys above it to a candidate buffer, and K0..K3 read only that buffer: about 1.01 reads
// of the input instead of K0's full read plus K1's. (2) Small inputs (every 4096-key tile its own
// resident block) run the whole selection in ONE cooperative launch: each block keeps its tile in
// registers and the passes become phases between grid-wide barriers, so the launch gaps, the
// last-block tickets and the second read vanish.
// Cost model: large n: one streaming read (F) plus 1/256 of it (the sample) plus the buffer's few
// k keys; small n: one read and three grid barriers. Limits: n < 2^31 (CUB's int count for k > 4096);
// if the guess misses (fewer than k keys above it, or too many for the buffer) K0 reads the input.
// float16/bfloat16: 16-bit keys in the top half of the 32-bit key (lesson.cuh), 8-byte loads in F.
// Other programs call it through radix_topk.cuh: topk::radix::radix_topk<T>(in, n, k, smallest,
// out_vals, out_idx). The cost of each pass and the tuning runs: TUNING.md.
//
// Build alone:  nvcc -O3 -arch=native -o topk06 topk_06_sampled_one_launch.cu
// Run:          ./topk06 --n 2^28 --k 1024       ./topk06 --test       ./topk06 --sweep --csv r.csv
#include <cmath>
#include <cooperative_groups.h>

#include "order_results.cuh"   // radix_select.cuh's passes, then the k results in order

namespace topk {
namespace radix {
namespace cg = cooperative_groups;

// Sample every 256th tile (2^28 keys: 1 M keys). S0 + S1 count every sampled key: every 32nd tile
// made them 8 times the work, more than its better guess saved.
constexpr int kSampleStride = 256;
// Inputs of at least 2^22 keys are sampled first (S0, S1, then the filter F); smaller ones go
// straight to the passes, where the sample's two extra launches would cost more than they save.
constexpr size_t kSampleMinN = size_t(1) << 22;

// The sample, two launches over every kSampleStride-th tile. S0 (LVL 0) counts digit 0 of the
// sampled keys and picks the bucket of the sample's `target`-th largest key: the sample's share of
// k plus 4 standard deviations + 8, so the guess very likely lies below the true k-th key. S1
// counts digit 1 inside that bucket and picks again: two digits, a 22-bit threshold. S1 also
// estimates the keys above it and whether they fit a candidate buffer (est_ok; if not, F does
// nothing and K0 reads the input).
template <class T, int LVL, class Find>
__global__ void __launch_bounds__(kBlock) sample_pass(const T* __restrict__ in, size_t n, uint32_t k, bool smallest,
                                                      State* st, uint32_t cap, size_t sampled) {
    __shared__ uint32_t s_hist[kBins];
    __shared__ uint32_t s_flag;
    const int t = threadIdx.x;
    if (LVL == 1 && !st->est_ok) return;   // S0 found nothing (the same for every block)
    const uint32_t bucket0 = LVL == 1 ? st->sample_bucket : 0;
    for (int i = t; i < kBins; i += kBlock) s_hist[i] = 0;
    __syncthreads();
    const size_t tiles = (n + kTile - 1) / kTile, stiles = (tiles + kSampleStride - 1) / kSampleStride;
    for (size_t s = blockIdx.x; s < stiles; s += gridDim.x) {
        size_t base = s * kSampleStride * kTile;
        uint32_t key[kItems];
#pragma unroll
        for (int j = 0; j < kItems; ++j) {   // all loads first, unconditional (see select_pass)
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
    for (int i = t; i < kBins; i += kBlock)
        if (s_hist[i]) atomicAdd(&st->sample_hist[LVL][i], s_hist[i]);
    __threadfence();
    __syncthreads();
    if (t == 0) s_flag = atomicAdd(&st->done_blocks[4 + LVL], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_flag) return;
    __threadfence();
    double expect = double(k) * double(sampled) / double(n);
    uint32_t target = uint32_t(std::ceil(expect + 4.0 * std::sqrt(expect) + 8.0));
    if (LVL == 1) target -= st->sample_above;   // keys of the sample above S0's bucket
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

constexpr int kFilterVecs = 8;                       // 16-byte loads per thread and tile
constexpr int kFilterItems = 4 * kFilterVecs;        // 32 keys: 128 bytes in flight a thread
constexpr int kFilterTile = kBlock * kFilterItems;   // 8192 keys

// F: copies every key >= the guessed threshold (with its index) to candidate buffer 0, in any
// order: a stream compaction with a tiny output, so a warp with nothing to keep costs its loads, a
// compare per key and one vote. The last block checks the guess: at least k keys copied means the
// k-th key is >= the threshold, so the answer and all its ties are in the buffer: K0..K3 read it.
template <class T>
__global__ void __launch_bounds__(kBlock)
    filter_pass(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, bool aligned, State* st, Buffers bufs) {
    __shared__ uint32_t s_flag;
    const int t = threadIdx.x;
    if (!st->est_ok) return;   // no usable guess: K0 reads the input
    const uint32_t threshold = st->est_threshold;
    const size_t tiles = (n + kFilterTile - 1) / kFilterTile;
    // Key i of this thread is element base + (v * kBlock + t) * 4 + c for i = 4v + c: each 16-byte
    // load of a warp covers 512 consecutive bytes.
    auto element = [&](size_t base, int i) { return base + (size_t(i / 4) * kBlock + t) * 4 + i % 4; };
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * kFilterTile;
        uint32_t w[kFilterItems];
        if (aligned && base + kFilterTile <= n) {   // a whole tile: 16-byte loads (8-byte: 16-bit types)
            if constexpr (sizeof(T) == 4) {
                const uint4* v4 = reinterpret_cast<const uint4*>(in + base);
#pragma unroll
                for (int v = 0; v < kFilterVecs; ++v) {
                    uint4 q = v4[v * kBlock + t];
                    w[4 * v] = q.x;
                    w[4 * v + 1] = q.y;
                    w[4 * v + 2] = q.z;
                    w[4 * v + 3] = q.w;
                }
            } else {
                const uint2* v2 = reinterpret_cast<const uint2*>(in + base);
#pragma unroll
                for (int v = 0; v < kFilterVecs; ++v) {
                    uint2 q = v2[v * kBlock + t];
                    w[4 * v] = q.x & 0xFFFFu;
                    w[4 * v + 1] = q.x >> 16;
                    w[4 * v + 2] = q.y & 0xFFFFu;
                    w[4 * v + 3] = q.y >> 16;
                }
            }
        } else {   // the last tile (or a misaligned input)
#pragma unroll
            for (int i = 0; i < kFilterItems; ++i) {
                size_t e = element(base, i);
                w[i] = e < n ? bits_of(in[e]) : 0u;
            }
        }
        uint32_t keep = 0, n_keep = 0;   // keep: bit i for key i
#pragma unroll
        for (int i = 0; i < kFilterItems; ++i) {
            w[i] = to_key(from_bits<T>(w[i]), smallest);
            bool kept = element(base, i) < n && w[i] >= threshold;
            keep |= uint32_t(kept) << i;
            n_keep += kept;
        }
        // No barrier in the tile loop: each warp votes alone; a warp with survivors reserves its
        // slots with one global atomic (lane 31 adds the warp scan's total) and writes them. The
        // survivors are read again (just loaded, likely cached) rather than kept in w[] across the
        // atomic: F stays within 64 registers (keeping w[] took 80: a second wave of blocks).
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

// ---- small inputs: the whole selection in ONE cooperative launch ------------------------------------
// At n = 2^20 (4 MB) the launch sequence (memset, K0..K3, a sort: six launches with their gaps and
// tickets, the input read twice) spends its time on everything but the data. Here every block loads
// ONE tile (16 keys a thread: the best of 8, 16, 32) into registers; the passes become phases
// between grid-wide barriers (cooperative launch: every block resident, no deadlock): three times
// count the candidates' next digit, barrier, and EVERY block finds the bucket itself (no broadcast);
// then write (> k-th: a slot; == k-th: a tie ticket), barrier, and rank (rank_and_write). Used when
// k <= kSmallSortMax and every tile gets its own resident block (n = 2^20 fits on an H100).
constexpr int kSmallItems = 16, kSmallTile = kBlock * kSmallItems;

// The small path's state: the kernel leaves it zeroed (its last phase), so one memset when first used.
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

// The one-launch selection. Three blocks per SM asked of the compiler: left alone it took 201
// registers (one block per SM, so 2^20's 256 tiles no longer fit a cooperative grid on 132 SMs and
// the call fell back to the launch sequence); with 3 it takes 80 registers, no spill.
template <class T, class Find, class Pol>
__global__ void __launch_bounds__(kBlock, 3)
    small_select(const T* __restrict__ in, size_t n, uint32_t k, bool smallest, SmallState* st,
                 uint32_t* __restrict__ res_keys, uint32_t* __restrict__ res_idx, T* __restrict__ out_vals,
                 uint32_t* __restrict__ out_idx) {
    __shared__ uint64_t s_packed[kSmallSortMax];   // the k results (rank phase); the bins before
    __shared__ uint32_t s_warp[kBlock / 32];
    __shared__ uint32_t s_base[2];
    uint32_t* s_hist = reinterpret_cast<uint32_t*>(s_packed);
    cg::grid_group grid = cg::this_grid();
    const int t = threadIdx.x;
    const size_t base = size_t(blockIdx.x) * kSmallTile;   // blocks past the last tile hold nothing
    uint32_t key[kSmallItems];
#pragma unroll
    for (int j = 0; j < kSmallItems; ++j) {   // all loads first, unconditional (see select_pass)
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
        __syncthreads();                      // every thread is done with the bins
        if (!c.found) c = {0, 0, 0, false};   // cannot happen for 1 <= k <= n
        prefix |= c.bucket << digit_shift(L);
        mask |= uint32_t(digit_bins(L) - 1) << digit_shift(L);
        k_rem -= c.above;
        if (c.count == k_rem) break;   // the whole bucket is needed: stop early
    }                                  // (the same decision in every block)
    // Keys whose top bits (mask) are above prefix: in the answer (k - k_rem of them); equal to it:
    // "ties" (after all three digits, the k-th key itself), k_rem of them are needed.
    uint32_t n_out = 0, n_tie = 0;
#pragma unroll
    for (int j = 0; j < kSmallItems; ++j) {
        bool valid = base + size_t(j) * kBlock + t < n;
        n_out += valid && (key[j] & mask) > prefix;
        n_tie += Pol::keep_ties && valid && (key[j] & mask) == prefix;
    }
    if (__syncthreads_or(n_out + n_tie != 0)) {   // most blocks hold no result
        uint32_t total;                           // both counts < 2^13: one scan of n_out | n_tie << 16
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
                if (o < k) {
                    res_keys[o] = key[j];
                    res_idx[o] = e;
                }
                ++o;
            } else if (Pol::keep_ties && valid && (key[j] & mask) == prefix) {
                if (ti < k_rem) {
                    res_keys[k - k_rem + ti] = key[j];
                    res_idx[k - k_rem + ti] = e;
                }
                ++ti;
            }
        }
    }
    grid.sync();
    // Every count of this call has been read: leave the state zeroed for the next call.
    for (uint32_t i = blockIdx.x * kBlock + t; i < 3 * kBins; i += gridDim.x * kBlock) (&st->hist[0][0])[i] = 0;
    if (blockIdx.x == 0 && t == 0) {
        st->out_count = 0;
        st->tie_count = 0;
    }
    // Rank: result r goes to position #{results with a larger packed value}. Warp w of the grid
    // takes results w, w + warps, ...; only blocks that own a result load the k results.
    const uint32_t warps = gridDim.x * kSmallWarps, first = blockIdx.x * kSmallWarps;
    if (first >= k) return;
    for (uint32_t i = t; i < k; i += kBlock) s_packed[i] = pack(__ldcg(&res_keys[i]), __ldcg(&res_idx[i]));
    __syncthreads();
    const int lane = t & 31;
    for (uint32_t r = first + t / 32; r < k; r += warps)
        rank_and_write<1>(s_packed, k, r, lane, in, n, out_vals, out_idx);
}

// The largest grid small_select can launch with every block resident (0: no cooperative launch):
// blocks per SM from the compiled code's occupancy (--plan without a GPU: the GPU's limits), capped
// by its shared memory and its launch bounds' 3, times the SMs.
template <class T, class Find, class Pol> int small_grid_max() {
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

// The plan of one call, from n, k and the GPU: the one-launch path (every tile a resident block),
// or the launch sequence (sampled first from 2^22 keys). --plan prints it; radix_topk runs it.
struct RadixPlan {
    bool one_launch = false;
    unsigned grid = 0;   // one launch: its cooperative grid; else K0..K3's grid
    bool sampled = false;
    unsigned sample_grid = 0;
};

template <class T, class Find = FindBucket, class Pol = Policy<true>> RadixPlan plan_radix(size_t n, size_t k) {
    RadixPlan p;
    const size_t tiles = (n + kSmallTile - 1) / kSmallTile;
    const size_t want = std::max<size_t>(tiles, (k + kSmallWarps - 1) / kSmallWarps);   // a warp per result
    const int grid_max = small_grid_max<T, Find, Pol>();                                // cached after the first call
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
    const PassScratch sc = pass_scratch(n, k);
    const RadixPlan p = plan_radix<T, Find, Pol>(n, k);
    if (p.one_launch) {
        course::launch_together(small_select<T, Find, Pol>, p.grid, kBlock, 0, d_in, n, uint32_t(k), smallest,
                                small_state(), sc.out_keys, sc.out_idx, d_vals, d_idx);
        return;
    }
    State* st = sc.st;
    CUDA_CHECK(cudaMemsetAsync(st, 0, sizeof(State)));
    if (p.sampled) {
        size_t tiles = (n + kTile - 1) / kTile, sampled = 0;
        for (size_t s = 0; s < tiles; s += kSampleStride) sampled += std::min<size_t>(kTile, n - s * kTile);
        sample_pass<T, 0, Find><<<p.sample_grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, sc.bufs.cap, sampled);
        CUDA_CHECK_LAST();
        sample_pass<T, 1, Find><<<p.sample_grid, kBlock>>>(d_in, n, uint32_t(k), smallest, st, sc.bufs.cap, sampled);
        CUDA_CHECK_LAST();
        const bool aligned = reinterpret_cast<uintptr_t>(d_in) % 16 == 0;
        filter_pass<T><<<p.grid, kBlock>>>(d_in, n, uint32_t(k), smallest, aligned, st, sc.bufs);
        CUDA_CHECK_LAST();
    }
    run_passes<T, Find, Pol>(d_in, n, k, smallest, sc.st, sc.bufs, sc.out_keys, sc.out_idx, p.grid);
    order_results(d_in, n, k, sc.out_keys, sc.out_idx, d_vals, d_idx);
}

inline Limits limits() {
    Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB sorts the k results with an int count";
    lim.best = true;
    return lim;
}

}   // namespace radix
}   // namespace topk

#ifndef COURSE_NO_MAIN   // radix_topk.cuh includes this file without its main
int main(int argc, char** argv) {
    using namespace topk::radix;
    return topk::run_lesson(argc, argv, "topk_06_sampled_one_launch", radix_topk<float>, radix_topk<int32_t>,
                            radix_topk<uint32_t>, limits(), {radix_topk<__half>, radix_topk<__nv_bfloat16>});
}
#endif
