// 04_per_lane_copies — one copy of the bins per lane: no bank or address conflict inside a warp.
// The best byte version of the lesson (measured on an H100 at 2^30 bytes: 0.373-0.374 ms on every
// input, 97% of the copy roofline; 1.32x CUB on uniform bytes, 1.06x on `equal`, `text` and
// `hot60`, 1.08x on `zipf`).
//
// Build alone:  nvcc -O3 -arch=native -o hist04 04_per_lane_copies.cu
// Run:          ./hist04 --n 2^30 --dist equal          ./hist04 --test
//
// What changed since 03: the shared counters are replicated R times and interleaved (bin b, copy r
// at word b*R + r); lane L of every warp adds into copy L % R (counting.cuh). With 256 bins R = 32
// (32 KB per block): lane L's words are all in bank L, so a warp's 32 shared atomics can never
// meet in a bank or an address, whatever the data:
//   uniform bytes:  03 loses replays to chance bank collisions (32 lanes into 32 banks at random:
//                   the busiest bank gets ~3.5 of them); here none.
//   equal / hot60:  03 serialises up to 32 lanes on one word; here they hit 32 different words.
//                   Contention remains only between warps (the atomic unit orders them).
//   cost:           R x the shared memory (fewer blocks per SM when R x bins is large), and the
//                   merge reads R words per bin (once per block).
//   measured:       at 2^30 bytes 03 is barely slower on equal/hot60/text/zipf (0.376-0.378 ms: the
//                   serialised atomics hide behind the memory traffic); 04 wins on uniform bytes
//                   (0.3736 ms against 0.4611) and takes the same time on every input.
// For bytes (R = 32) the counting runs in counting.cuh's count_bytes_kernel: a lane's counter of
// byte b is its own base + b * 128 bytes, so a byte costs extract, multiply-add, atomic: the loop
// over 4 x 16 bytes is 274 SASS instructions against the generic kernel's 456 (0.3796 -> 0.3736 ms
// on uniform bytes, 1.04x -> 1.06x CUB on `equal`; TUNING.md).
// R is the largest power of two <= 32 that keeps R x bins x 4 bytes within 32 KB (4096 bins:
// R = 2; 1000 bins: R = 8), at least 1 (then this is 03). Per-warp copies and __match_any_sync
// were considered and not kept (TUNING.md says why).
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
