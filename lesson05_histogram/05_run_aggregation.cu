// 05_run_aggregation — skew handling, part 2: equal neighbours become one atomic. The best byte
// version of the lesson.
//
// What changed since 04 (per-lane copies kept): a thread walks the 16 bytes (or 4 keys) of each
// vector it loaded in memory order, counts a run of samples with the same bin in a register, and
// issues one atomic of +run when the bin changes (counting.cuh, CountVisit with kAggregate).
//   equal input:    16 bytes -> 1 atomic: 16x fewer shared atomics than 04.
//   hot60:          a neighbour repeats the hot value with probability ~0.36 + (~0.4 x 1/256):
//                   about a third fewer atomics.
//   zipf, text:     some runs (frequent values, spaces), fewer atomics.
//   uniform bytes:  runs are rare (1 in 256 neighbours): the same atomics as 04 plus a compare
//                   and a select per sample; measured: see the table (this is where it can lose).
// CUB does the same run merging in its byte path; the difference left is the per-lane copies.
//
// Build alone:  nvcc -O3 -arch=native -o hist05 05_run_aggregation.cu
// Run:          ./hist05 --n 2^30 --dist zipf          ./hist05 --test
#include "lesson.cuh"
#include "counting.cuh"

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
    return hist::run_lesson(argc, argv, "05_run_aggregation", s);
}
