// 08_tma_pipeline — 06's single pass, fed by Hopper's copy engine: one producer warp, a ring of
// shared-memory stages, consumer warps that scan, persistent blocks.
//
// What changed since 06: in 06 every thread issues its own 16-byte loads and holds them in
// registers until they land; the tile's latency is hidden only by the loads a thread keeps in
// flight and by the other blocks on the SM. Here one thread of a producer warp asks the copy engine
// (TMA) for a whole tile with one bulk copy (cp.async.bulk) into a ring of 2 stages (tma_ring.cuh),
// running up to 2 tiles ahead of the 8 consumer warps; the consumers take a full stage into
// registers, hand it back at once (mbarriers, no __syncthreads), then scan and look back as 06.
// Blocks are persistent (as many as fit, launched cooperatively): block b scans tiles b, b + grid, ...
// Cost model: read n, write n + 8 bytes of status per tile; per tile one bulk copy, 2 named
// barriers among the consumers, one look-back; the reads cost no registers while in flight.
// Limits: the memory system; needs sm_90 code on an sm_90+ GPU and a 16-byte aligned input,
// else it runs 06 (--plan says which). A partial last tile skips the ring: its consumers read it
// from memory, as 06 does. A broken ring traps after 2 s instead of hanging (tma_ring.cuh).
//
// Build alone:  nvcc -O3 -arch=sm_90 -o tma_scan 08_tma_pipeline.cu
// Run:          ./tma_scan --n 2^28     ./tma_scan --test     ./tma_scan --plan --n 2^28
#include <cstdint>

#include "scan.cuh"   // 06's device_scan: the path without TMA
#include "tma_ring.cuh"

namespace scan {
namespace ring {

// 8 consumer warps x 8 vectors of 4 elements a lane = 8192 elements (32 KB) a stage; 2 stages
// (64 KB) and at most 72 registers a thread (the launch bound) let 3 blocks share an SM: 24
// consumer warps and 6 tiles in flight an SM.
// 4 consumer warps (8 an SM) could not keep up; other shapes measured: TUNING.md.
constexpr int kVecs = 8, kStages = 2, kConsumerWarps = 8;
constexpr int kThreads = 32 * (kConsumerWarps + 1);   // the last warp is the producer
constexpr int kBlocksPerSm = 3;                       // the launch bound: so on every architecture
constexpr int kTile = kConsumerWarps * tile::warp_items<kVecs>();
constexpr size_t kStageBytes = size_t(kTile) * 4;
constexpr size_t kSmem = kStages * kStageBytes;
using DefaultHandoff = tma_ring::Handoff<kStages>;

// The consumer warps' own barrier (named barrier 1): the producer warp never joins it.
__device__ __forceinline__ void consumers_sync() {
    asm volatile("bar.sync 1, %0;" ::"n"(kConsumerWarps * 32) : "memory");
}

// 06's kernel split into roles: a producer warp fills the ring with bulk copies; consumer warps
// scan each stage as 06 scans its registers. Handoff: the ring's protocol (exercise: your own).
template <class T, bool kAlignedOut, class Handoff>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ring_scan_kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, bool exclusive, unsigned tiles,
                     lookback::State st) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char s_stages[];
    __shared__ uint64_t s_full[kStages], s_empty[kStages];
    __shared__ T s_warp_prefix[kConsumerWarps];
    __shared__ T s_tile_prefix;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            tma_ring::init(&s_full[s], 1);                 // the producer's one arrival (+ bytes)
            tma_ring::init(&s_empty[s], kConsumerWarps);   // one arrival per consumer warp
        }
        tma_ring::fence_init();
    }
    __syncthreads();

    if (warp == kConsumerWarps) {
        if (lane != 0) return;   // the producer is one thread: fill i holds this block's i-th tile
        for (unsigned i = 0;; ++i) {
            const size_t t = blockIdx.x + size_t(i) * gridDim.x;
            if (t >= tiles) return;
            Handoff::producer_acquire(s_empty, i);
            // A whole tile goes by the copy engine; a partial last tile is not copied (0 bytes: a plain
            // arrival), its consumers read it from memory: no element is ever written to a stage by hand.
            const uint32_t bytes = n - t * kTile >= size_t(kTile) ? uint32_t(kStageBytes) : 0u;
            Handoff::producer_commit(s_full, i, s_stages + (i % kStages) * kStageBytes, in + t * kTile, bytes);
        }
        return;
    }

    // Consumers: 06's tile scan, from the stage instead of global memory.
    for (unsigned i = 0;; ++i) {
        const size_t t = blockIdx.x + size_t(i) * gridDim.x;
        if (t >= tiles) return;
        const T* stage = reinterpret_cast<const T*>(s_stages + (i % kStages) * kStageBytes);
        Handoff::consumer_wait(s_full, i);
        const size_t base = t * kTile;
        const unsigned valid = unsigned(n - base < size_t(kTile) ? n - base : size_t(kTile));
        const size_t warp_off = size_t(warp) * tile::warp_items<kVecs>();

        T x[kVecs][4];
        tile::load<T, kVecs, true>(valid == unsigned(kTile) ? stage : in + base, valid, warp_off, x);
        __syncwarp();   // every lane has read its part of the stage: hand it back
        if (lane == 0) Handoff::consumer_release(s_empty, i);
        T vec_prefix[kVecs];
        const T warp_total = tile::warp_scan(x, vec_prefix);

        if (lane == 0) s_warp_prefix[warp] = warp_total;
        consumers_sync();
        if (warp == 0) {   // as 06: scan the warp totals, publish, look back, publish the prefix
            T w = lane < kConsumerWarps ? s_warp_prefix[lane] : T(0);
            T w_incl = warp_inclusive_scan(w);
            T block_total = __shfl_sync(kFullMask, w_incl, kConsumerWarps - 1);
            T below = __shfl_up_sync(kFullMask, w_incl, 1);
            if (lane < kConsumerWarps) s_warp_prefix[lane] = lane == 0 ? T(0) : below;
            T tile_prefix = T(0);
            if (t == 0) {
                if (lane == 0) lookback::publish(st.status, lookback::kPrefix, lookback::to_bits(block_total));
            } else {
                if (lane == 0) lookback::publish(st.status + t, lookback::kAggregate, lookback::to_bits(block_total));
                tile_prefix = lookback::warp_lookback<T>(st.status, unsigned(t));
                if (lane == 0)
                    lookback::publish(st.status + t, lookback::kPrefix, lookback::to_bits(tile_prefix + block_total));
            }
            if (lane == 0) s_tile_prefix = tile_prefix;
        }
        consumers_sync();
        tile::store<T, kVecs, kAlignedOut>(out, n, base + warp_off, x, vec_prefix, s_tile_prefix + s_warp_prefix[warp],
                                           exclusive);
    }
#else
    (void)in;
    (void)out;
    (void)n;
    (void)exclusive;
    (void)tiles;
    (void)st;
    __trap();   // never launched: code built for an older GPU takes 06's path (tma_path below)
#endif
}

// The ring runs where the GPU has TMA (sm_90+; not a profile of an older GPU) and this build's code
// has it: compute_75 PTX JIT-compiled on an H100 has only the __trap() above.
inline bool tma_path() {
    return course::device().cc() >= 90 &&
           course::compiled_arch_of(ring_scan_kernel<uint32_t, true, DefaultHandoff>) >= 900;
}

// Persistent grid: as many blocks as the GPU holds at once (the shared memory decides), at most one
// per tile. Asked of the runtime once per kernel.
template <class T, bool kAlignedOut, class Handoff> int ring_blocks_per_sm() {
    static const int per_sm = course::resident_blocks(ring_scan_kernel<T, kAlignedOut, Handoff>, kThreads, kSmem);
    return per_sm;
}

template <class T, bool kAlignedOut, class Handoff>
void launch_kernel(const T* in, T* out, size_t n, bool excl, int scratch_slot, cudaStream_t stream,
                   unsigned max_blocks) {
    auto kernel = ring_scan_kernel<T, kAlignedOut, Handoff>;
    course::allow_dynamic_smem(kernel, kSmem);
    const size_t tiles = (n + kTile - 1) / kTile;
    const size_t resident = size_t(course::device().sm_count) * size_t(ring_blocks_per_sm<T, kAlignedOut, Handoff>());
    size_t grid = tiles < resident ? tiles : resident;
    if (max_blocks && grid > max_blocks) grid = max_blocks;
    lookback::State st = lookback::prepare(scratch_slot, tiles, stream);
    // Cooperative: every block resident at once (or a launch error, never a hang), so a tile's
    // predecessors are always on running blocks and the look-back cannot deadlock.
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(grid));
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSmem;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, in, out, n, excl, unsigned(tiles), st));
}

// The entry point: the ring where it can run, else 06's scan (scan::device_scan). max_blocks > 0
// caps the grid (the exercise uses a few blocks so that every stage is refilled many times).
template <class T, class Handoff = DefaultHandoff>
void launch_ring_scan(const T* in, T* out, size_t n, Kind kind, int scratch_slot, cudaStream_t stream,
                      unsigned max_blocks = 0) {
    if (n == 0) return;
    if (!tma_path() || reinterpret_cast<uintptr_t>(in) % 16 != 0) {
        scan::device_scan(in, out, n, kind, scratch_slot, stream);
        return;
    }
    const bool excl = kind == Kind::exclusive;
    if (reinterpret_cast<uintptr_t>(out) % 16 == 0)
        launch_kernel<T, true, Handoff>(in, out, n, excl, scratch_slot, stream, max_blocks);
    else launch_kernel<T, false, Handoff>(in, out, n, excl, scratch_slot, stream, max_blocks);
}

}   // namespace ring
}   // namespace scan

#ifndef COURSE_NO_MAIN   // the exercise and the wrong/ program include this file
// --plan: the ring's launch, or 06's where this GPU or this build has no TMA.
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    using namespace scan::ring;
    if (!tma_path()) {
        const scan::detail::ScanLaunch p = scan::detail::lookback_scan_launch(c.n);
        return std::vector<course::KernelPlan>{
            {"lookback_scan_kernel", scan::detail::kScanBlock, 0, 0, 1,
             "no TMA (GPU before sm_90 or code built for an older arch): 06_decoupled_lookback's path, " +
                 std::to_string(p.grid) + " blocks"}};
    }
    const int per_sm = ring_blocks_per_sm<uint32_t, true, DefaultHandoff>();
    const size_t tiles = (c.n + kTile - 1) / kTile;
    const size_t resident = size_t(course::device().sm_count) * size_t(per_sm);
    return std::vector<course::KernelPlan>{
        {"ring_scan_kernel", kThreads, kSmem, per_sm, 1,
         std::to_string(tiles < resident ? tiles : resident) + " persistent blocks of 1 producer + " +
             std::to_string(kConsumerWarps) + " consumer warps, " + std::to_string(kStages) + " stages of " +
             std::to_string(kTile) + " elements; a 16-byte misaligned input takes 06's path"}};
});

// Scratch slot 1 for the tile statuses, as 06.
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) {
    scan::ring::launch_ring_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n, kind, 1,
                                 0);
}
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) {
    scan::ring::launch_ring_scan(in, out, n, kind, 1, 0);
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = scan::ring::kTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "08_tma_pipeline", scan_int, scan_float, limits);
}
#endif
