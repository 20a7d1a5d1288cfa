// 03_blelloch_padded — the same Blelloch tree, with shared memory padded against bank conflicts.
//
// What changed since 02_blelloch: only where slot i lives in shared memory. A warp's access takes
// one pass per distinct word in the busiest of the 32 banks; at tree strides of 32 and beyond all
// 32 lanes hit ONE bank (32 passes instead of 1). RightPadding (blelloch.cuh) stores slot i at
// i + i/32 + i/1024, so slots 32 apart land in different banks.
// --padding picks the mapping, so ncu can compare three runs of one program (README, "Profiling"):
//   none   slot i at i (02's layout)
//   gems   GPU Gems 3's macro as usually copied, ((n) >> LOG_NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS)):
//          `+` binds tighter than `>>`, so it shifts by more than the width: 0, no padding at all
//   right  with the parentheses it needs: ((n) >> LOG_NUM_BANKS) + ((n) >> (2 * LOG_NUM_BANKS))
// All three are correct scans; only the conflict counts differ. Cost model: the bytes, additions
// and 25 barriers of 02; one block of 2048 elements is mostly launch latency and barriers, so the
// time moves little: what changes is what the profiler counts.
// Limit: one block, n <= 2048.
//
// Build alone:  nvcc -O3 -arch=native -o padded 03_blelloch_padded.cu
// Run:          ./padded --n 2048 --padding right       ./padded --test
#include "blelloch.cuh"
#include "lesson.cuh"

constexpr int kThreads = 1024;
constexpr int kSlots = 2 * kThreads;

// Same as 02's kernel, but slot i sits where Pad puts it in shared memory (--padding none, gems or right).
template <class Pad>
__global__ void __launch_bounds__(kThreads)
    blelloch_padded_scan(const uint32_t* in, uint32_t* out, int n, bool exclusive) {
    // 2048 slots + 64 + 1 padding words for RightPadding (8.3 KB)
    __shared__ uint32_t s[blelloch::padded_words<Pad>(kSlots)];
    const int t = threadIdx.x;
    const int i0 = t, i1 = t + kThreads;
    const uint32_t x0 = i0 < n ? in[i0] : 0u, x1 = i1 < n ? in[i1] : 0u;
    s[blelloch::at<Pad>(i0)] = x0;
    s[blelloch::at<Pad>(i1)] = x1;
    blelloch::exclusive_scan_tree<Pad>(s, kSlots);
    const uint32_t e0 = s[blelloch::at<Pad>(i0)], e1 = s[blelloch::at<Pad>(i1)];
    if (i0 < n) out[i0] = exclusive ? e0 : e0 + x0;
    if (i1 < n) out[i1] = exclusive ? e1 : e1 + x1;
}

static std::string g_padding = "right";   // set from --padding before the GPU is touched

void scan_blelloch_padded(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    auto in = reinterpret_cast<const uint32_t*>(d_in);
    auto out = reinterpret_cast<uint32_t*>(d_out);
    bool excl = kind == scan::Kind::exclusive;
    if (g_padding == "none") blelloch_padded_scan<blelloch::NoPadding><<<1, kThreads>>>(in, out, int(n), excl);
    else if (g_padding == "gems") blelloch_padded_scan<blelloch::GemsPadding><<<1, kThreads>>>(in, out, int(n), excl);
    else blelloch_padded_scan<blelloch::RightPadding><<<1, kThreads>>>(in, out, int(n), excl);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Extras extras;
    extras.options = {{"padding", true, "shared-memory layout: right (default) | gems | none"}};
    extras.configure = [](const course::Options& o) {
        g_padding = o.get("padding", "right");
        if (g_padding != "right" && g_padding != "gems" && g_padding != "none")
            throw course::UsageError("unknown --padding '" + g_padding + "' (choose right | gems | none)");
    };
    scan::Limits limits;
    limits.max_n = kSlots;
    limits.why = "one block of 1024 threads, two elements each";
    limits.tile = kSlots;
    return scan::run_lesson(argc, argv, "03_blelloch_padded", scan_blelloch_padded, nullptr, limits, extras);
}
