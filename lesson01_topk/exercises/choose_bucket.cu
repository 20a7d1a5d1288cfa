// exercises/choose_bucket — choose the bucket of the k-th largest key from a digit histogram
// (the heart of topk_05_radix_select).
//
// TODO: complete MyFind::apply below. hist[0..bins) counts the candidates by digit (bins is 2048
// or 1024; bucket bins-1 holds the largest keys). Find the bucket b such that
//     above = hist[bins-1] + ... + hist[b+1] < target <= above + hist[b]
// and return {b, above, hist[b], true} to EVERY thread of the block (kBlock = 256 threads call it
// together); return found = false when the histogram holds fewer than `target` keys.
// Hints: a serial loop by one thread is correct but slow (2048 steps): give each thread bins/256
// consecutive bins counted from the top and sum them; the keys in the bins above each thread's
// range are then an exclusive scan over the threads: before = scan::block_exclusive_scan<kBlock>(
// mine, 0u, total, s_warp), s_warp a __shared__ uint32_t[kBlock / 32] (lesson02_scan/primitives.cuh,
// which radix_select.cuh includes). Exactly one thread's range crosses `target`: it walks its bins
// and stores the answer in shared memory; a __syncthreads and every thread reads it (and another
// before the shared memory is reused), as FindBucket does (README, topk_05).
// Until it is done the passes pick bucket 0 and the checker fails (exit 1).
// Check:  make grade EX=choose_bucket   (exit 0 once done):
//         by hand: make build/lesson01_topk/exercises/choose_bucket, then run it with --test --quick
// Solution: radix_select.cuh, FindBucket.
#include "../radix_topk.cuh"   // the best build, radix_topk<T, Find>

using topk::radix::Choice;

struct MyFind {
    __device__ static Choice apply(const uint32_t* hist, int bins, uint32_t target) {
        // TODO: find the bucket (see above).
        (void)hist;
        (void)bins;
        (void)target;
        return Choice{0, 0, 0, false};
    }
};

int main(int argc, char** argv) {
    using namespace topk::radix;
    return topk::run_lesson(argc, argv, "exercise_choose_bucket", radix_topk<float, MyFind>,
                            radix_topk<int32_t, MyFind>, radix_topk<uint32_t, MyFind>, limits());
}
