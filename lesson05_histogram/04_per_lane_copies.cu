// 04_per_lane_copies — one copy of the bins per lane: no bank or address conflict inside a warp.
// The best byte version of the lesson: the same time on every input (TUNING.md).
//
// What changed since 03: the shared counters are replicated R times and interleaved (bin b, copy r
// at word b*R + r); lane L adds into copy L % R. With 256 bins R = 32 (32 KB per block): lane L's
// words all lie in bank L, so a warp's 32 atomics never meet in a bank or an address, whatever the
// data (03 loses replays to chance bank collisions on uniform bytes and serialises equal ones).
// Cost: R x the shared memory and R reads per bin in the merge. R is the largest power of two
// <= 32 that keeps R x bins x 4 bytes within 32 KB (4096 bins: R = 2), at least 1 (then this is 03).
// For bytes (R = 32) counting.cuh's count_bytes_kernel computes each lane's base once, so a byte
// costs an extract, a multiply-add and the atomic (274 SASS instructions per 4 x 16 bytes against
// the generic kernel's 456).
// What limits it: DRAM bandwidth on the H100. The per-input times, the profiles and the variants
// not kept (per-warp copies, __match_any_sync) are in TUNING.md.
//
// Build alone:  nvcc -O3 -arch=native -o hist04 04_per_lane_copies.cu
// Run:          ./hist04 --n 2^30 --dist equal          ./hist04 --test
#include "lesson.cuh"
#include "counting.cuh"

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, hist::ByteBins{}, hist::copies_log2(256, hist::kCopiesBudget), d_hist);
}
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, b, hist::copies_log2(b.bins, hist::kCopiesBudget), d_hist);
}

static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    return std::vector<course::KernelPlan>{hist::count_plan(c)};
});

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.device_max_bins = hist::bins_in_smem;
    return hist::run_lesson(argc, argv, "04_per_lane_copies", s);
}
