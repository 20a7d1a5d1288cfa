// lesson02_scan/tma_ring.cuh — Hopper's way of feeding a block: one thread asks the copy engine
// (TMA) for a whole tile with one bulk copy, into a ring of shared-memory stages that mbarriers
// guard; the other warps take full stages, and hand each back when they are done with it.
//
// The mbarrier phase protocol (a barrier counts arrivals AND bytes; a phase completes when both
// reach zero, and then it flips its parity bit and re-arms itself):
//   full[s]   armed for 1 arrival: the producer's arrive.expect_tx(bytes) announces the bytes; the
//             copy engine counts them down as they land; then the phase completes.
//   empty[s]  armed for one arrival per consumer warp: each warp arrives once it has the stage in
//             registers; then the producer may fill the stage again.
// Use k of stage s (fill number i = k * STAGES + s) waits for phase k of full[s]: parity k & 1.
// The producer's k-th refill waits for phase k - 1 of empty[s]: parity (k - 1) & 1.
//
// Waits are bounded: a ring whose protocol is broken (a fill never announced, a stage never handed
// back) traps after kStuckNs instead of hanging the program; the host sees a launch failure.
// Used by 08_tma_pipeline.cu (scan); the exercise and the wrong/ program plug in their own Handoff.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace tma_ring {

// A stuck wait traps after this long. A healthy wait lasts microseconds; even under
// compute-sanitizer (tens of times slower) the ring moves within milliseconds.
constexpr unsigned long long kStuckNs = 2000000000ull;   // 2 s

// The instructions exist from sm_90 on; code compiled for an older architecture gets a trap in their
// place (its launcher never runs the ring there: it takes 06's path).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define TMA_RING_ASM(...) __trap()
#else
#define TMA_RING_ASM(...) asm volatile(__VA_ARGS__)
#endif

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Arms the barrier for `count` arrivals. Once, by one thread, before the block's first barrier.
__device__ __forceinline__ void init(uint64_t* bar, uint32_t count) {
    TMA_RING_ASM("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the copy engine (the async proxy); then __syncthreads.
__device__ __forceinline__ void fence_init() { TMA_RING_ASM("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Generic-proxy writes to shared memory become visible to later async-proxy (copy engine) accesses.
__device__ __forceinline__ void fence_async_shared() { TMA_RING_ASM("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ __forceinline__ void arrive(uint64_t* bar) {
    TMA_RING_ASM("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// One arrival, and `bytes` more that the current phase must see land before it completes.
__device__ __forceinline__ void arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
    TMA_RING_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
// The copy engine moves `bytes` (a multiple of 16; both addresses 16-byte aligned) from global
// memory into this block's shared memory and counts them down on `bar` as they land.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
    TMA_RING_ASM(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
        "l"(src), "r"(bytes), "r"(smem_addr(bar))
        : "memory");
}
// True once the phase of parity `parity` has completed (the hardware waits a little before saying no).
__device__ __forceinline__ bool try_wait(uint64_t* bar, uint32_t parity) {
    uint32_t done = 0;
    TMA_RING_ASM("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.b32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
    return done != 0;
}
__device__ __noinline__ void wait_slow(uint64_t* bar, uint32_t parity) {
    unsigned long long start = 0, now = 0;
    TMA_RING_ASM("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (true) {
        for (int k = 0; k < 256; ++k)
            if (try_wait(bar, parity)) return;
        TMA_RING_ASM("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > kStuckNs) __trap();   // the ring is stuck: fail the launch, don't hang
    }
}
// Waits (bounded, see kStuckNs) until the phase of parity `parity` has completed.
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t parity) {
    if (!try_wait(bar, parity)) wait_slow(bar, parity);
}

// The ring's hand-off: which barrier each side waits for and arrives on, for fill number i.
template <int STAGES> struct Handoff {
    // Producer, before fill i: stage i % STAGES must be handed back from fill i - STAGES.
    __device__ static void producer_acquire(uint64_t* empty, unsigned i) {
        if (i >= STAGES) wait(&empty[i % STAGES], ((i / STAGES) - 1) & 1);
    }
    // Producer, fill i: announce the bytes, then start the copy (bytes == 0: a plain arrival and no
    // copy; the consumers read that tile from memory).
    __device__ static void producer_commit(uint64_t* full, unsigned i, void* dst, const void* src, uint32_t bytes) {
        uint64_t* bar = &full[i % STAGES];
        if (bytes == 0) {
            arrive(bar);
            return;
        }
        arrive_expect_tx(bar, bytes);
        bulk_copy(dst, src, bytes, bar);
    }
    // Consumer warp, before reading fill i.
    __device__ static void consumer_wait(uint64_t* full, unsigned i) { wait(&full[i % STAGES], (i / STAGES) & 1); }
    // Consumer warp (lane 0 after __syncwarp), done reading fill i: the producer may refill it.
    __device__ static void consumer_release(uint64_t* empty, unsigned i) { arrive(&empty[i % STAGES]); }
};

// For programs whose ring may be broken (the exercise, wrong/): wait for the launch and turn a
// stopped kernel into one line and exit 1 (a wrong answer), instead of a CUDA error (exit 3).
inline void exit_if_ring_stopped(const char* hint) {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) return;
    std::fprintf(stderr,
                 "FAIL: the kernel stopped (%s): a wait on the ring ran past %llu s, so the ring is stuck: %s\n",
                 cudaGetErrorName(err), kStuckNs / 1000000000ull, hint);
    std::exit(1);
}

}   // namespace tma_ring
