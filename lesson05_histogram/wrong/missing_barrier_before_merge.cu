// wrong/missing_barrier_before_merge — 02 without the __syncthreads() between counting and merging.
// CAUGHT-BY: checker
//
// The pitfall: a thread that has finished its own samples starts adding the block's counters to
// the global bins while other warps of the block are still adding into those counters. The merge
// reads a counter (a plain shared load) that another thread is about to change (a shared atomic):
// a read-after-write hazard across threads with no barrier between them. Counts added after a
// merge has read their counter are lost, so the result comes out short.
// How it is caught: by the checker (counts wrong; the sum check says how many were lost). The
// battery's many-block inputs make the race fire: a block's fast warps start merging while slow
// warps are still counting. compute-sanitizer's racecheck was run on this program on an H100 and
// did NOT report the hazard: it does not flag this pattern (a plain shared load racing shared
// atomics), so it is no witness for this bug. A clean racecheck run does not prove a kernel
// race-free; a checker that compares every bin does catch it here.
// (hist::block_count in histogram.cuh ends with the barrier that is missing here.)
//
// Build: nvcc -O3 -arch=native -lineinfo -o w_barrier wrong/missing_barrier_before_merge.cu
// See it: ./w_barrier --test --quick   (exit 1)
#include "../lesson.cuh"

constexpr int kBlock = 384;

// The bug: 02's kernel without the barrier between counting and merging.
template <class T, class Binner>
__global__ void unsynchronised_merge(const T* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_bins[];
    hist::block_zero(s_bins, binner.count());
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t bin;
        if (binner(uint32_t(in[i]), bin)) atomicAdd(&s_bins[bin], 1u);
    }
    // BUG: no __syncthreads() here: the merge below may read counters still being counted into.
    for (uint32_t b = threadIdx.x; b < binner.count(); b += blockDim.x)
        if (s_bins[b]) atomicAdd(&hist[b], s_bins[b]);
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    unsynchronised_merge<<<grid, kBlock, sizeof(uint32_t) * binner.count()>>>(d_in, n, binner, d_hist);
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
    return hist::run_lesson(argc, argv, "wrong_missing_barrier_before_merge", s);
}
