// 06_cluster_dsmem — large bin counts on sm_90: 32-bit counters spread over the shared memory of
// a thread-block cluster (distributed shared memory), no 16-bit flushing.
//
// What changed since 05: above 12288 bins, instead of halving the counters, a cluster of C = 2..8
// blocks (the smallest power of two keeping each block's slice within 64 KB: 65536 bins -> C = 4)
// shares one copy of the bins; block r owns bins r, r + C, r + 2C, ... Any thread adds to any bin:
// it maps the owner's shared memory (cluster.map_shared_rank) and the SM-to-SM network carries
// the atomic.
// Cost: n distributed-shared atomics ((C-1)/C of them to another SM) and C times fewer global
// atomics in the merge than 05's flush; cluster.sync() after zeroing and after counting.
// Faster than CUB on 65536 bins, but much slower than 05's 16-bit counters (TUNING.md).
// What limits it (likely; not profiled): each remote add is a small request of its own
// over the SM-to-SM network, far slower than the SM's own shared atomics. Clusters pay when the
// remote traffic is coarse. Limits: sm_90+ (elsewhere, and up to 12288 bins, this is 04); at
// most 8 x 64 KB = 131072 bins. Notes below the includes.
//
// Build alone:  nvcc -O3 -arch=native -o hist06 06_cluster_dsmem.cu
// Run:          ./hist06 --type uint32 --bins 65536 --n 2^28          ./hist06 --test
#include <cooperative_groups.h>

#include "lesson.cuh"
#include "counting.cuh"

// Notes on the cluster path:
//   * bin b lives in block b % C at word b / C; any thread of the cluster adds into any block's
//     slice through distributed shared memory (slower than local shared atomics, far faster than
//     L2 atomics); the merge then adds blocks/C x non-zero bins global atomics.
//   * the two cluster.sync()s: after zeroing (nobody adds into a slice before it is zeroed) and
//     after counting (every remote add has landed before the owner merges, and no block exits
//     while others still write into its shared memory).
//   * the cluster path still merges runs of equal neighbouring keys into one add, as it did when
//     measured (on 256 and 4096 bins that merging is a measured pitfall:
//     wrong/run_aggregation_slowdown.cu).
//   * why it loses to 05 (the likely reason): with C = 4, 3/4 of the adds leave the SM, each a
//     small request of its own over the SM-to-SM network, whose throughput for scattered 4-byte
//     atomics is far below the SM's own shared-memory atomic unit (which serves a warp's 32 adds
//     as one instruction); uniform keys give no locality to keep adds at home. 05 sends one add in
//     32768 off the SM (the hand-off). Clusters win back only the smaller final merge.

namespace cg = cooperative_groups;

constexpr int kBlockC = 512;
constexpr int kVecsC = 4;
constexpr uint32_t kSliceBytes = 64 * 1024;
constexpr uint32_t kMaxCluster = 8;   // the portable cluster size limit
constexpr uint32_t kMax32BitBins = 48 * 1024 / 4;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <class Binner> struct VisitCluster {
    cg::cluster_group cluster;
    uint32_t* s;
    uint32_t log_c;
    Binner binner;
    __device__ __forceinline__ void add(uint32_t bin, uint32_t c) {
        const uint32_t owner = bin & ((1u << log_c) - 1);
        uint32_t* slice = cluster.map_shared_rank(s, owner);   // the owner block's shared memory
        atomicAdd(slice + (bin >> log_c), c);
    }
    __device__ __forceinline__ void one(uint32_t x) {
        uint32_t bin;
        if (binner(x, bin)) add(bin, 1);
    }
    // Runs of equal bins become one add (kept as measured in this path; see the header).
    __device__ __forceinline__ void vec(const uint4& v) {
        constexpr uint32_t kNone = 0xFFFFFFFFu;
        uint32_t cur = kNone, run = 0;
        hist::for_each_in_vector<uint32_t>(v, [&](uint32_t x) {
            uint32_t bin;
            if (!binner(x, bin)) bin = kNone;
            if (bin == cur) {
                ++run;
                return;
            }
            if (cur != kNone) add(cur, run);
            cur = bin;
            run = 1;
        });
        if (cur != kNone) add(cur, run);
    }
};
#endif

// Delta from 05's count16_kernel: 32-bit counters kept, spread over the cluster's shared memory.
template <class Binner>
__global__ void __launch_bounds__(kBlockC)
    cluster_kernel(const uint32_t* in, size_t n, Binner binner, uint32_t log_c, uint32_t slice, uint32_t* hist) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ uint32_t s_slice[];   // `slice` words: this block's bins
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t rank = cluster.block_rank(), nb = binner.count();
    for (uint32_t i = threadIdx.x; i < slice; i += blockDim.x) s_slice[i] = 0;
    cluster.sync();   // every slice zeroed before any add
    VisitCluster<Binner> visit{cluster, s_slice, log_c, binner};
    hist::for_each_vector<kVecsC>(in, n, visit);
    cluster.sync();   // every remote add landed; nobody exits early
    for (uint32_t i = threadIdx.x; i < slice; i += blockDim.x) {
        const uint32_t bin = (i << log_c) + rank;
        if (bin < nb && s_slice[i]) atomicAdd(&hist[bin], s_slice[i]);
    }
#else
    (void)in;
    (void)n;
    (void)binner;
    (void)log_c;
    (void)slice;
    (void)hist;
    __trap();   // never launched below sm_90 (host checks)
#endif
}

// The cluster path needs a GPU that launches clusters (not a T4, A100 or Ada card, nor a profile of
// one) and code compiled for sm_90 or newer: compute_75 PTX JIT-compiled on an H100 has only the
// __trap() above, so the GPU's compute capability alone would pick a path the code does not have.
bool has_clusters() {
    return course::device().clusters && course::compiled_arch_of(cluster_kernel<hist::EvenBins>) >= 900;
}

// Bytes, up to 12288 bins, and GPUs without clusters: 04's counting (per-lane copies, no run merging).
void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, hist::ByteBins{}, hist::copies_log2(256, hist::kCopiesBudget), d_hist);
}

// The cluster size: the smallest power of two (2..8) whose slices of the bins fit 64 KB each.
uint32_t cluster_log2(uint32_t bins) {
    uint32_t log_c = 1;
    while ((1u << log_c) < kMaxCluster && ((bins + (1u << log_c) - 1) >> log_c) * 4 > kSliceBytes) ++log_c;
    return log_c;
}

// The plan --plan prints: the cluster launch where this GPU and this build have clusters, else 04's.
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    if (c.dtype == "uint8" || c.param <= kMax32BitBins || !has_clusters())
        return std::vector<course::KernelPlan>{hist::count_plan(c)};
    const uint32_t log_c = cluster_log2(uint32_t(c.param)), slice = (uint32_t(c.param) + (1u << log_c) - 1) >> log_c;
    const size_t smem = sizeof(uint32_t) * slice;
    return std::vector<course::KernelPlan>{
        {"cluster_kernel", kBlockC, smem, 0, int(1u << log_c), "bins spread over the cluster's shared memory"}};
});

void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    if (b.bins <= kMax32BitBins || !has_clusters()) {
        hist::launch_count<false>(d_in, n, b, hist::copies_log2(b.bins, hist::kCopiesBudget), d_hist);
        return;
    }
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * b.bins));
    if (n == 0) return;
    const uint32_t log_c = cluster_log2(b.bins);
    const uint32_t cluster = 1u << log_c;
    const uint32_t slice = (b.bins + cluster - 1) / cluster;
    auto kernel = cluster_kernel<hist::EvenBins>;
    const size_t smem = sizeof(uint32_t) * slice;
    course::allow_dynamic_smem(kernel, smem);
    unsigned grid = hist::grid_for_gpu(kernel, kBlockC, smem, n, size_t(kBlockC) * kVecsC * 4);
    grid = std::max(cluster, grid / cluster * cluster);   // whole clusters
    cudaLaunchAttribute attr{};                           // blocks in clusters of `cluster` along x
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    course::launch_with(attr, true, kernel, grid, kBlockC, smem, d_in, n, b, log_c, slice, d_hist);
    CUDA_CHECK_LAST();
}

uint32_t max_bins_here() {
    if (!has_clusters()) return hist::bins_in_smem();
    return std::min<uint32_t>(hist::kMaxBins, kMaxCluster * (kSliceBytes / 4));
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.device_max_bins = max_bins_here;
    return hist::run_lesson(argc, argv, "06_cluster_dsmem", s);
}
