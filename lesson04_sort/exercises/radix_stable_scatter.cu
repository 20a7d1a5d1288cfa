// exercises/radix_stable_scatter — the STABLE rank by digit of every key of a tile, the heart of
// one multi-bit radix pass: 07_radix_multibit's pass (README_radix.md) with the ranking cut out.
// `stable_rank` below gives every key rank 0, so the checker fails every case beyond one key.
// TODO: fill rank[j] for each of this thread's kItems keys:
//   rank = (keys in the tile with a smaller digit) + (keys with the SAME digit at a smaller index)
// Item j of lane l in warp w has index w*32*kItems + j*32 + l. Ranks must be a permutation of
// 0..kTile-1 (padding keys past n have the largest digit and indices, so they rank last alone).
// Hints, the notes' three steps (README_radix.md, 07):
//  * Per warp, per item j: peers = __match_any_sync(0xFFFFFFFF, digit[j]), the lanes with the same
//    digit (radix.cuh gets the same mask from 8 ballots, scan::match_low_bits<8>, in
//    lesson02_scan/primitives.cuh); __popc(peers & ((1u << lane) - 1)) of them come before this lane.
//  * A counter per (warp, digit) in shared memory (s.warp_count[warp][digit], zeroed first): all
//    peers read it, __syncwarp(), the lowest peer adds __popc(peers), __syncwarp(). No atomics.
//  * Per digit (thread t, digit t): an exclusive scan over the warps of their counts, then one over
//    the digit totals: scan::block_exclusive_scan<kBlock>(total, 0u, all, s.scan_tmp), in
//    lesson02_scan/primitives.cuh (included through ../../lesson02_scan/scan.cuh). rank = digit
//    start + earlier warps' count of the digit + rank in the warp. (Why not atomicAdd? wrong/unstable_digit_pass.cu.)
// Check:  make grade EX=radix_stable_scatter   (exit 0 once done; the pairs cases check stability):
//         by hand: make build/lesson04_sort/exercises/radix_stable_scatter, then run it with --test --quick
// Solution: radix.cuh, TileRank::warp_ranks and TileRank::finish (used by 07 and 08).
#include "../../lesson02_scan/scan.cuh"
#include "../radix.cuh"

namespace {

constexpr int kBlock = 256, kItems = 15;
constexpr int kWarps = kBlock / 32, kTile = kBlock * kItems;

struct RankStorage {
    uint32_t warp_count[kWarps][radix::kDigits];
    uint32_t digit_start[radix::kDigits];
    uint32_t scan_tmp[kWarps];
};

// Every thread of the block calls this (it may contain __syncthreads()).
__device__ void stable_rank(const uint32_t (&digit)[kItems], uint32_t (&rank)[kItems], RankStorage& s) {
    (void)digit;
    (void)s;
#pragma unroll
    for (int j = 0; j < kItems; ++j) rank[j] = 0;   // TODO: the stable rank (see the header)
}

// --- given: the rest of a pass (as in 07) ------------------------------------------------------

// Counting is radix::count_digits (radix.cuh), as in 07.

// 07's scatter pass; only the ranking (stable_rank above) is left to write.
template <class K, class U, bool kFirst, bool kLast, bool kPairs>
__global__ void __launch_bounds__(kBlock) scatter_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst,
                                                       size_t n, int shift, const uint32_t* offsets, size_t tiles) {
    __shared__ RankStorage storage;
    __shared__ U s_codes[kTile];
    __shared__ uint32_t s_vals[kPairs ? kTile : 1];
    __shared__ long long s_offset[radix::kDigits];
    __shared__ uint32_t s_hist[radix::kDigits];
    const size_t tile_base = size_t(blockIdx.x) * kTile;
    const uint32_t valid = n - tile_base < size_t(kTile) ? uint32_t(n - tile_base) : uint32_t(kTile);
    U code[kItems];
    uint32_t digit[kItems], rank[kItems];
    radix::load_codes<K, U, kBlock, kItems, kFirst>(src, n, tile_base, code);
#pragma unroll
    for (int j = 0; j < kItems; ++j) digit[j] = radix::digit_of(code[j], shift);
    // The digit starts in the tile, computed independently of your ranks (a plain histogram), so
    // the scatter's offsets are right whatever stable_rank does.
    s_hist[threadIdx.x] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kItems; ++j) atomicAdd(&s_hist[digit[j]], 1u);
    __syncthreads();
    uint32_t all = 0;
    uint32_t start = scan::block_exclusive_scan<kBlock>(s_hist[threadIdx.x], 0u, all, storage.scan_tmp);
    s_offset[threadIdx.x] = (long long)offsets[size_t(threadIdx.x) * tiles + blockIdx.x] - (long long)start;
    __syncthreads();

    stable_rank(digit, rank, storage);

#pragma unroll
    for (int j = 0; j < kItems; ++j) s_codes[rank[j] % kTile] = code[j];
    if constexpr (kPairs) {
        uint32_t val[kItems];
        radix::load_values<kItems>(vsrc, n, tile_base, val);
#pragma unroll
        for (int j = 0; j < kItems; ++j) s_vals[rank[j] % kTile] = val[j];
    }
    __syncthreads();
    // The scatter of radix.cuh, plus a bounds check: with wrong ranks, slots of s_codes hold
    // leftovers whose digits would send them anywhere (07 needs no check: its ranks are right).
    for (uint32_t i = threadIdx.x; i < valid; i += kBlock) {
        U c = s_codes[i];
        size_t pos = size_t(s_offset[radix::digit_of(c, shift)] + (long long)i);
        if (pos >= n) continue;
        if constexpr (kLast) static_cast<K*>(dst)[pos] = sorting::Ordered<K>::from(c);
        else static_cast<U*>(dst)[pos] = c;
        if constexpr (kPairs) vdst[pos] = s_vals[i];
    }
}

template <class K, class U, bool kFirst, bool kLast, bool kPairs>
void one_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift) {
    const size_t tiles = (n + kTile - 1) / kTile;
    const unsigned grid = course::blocks_for(n, kTile);
    uint32_t* counts = course::scratch_as<uint32_t>(3, tiles * radix::kDigits);
    uint32_t* offsets = course::scratch_as<uint32_t>(4, tiles * radix::kDigits);
    radix::count_digits<K, U, kBlock, kItems, kFirst><<<grid, kBlock>>>(src, n, shift, counts, tiles);
    CUDA_CHECK_LAST();
    scan::device_scan(counts, offsets, tiles * radix::kDigits, scan::Kind::exclusive);
    scatter_pass<K, U, kFirst, kLast, kPairs><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, shift, offsets, tiles);
    CUDA_CHECK_LAST();
}

template <bool kPairs> void sort(const uint32_t* in, uint32_t* out, const uint32_t* vin, uint32_t* vout, size_t n) {
    if (n == 0) return;
    uint32_t* tmp = course::scratch_as<uint32_t>(1, n);
    uint32_t* vtmp = kPairs ? course::scratch_as<uint32_t>(2, n) : nullptr;
    one_pass<uint32_t, uint32_t, true, false, kPairs>(in, tmp, vin, vtmp, n, 0);
    one_pass<uint32_t, uint32_t, false, false, kPairs>(tmp, out, vtmp, vout, n, 8);
    one_pass<uint32_t, uint32_t, false, false, kPairs>(out, tmp, vout, vtmp, n, 16);
    one_pass<uint32_t, uint32_t, false, true, kPairs>(tmp, out, vtmp, vout, n, 24);
}

void keys_fn(const uint32_t* in, uint32_t* out, size_t n) { sort<false>(in, out, nullptr, nullptr, n); }
void pairs_fn(const uint32_t* ki, const uint32_t* vi, uint32_t* ko, uint32_t* vo, size_t n) {
    sort<true>(ki, ko, vi, vo, n);
}

}   // namespace

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = keys_fn;
    s.pairs = pairs_fn;
    return sorting::run_lesson(argc, argv, "radix_stable_scatter", s);
}
