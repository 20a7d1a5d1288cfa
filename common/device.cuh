// common/device.cuh — the GPU side of the harness: finding the device, owning device memory,
// refusing sizes that do not fit, and timing with CUDA events.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli.h"
#include "error.cuh"
#include "gpu_limits.h"

namespace course {

// Thrown while setting up a case that cannot run here (too big for this GPU or the host).
// A single run turns it into one line and exit 2; a sweep skips the size; --test reports skipped.
struct SkipCase : Refusal {
    using Refusal::Refusal;
};
// Thrown for bad input discovered after parsing (e.g. --k larger than the file's n): exit 2.
struct UsageError : Refusal {
    using Refusal::Refusal;
};

// The GPU a program runs on, as its launch plans see it (common/gpu_limits.h): the real device's
// limits, or those capped by COURSE_GPU_PROFILE=<t4|a100|...> to make this GPU play another one.
using DeviceInfo = GpuLimits;

// --plan asks a program for its launch plan without running it; with COURSE_GPU_PROFILE set it
// needs no GPU at all (tests/test_plans.py evaluates every plan for every profile that way).
inline bool& plan_only() {
    static bool on = false;
    return on;
}

inline const GpuLimits* requested_profile() {
    const char* key = std::getenv("COURSE_GPU_PROFILE");
    if (!key || !*key) return nullptr;
    const GpuLimits* p = find_gpu_profile(key);
    if (!p) {
        std::fprintf(stderr, "error: unknown COURSE_GPU_PROFILE '%s' (choose %s)\n", key, gpu_profile_names().c_str());
        std::exit(kExitUsage);
    }
    return p;
}

// Exit 77 (the conventional "skipped") when there is no usable GPU, so test runners can tell a
// machine without a GPU from a failing program.
inline const DeviceInfo& device() {
    static DeviceInfo info = [] {
        const GpuLimits* profile = requested_profile();
        int count = 0;
        cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess || count == 0) {
            if (plan_only() && profile) {   // a plan for a GPU we do not have: its limits alone
                GpuLimits d = *profile;
                d.profile = std::getenv("COURSE_GPU_PROFILE");
                return d;
            }
            std::fprintf(stderr, "no CUDA device available (%s): this program needs an NVIDIA GPU; skipped\n",
                         err != cudaSuccess ? cudaGetErrorName(err) : "device count is 0");
            std::exit(kExitNoDevice);
        }
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
        int cluster_launch = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, 0));
        DeviceInfo d;
        d.name = p.name;
        d.sm_count = p.multiProcessorCount;
        d.cc_major = p.major;
        d.cc_minor = p.minor;
        d.l2_bytes = size_t(p.l2CacheSize);
        d.total_bytes = p.totalGlobalMem;
        d.max_smem_optin = p.sharedMemPerBlockOptin;
        d.smem_per_sm = p.sharedMemPerMultiprocessor;
        d.threads_per_sm = p.maxThreadsPerMultiProcessor;
        d.blocks_per_sm = p.maxBlocksPerMultiProcessor;
        d.regs_per_sm = p.regsPerMultiprocessor;
        d.clusters = cluster_launch != 0;
        return profile ? cap_to_profile(d, *profile, std::getenv("COURSE_GPU_PROFILE")) : d;
    }();
    return info;
}

// A kernel's attributes (its static shared memory, the PTX version it was built from), asked of the
// runtime once per kernel: compiled_arch and resident_blocks both read them.
inline const cudaFuncAttributes& func_attributes(const void* kernel) {
    static std::map<const void*, cudaFuncAttributes> known;
    auto it = known.find(kernel);
    if (it == known.end()) {
        cudaFuncAttributes a{};
        CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
        it = known.emplace(kernel, a).first;
    }
    return it->second;
}

// --plan with no GPU in the machine: the runtime cannot be asked about kernels then.
inline bool planning_without_gpu() {
    int count = 0;
    return plan_only() && (cudaGetDeviceCount(&count) != cudaSuccess || count == 0);
}

// The architecture a kernel's code was compiled for, as __CUDA_ARCH__ saw it (750 for compute_75
// PTX JIT-compiled on an H100): a path that exists only in newer code (clusters, __reduce_*_sync)
// is chosen from this, never from the GPU's compute capability alone. Under --plan without a GPU,
// COURSE_PLAN_ARCH (e.g. 750) or else the profile's own architecture.
inline int compiled_arch(const void* kernel) {
    if (planning_without_gpu()) {
        const char* a = std::getenv("COURSE_PLAN_ARCH");
        return a && *a ? std::atoi(a) : device().cc() * 10;
    }
    return func_attributes(kernel).ptxVersion * 10;
}
template <class Kernel> int compiled_arch_of(Kernel* kernel) {
    return compiled_arch(reinterpret_cast<const void*>(kernel));
}

// Blocks of `threads` threads and `smem` bytes of dynamic shared memory that one SM holds at once:
// the runtime's occupancy answer on the real GPU, capped by the limits this program may use (a
// COURSE_GPU_PROFILE's smaller shared memory, static part included, or thread count), and without a
// GPU (--plan) those limits alone, with the dynamic shared memory only (the static size comes from the
// runtime; registers are then checked by tests/test_plans.py from ptxas's counts).
template <class Kernel> void allow_dynamic_smem(Kernel kernel, size_t bytes);   // below

template <class Kernel> int resident_blocks(Kernel* kernel, int threads, size_t smem) {
    const DeviceInfo& d = device();
    const bool gpu = !planning_without_gpu();
    // The kernel's static shared memory, from the runtime (0 without a GPU): a profile's SM holds it too.
    const size_t fixed = gpu ? func_attributes(reinterpret_cast<const void*>(kernel)).sharedSizeBytes : 0;
    int by_limits = std::min(d.threads_per_sm / std::max(threads, 1), d.blocks_per_sm);
    if (fixed + smem)
        by_limits =
            std::min<int>(by_limits, int(d.smem_per_sm / (fixed + smem + 1024)));   // 1 KB a block: the runtime's
    if (!gpu) return by_limits;
    // Past 48 KB of shared memory a block (static + dynamic) the query answers 0 until the kernel may
    // use that much: opt in first, where the GPU allows it. Without the opt-in, rows_05_serving's first
    // call as an A100 (a 48 KB buffer, 24 KB of static memory) planned one block a row.
    if (smem && fixed + smem > 48 * 1024 && fixed + smem <= d.max_smem_optin) allow_dynamic_smem(kernel, smem);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return std::min(per_sm, by_limits);
}

// The host's side of min_blocks_that_fit, for a plan: `blocks` wanted of `threads` threads and
// `smem` bytes of static shared memory, as many as this GPU's (or profile's) SM holds, at least 1.
inline int blocks_that_fit(int blocks, int threads, size_t smem = 0) {
    const DeviceInfo& d = device();
    int fit = std::min(blocks, d.threads_per_sm / std::max(threads, 1));
    if (smem) fit = std::min<int>(fit, int(d.smem_per_sm / (smem + 1024)));
    return std::max(fit, 1);
}

// A plan that asks for more than this GPU (or the profile it plays) grants: one line, exit 2.
inline void require_smem(size_t bytes, const char* what) {
    if (bytes > device().max_smem_optin)
        throw UsageError(std::string(what) + " needs " + std::to_string(bytes) + " bytes of shared memory a block; " +
                         device().name + " allows " + std::to_string(device().max_smem_optin));
}

inline std::string gib(double bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f GiB", bytes / double(1ull << 30));
    return b;
}

// Call before allocating a case's device memory: a clear refusal instead of an out-of-memory
// error halfway through.
// The L2 flush writes 2x the real GPU's L2 (a profile's smaller L2 would leave lines behind).
inline size_t flush_buffer_bytes() {
    static size_t bytes = [] {
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        return std::max<size_t>(2 * size_t(l2), 1 << 20);
    }();
    return bytes;
}
inline bool& flush_buffer_ready() {
    static bool ready = false;
    return ready;
}

inline void require_device_memory(double bytes) {
    device();
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // Scratch and the runtime's own take up to 64 MB; the L2 flush buffer (allocated at the first
    // timed run, 2x the L2: 100-120 MB on Hopper) is counted too until it exists.
    double margin = 64.0 * (1 << 20) + (flush_buffer_ready() ? 0.0 : double(flush_buffer_bytes()));
    if (bytes + margin > double(free_b))
        throw SkipCase("needs " + gib(bytes) + " of GPU memory, " + gib(double(free_b)) + " free");
}

inline void require_host_memory(double bytes) {
    double avail = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (avail > 0 && bytes > 0.9 * avail)
        throw SkipCase("needs " + gib(bytes) + " of host memory, " + gib(avail) + " available");
}

// Owning device array. Size 0 is allowed (nothing is allocated; data() is null).
template <class T> class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(size_t n) : n_(n) {
        if (n) CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T)));
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), n_(o.n_) {
        o.p_ = nullptr;
        o.n_ = 0;
    }
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    ~DeviceArray() {
        if (p_) cudaFree(p_);
    }

    T* data() const { return p_; }
    size_t size() const { return n_; }
    void upload(const T* host, size_t count) {
        if (count) CUDA_CHECK(cudaMemcpy(p_, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
    std::vector<T> download(size_t count) const {
        std::vector<T> h(count);
        if (count) CUDA_CHECK(cudaMemcpy(h.data(), p_, count * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    std::vector<T> download() const { return download(n_); }
    // Fills every byte with 0xAB: an output element the version never wrote then reads as a value
    // no right answer is likely to have (int32 -1414812757, float -3.0e-12).
    void poison() {
        if (n_) CUDA_CHECK(cudaMemset(p_, 0xAB, n_ * sizeof(T)));
    }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

// Scratch that a version's launcher needs (block sums, flags, histograms). Grow-only and cached
// per slot (16 of them), so it is allocated during the warm-up run and never inside the timed
// repetitions. A program that includes another's launcher takes slots the other does not use.
inline void* scratch(int slot, size_t bytes) {
    struct Slot {
        void* p = nullptr;
        size_t bytes = 0;
    };
    static Slot slots[16];
    if (slot < 0 || slot >= 16) throw std::logic_error("scratch slot out of range");
    Slot& s = slots[slot];
    if (bytes > s.bytes) {
        if (s.p) CUDA_CHECK(cudaFree(s.p));
        CUDA_CHECK(cudaMalloc(&s.p, bytes));
        s.bytes = bytes;
    }
    return s.p;
}
template <class T> T* scratch_as(int slot, size_t count) {
    return static_cast<T*>(scratch(slot, std::max<size_t>(count, 1) * sizeof(T)));
}

// The blocks per SM to ask of __launch_bounds__(threads, blocks), within the SM's thread limit of
// the architecture being compiled: 6 x 256 threads fit on an H100 SM (2048) but not on a Turing
// one (1024), where ptxas would drop the bound with a warning. Only the device pass reads the
// bound, so the host pass (no __CUDA_ARCH__) may give any value.
// With `smem` bytes of shared memory a block, the SM's shared memory bounds it too (64 KB on
// sm_75, 100 KB on sm_86/89/120, 164 KB on sm_80, 228 KB on sm_90/100; 1 KB a block is the
// runtime's): a bound no SM can meet only caps the registers for nothing.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kSmThreadLimit = 1024, kSmSmemLimit = 64 * 1024;
#elif defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ == 1200 || __CUDA_ARCH__ == 1210)
constexpr int kSmThreadLimit = 1536, kSmSmemLimit = 100 * 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870)
constexpr int kSmThreadLimit = __CUDA_ARCH__ == 800 ? 2048 : 1536, kSmSmemLimit = 164 * 1024;
#else
constexpr int kSmThreadLimit = 2048, kSmSmemLimit = 228 * 1024;
#endif
constexpr int min_blocks_that_fit(int blocks, int threads, int smem = 0) {
    const int by_threads = blocks * threads <= kSmThreadLimit ? blocks : kSmThreadLimit / threads;
    const int by_smem = smem ? kSmSmemLimit / (smem + 1024) : by_threads;
    return by_smem < by_threads ? (by_smem > 0 ? by_smem : 1) : by_threads;
}

// A block's shared memory above 48 KB, static and dynamic together, needs an explicit opt-in per
// kernel (the T4 profile's 4096 candidates in the row-wise serving build: 32 KB dynamic + 25 KB static failed the
// launch without it). Done once per kernel and size (a host call inside the timed region would be
// counted as GPU idle time).
template <class Kernel> void allow_dynamic_smem(Kernel kernel, size_t bytes) {
    static std::map<const void*, size_t> done;
    const void* key = reinterpret_cast<const void*>(kernel);
    if (bytes == 0 || done[key] >= bytes) return;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    done[key] = bytes;
}

// ---- programmatic dependent launch (sm_90 and later) ---------------------------------------------
// launch_dependent(kernel, ...) lets a kernel start before the kernel ahead of it in the stream has
// finished: its blocks are placed once every block ahead has called let_dependents_launch() (or
// exited), and each waits in wait_for_prior_grid() until that kernel is done and its writes are
// visible. What it saves is the gap between two launches, a few microseconds: lesson 01's 06 runs its
// many-blocks-a-row path as 4-5 launches in a row (its TUNING.md). Only code
// compiled for sm_90 or later has the wait, so a kernel compiled from older PTX (compute_75 JIT-compiled
// on an H100) is launched the plain way; on older GPUs both device calls compile to nothing.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void let_dependents_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
// One launch through cudaLaunchKernelEx with at most one launch attribute (none where use_attr is false).
// attr is taken by value: cudaLaunchConfig_t points at a non-const attribute.
template <class... P, class... A>
void launch_with(cudaLaunchAttribute attr, bool use_attr, void (*kernel)(P...), unsigned grid, unsigned block,
                 size_t smem, A&&... args) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = &attr;
    cfg.numAttrs = use_attr ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...));
}
template <class... P, class... A>
void launch_dependent(void (*kernel)(P...), unsigned grid, unsigned block, size_t smem, A&&... args) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    launch_with(attr, device().cc() >= 90 && compiled_arch_of(kernel) >= 900, kernel, grid, block, smem,
                std::forward<A>(args)...);
}

// launch_together(kernel, ...): a cooperative launch, every block of the grid resident at once (or a
// launch error, never a hang), so that blocks may wait for each other (lesson 01's 05: the small
// select's grid-wide steps; 08: a row's blocks finish a row its sample missed together). The grid must
// fit the GPU: SMs x resident blocks an SM.
template <class... P, class... A>
void launch_together(void (*kernel)(P...), unsigned grid, unsigned block, size_t smem, A&&... args) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    launch_with(attr, true, kernel, grid, block, smem, std::forward<A>(args)...);
}

// Grid size for n items at `per_block` items per block, refusing grids the hardware cannot launch.
inline unsigned blocks_for(uint64_t n, uint64_t per_block) {
    uint64_t b = (n + per_block - 1) / per_block;
    if (b > 0x7FFFFFFFull) throw SkipCase("grid of " + std::to_string(b) + " blocks is too large");
    return unsigned(std::max<uint64_t>(b, 1));
}

// ---- timing ---------------------------------------------------------------------------------

struct Timing {
    double ms_median = 0, ms_min = 0;
    int reps = 0;
};

// Evicts the L2 between repetitions so that a small problem is not timed out of the cache it
// warmed itself (H100: 50 MB of L2). Writing 2x the L2 size replaces every line.
inline void flush_l2() {
    static DeviceArray<unsigned char> junk(flush_buffer_bytes());
    flush_buffer_ready() = true;
    CUDA_CHECK(cudaMemsetAsync(junk.data(), 0x5C, junk.size()));
}

// CUDA events around `work` only; `reps` timed runs after `warmup` untimed ones; median and min.
template <class Work> Timing time_gpu(Work&& work, int reps, int warmup = 2) {
    for (int i = 0; i < warmup; ++i) work();
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms(reps);
    for (int r = 0; r < reps; ++r) {
        flush_l2();
        CUDA_CHECK(cudaEventRecord(start));
        work();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms[r] = t;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    Timing t;
    t.reps = reps;
    t.ms_min = ms.front();
    t.ms_median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    return t;
}

// The roofline: a device-to-device copy that reads and writes `bytes` in total (bytes/2 each way),
// timed exactly like the versions. Cached per size within one run.
inline double copy_gbps(double bytes, int reps) {
    static std::vector<std::pair<double, double>> cache;
    for (auto& c : cache)
        if (c.first == bytes) return c.second;
    size_t half = std::max<size_t>(size_t(bytes / 2), 4);
    double fits = 0;
    {
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        fits = double(free_b);
    }
    if (2.0 * half + (64 << 20) > fits) return 0;   // no room to measure: 0 marks "not measured"
    DeviceArray<unsigned char> a(half), b(half);
    CUDA_CHECK(cudaMemset(a.data(), 1, half));
    Timing t = time_gpu([&] { CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), half, cudaMemcpyDeviceToDevice)); },
                        std::max(reps, 5));
    double gbps = 2.0 * half / (t.ms_median * 1e6);
    cache.push_back({bytes, gbps});
    return gbps;
}

}   // namespace course
