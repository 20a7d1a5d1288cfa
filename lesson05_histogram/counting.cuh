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
//
// Bytes with R = 32 (04, and 05/06 for bytes) get their own kernel, count_bytes_kernel: the same
// algorithm, with the address arithmetic cut to what the fixed layout needs (see LaneByteCopies).
#pragma once
#include <type_traits>

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
    __device__ __forceinline__ void add(uint32_t bin, uint32_t count) { atomicAdd(&s[(bin << log_r) + slot], count); }
};

template <class T, class Binner, bool kAggregate> struct CountVisit {
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
                if (bin == cur) {
                    ++run;
                    return;
                }
                if (cur != kNone) c.add(cur, run);
                cur = bin;
                run = 1;
            });
            if (cur != kNone) c.add(cur, run);
        }
    }
};

// After the counting (and a barrier): each thread sums the R copies of some bins and adds them to
// the global bins.
__device__ __forceinline__ void merge_copies(const uint32_t* s_copies, uint32_t nb, uint32_t log_r, uint32_t* hist) {
    const uint32_t r_count = 1u << log_r;
    for (uint32_t b = threadIdx.x; b < nb; b += blockDim.x) {
        uint32_t sum = 0;
        // Start at a different copy in each thread: neighbours then read different banks.
        for (uint32_t r = 0; r < r_count; ++r) sum += s_copies[(b << log_r) + ((r + threadIdx.x) & (r_count - 1))];
        if (sum) atomicAdd(&hist[b], sum);
    }
}

// Delta from 02's kernel: R interleaved copies (lane L adds into copy L % R) and 16-byte loads.
template <class T, class Binner, bool kAggregate>
__global__ void __launch_bounds__(kCountBlock)
    count_kernel(const T* in, size_t n, Binner binner, uint32_t log_r, uint32_t* hist) {
    extern __shared__ uint32_t s_copies[];   // bins x R words
    const uint32_t nb = binner.count(), r_count = 1u << log_r;
    block_zero(s_copies, nb << log_r);   // barrier inside: zeros before counts
    CountVisit<T, Binner, kAggregate> visit{{s_copies, log_r, (threadIdx.x & 31) & (r_count - 1)}, binner};
    for_each_vector<kCountVecs>(in, n, visit);
    __syncthreads();   // every count has landed before the merge
    merge_copies(s_copies, nb, log_r, hist);
}

// ---- bytes with one copy per lane (R = 32): the same kernel, fewer instructions per byte ----------
// With R = 32 fixed, lane L's counter of bin b is word b * 32 + L: the lane's own copy starts at
// word L, and each bin is 32 words (128 bytes) further on. So a lane computes its copy's address
// once, and a byte costs three instructions: pull the byte out of its word (one PRMT), address =
// mine + byte * 128 (one IMAD), the shared atomic. count_kernel's generic path does more: extract
// (shift, and), shift by log2(R) (a kernel argument), add the lane's copy, then scale by 4 and add
// the shared window's base (the compiler redoes that for every atomic, even on a __shared__ array
// indexed the same way here: 406 instructions a loop). To hand the atomic a ready shared address
// we write it in PTX: `red.shared.add.u32` is the atomic add whose old value nobody reads (SASS:
// ATOMS.POPC.INC, what atomicAdd(p, 1) compiles to). Measured (nvcc 13.0, sm_90, cuobjdump): the
// loop over 4 x 16 bytes a thread is 274 instructions (4.3 a byte, loads included) against 456
// (7.1); ncu at 2^30 bytes: 143.5 M warp instructions against 241 M (CUB's kernel: 163 M).
struct LaneByteCopies {
    uint32_t mine;   // shared-window address of this lane's counter of bin 0
    __device__ __forceinline__ void add(uint32_t byte) {
        asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(mine + byte * 128u) : "memory");
    }
    __device__ __forceinline__ void one(uint32_t x) { add(x); }   // a head or tail byte
    __device__ __forceinline__ void vec(const uint4& v) {
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int b = 0; b < 4; ++b) add(__byte_perm(w[j], 0, 0x4440 + b));   // byte b of w[j], zero-extended
    }
};

// 4 blocks of 512 threads per SM need at most 32 registers a thread: the bound holds the kernel
// there (no spills). Without it nvcc took 64, so 2 blocks an SM: measured slightly slower.
// SMs of 1024 or 1536 threads (sm_75, sm_86, sm_89) hold fewer: min_blocks_that_fit asks for those.
constexpr uint32_t kByteCopyWords = 256u << 5;   // 256 bins x 32 lane copies
// Delta from count_kernel: bytes with R = 32 fixed, so each lane's counter address is computed once.
__global__ void __launch_bounds__(kCountBlock, course::min_blocks_that_fit(4, kCountBlock))
    count_bytes_kernel(const uint8_t* in, size_t n, uint32_t* hist) {
    extern __shared__ uint32_t s_copies[];   // kByteCopyWords
    block_zero(s_copies, kByteCopyWords);    // barrier inside: zeros before counts
    LaneByteCopies visit{uint32_t(__cvta_generic_to_shared(s_copies + (threadIdx.x & 31)))};
    for_each_vector<kCountVecs>(in, n, visit);
    __syncthreads();   // every count has landed before the merge
    merge_copies(s_copies, 256, 5, hist);
}

// Host side: zero the output, pick the grid, launch. `log_r` copies of the bins per block.
template <bool kAggregate, class T, class Binner>
void launch_count(const T* d_in, size_t n, Binner binner, uint32_t log_r, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    if constexpr (std::is_same_v<T, uint8_t> && !kAggregate) {
        if (log_r == 5) {   // bytes, one copy per lane: the kernel above
            launch_resident(count_bytes_kernel, kCountBlock, sizeof(uint32_t) * kByteCopyWords, n,
                            size_t(kCountBlock) * kCountVecs * 16, d_in, n, d_hist);
            return;
        }
    }
    launch_resident(count_kernel<T, Binner, kAggregate>, kCountBlock,
                    sizeof(uint32_t) * (size_t(binner.count()) << log_r), n,
                    size_t(kCountBlock) * kCountVecs * (16 / sizeof(T)), d_in, n, binner, log_r, d_hist);
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

// launch_count's kernel for a case (04, and 05 and 06 up to 12288 bins), as --plan prints it. The
// blocks per SM are the occupancy API's answer at run time (grid_for_gpu), so the plan counts on none.
inline course::KernelPlan count_plan(const course::Case& c) {
    const bool bytes = c.dtype == "uint8";
    const uint32_t bins = bytes ? 256u : uint32_t(c.param), log_r = copies_log2(bins, kCopiesBudget);
    if (bytes) {
        const size_t smem = sizeof(uint32_t) * kByteCopyWords;
        return {"count_bytes_kernel", int(kCountBlock), smem, 0, 1, "one copy of the 256 bins per lane"};
    }
    const size_t smem = sizeof(uint32_t) * (size_t(bins) << log_r);
    course::require_smem(smem, "a copy of the bins");   // the run refuses it too (device_max_bins)
    return {"count_kernel", int(kCountBlock), smem, 0, 1, std::to_string(1u << log_r) + " copies of the bins a block"};
}

// Bins a single copy can hold on this GPU (the opt-in maximum of dynamic shared memory).
inline uint32_t bins_in_smem() { return uint32_t(smem_optin() / 4); }

}   // namespace hist
