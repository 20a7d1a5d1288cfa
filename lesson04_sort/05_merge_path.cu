// 05_merge_path — merge sort with merge-path partitioning (splitters): every block merges exactly
// 4096 output keys, whatever the run sizes, streaming them through shared memory. Keys and
// (stable) pairs.
//
// What changed since 04:
//   * one binary search per 4096 OUTPUT keys instead of one per key: a small partition kernel
//     finds, for every tile of 4096 outputs, where its diagonal crosses the merge path (how many
//     keys come from run A and how many from run B). Lecture 001's "a few huge merges" regime:
//     the splitters cut even the last merge (two runs of n/2) into n/4096 equal pieces, so every
//     SM has the same work on the last, largest passes.
//   * each merge block loads its A piece and B piece with coalesced loads into shared memory, every
//     thread finds its own 16-output diagonal there (a search in shared memory, 12 steps) and
//     merges 16 keys serially into registers; the block then writes its 4096 outputs coalesced.
//   * the tile sort is now STABLE: 16 keys per thread sorted in registers by odd-even
//     transposition (swaps only strictly out-of-order neighbours), then 8-9 rounds of merge-path
//     merges in shared memory (ties to the left run). With the stable global merges, the whole
//     sort is stable: pairs keep equal keys in input order.
// Cost model (n = 2^28 uint32):
//   passes:  1 tile sort (8192 uint32 keys per block; 4096 for pairs and uint64) + log2(n/8192)
//            = 15 merge passes, each reading and writing every key once (pairs: every value too):
//            16 x 2 x 1 GiB = 32 GiB for keys, 16 copies' worth. CUB's merge sort (256 x 17 =
//            4352-key tiles) makes 16 merge passes, and 00_cub_merge copies the input first.
//            The partition kernel reads 2 x 13..28 keys per 4096-key tile: < 0.1% extra.
//   launches: 2 per pass (partition, merge).
//   compares: log2(n) per key, as any merge sort; none wasted on padding.
// What limits it: the pass count (radix sort moves keys 4 times for 32-bit keys, merge sort
// log2(n/tile) times) and the serial 16-key merge per thread (divergent, latency-bound loads from
// shared memory). The target: >= 1.00x cub::DeviceMergeSort at 2^28 uint32 (00_cub_merge).
// Partial tiles: the last tile of the tile sort is padded with copies of its LARGEST real key; the
// sort is stable and the copies come after every real key in input order, so they end after all
// real keys and are simply not written. No key value is reserved as a sentinel.
// Keys: uint32, int32, float32, uint64; pairs (uint32 key, uint32 value), stable.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o merge_path 05_merge_path.cu
// Run:          ./merge_path --n 2^28     ./merge_path --type pairs --n 2^28     ./merge_path --test
#include "comparison.cuh"

constexpr int kBlock = 256;
constexpr int kItems = 16;
constexpr int kTile = kBlock * kItems;     // 4096: merge outputs per block
constexpr int kPadded = kTile + kTile / 32;
// The tile sort uses as many threads as 48 KB of static shared memory allows: 512 threads (8192
// keys) for 4-byte keys, 256 (4096) for uint64 keys or pairs. One pass fewer for uint32 keys.
template <class K, bool kPairs> constexpr int sort_block() { return sizeof(K) + (kPairs ? 4 : 0) == 4 ? 512 : 256; }

// Shared-memory index with one pad word per 32: thread t's 16 consecutive keys (t * 16 + i) fall
// in 32 different banks across a warp instead of 2.
__device__ __forceinline__ int pad(int x) { return x + (x >> 5); }

// A window [off, off + len) of a padded shared array, indexable like a plain array.
template <class T>
struct PaddedView {
    const T* base;
    int off;
    __device__ T operator[](size_t i) const { return base[pad(off + int(i))]; }
};

// Serially merge `count` <= kItems outputs starting at A[i], B[j] (ties to A) into registers.
template <class K, bool kPairs>
__device__ __forceinline__ void serial_merge(const K* sk, const uint32_t* sv, int a_off, int na, int b_off, int nb,
                                             int i, int j, int count, K (&keys)[kItems], uint32_t (&vals)[kItems]) {
    K ka = i < na ? sk[pad(a_off + i)] : K();
    K kb = j < nb ? sk[pad(b_off + j)] : K();
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        if (it < count) {
            const bool take_b = j < nb && (i >= na || sorting::key_less(kb, ka));
            if (take_b) {
                keys[it] = kb;
                if constexpr (kPairs) vals[it] = sv[pad(b_off + j)];
                if (++j < nb) kb = sk[pad(b_off + j)];
            } else {
                keys[it] = ka;
                if constexpr (kPairs) vals[it] = sv[pad(a_off + i)];
                if (++i < na) ka = sk[pad(a_off + i)];
            }
        }
    }
}

// ---- the stable tile sort ------------------------------------------------------------------

template <int BLOCK, class K, bool kPairs>
__global__ void __launch_bounds__(BLOCK)
tile_sort(const K* __restrict__ kin, const uint32_t* __restrict__ vin, K* __restrict__ kout,
          uint32_t* __restrict__ vout, size_t n) {
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
    if (count < TILE) {                      // only the last block: pad with its largest key
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
        K lk[kItems];                                 // coalesced loads, all in flight at once
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
    // 16 rounds of odd-even transposition in registers: sorts 16 keys, stably.
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
#pragma unroll
        for (int i = r & 1; i + 1 < kItems; i += 2) {
            if (sorting::key_less(keys[i + 1], keys[i])) {
                K t = keys[i]; keys[i] = keys[i + 1]; keys[i + 1] = t;
                if constexpr (kPairs) { uint32_t u = vals[i]; vals[i] = vals[i + 1]; vals[i + 1] = u; }
            }
        }
    }
    // Runs of 16 -> 32 -> ... -> TILE, each round a merge-path merge in shared memory.
    for (int run = kItems; run < TILE; run *= 2) {
        __syncthreads();                                     // everyone has read the last round
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
        const int i = int(sorting::cmp::merge_path(a, size_t(run), b, size_t(run), size_t(diag)));
        serial_merge<K, kPairs>(sk, sv, group, run, group + run, run, i, diag - i, kItems, keys, vals);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
        sk[pad(tid * kItems + i)] = keys[i];
        if constexpr (kPairs) sv[pad(tid * kItems + i)] = vals[i];
    }
    __syncthreads();
    for (int x = tid; x < count; x += BLOCK) {    // coalesced stores; the padding is dropped
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
        const size_t a0 = start / (2 * width) * (2 * width);
        const size_t b0 = min(a0 + width, n), e = min(a0 + 2 * width, n);
        splits[t] = (unsigned long long)(sorting::cmp::merge_path(src + a0, b0 - a0, src + b0, e - b0, start - a0));
    }
}

template <class K, bool kPairs>
__global__ void __launch_bounds__(kBlock)
merge_tiles(const K* __restrict__ ksrc, const uint32_t* __restrict__ vsrc, K* __restrict__ kdst,
            uint32_t* __restrict__ vdst, size_t n, size_t width, const unsigned long long* __restrict__ splits) {
    __shared__ K sk[kPadded];
    __shared__ uint32_t sv[kPairs ? kPadded : 1];
    const int tid = threadIdx.x;
    const size_t t = blockIdx.x;
    const size_t start = t * kTile;
    const size_t a0 = start / (2 * width) * (2 * width);      // the run pair: A = [a0, b0), B = [b0, e)
    const size_t b0 = min(a0 + width, n), e = min(a0 + 2 * width, n);
    const size_t end = min(start + kTile, e);                 // a tile never straddles two run pairs
    // This tile's outputs are diagonals [d0, d1) of the pair's merge; A keys [ac0, ac1) and
    // B keys [d0 - ac0, d1 - ac1) (relative to a0 and b0).
    const size_t d0 = start - a0, d1 = end - a0;
    const size_t ac0 = splits[t];
    const size_t ac1 = end == e ? b0 - a0 : splits[t + 1];
    const int na = int(ac1 - ac0), nb = int((d1 - ac1) - (d0 - ac0)), total = na + nb;
    const K* a_src = ksrc + a0 + ac0;
    const K* b_src = ksrc + b0 + (d0 - ac0);
    {
        // Two coalesced streams (A piece, then B piece). All 16 loads of a thread are issued before
        // the first store to shared memory: 16 requests in flight per thread, not 1, which is
        // what it takes to keep HBM busy.
        K lk[kItems];
        uint32_t lv[kItems];
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
            const int x = tid + it * kBlock;
            if (x < total) {
                lk[it] = x < na ? a_src[x] : b_src[x - na];
                if constexpr (kPairs) lv[it] = x < na ? vsrc[a0 + ac0 + x] : vsrc[b0 + (d0 - ac0) + (x - na)];
            }
        }
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
            const int x = tid + it * kBlock;
            if (x < total) {
                sk[pad(x)] = lk[it];
                if constexpr (kPairs) sv[pad(x)] = lv[it];
            }
        }
    }
    __syncthreads();

    K keys[kItems];
    uint32_t vals[kItems];
    const int first = tid * kItems;
    const int count = first < total ? min(kItems, total - first) : 0;
    if (count > 0) {
        PaddedView<K> a{sk, 0}, b{sk, na};
        const int i = int(sorting::cmp::merge_path(a, size_t(na), b, size_t(nb), size_t(first)));
        serial_merge<K, kPairs>(sk, sv, 0, na, na, nb, i, first - i, count, keys, vals);
    }
    __syncthreads();                                          // all reads of the inputs are done
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        if (it < count) {
            sk[pad(first + it)] = keys[it];
            if constexpr (kPairs) sv[pad(first + it)] = vals[it];
        }
    }
    __syncthreads();
    for (int x = tid; x < total; x += kBlock) {               // coalesced stores
        kdst[start + x] = sk[pad(x)];
        if constexpr (kPairs) vdst[start + x] = sv[pad(x)];
    }
}

// ---- the launcher ----------------------------------------------------------------------------

template <class K, bool kPairs>
void merge_path_sort(const K* kin, const uint32_t* vin, K* kout, uint32_t* vout, size_t n) {
    if (n == 0) return;
    constexpr int kSortBlock = sort_block<K, kPairs>(), kSortTile = kSortBlock * kItems;
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
    tile_sort<kSortBlock, K, kPairs><<<course::blocks_for(n, kSortTile), kSortBlock>>>(kin, vin, ka, va, n);
    CUDA_CHECK_LAST();
    for (size_t w = kSortTile; w < n; w *= 2) {
        partition_tiles<K><<<course::blocks_for(tiles, 256), 256>>>(ka, n, w, tiles, splits);
        CUDA_CHECK_LAST();
        merge_tiles<K, kPairs><<<course::blocks_for(n, kTile), kBlock>>>(ka, va, kb, vb, n, w, splits);
        CUDA_CHECK_LAST();
        std::swap(ka, kb);
        std::swap(va, vb);
    }
}

template <class K>
void sort_keys(const K* d_in, K* d_out, size_t n) {
    merge_path_sort<K, false>(d_in, nullptr, d_out, nullptr, n);
}
void sort_pairs(const uint32_t* kin, const uint32_t* vin, uint32_t* kout, uint32_t* vout, size_t n) {
    merge_path_sort<uint32_t, true>(kin, vin, kout, vout, n);
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = sort_keys<uint32_t>;
    s.i32 = sort_keys<int32_t>;
    s.f32 = sort_keys<float>;
    s.u64 = sort_keys<uint64_t>;
    s.pairs = sort_pairs;
    return sorting::run_lesson(argc, argv, "05_merge_path", s);
}
