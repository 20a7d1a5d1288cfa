// wrong/run_aggregation_slowdown — a plausible optimisation that measured slower on every input:
// merge runs of equal neighbouring samples into one atomic, on top of 04's per-lane copies.
// CAUGHT-BY: none (performance pitfall; see README)
//
// The idea (it was version 05 of this lesson until it was measured): a thread walks the 16 bytes
// (or 4 keys) of each vector it loaded in memory order, counts a run of samples with the same bin
// in a register, and issues one atomic of +run when the bin changes (counting.cuh, CountVisit
// with kAggregate = true). On paper: `equal` input needs 1 shared atomic per 16 bytes instead of
// 16, `hot60` about a third fewer, `zipf` and `text` some fewer; uniform bytes the same atomics
// plus a compare per sample. CUB merges runs in its pre-Hopper tuning (not on sm_90). The answer
// is right (this program passes --test); only the time is wrong.
//
// Measured on an H100 (results/pitfalls/H100_80GB_HBM3.csv), 2^30 bytes, 256 bins, ms, against
// 04_per_lane_copies as it was then (the same generic kernel, without the run merging):
//                       uniform   equal    hot60    text     zipf
//   04_per_lane_copies  0.3796    0.3794   0.3793   0.3795   0.3795   (95% of the copy roofline)
//   this program        0.5938    0.3868   0.6664   0.6589   0.6581
// (04 now counts bytes with counting.cuh's byte kernel: 0.373-0.374 on every input, in
// results/H100_80GB_HBM3.csv.)
// and on 2^28 uint32 keys with 4096 bins: 0.569 ms (uniform) against 0.484 ms for 03 and 04.
// Slower everywhere, even on `equal`, the input it was designed for. Why:
//   * 04 is already at 95% of a copy on every input: the memory system, not the shared atomics,
//     is what limits it. Per-lane copies removed the bank and address conflicts that merging
//     runs was meant to avoid (32 lanes of a warp never meet in a bank), so fewer atomics buy
//     nothing, while anything added to the per-sample path costs.
//   * what it adds per sample: a compare and a select (bin == cur ? ++run : end the run), and the
//     16 samples of a vector become a dependent chain (each step needs the previous `cur`), so
//     the extraction and binning steps overlap less and the atomics wait on the chain.
//   * a shared atomic is a warp instruction: it costs an issue slot whether 1 lane or 32 take
//     part. On mixed input (hot60, text, zipf) some lane of the warp ends a run at almost every
//     step, so the warp issues about as many atomic instructions as 04, now divergent (lanes that
//     extend a run sit idle), plus the chain: the worst case, 1.73x to 1.76x the time of 04.
//     On uniform bytes runs are rare (1 in 256), the branch goes the same way in every lane, and
//     it costs "only" the compare and the chain (1.56x the time of 04). On `equal` it does issue
//     16x fewer atomics, and still does not win: 04 was limited by memory there, not by atomics.
//   (`ncu --metrics smsp__inst_executed_op_shared_atom.sum` on both programs shows the atomic
//   instruction counts; the reasons above are the likely ones, the times are measured.)
// Lesson: an optimisation against a cost the previous version already removed only adds work;
// measure every input before keeping it (the notes keep only what helps on some input).
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
