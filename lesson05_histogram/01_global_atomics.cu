// 01_global_atomics — the naive end: one global atomicAdd per sample (the source post's first GPU
// version, written fresh; "CUDA by Example", chapter 9).
//
// Every thread walks the input with a grid stride and adds 1 to the global counter of each
// sample's bin. The grid is the post's: 2 blocks per SM of 256 threads.
//   bytes moved:  n samples read once (1 or 4 bytes each, 1-byte loads for bytes: 32 bytes per
//                 warp load instruction, a quarter of a 128-byte line)
//   atomics:      n global atomics, all aimed at `bins` addresses. They are executed at the L2,
//                 and atomics to one address are serialised there: with 256 bins every counter
//                 takes n/256 updates one after another, and on `equal` input all n land on one.
// The post measured it slower than its CPU loop. Its time included allocation and copies; ours
// counts the kernels only (the output is zeroed inside the timed launcher: part of the job).
//
// Limit: none in the semantics; the battery stops at 2^28 samples to stay short (slow).
//
// Build alone:  nvcc -O3 -arch=native -o hist01 01_global_atomics.cu
// Run:          ./hist01 --n 2^24          ./hist01 --test
#include "lesson.cuh"

constexpr int kBlock = 256;

// The naive end: every sample is one atomicAdd on the global bins.
template <class T, class Binner> __global__ void global_atomics(const T* in, size_t n, Binner binner, uint32_t* hist) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t bin;
        if (binner(uint32_t(in[i]), bin)) atomicAdd(&hist[bin], 1u);
    }
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    global_atomics<<<grid, kBlock>>>(d_in, n, binner, d_hist);
    CUDA_CHECK_LAST();
}

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) { launch(d_in, n, hist::ByteBins{}, d_hist); }
void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) { launch(d_in, n, b, d_hist); }

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.max_n = uint64_t(1) << 28;
    s.n_why = "global atomics on a few counters are slow: the battery stops here";
    return hist::run_lesson(argc, argv, "01_global_atomics", s);
}
