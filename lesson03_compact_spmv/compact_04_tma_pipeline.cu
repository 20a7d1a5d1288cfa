// compact_04_tma_pipeline — compact_03's one pass, fed by Hopper's copy engine: a producer warp
// fills a ring of shared-memory stages with bulk copies (lesson02's tma_ring.cuh), consumer warps
// select, look back and write out; persistent blocks.
//
// What changed since compact_03_lookback: in 03 each thread issues 12 16-byte loads and waits on
// them with its registers; a tile's latency is hidden only by those loads and by 7 other blocks on
// the SM. Here one thread asks the copy engine for the next 2 tiles while the 8 consumer warps
// work on the current one, as lesson02's 08_tma_pipeline does for scan. The consumers take a full
// stage into registers, hand it back, count and scan their keep flags (compact_03's packed bytes),
// look back, stage the kept elements in a second buffer and copy them out coalesced.
// Cost model: read 4n, write 4 * kept, 8 bytes of status per tile; per tile one bulk copy, 3 named
// barriers among the consumers, one look-back. Shared memory: 2 stages + the output buffer (72 KB).
// Limits: n <= 2^31 - 1; needs sm_90 code on an sm_90+ GPU and a 16-byte aligned input, else it
// runs compact_03 (--plan says which). Measured against 03 and CUB: TUNING.md.
//
// Build alone:  nvcc -O3 -arch=sm_90 -o compact04 compact_04_tma_pipeline.cu
// Run:          ./compact04 --n 2^28 --pct 50        ./compact04 --test        ./compact04 --plan
#define COURSE_NO_MAIN   // compact_03's launcher is the path without TMA
#include "compact_03_lookback.cu"
#undef COURSE_NO_MAIN
#include "../lesson02_scan/tma_ring.cuh"

namespace ring_compact {

// 8 consumer warps x 6 rows of 4 elements a lane = 6144 elements (24 KB) a tile, compact_03's
// tile; 2 stages + the output buffer (72 KB) and at most 72 registers a thread let 3 blocks share
// an SM.
constexpr int kVecs = 6, kStages = 2, kConsumerWarps = 8, kBlocksPerSm = 3;
constexpr int kThreads = 32 * (kConsumerWarps + 1);   // the last warp is the producer
constexpr int kConsumers = 32 * kConsumerWarps;
constexpr int kWarpItems = 32 * 4 * kVecs;
constexpr int kTile = kConsumerWarps * kWarpItems;
constexpr int kWords = (kVecs + 3) / 4;
constexpr size_t kStageBytes = size_t(kTile) * sizeof(int32_t);
constexpr size_t kSmem = (kStages + 1) * kStageBytes;   // the ring, then the output buffer
using Ring = tma_ring::Handoff<kStages>;

__device__ __forceinline__ void consumers_sync() {   // named barrier 1: the producer never joins
    asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory");
}

// compact_03's kernel split into roles: the producer fills stage i % kStages with this block's
// i-th tile (block b: tiles b, b + grid, ...); the consumers select from the stage, not from memory.
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ring_compact_kernel(const int32_t* __restrict__ in, int32_t* __restrict__ out, uint32_t* __restrict__ count,
                        size_t n, uint32_t pct, unsigned tiles, lookback::State st) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char s_mem[];
    __shared__ uint64_t s_full[kStages], s_empty[kStages];
    __shared__ uint32_t s_warp[kConsumerWarps];
    __shared__ uint32_t s_prefix, s_total;
    int32_t* const s_out = reinterpret_cast<int32_t*>(s_mem + kStages * kStageBytes);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            tma_ring::init(&s_full[s], 1);
            tma_ring::init(&s_empty[s], kConsumerWarps);
        }
        tma_ring::fence_init();
    }
    __syncthreads();

    if (warp == kConsumerWarps) {   // producer: whole 16-byte chunks by the copy engine, the rest by hand
        for (unsigned i = 0;; ++i) {
            const size_t t = blockIdx.x + size_t(i) * gridDim.x;
            if (t >= tiles) return;
            int32_t* stage = reinterpret_cast<int32_t*>(s_mem + (i % kStages) * kStageBytes);
            if (lane == 0) Ring::producer_acquire(s_empty, i);
            __syncwarp();
            const size_t base = t * kTile;
            const unsigned valid = unsigned(n - base < size_t(kTile) ? n - base : size_t(kTile));
            const unsigned bulk = valid & ~3u;
            for (unsigned e = bulk + lane; e < valid; e += 32) stage[e] = in[base + e];
            __syncwarp();
            if (lane == 0) Ring::producer_commit(s_full, i, stage, in + base, bulk * uint32_t(sizeof(int32_t)));
        }
    }

    for (unsigned i = 0;; ++i) {   // consumers
        const size_t t = blockIdx.x + size_t(i) * gridDim.x;
        if (t >= tiles) return;
        const int32_t* stage = reinterpret_cast<const int32_t*>(s_mem + (i % kStages) * kStageBytes);
        Ring::consumer_wait(s_full, i);
        const size_t base = t * kTile;
        const unsigned valid = unsigned(n - base < size_t(kTile) ? n - base : size_t(kTile));
        // Row j of lane l is stage elements warp * kWarpItems + 128 j + 4 l + (0..3), as in 03.
        const unsigned lane_off = unsigned(warp) * kWarpItems + 4 * unsigned(lane);
        int32_t x[kVecs][4];
        uint32_t flags[kWords] = {};
#pragma unroll
        for (int j = 0; j < kVecs; ++j) {
            const int4 v = *reinterpret_cast<const int4*>(stage + lane_off + 128 * j);   // conflict-free
            x[j][0] = v.x;
            x[j][1] = v.y;
            x[j][2] = v.z;
            x[j][3] = v.w;
        }
        __syncwarp();
        if (lane == 0) Ring::consumer_release(s_empty, i);
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k)   // slots past the tile's valid elements hold stale data: never kept
                if (lane_off + 128 * j + k < valid && compact::keep(x[j][k], pct))
                    flags[j / 4] |= compact::flag_bit(j, k);

        uint32_t excl[kWords], tot[kWords], warp_kept = 0;   // 03's bytewise warp scan of the flags
#pragma unroll
        for (int w = 0; w < kWords; ++w) {
            const uint32_t counts = compact::row_counts(flags[w]);
            const uint32_t incl = scan::warp_inclusive_scan(counts);
            excl[w] = incl - counts;
            tot[w] = __shfl_sync(scan::kFullMask, incl, 31);
            warp_kept += compact::bytes_sum(tot[w]);
        }
        if (lane == 0) s_warp[warp] = warp_kept;
        consumers_sync();
        if (warp == 0) {   // block scan of the warp counts, publish, look back, publish the prefix
            const uint32_t v = lane < kConsumerWarps ? s_warp[lane] : 0;
            const uint32_t incl = scan::warp_inclusive_scan(v);
            const uint32_t total = __shfl_sync(scan::kFullMask, incl, kConsumerWarps - 1);
            if (lane < kConsumerWarps) s_warp[lane] = incl - v;
            uint32_t prefix = 0;
            if (t == 0) {
                if (lane == 0) lookback::publish(st.status, lookback::kPrefix, total);
            } else {
                if (lane == 0) lookback::publish(st.status + t, lookback::kAggregate, total);
                prefix = lookback::warp_lookback<uint32_t>(st.status, unsigned(t));
                if (lane == 0) lookback::publish(st.status + t, lookback::kPrefix, prefix + total);
            }
            if (lane == 0) {
                s_prefix = prefix;
                s_total = total;
                if (t == tiles - 1) *count = prefix + total;
            }
        }
        consumers_sync();
        const uint32_t prefix = s_prefix, total = s_total;
        compact::stage_kept<kVecs>(flags, excl, tot, x, s_out + s_warp[warp]);
        consumers_sync();   // the whole run is staged before anyone copies it out
        const int32_t* src = s_out + threadIdx.x;
        int32_t* dst = out + prefix + threadIdx.x;
        for (; src < s_out + total; src += kConsumers, dst += kConsumers) *dst = *src;
    }
#else
    (void)in, (void)out, (void)count, (void)n, (void)pct, (void)tiles, (void)st;
    __trap();   // never launched: code for an older GPU takes compact_03's path (tma_path below)
#endif
}

// The ring where the GPU has TMA (and is not playing an older GPU's profile) and this build's code has it.
inline bool tma_path() {
    return course::device().cc() >= 90 && course::compiled_arch_of(ring_compact_kernel) >= 900;
}
inline int blocks_per_sm() {
    static const int per_sm = course::resident_blocks(ring_compact_kernel, kThreads, kSmem);
    return per_sm;
}
inline size_t ring_grid(size_t tiles) {
    const size_t resident = size_t(course::device().sm_count) * size_t(blocks_per_sm());
    return tiles < resident ? tiles : resident;
}

// The entry point: the ring where it can run, else compact_03's launcher.
void compact_ring(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0 || !tma_path() || reinterpret_cast<uintptr_t>(d_in) % 16 != 0) {
        compact_lookback<true>(d_in, d_out, d_count, n, pct);
        return;
    }
    course::allow_dynamic_smem(ring_compact_kernel, kSmem);
    const size_t tiles = (n + kTile - 1) / kTile;
    lookback::State st = lookback::prepare(2, tiles);
    // Cooperative: every block resident at once (or a launch error), so the look-back cannot
    // wait on a tile whose block has not started.
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(ring_grid(tiles)));
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSmem;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, ring_compact_kernel, d_in, d_out, d_count, n, pct, unsigned(tiles), st));
}

}   // namespace ring_compact

static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    namespace rc = ring_compact;
    if (!rc::tma_path()) {
        std::vector<course::KernelPlan> p = compact_plan(c.n);
        p[0].note = "no TMA (GPU before sm_90 or code built for an older arch): compact_03's path, " + p[0].note;
        return p;
    }
    const size_t tiles = (c.n + rc::kTile - 1) / rc::kTile;
    return std::vector<course::KernelPlan>{
        {"ring_compact_kernel", rc::kThreads, rc::kSmem, rc::blocks_per_sm(), 1,
         std::to_string(rc::ring_grid(tiles)) + " persistent blocks of 1 producer + " +
             std::to_string(rc::kConsumerWarps) + " consumer warps, " + std::to_string(rc::kStages) + " stages of " +
             std::to_string(rc::kTile) + " elements and an output buffer; a 16-byte misaligned input takes compact_03's path"}};
});

int main(int argc, char** argv) {
    compact::Limits lim;
    lim.huge_test = true;
    lim.tile = ring_compact::kTile;
    return compact::run_lesson(argc, argv, "compact_04_tma_pipeline", ring_compact::compact_ring, lim);
}
