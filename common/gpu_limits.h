// common/gpu_limits.h — one small description of a GPU, and the GPUs learners own (host-only).
//
// Every launch plan in the course (tile and shared-memory size, grid, blocks per SM, clusters,
// which code path) is a host function of a GpuLimits and of the architecture the kernel was
// compiled for, never of cudaDeviceProp directly. That is what lets a host test evaluate every
// plan for a T4 or an RTX 4090 without one, and what lets an H100 play another GPU:
//
//   COURSE_GPU_PROFILE=t4 build/lesson04_sort/08_radix_onesweep --test --quick
//
// caps what the program sees (SMs used for grids, shared memory per block and per SM, threads and
// registers per SM, L2 size, clusters) at that GPU's limits. Build with `make ARCH=compute_75` and
// the H100 JIT-compiles the very code a T4 would run. The emulation checks correctness and
// resource limits, not timing: the H100 still runs at H100 speed, with H100 caches.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace course {

struct GpuLimits {
    std::string name;   // "NVIDIA H100 80GB HBM3", or the profile's name
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;            // used for grid sizes
    size_t max_smem_optin = 0;   // shared memory one block may have (dynamic, after opting in)
    size_t smem_per_sm = 0;      // shared memory of one SM, shared by its resident blocks
    int threads_per_sm = 0;      // resident threads an SM holds
    int blocks_per_sm = 0;       // resident blocks an SM holds
    int regs_per_sm = 0;         // 32-bit registers of one SM
    size_t l2_bytes = 0;
    bool clusters = false;    // thread-block clusters and distributed shared memory (sm_90+)
    size_t total_bytes = 0;   // device memory (0 in a profile: the real GPU's is used)
    std::string profile;      // "" on the real GPU; the profile's key when one is applied
    int cc() const { return cc_major * 10 + cc_minor; }
};

// The GPUs learners own, from the vendors' published limits (CUDA C Programming Guide, "Technical
// Specifications per Compute Capability", and each card's datasheet for SMs and L2).
inline const std::vector<std::pair<std::string, GpuLimits>>& gpu_profiles() {
    static const std::vector<std::pair<std::string, GpuLimits>> table = [] {
        auto g = [](const char* name, int maj, int min, int sms, size_t optin_kb, size_t sm_kb, int threads, int blocks,
                    size_t l2_mb, bool clusters) {
            GpuLimits l;
            l.name = name;
            l.cc_major = maj;
            l.cc_minor = min;
            l.sm_count = sms;
            l.max_smem_optin = optin_kb * 1024;
            l.smem_per_sm = sm_kb * 1024;
            l.threads_per_sm = threads;
            l.blocks_per_sm = blocks;
            l.regs_per_sm = 65536;
            l.l2_bytes = l2_mb << 20;
            l.clusters = clusters;
            return l;
        };
        return std::vector<std::pair<std::string, GpuLimits>>{
            {"t4", g("Tesla T4 (profile)", 7, 5, 40, 64, 64, 1024, 16, 4, false)},
            {"a100", g("A100 (profile)", 8, 0, 108, 163, 164, 2048, 32, 40, false)},
            {"rtx3090", g("GeForce RTX 3090 (profile)", 8, 6, 82, 99, 100, 1536, 16, 6, false)},
            {"l4", g("L4 (profile)", 8, 9, 58, 99, 100, 1536, 24, 48, false)},
            {"rtx4090", g("GeForce RTX 4090 (profile)", 8, 9, 128, 99, 100, 1536, 24, 72, false)},
            {"h100", g("H100 SXM (profile)", 9, 0, 132, 227, 228, 2048, 32, 50, true)},
            {"h200", g("H200 (profile)", 9, 0, 132, 227, 228, 2048, 32, 60, true)},
            {"b200", g("B200 (profile)", 10, 0, 148, 227, 228, 2048, 32, 126, true)},
            {"rtx5090", g("GeForce RTX 5090 (profile)", 12, 0, 170, 99, 100, 1536, 24, 96, true)},
        };
    }();
    return table;
}

inline const GpuLimits* find_gpu_profile(const std::string& key) {
    for (auto& p : gpu_profiles())
        if (p.first == key) return &p.second;
    return nullptr;
}

inline std::string gpu_profile_names() {
    std::string s;
    for (auto& p : gpu_profiles()) s += (s.empty() ? "" : " | ") + p.first;
    return s;
}

// What a program may use when `real` plays `profile`: the smaller of each limit (a profile can
// take away what the GPU has, never add what it lacks).
inline GpuLimits cap_to_profile(const GpuLimits& real, const GpuLimits& profile, const std::string& key) {
    GpuLimits c = real;
    c.name = profile.name + " on " + real.name;
    if (profile.cc() < real.cc()) {
        c.cc_major = profile.cc_major;
        c.cc_minor = profile.cc_minor;
    }
    c.sm_count = std::min(real.sm_count, profile.sm_count);
    c.max_smem_optin = std::min(real.max_smem_optin, profile.max_smem_optin);
    c.smem_per_sm = std::min(real.smem_per_sm, profile.smem_per_sm);
    c.threads_per_sm = std::min(real.threads_per_sm, profile.threads_per_sm);
    c.blocks_per_sm = std::min(real.blocks_per_sm, profile.blocks_per_sm);
    c.regs_per_sm = std::min(real.regs_per_sm, profile.regs_per_sm);
    c.l2_bytes = std::min(real.l2_bytes, profile.l2_bytes);
    c.clusters = real.clusters && profile.clusters;
    c.profile = key;
    return c;
}

// One kernel launch of a plan, as `--plan` prints it and tests/test_plans.py checks it against a
// GPU's limits: threads a block, dynamic shared memory a block, the blocks per SM the plan counts
// on (its __launch_bounds__ minimum or its occupancy assumption; 0 = none), cluster size (1 = no
// cluster).
struct KernelPlan {
    std::string kernel;   // the kernel's name as the compiler reports it (a prefix of it is enough)
    int threads = 0;
    size_t dyn_smem = 0;
    int blocks_per_sm = 0;
    int cluster = 1;
    std::string note;   // which path, and why
};

}   // namespace course
