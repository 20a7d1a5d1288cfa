// wrong/run_aggregation_slowdown — a plausible optimisation that measured slower on every input:
// merge runs of equal neighbouring samples into one atomic, on top of 04's per-lane copies.
// CAUGHT-BY: none (performance pitfall; see README)
//
// The idea (it was version 05 of this lesson until it was measured): a thread walks the samples of
// each vector it loaded in memory order, counts a run of equal bins in a register and issues one
// atomic of +run when the bin changes (counting.cuh, CountVisit with kAggregate = true). On paper
// `equal` input needs 1 shared atomic per 16 bytes instead of 16. The answer is right (it passes
// --test); only the time is wrong. Measured on an H100 (results/pitfalls/H100_80GB_HBM3.csv; the
// table is in TUNING.md): slower than 04 on every input, even `equal`. Why: 04 was already limited
// by memory, not by shared atomics; merging adds a compare and a select per sample and makes a
// vector's samples a dependent chain; and a shared atomic is a warp instruction, so on mixed input
// (some lane ends a run at almost every step) the warp issues about as many atomics as 04, now
// divergent: the worst case (TUNING.md has the times).
// Lesson: an optimisation against a cost the previous version already removed only adds work.
//
// Build: nvcc -O3 -arch=native -o w_runs wrong/run_aggregation_slowdown.cu (from the lesson folder)
// See it: ./w_runs --n 2^30 --dist hot60   and   ../build/lesson05_histogram/04_per_lane_copies --n 2^30 --dist hot60
#include "../lesson.cuh"
#include "../counting.cuh"

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    hist::launch_count<true>(d_in, n, hist::ByteBins{}, hist::copies_log2(256, hist::kCopiesBudget), d_hist);
}
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    hist::launch_count<true>(d_in, n, b, hist::copies_log2(b.bins, hist::kCopiesBudget), d_hist);
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.device_max_bins = hist::bins_in_smem;
    return hist::run_lesson(argc, argv, "wrong/run_aggregation_slowdown", s);
}
