// exercises/privatize_any_block — shared-memory privatization for ANY block size and bin count.
//
// The task: the kernel below counts each sample into a per-block copy of the bins in shared
// memory, but the two loops around the counting are missing:
//   1. TODO zero: set all `nbins` shared counters to 0 before anyone counts (then a barrier);
//   2. TODO merge: after a barrier, add every non-zero shared counter into the global bins.
// The block has 384 threads and the bins can be 1, 7, 256, 1000 or 4096: do not assume one thread
// per bin (that is the source post's bug, see wrong/blockdim_equals_bins.cu).
// Hints: stride over the bins with the block, `for (b = threadIdx.x; b < nbins; b += blockDim.x)`;
// many blocks add into the same global bins, so the merge needs atomicAdd; which barriers are
// needed, and where? (wrong/missing_barrier_before_merge.cu shows what one missing barrier does.)
// Given: the binners (hist::ByteBins, hist::EvenBins: binner(x, bin) is false for a sample out of
// range) and the battery, in histogram.cuh and lesson.cuh; course::blocks_for in common/device.cuh.
// Until it is done the output stays all zero and the checker fails (exit 1).
// Check:  make grade EX=privatize_any_block   (exit 0 once done):
//         by hand: make build/lesson05_histogram/exercises/privatize_any_block, then run it with --test --quick
// Solution: 02_shared_privatized.cu (and hist::block_histogram in histogram.cuh).
#include "../lesson.cuh"

constexpr int kBlock = 384;

// 02's privatized kernel; zeroing and merging for any block size and bin count are the exercise.
template <class T, class Binner> __global__ void privatized(const T* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_bins[];
    const uint32_t nbins = binner.count();
    // TODO 1: zero s_bins[0, nbins) with all threads of the block, then __syncthreads().

    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t bin;
        if (binner(uint32_t(in[i]), bin)) atomicAdd(&s_bins[bin], 1u);
    }
    // TODO 2: barrier, then add each non-zero s_bins[b] into hist[b].
    (void)nbins;
    (void)hist;
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    privatized<<<grid, kBlock, sizeof(uint32_t) * binner.count()>>>(d_in, n, binner, d_hist);
    CUDA_CHECK_LAST();
}

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) { launch(d_in, n, hist::ByteBins{}, d_hist); }
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) { launch(d_in, n, b, d_hist); }

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.max_bins = 48 * 1024 / 4;
    s.bins_why = "32-bit counters in 48 KB of shared memory";
    return hist::run_lesson(argc, argv, "exercise_privatize_any_block", s);
}
