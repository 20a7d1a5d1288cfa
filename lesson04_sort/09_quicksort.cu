// 09_quicksort — quicksort with dynamic parallelism: kernels launch kernels (CUDA 13, CDP2).
//
// The idea (the CS344 notes): pick a pivot, split the segment three ways (< pivot, == pivot,
// > pivot), recurse on the outer two. Each split of a large segment is one grid: every block
// counts its 4096 keys' < and > (a block scan), reserves room with two atomicAdds and scatters;
// the LAST block to finish launches, from the device, the == fill and the next splits (parts of
// <= 4096 keys: one block sorts them with 03's bitonic tile sort). The host waits for the tree.
// Never quadratic, never too deep: see the notes below the includes.
// Cost: each level reads and writes every key (~log2(n / 4096) levels, 12 at 2^24) plus about
// 2n/4096 device launches; the scatter is not coalesced.
// Limits: n <= 2^24 (the launch and descriptor pools), not stable (no pairs). Needs relocatable
// device code: the Makefile adds -rdc=true -lcudadevrt for this file.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -rdc=true -o quicksort 09_quicksort.cu -lcudadevrt
// Run:          ./quicksort --n 2^24     ./quicksort --test     ./quicksort --dist equal
#include "../lesson02_scan/primitives.cuh"
#include "comparison.cuh"

// Why it does not go quadratic or run out of launch depth:
//   * the pivot is the median of 31 keys sampled at hashed positions spread over the segment:
//     sorted and reversed inputs split exactly in half, and no fixed input pattern can steer it;
//   * equal keys are grouped and never recursed on: all-equal input is done after ONE split,
//     few-unique input after a handful; the == range is final (equal codes = identical bits), so a
//     fill kernel writes the pivot straight into the output;
//   * a split recurses at most kMaxDepth = 20 levels (launch nesting <= 20 of the allowed 24); a
//     segment still larger than a tile at that depth is sorted by one block (a slow but bounded
//     bitonic network in global memory) instead. Unlucky pivots cost time, never correctness.
// The last block knows the totals because it takes the last ticket of a counter after a
// __threadfence(); its children go into cudaStreamFireAndForget, and a grid is complete only when
// all its children are.

constexpr int kBlock = 256;
constexpr int kItems = 16;
constexpr int kChunk = kBlock * kItems;   // keys per block of a split
constexpr int kLeafBlock = 512;
constexpr int kLeafItems = 8;
constexpr int kLeaf = kLeafBlock * kLeafItems;   // segments this small: one block sorts them
constexpr int kMaxDepth = 20;                    // split levels; CDP allows 24 nested launches
constexpr int kSamples = 31;                     // pivot = median of this many keys
constexpr uint64_t kMaxN = uint64_t(1) << 24;

// One split's counters, zeroed before the sort. One per split launch, from a pool.
struct Split {
    unsigned long long lt, gt;   // keys reserved so far on each side
    unsigned done;               // blocks finished (the ticket)
    unsigned pad;
};

template <class K> struct Ctx {
    K* out;   // the final output (also one of the two ping-pong buffers)
    K* tmp;   // the other buffer
    Split* pool;
    unsigned* pool_next;
    unsigned pool_size;
};

__device__ __forceinline__ uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// out[0, count) = v
template <class K> __global__ void fill(K* out, size_t count, K v) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
        out[i] = v;
}

// Segments of <= kLeaf keys: one block, shared memory. src and out may be the same buffer.
template <class K> __global__ void __launch_bounds__(kLeafBlock) leaf_sort(const K* src, K* out, int count) {
    __shared__ K s[kLeaf];
    sorting::cmp::block_bitonic_sort<kLeafBlock, kLeafItems>(src, out, count, s);
}

// The depth guard's fallback: one block sorts `count` keys of global memory with the bitonic
// network (any count; slow, O(count log^2 count / 1024) per thread, but it never recurses).
template <class K> __global__ void __launch_bounds__(1024) fallback_sort(const K* src, K* out, size_t count) {
    if (src != out)
        for (size_t x = threadIdx.x; x < count; x += blockDim.x) out[x] = src[x];
    __syncthreads();
    const size_t P = sorting::cmp::next_pow2(count);
    for (size_t k = 2; k <= P; k *= 2)
        for (size_t j = k / 2; j >= 1; j /= 2) {
            for (size_t t = threadIdx.x; t < P / 2; t += blockDim.x) {
                size_t i, p;
                sorting::cmp::bitonic_pair(t, k, j, i, p);
                if (p < count) sorting::cmp::compare_exchange(out[i], out[p]);
            }
            __syncthreads();
        }
}

// Declared first: launch_segment (next) launches split, and split (defined after it) calls launch_segment.
template <class K> __global__ void split(const K* src, K* dst, Ctx<K> c, size_t lo, size_t hi, int depth, Split* d);

// A device launch that fails (e.g. the pending-launch buffer is full) loses that part of the sort
// silently: the checker would only see poisoned keys. Say why, once per failure, on stdout.
__device__ __forceinline__ void report_launch(const char* what) {
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) printf("09_quicksort: device launch of %s failed: %s\n", what, cudaGetErrorString(err));
}

// Sort keys [lo, hi) that now live in `src`; the result goes to c.out. Called by one thread.
template <class K> __device__ void launch_segment(const K* src, Ctx<K> c, size_t lo, size_t hi, int depth) {
    const size_t m = hi - lo;
    if (m == 0) return;
    if (m == 1) {
        c.out[lo] = src[lo];
        return;
    }
    if (m <= size_t(kLeaf)) {
        leaf_sort<K><<<1, kLeafBlock, 0, cudaStreamFireAndForget>>>(src + lo, c.out + lo, int(m));
        report_launch("leaf_sort");
        return;
    }
    unsigned slot = depth < kMaxDepth ? atomicAdd(c.pool_next, 1u) : c.pool_size;
    if (slot >= c.pool_size) {   // too deep (or, impossibly, out of counters): no more recursion
        fallback_sort<K><<<1, 1024, 0, cudaStreamFireAndForget>>>(src + lo, c.out + lo, m);
        report_launch("fallback_sort");
        return;
    }
    K* dst = src == c.tmp ? c.out : c.tmp;   // ping-pong between the two buffers
    split<K><<<unsigned((m + kChunk - 1) / kChunk), kBlock, 0, cudaStreamFireAndForget>>>(src, dst, c, lo, hi, depth,
                                                                                          c.pool + slot);
    report_launch("split");
}

// One three-way split of a segment; its last block launches the next splits itself (no host round trip).
template <class K>
__global__ void __launch_bounds__(kBlock)
    split(const K* src, K* dst, Ctx<K> c, size_t lo, size_t hi, int depth, Split* d) {
    using U = typename sorting::Ordered<K>::U;
    __shared__ K s_pivot;
    __shared__ uint32_t s_warp[kBlock / 32];
    __shared__ unsigned long long s_base_lt, s_base_gt;
    const int tid = threadIdx.x;
    const size_t m = hi - lo;

    // The pivot: every block computes the same one (same positions, same keys).
    if (tid == 0) {
        U code[kSamples];
        K key[kSamples];
        const uint64_t stratum = m / kSamples;   // >= 4096 / 31: one sample per stratum
        for (int s = 0; s < kSamples; ++s) {
            size_t pos = lo + s * stratum + mix(lo * 0x9E3779B97F4A7C15ull + hi + s) % stratum;
            key[s] = src[pos];
            code[s] = sorting::Ordered<K>::to(key[s]);
        }
        for (int a = 1; a < kSamples; ++a)   // insertion sort of 31 codes
            for (int b = a; b > 0 && code[b] < code[b - 1]; --b) {
                U tc = code[b];
                code[b] = code[b - 1];
                code[b - 1] = tc;
                K tk = key[b];
                key[b] = key[b - 1];
                key[b - 1] = tk;
            }
        s_pivot = key[kSamples / 2];
    }
    __syncthreads();
    const K pivot = s_pivot;
    const U pc = sorting::Ordered<K>::to(pivot);

    // This block's keys: lo + blockIdx.x * 4096 + it * 256 + tid (coalesced loads).
    const size_t base = lo + size_t(blockIdx.x) * kChunk;
    K keys[kItems];
    uint32_t lt = 0, gt = 0;
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        size_t x = base + size_t(it) * kBlock + tid;
        if (x < hi) {
            keys[it] = src[x];
            U k = sorting::Ordered<K>::to(keys[it]);
            lt += k < pc;
            gt += k > pc;
        }
    }
    // Block scan of the packed counts (each <= 4096, so 16 bits each are enough).
    uint32_t total = 0;
    uint32_t excl = scan::block_exclusive_scan<kBlock>(lt | (gt << 16), 0u, total, s_warp);
    if (tid == 0) {
        s_base_lt = atomicAdd(&d->lt, (unsigned long long)(total & 0xFFFFu));
        s_base_gt = atomicAdd(&d->gt, (unsigned long long)(total >> 16));
    }
    __syncthreads();
    size_t at_lt = lo + s_base_lt + (excl & 0xFFFFu);     // < keys fill from the left
    size_t at_gt = hi - 1 - (s_base_gt + (excl >> 16));   // > keys fill from the right
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        size_t x = base + size_t(it) * kBlock + tid;
        if (x < hi) {
            U k = sorting::Ordered<K>::to(keys[it]);
            if (k < pc) dst[at_lt++] = keys[it];
            else if (k > pc) dst[at_gt--] = keys[it];
        }
    }

    // The last block to finish launches what comes next.
    __threadfence();   // our scatter is visible device-wide before our ticket
    __syncthreads();
    if (tid == 0) {
        unsigned ticket = atomicAdd(&d->done, 1u);
        if (ticket == gridDim.x - 1) {
            __threadfence();
            const size_t n_lt = atomicAdd(&d->lt, 0ull), n_gt = atomicAdd(&d->gt, 0ull);
            const size_t n_eq = m - n_lt - n_gt;
            if (n_eq > 0) {
                unsigned grid = unsigned(min((n_eq + 4095) / 4096, size_t(4096)));
                fill<K><<<grid, 256, 0, cudaStreamFireAndForget>>>(c.out + lo + n_lt, n_eq, pivot);
                report_launch("fill");
            }
            launch_segment<K>(dst, c, lo, lo + n_lt, depth + 1);
            launch_segment<K>(dst, c, hi - n_gt, hi, depth + 1);
        }
    }
}

// Device launches waiting to run: the default buffer (2048) is too small for the ~2n/4096 launches
// of a 2^24 sort. Set once per process, before the first device launch (one flag for every K).
inline void configure_device_runtime() {
    static bool configured = false;
    if (configured) return;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 1 << 15));
    configured = true;
}

template <class K> void quicksort(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    configure_device_runtime();
    if (n <= size_t(kLeaf)) {
        leaf_sort<K><<<1, kLeafBlock>>>(d_in, d_out, int(n));
        CUDA_CHECK_LAST();
        return;
    }
    // Splits per level <= n / kLeaf (disjoint segments larger than a leaf), levels <= kMaxDepth.
    const size_t pool_size = (n / kLeaf + 1) * (kMaxDepth + 1);
    Ctx<K> c;
    c.out = d_out;
    c.tmp = course::scratch_as<K>(0, n);
    Split* pool = course::scratch_as<Split>(1, pool_size + 1);
    unsigned* next = course::scratch_as<unsigned>(2, 1);
    CUDA_CHECK(cudaMemsetAsync(pool, 0, (pool_size + 1) * sizeof(Split)));
    CUDA_CHECK(cudaMemsetAsync(next, 0, sizeof(unsigned)));
    c.pool = pool;
    c.pool_next = next;
    c.pool_size = unsigned(pool_size);
    // The root split reads the input and uses the extra counter at the end of the pool.
    split<K><<<course::blocks_for(n, kChunk), kBlock>>>(d_in, c.tmp, c, 0, n, 0, pool + pool_size);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = quicksort<uint32_t>;
    s.i32 = quicksort<int32_t>;
    s.f32 = quicksort<float>;
    s.u64 = quicksort<uint64_t>;
    s.max_n = kMaxN;
    s.limit_why = "device launch queue and split counters sized for 2^24 keys";
    return sorting::run_lesson(argc, argv, "09_quicksort", s);
}
