// lesson05_histogram/counting.cuh — the counting kernel of versions 03 and 04 (and of 05 and 06 up
// to 12288 bins), and of the pitfall wrong/run_aggregation_slowdown.cu. Each of those files is one
// choice of its two knobs (the file's header explains the idea and its cost):
//
//   copies   R copies of the bins in shared memory, interleaved: bin b's copy r sits at word
//            b * R + r, and lane L of a warp uses copy L % R.  R = 1 (03): one shared copy.
//            R = 32 (04, bytes): every lane has its own copy, and its words all lie in bank L,
//            so one warp's 32 atomics never share a bank or an address: no replays, whatever the
//            input (uniform bytes collide in banks by chance; `equal` input in one address).
//   runs     kAggregate (wrong/run_aggregation_slowdown.cu): a thread looks at the 16 bytes (or 4
//            keys) of its vector in order and adds a run of equal bins with one atomic of +length.
//            Meant to help when neighbours repeat; measured slower than R = 32 without it on every
//            input (see that file): every version of the lesson passes false.
//
// Shape of the kernel: zero the copies, stream the input with 16-byte loads (wide_loads.cuh),
// barrier, then each thread sums the R copies of some bins and adds them to the global bins.
#pragma once
#include "histogram.cuh"
#include "wide_loads.cuh"

namespace hist {

constexpr int kCountBlock = 512;   // 16 warps: 4 blocks per SM fill an H100's 2048 threads
constexpr int kCountVecs = 4;      // 4 x 16 bytes in flight per thread

// One thread's view of the block's shared copies.
struct Copies {
    uint32_t* s;
    uint32_t log_r;   // R = 1 << log_r
    uint32_t slot;    // this lane's copy: lane % R
    __device__ __forceinline__ void add(uint32_t bin, uint32_t count) {
        atomicAdd(&s[(bin << log_r) + slot], count);
    }
};

template <class T, class Binner, bool kAggregate>
struct CountVisit {
    Copies c;
    Binner binner;
    __device__ __forceinline__ void one(uint32_t x) {
        uint32_t bin;
        if (binner(x, bin)) c.add(bin, 1);
    }
    __device__ __forceinline__ void vec(const uint4& v) {
        if constexpr (!kAggregate) {
            for_each_in_vector<T>(v, [&](uint32_t x) { one(x); });
        } else {
            // Run-length: `run` samples of bin `cur` so far; out-of-range keys get a bin no
            // sample has (never added) and break runs like any other change.
            constexpr uint32_t kNone = 0xFFFFFFFFu;
            uint32_t cur = kNone, run = 0;
            for_each_in_vector<T>(v, [&](uint32_t x) {
                uint32_t bin;
                if (!binner(x, bin)) bin = kNone;
                if (bin == cur) { ++run; return; }
                if (cur != kNone) c.add(cur, run);
                cur = bin;
                run = 1;
            });
            if (cur != kNone) c.add(cur, run);
        }
    }
};

template <class T, class Binner, bool kAggregate>
__global__ void __launch_bounds__(kCountBlock)
count_kernel(const T* in, size_t n, Binner binner, uint32_t log_r, uint32_t* hist) {
    extern __shared__ uint32_t s_copies[];              // bins x R words
    const uint32_t nb = binner.count(), r_count = 1u << log_r;
    block_zero(s_copies, nb << log_r);                   // barrier inside: zeros before counts
    CountVisit<T, Binner, kAggregate> visit{{s_copies, log_r, (threadIdx.x & 31) & (r_count - 1)}, binner};
    for_each_vector<kCountVecs>(in, n, visit);
    __syncthreads();                                     // every count has landed before the merge
    for (uint32_t b = threadIdx.x; b < nb; b += blockDim.x) {
        uint32_t sum = 0;
        // Start at a different copy in each thread: neighbours then read different banks.
        for (uint32_t r = 0; r < r_count; ++r) sum += s_copies[(b << log_r) + ((r + threadIdx.x) & (r_count - 1))];
        if (sum) atomicAdd(&hist[b], sum);
    }
}

// Host side: zero the output, pick the grid, launch. `log_r` copies of the bins per block.
template <bool kAggregate, class T, class Binner>
void launch_count(const T* d_in, size_t n, Binner binner, uint32_t log_r, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    auto kernel = count_kernel<T, Binner, kAggregate>;
    const size_t smem = sizeof(uint32_t) * (size_t(binner.count()) << log_r);
    course::allow_dynamic_smem(kernel, smem);
    const unsigned grid = grid_for_gpu(kernel, kCountBlock, smem, n, size_t(kCountBlock) * kCountVecs * (16 / sizeof(T)));
    kernel<<<grid, kCountBlock, smem>>>(d_in, n, binner, log_r, d_hist);
    CUDA_CHECK_LAST();
}

// Shared memory per block that 04 (and 05, 06 up to 12288 bins) spend on copies: 32 KB keeps 4
// blocks of 512 threads on an SM (H100: 228 KB), the full 2048 threads.
constexpr size_t kCopiesBudget = 32 * 1024;

// R for a bin count: the most copies (up to one per lane) that keep a block within `budget` bytes
// of shared memory, at least one.
inline uint32_t copies_log2(uint32_t bins, size_t budget) {
    uint32_t log_r = 5;
    while (log_r > 0 && (size_t(bins) << log_r) * 4 > budget) --log_r;
    return log_r;
}

// Bins a single copy can hold on this GPU (the opt-in maximum of dynamic shared memory).
inline uint32_t bins_in_smem() { return uint32_t(smem_optin() / 4); }

}  // namespace hist
