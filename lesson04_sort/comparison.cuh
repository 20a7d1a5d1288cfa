// lesson04_sort/comparison.cuh — the pieces the comparison sorts (01-05, 09) share.
//
//   compare_exchange            the one operation of every sorting network
//   bitonic_pair / block_bitonic_sort / bitonic_tile_sort_kernel
//                               the always-ascending bitonic network for ANY n, in one tile
//                               (03, 04, 09; 03_bitonic.cu adds the steps across tiles)
//   count_less / count_less_equal
//                               the binary-search ranks of the simple merge (04)
//   merge_path                  the diagonal split of a merge (05)
//   serial_merge_select         one thread's outputs of a merge, one load per output (05)
//   warp_stripe                 05's warp-local staging of merge outputs
//   run_pair / tile_span        05's tiling of a merge pass (a position's run pair; where a tile's
//                               A and B pieces are)
//
// Everything compares keys through sorting::key_less (lesson.cuh), i.e. through the ordered codes:
// int32 by two's complement, float32 with -0.0 < +0.0 and NaNs after +inf. Sorting K directly and
// comparing codes keeps every bit of every key: nothing is converted and converted back.
//
// The pure functions here are __host__ __device__ so tests/lesson04_merge_host.cu checks them on
// the CPU against brute force (merge_path, the ranks, the bitonic network on non-powers of two).
#pragma once
#include <cstddef>
#include <cstdint>

#include "lesson.cuh"

namespace sorting {
namespace cmp {

// ---- the network's one operation -------------------------------------------------------------

// After the call a <= b. Swapping only when b < a (strictly) leaves equal keys in place.
template <class K> __host__ __device__ __forceinline__ void compare_exchange(K& a, K& b) {
    if (key_less(b, a)) {
        K t = a;
        a = b;
        b = t;
    }
}

__host__ __device__ inline size_t next_pow2(size_t n) {
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

// ---- bitonic sort for any n ------------------------------------------------------------------
//
// The classic network alternates ascending and descending blocks. This one (sometimes called the
// "always ascending" form) replaces the first step of each merge stage by a FLIP: with blocks of
// size k, element i of the lower half is compared with its mirror k-1-i in the upper half; the
// remaining steps are the usual half-cleaners (i with i + j, j = k/4 .. 1). Every compare-exchange
// puts the smaller key at the LOWER index. That is what makes any n work:
//
//   Pad the input virtually to P = next power of two with +infinity. A compare-exchange (i, p),
//   i < p, with p >= n would compare a real key with +infinity: the real key stays at i, the
//   infinity stays at p. So positions >= n hold +infinity forever, and the step can be SKIPPED.
//   Nothing is padded in memory and no key value is reserved as a sentinel.
//
// (In the alternating form the descending blocks move the infinities DOWN into the real range,
// so skipping is wrong: wrong/bitonic_power_of_two.cu is that mistake.)
//
// Stage k (block size k = 2, 4, ..., P), step j (j = k/2 for the flip, then k/4, ..., 1):
// pair number t (0 <= t < P/2) maps to its lower index i and partner p:
__host__ __device__ __forceinline__ void bitonic_pair(size_t t, size_t k, size_t j, size_t& i, size_t& p) {
    if (j == k / 2) {   // the flip: i in the lower half of its block, p its mirror
        size_t block = t / j, r = t % j;
        i = block * k + r;
        p = block * k + (k - 1 - r);
    } else {   // half-cleaner: i has bit j clear, p = i + j
        i = (t / j) * 2 * j + t % j;
        p = i + j;
    }
}

// One block sorts `count` <= BLOCK*ITEMS keys in shared memory (s has room for BLOCK*ITEMS).
// `in` and `out` may be the same array (all keys are in shared memory before any is written).
// Used as the tile sort of 03 and 04 and as the small-segment sort of 09. Not stable.
template <int BLOCK, int ITEMS, class K> __device__ void block_bitonic_sort(const K* in, K* out, int count, K* s) {
    for (int x = threadIdx.x; x < count; x += BLOCK) s[x] = in[x];
    __syncthreads();
    const int pow2 = int(next_pow2(size_t(count)));
    for (int k = 2; k <= pow2; k *= 2) {
        for (int j = k / 2; j >= 1; j /= 2) {
            for (int t = threadIdx.x; t < pow2 / 2; t += BLOCK) {
                size_t i, p;
                bitonic_pair(size_t(t), size_t(k), size_t(j), i, p);
                if (p < size_t(count)) compare_exchange(s[i], s[p]);   // p >= count: +inf, skip
            }
            __syncthreads();
        }
    }
    for (int x = threadIdx.x; x < count; x += BLOCK) out[x] = s[x];
}

// The tile kernel around block_bitonic_sort: sort each TILE-sized tile (03, 04). 03_bitonic.cu
// holds the rest of the network for n > TILE (its global steps and its in-tile merge tail).
template <int BLOCK, int ITEMS, class K>
__global__ void __launch_bounds__(BLOCK) bitonic_tile_sort_kernel(const K* in, K* out, size_t n) {
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ K s[TILE];
    const size_t base = size_t(blockIdx.x) * TILE;
    const int count = int(n - base < size_t(TILE) ? n - base : size_t(TILE));
    block_bitonic_sort<BLOCK, ITEMS>(in + base, out + base, count, s);
}
// ---- ranks for the simple merge (04) ---------------------------------------------------------

// Number of keys in sorted b[0, nb) strictly less than key (lower bound).
template <class K> __host__ __device__ inline size_t count_less(const K* b, size_t nb, K key) {
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_less(b[mid], key)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
// Number of keys in sorted a[0, na) less than or equal to key (upper bound).
template <class K> __host__ __device__ inline size_t count_less_equal(const K* a, size_t na, K key) {
    size_t lo = 0, hi = na;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (!key_less(key, a[mid])) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
// Stable merge by ranks: a[i] goes to i + count_less(b, a[i]); b[j] goes to j + count_less_equal(a, b[j]).
// Ties: every a key equal to b[j] is counted before b[j], so equal keys keep a before b.

// ---- merge path (05) -------------------------------------------------------------------------
//
// Merging sorted a[0, na) and b[0, nb) writes na + nb outputs. The first `diag` outputs consist of
// some i keys of a and diag - i keys of b; merge_path returns that i. It is the smallest i with
// b[diag-1-i] < a[i] (the i-th key of a is NOT among the first diag outputs because a smaller b key
// is), found by binary search on the cross diagonal. Ties go to a (a[i] <= b[...] takes a first),
// the same rule as the serial merge, so cutting the merge at any diagonals and merging the pieces
// independently gives exactly the stable merge.
// a and b are anything indexable (pointers, or 05's padded shared-memory views). I is the index
// type: size_t for searches in global memory; int inside a tile in shared memory, where 64-bit
// arithmetic would double the instructions of every step (05's tile sort: ncu, TUNING.md).
template <class SeqA, class SeqB, class I>
__host__ __device__ inline I merge_path(const SeqA& a, I na, const SeqB& b, I nb, I diag) {
    I lo = diag > nb ? diag - nb : 0;
    I hi = diag < na ? diag : na;
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if (key_less(b[diag - 1 - mid], a[mid])) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

// ---- the one-load serial merge (05_merge_path's lean kernel and tile sort) -------------------
//
// One thread's share of a merge: ITEMS outputs from the two sorted lists s[a_pos, a_end) and
// s[b_pos, b_end) of ONE indexable sequence s (in 05, the tile's A piece followed by its B piece in
// shared memory), ties to a. For every output it also returns `pos`, where that key sits in s, so
// that a value (pairs) can be gathered afterwards with independent loads.
// Why this form: each step chooses the side with a compare and a select, then issues ONE load, of
// the next key of the side it just consumed (a load predicated off at the list's end), instead of
// two branches that each carry their own load. The loop is bounded by the list ends, not by an
// output count: once both lists are exhausted the remaining outputs are junk and the caller does
// not write them. No position outside [a_pos, a_end) and [b_pos, b_end) is ever read.
template <int ITEMS, class Seq, class K>
__host__ __device__ __forceinline__ void serial_merge_select(const Seq& s, int a_pos, int a_end, int b_pos, int b_end,
                                                             K (&keys)[ITEMS], int (&pos)[ITEMS]) {
    K ka = a_pos < a_end ? s[a_pos] : K();
    K kb = b_pos < b_end ? s[b_pos] : K();
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
        const bool take_b = b_pos < b_end && (a_pos >= a_end || key_less(kb, ka));
        keys[it] = take_b ? kb : ka;
        const int p = take_b ? b_pos : a_pos;
        pos[it] = p;
        const int next = p + 1;
        if (take_b) b_pos = next;
        else a_pos = next;
        if (next < (take_b ? b_end : a_end)) {   // the one load of this step
            const K k = s[next];
            if (take_b) kb = k;
            else ka = k;
        }
    }
}

// 05's tiling of one merge pass (runs of `width` -> runs of 2 x width): output tile t (`tile` outputs, a divisor of 2 x width) lies inside one run pair
// A = [a0, a0 + width), B = [a0 + width, a0 + 2 x width) (clipped to n). Given its splits ac0 (A keys
// before its first output, relative to a0) and ac1 (the same for the next tile; ignored when the
// tile ends its run pair), the tile merges src[a_at, a_at + na) with src[b_at, b_at + nb) into
// dst[start, start + na + nb).
// The run pair that output position `start` belongs to: A = [a0, b0), B = [b0, e), clipped to n.
struct RunPair {
    size_t a0, b0, e;
};
__host__ __device__ inline RunPair run_pair(size_t start, size_t n, size_t width) {
    const size_t a0 = start / (2 * width) * (2 * width);
    return {a0, a0 + width < n ? a0 + width : n, a0 + 2 * width < n ? a0 + 2 * width : n};
}
struct TileSpan {
    size_t start, a_at, b_at;
    int na, nb;
};
__host__ __device__ inline TileSpan tile_span(size_t t, size_t tile, size_t n, size_t width, size_t ac0, size_t ac1) {
    const size_t start = t * tile;
    const RunPair rp = run_pair(start, n, width);
    const size_t a0 = rp.a0, b0 = rp.b0, e = rp.e;
    const size_t end = start + tile < e ? start + tile : e;
    const size_t d0 = start - a0, d1 = end - a0;   // the tile's diagonals in its pair's merge
    if (end == e) ac1 = b0 - a0;                   // the pair's last tile takes the rest of A
    return {start, a0 + ac0, b0 + (d0 - ac0), int(ac1 - ac0), int((d1 - ac1) - (d0 - ac0))};
}

// 05's lean merge stages each warp's outputs itself. Thread t of the block holds tile outputs
// [t * items, t * items + items); a warp's 32 threads hold one contiguous range of 32 x items, which
// the warp reads back striped for coalesced global stores: its lane reads, at step k < items,
// tile position warp_stripe(tid, k, items). Every position is written and read by the same warp.
__host__ __device__ __forceinline__ int warp_stripe(int tid, int k, int items) {
    const int lane = tid & 31;
    return (tid - lane) * items + lane + 32 * k;
}

}   // namespace cmp
}   // namespace sorting
