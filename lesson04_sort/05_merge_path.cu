// 05_merge_path — merge sort with merge-path partitioning (splitters): every block merges exactly
// 4096 output keys, whatever the run sizes, streaming them through shared memory. Keys and
// (stable) pairs.
//
// What changed since 04: one binary search per 4096 OUTPUT keys instead of one per key. A small
// partition kernel finds where each tile's diagonal crosses the merge path (how many of its keys
// come from run A, how many from B), so even the last merge (two runs of n/2) is cut into n/4096
// equal pieces and every SM has the same work. A merge block loads its A and B pieces coalesced
// into shared memory, each of its 128 threads finds its own 32-output diagonal there and merges
// 32 keys serially into registers, and the block writes its 4096 outputs coalesced.
// Tile sort: each thread sorts its keys in registers (keys: 32 by a bitonic network; pairs: 16 by
// stable odd-even transposition), then merge-path rounds in shared memory build 8192-key tiles.
// Cost (2^28 uint32): a tile sort and 15 merge passes, each reading and writing every key (~16
// copies' worth); the splitters read under 1 % more keys; 2 launches per pass.
// It beats cub::DeviceMergeSort on 32-bit keys (the generated tables; TUNING.md: the rest).
// What limits it: log2(n / tile) passes against a radix sort's 4. Keys: uint32, int32, float32, uint64.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o merge_path 05_merge_path.cu
// Run:          ./merge_path --n 2^28     ./merge_path --type pairs --n 2^28     ./merge_path --test
#include "comparison.cuh"

// Partial tiles: the last tile of the tile sort is padded with copies of its LARGEST real key. With
// pairs the sort is stable and the copies come after every real key in input order, so they end
// after all real keys; with keys alone a copy has the same bits as that largest key, so it does not
// matter which of them land last. The outputs past the real count are simply not written. No key
// value is reserved as a sentinel.
// The merge kernel:
//   * 32 outputs per thread: half the diagonal searches per key of 16 (the searches were the
//     largest share of the shared-memory loads); 128 threads per block, so a tile is 4096 outputs;
//   * full tiles (every tile but the array's last) take a path without per-element bounds checks;
//   * the serial merge loads one key from shared memory per output (cmp::serial_merge_select), not
//     two branches with a load each; pairs gather their values by position afterwards;
//   * outputs staged per warp: a warp's outputs are contiguous, so it writes them to shared memory
//     and reads them back striped after __syncwarp(), without a third block-wide barrier;
//   * every diagonal search inside shared memory uses 32-bit indices (a 64-bit add or compare is
//     two instructions; the tile sort is issue-bound). Pairs keep 64-bit indices in the merge
//     kernel (32-bit cost them registers). The tile sort's merge rounds do the same.

// Merge blocks of 128 threads x 32 outputs = 4096-output tiles: the best of 128 x 32, 256 x 32
// and 512 x 16 (TUNING.md).
constexpr int kBlock = 128;
constexpr int kMergeItems = 32;
constexpr int kTile = kBlock * kMergeItems;   // merge outputs per block
constexpr int kPadded = kTile + kTile / 32;
static_assert((kTile & (kTile - 1)) == 0, "the merge tile must be a power of two");

// The tile sort: 256 threads, each sorting sort_items() keys in registers, then merge rounds in
// shared memory up to the whole tile (a power of two, within 48 KB of static shared memory):
//   keys alone, 4-byte keys: 32 keys a thread, 8192-key tiles, 8 merge rounds (a bitonic network);
//   pairs, 8-byte keys:      16 keys a thread, 4096-key tiles, 8 merge rounds.
// Faster than the tile sort before (512 threads x 16 keys by odd-even transposition, 9 rounds),
// at 2^24 and 2^28 (TUNING.md).
constexpr int kSortBlock = 256;
template <class K, bool kPairs> __host__ __device__ constexpr int sort_items() {
    return !kPairs && sizeof(K) == 4 ? 32 : 16;
}
// A merge tile must never straddle two run pairs: it has to divide 2 x width for the smallest
// width, 2 x the smallest tile sort (256 x 16 keys, for uint64 keys and pairs).
static_assert(kTile <= 2 * kSortBlock * 16, "the merge tile is larger than a run pair");

// Shared-memory index with one pad word per 32: thread t's 16 or 32 consecutive keys (t * ITEMS + i)
// fall in 32 different banks across a warp instead of 2 or 1.
__device__ __forceinline__ int pad(int x) { return x + (x >> 5); }

// A window [off, off + len) of a padded shared array, indexable like a plain array.
template <class T> struct PaddedView {
    const T* base;
    int off;
    __device__ T operator[](int i) const { return base[pad(off + i)]; }
};

// ---- the tile sort (stable for pairs) ----------------------------------------------------

// ITEMS keys in registers, sorted. Every index is a compile-time constant once the loops unroll,
// so the keys stay in registers (a run-time index would move the array to local memory).
//   keys alone: a bitonic network, 80 compare-exchanges for 16 keys, 240 for 32 (each stage k
//     sorts runs of k, alternately ascending and descending, so that pairs of them form bitonic
//     sequences for the next stage). It is not stable, and need not be: two keys that compare
//     equal have the same bits (key_less compares the ordered codes, a one-to-one map), so no
//     one can tell which came first.
//   pairs: odd-even transposition, ITEMS rounds of neighbour swaps (120 compare-exchanges for
//     16), which swaps only strictly out-of-order neighbours: stable, so values keep input order.
template <int ITEMS, bool kPairs, class K>
__device__ __forceinline__ void sort_in_registers(K (&keys)[ITEMS], uint32_t (&vals)[ITEMS]) {
    if constexpr (!kPairs) {
        static_assert((ITEMS & (ITEMS - 1)) == 0, "a bitonic network of a power of two");
#pragma unroll
        for (int k = 2; k <= ITEMS; k *= 2) {
#pragma unroll
            for (int j = k / 2; j > 0; j /= 2) {
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const int l = i ^ j;
                    if (l > i) {
                        const bool ascending = (i & k) == 0;
                        if (ascending ? sorting::key_less(keys[l], keys[i]) : sorting::key_less(keys[i], keys[l])) {
                            K t = keys[i];
                            keys[i] = keys[l];
                            keys[l] = t;
                        }
                    }
                }
            }
        }
    } else {
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
#pragma unroll
            for (int i = r & 1; i + 1 < ITEMS; i += 2) {
                if (sorting::key_less(keys[i + 1], keys[i])) {
                    K t = keys[i];
                    keys[i] = keys[i + 1];
                    keys[i + 1] = t;
                    uint32_t u = vals[i];
                    vals[i] = vals[i + 1];
                    vals[i + 1] = u;
                }
            }
        }
    }
}

// Delta from 04's tile sort: keys sorted in registers first, then merge-path rounds, not a network.
template <int BLOCK, int kItems, class K, bool kPairs>
__global__ void __launch_bounds__(BLOCK) tile_sort(const K* __restrict__ kin, const uint32_t* __restrict__ vin,
                                                   K* __restrict__ kout, uint32_t* __restrict__ vout, size_t n) {
    // the codes as the type atomicMax knows (uint64_t is unsigned long on Linux)
    using U = std::conditional_t<sizeof(K) == 8, unsigned long long, unsigned int>;
    constexpr int TILE = BLOCK * kItems, PADDED = TILE + TILE / 32;
    __shared__ K sk[PADDED];
    __shared__ uint32_t sv[kPairs ? PADDED : 1];
    __shared__ U s_max;
    const int tid = threadIdx.x;
    const size_t base = size_t(blockIdx.x) * TILE;
    const int count = int(n - base < size_t(TILE) ? n - base : size_t(TILE));

    K pad_key = K();
    if (count < TILE) {   // only the last block: pad with its largest key
        if (tid == 0) s_max = 0;
        __syncthreads();
        U m = 0;
        for (int x = tid; x < count; x += BLOCK) {
            U c = sorting::Ordered<K>::to(kin[base + x]);
            m = c > m ? c : m;
        }
        atomicMax(&s_max, m);
        __syncthreads();
        pad_key = sorting::Ordered<K>::from(typename sorting::Ordered<K>::U(s_max));
    }
    {
        K lk[kItems];   // coalesced loads, all in flight at once
        uint32_t lv[kItems];
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
            const int x = tid + it * BLOCK;
            lk[it] = x < count ? kin[base + x] : pad_key;
            if constexpr (kPairs) lv[it] = x < count ? vin[base + x] : 0u;
        }
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
            sk[pad(tid + it * BLOCK)] = lk[it];
            if constexpr (kPairs) sv[pad(tid + it * BLOCK)] = lv[it];
        }
    }
    __syncthreads();

    K keys[kItems];
    uint32_t vals[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
        keys[i] = sk[pad(tid * kItems + i)];
        if constexpr (kPairs) vals[i] = sv[pad(tid * kItems + i)];
    }
    sort_in_registers<kItems, kPairs>(keys, vals);
    // Runs of kItems -> 2 kItems -> ... -> TILE, each round a merge-path merge in shared memory.
    for (int run = kItems; run < TILE; run *= 2) {
        __syncthreads();   // everyone has read the last round
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
            sk[pad(tid * kItems + i)] = keys[i];
            if constexpr (kPairs) sv[pad(tid * kItems + i)] = vals[i];
        }
        __syncthreads();
        const int first = tid * kItems;
        const int group = first / (2 * run) * (2 * run);
        const int diag = first - group;
        PaddedView<K> a{sk, group}, b{sk, group + run};
        const int i = sorting::cmp::merge_path(a, run, b, run, diag);   // int: 64-bit steps cost 16 % more (TUNING.md)
        int pos[kItems];   // one shared load per output, values gathered afterwards
        sorting::cmp::serial_merge_select<kItems>(PaddedView<K>{sk, 0}, group + i, group + run, group + run + diag - i,
                                                  group + 2 * run, keys, pos);
        if constexpr (kPairs) {
#pragma unroll
            for (int it = 0; it < kItems; ++it) vals[it] = sv[pad(pos[it])];
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
        sk[pad(tid * kItems + i)] = keys[i];
        if constexpr (kPairs) sv[pad(tid * kItems + i)] = vals[i];
    }
    __syncthreads();
    for (int x = tid; x < count; x += BLOCK) {   // coalesced stores; the padding is dropped
        kout[base + x] = sk[pad(x)];
        if constexpr (kPairs) vout[base + x] = sv[pad(x)];
    }
}

// ---- one merge pass: runs of `width` -> runs of 2 * width ---------------------------------------

// Where output tile t (outputs [t * 4096, ...) of its run pair) crosses the merge path: how many
// of its first outputs come from run A. One thread per tile; a binary search in global memory.
template <class K>
__global__ void partition_tiles(const K* __restrict__ src, size_t n, size_t width, size_t tiles,
                                unsigned long long* __restrict__ splits) {
    for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < tiles; t += size_t(gridDim.x) * blockDim.x) {
        const size_t start = t * kTile;
        const sorting::cmp::RunPair rp = sorting::cmp::run_pair(start, n, width);   // as tile_span
        splits[t] = (unsigned long long)(sorting::cmp::merge_path(src + rp.a0, rp.b0 - rp.a0, src + rp.b0, rp.e - rp.b0,
                                                                  start - rp.a0));
    }
}

// ---- the merge kernel -------------------------------------------------------------------------
//
// One tile of 4096 outputs per block, its A and B pieces found by the partition; few instructions
// per key and only two block-wide barriers per tile:
//   * full tiles (every tile but the array's last) take a path without per-element bounds checks;
//   * the serial merge is serial_merge_select (comparison.cuh): one shared load per output instead
//     of two branches with a load each; for pairs the values are gathered by position after the
//     merge, independent loads that are all in flight together;
//   * the outputs are staged per WARP: a warp's 32 x ITEMS outputs are contiguous in the tile, so
//     it writes them to its own part of shared memory and reads them back striped (coalesced
//     global stores) after __syncwarp(), without waiting for the other warps;
//   * shared memory is dynamic, so larger tiles (32 outputs per thread: 67 KB for pairs) fit.
template <class K, bool kPairs> __host__ __device__ constexpr size_t merge_smem() {
    return kPadded * sizeof(K) + (kPairs ? kPadded * sizeof(uint32_t) : 0);
}

// The part of a lean tile after its A and B pieces are in shared memory (and a barrier): each
// thread's search and serial merge, a barrier, the per-warp staging and the coalesced stores.
template <bool kFull, class K, bool kPairs>
__device__ __forceinline__ void merge_and_store(K* sk, uint32_t* sv, K* kdst, uint32_t* vdst, int na, int nb) {
    const int tid = threadIdx.x;
    const int total = kFull ? kTile : na + nb;
    K keys[kMergeItems];
    uint32_t vals[kMergeItems];
    const int first = tid * kMergeItems;
    const int count = kFull ? kMergeItems : (first < total ? min(kMergeItems, total - first) : 0);
    if (count > 0) {
        PaddedView<K> a{sk, 0}, b{sk, na};
        // The diagonal search in 32-bit arithmetic for keys (fewer instructions a pass); pairs keep
        // 64-bit: the 32-bit search raised their registers from 128 to 168 and made them slower.
        using Idx = std::conditional_t<kPairs, size_t, uint32_t>;
        const int i = int(sorting::cmp::merge_path(a, Idx(na), b, Idx(nb), Idx(first)));
        int pos[kMergeItems];
        sorting::cmp::serial_merge_select<kMergeItems>(a, i, na, na + first - i, total, keys, pos);
        if constexpr (kPairs) {
#pragma unroll
            for (int it = 0; it < kMergeItems; ++it)
                if (kFull || it < count) vals[it] = sv[pad(pos[it])];
        }
    }
    __syncthreads();   // every warp has read its inputs
    // A warp's outputs are [warp_first, warp_first + 32 x ITEMS) of the tile: staged and read back
    // by that warp only.
#pragma unroll
    for (int it = 0; it < kMergeItems; ++it) {
        if (kFull || it < count) {
            sk[pad(first + it)] = keys[it];
            if constexpr (kPairs) sv[pad(first + it)] = vals[it];
        }
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kMergeItems; ++k) {
        const int x = sorting::cmp::warp_stripe(tid, k, kMergeItems);
        if (kFull || x < total) {
            kdst[x] = sk[pad(x)];
            if constexpr (kPairs) vdst[x] = sv[pad(x)];
        }
    }
}

template <bool kFull, class K, bool kPairs>
__device__ __forceinline__ void merge_tile_lean(K* sk, uint32_t* sv, const K* a_src, const K* b_src,
                                                const uint32_t* va_src, const uint32_t* vb_src, K* kdst, uint32_t* vdst,
                                                int na, int nb) {
    const int tid = threadIdx.x;
    const int total = kFull ? kTile : na + nb;
    {
        K lk[kMergeItems];   // all loads in flight before the first store
        uint32_t lv[kMergeItems];
#pragma unroll
        for (int it = 0; it < kMergeItems; ++it) {
            const int x = tid + it * kBlock;
            if (kFull || x < total) {
                const bool in_a = x < na;
                lk[it] = in_a ? a_src[x] : b_src[x - na];
                if constexpr (kPairs) lv[it] = in_a ? va_src[x] : vb_src[x - na];
            }
        }
#pragma unroll
        for (int it = 0; it < kMergeItems; ++it) {
            const int x = tid + it * kBlock;
            if (kFull || x < total) {
                sk[pad(x)] = lk[it];
                if constexpr (kPairs) sv[pad(x)] = lv[it];
            }
        }
    }
    __syncthreads();
    merge_and_store<kFull, K, kPairs>(sk, sv, kdst, vdst, na, nb);
}

// Delta from 04's merge pass: a block merges one 4096-output piece between two splitters, not one key per thread.
template <class K, bool kPairs>
__global__ void __launch_bounds__(kBlock)
    merge_tiles(const K* __restrict__ ksrc, const uint32_t* __restrict__ vsrc, K* __restrict__ kdst,
                uint32_t* __restrict__ vdst, size_t n, size_t width, const unsigned long long* __restrict__ splits) {
    extern __shared__ __align__(16) unsigned char dyn_smem[];
    K* sk = reinterpret_cast<K*>(dyn_smem);
    uint32_t* sv = reinterpret_cast<uint32_t*>(dyn_smem + kPadded * sizeof(K));
    const size_t t = blockIdx.x, tiles = gridDim.x;
    const sorting::cmp::TileSpan s =
        sorting::cmp::tile_span(t, kTile, n, width, splits[t], t + 1 < tiles ? splits[t + 1] : 0);
    const uint32_t* va_src = kPairs ? vsrc + s.a_at : nullptr;
    const uint32_t* vb_src = kPairs ? vsrc + s.b_at : nullptr;
    uint32_t* vout = kPairs ? vdst + s.start : nullptr;
    if (s.na + s.nb == kTile)   // the same branch for the whole block
        merge_tile_lean<true, K, kPairs>(sk, sv, ksrc + s.a_at, ksrc + s.b_at, va_src, vb_src, kdst + s.start, vout,
                                         s.na, s.nb);
    else
        merge_tile_lean<false, K, kPairs>(sk, sv, ksrc + s.a_at, ksrc + s.b_at, va_src, vb_src, kdst + s.start, vout,
                                          s.na, s.nb);
}

// ---- the launcher ----------------------------------------------------------------------------

template <class K, bool kPairs>
void merge_path_sort(const K* kin, const uint32_t* vin, K* kout, uint32_t* vout, size_t n) {
    if (n == 0) return;
    constexpr int kSortItems = sort_items<K, kPairs>(), kSortTile = kSortBlock * kSortItems;
    int passes = 0;
    for (size_t w = kSortTile; w < n; w *= 2) ++passes;
    const size_t tiles = (n + kTile - 1) / kTile;
    K* ktmp = passes ? course::scratch_as<K>(0, n) : kout;
    uint32_t* vtmp = kPairs && passes ? course::scratch_as<uint32_t>(1, n) : vout;
    unsigned long long* splits = course::scratch_as<unsigned long long>(2, tiles + 1);
    // Ping-pong so that the last pass writes the output.
    K* ka = passes % 2 ? ktmp : kout;
    K* kb = passes % 2 ? kout : ktmp;
    uint32_t* va = passes % 2 ? vtmp : vout;
    uint32_t* vb = passes % 2 ? vout : vtmp;
    // The merge kernel's shared memory is dynamic: 32 outputs per thread need up to 67 KB (pairs).
    constexpr size_t kMergeSmem = merge_smem<K, kPairs>();
    course::allow_dynamic_smem(merge_tiles<K, kPairs>, kMergeSmem);
    tile_sort<kSortBlock, kSortItems, K, kPairs><<<course::blocks_for(n, kSortTile), kSortBlock>>>(kin, vin, ka, va, n);
    CUDA_CHECK_LAST();
    for (size_t w = kSortTile; w < n; w *= 2) {
        partition_tiles<K><<<course::blocks_for(tiles, 256), 256>>>(ka, n, w, tiles, splits);
        CUDA_CHECK_LAST();
        merge_tiles<K, kPairs><<<course::blocks_for(n, kTile), kBlock, kMergeSmem>>>(ka, va, kb, vb, n, w, splits);
        CUDA_CHECK_LAST();
        std::swap(ka, kb);
        std::swap(va, vb);
    }
}

template <class K> void sort_keys(const K* d_in, K* d_out, size_t n) {
    merge_path_sort<K, false>(d_in, nullptr, d_out, nullptr, n);
}
void sort_pairs(const uint32_t* kin, const uint32_t* vin, uint32_t* kout, uint32_t* vout, size_t n) {
    merge_path_sort<uint32_t, true>(kin, vin, kout, vout, n);
}

#ifndef COURSE_NO_MAIN   // 11_merge_multi_gpu.cu includes this file for its merge kernels
int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = sort_keys<uint32_t>;
    s.i32 = sort_keys<int32_t>;
    s.f32 = sort_keys<float>;
    s.u64 = sort_keys<uint64_t>;
    s.pairs = sort_pairs;
    return sorting::run_lesson(argc, argv, "05_merge_path", s);
}
#endif
