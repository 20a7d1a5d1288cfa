// wrong/nonatomic_shared_increment — 02 with `s[bin]++` instead of atomicAdd(&s[bin], 1).
// CAUGHT-BY: checker
//
// The pitfall: "shared memory is private to the block, so no atomics needed". It is private to
// the block, not to the thread: ++ is a load, an add and a store, and two threads that load the
// same counter before either stores lose one of the two counts. Inside one warp it is worse: 32
// lanes with the same bin all load the same value and all store value + 1, so 31 counts vanish.
// On uniform bytes collisions are rarer (but not rare); on `equal`, `hot60` and `zipf` input the
// counts come out far too small, and the checker's sum check says by how much.
//
// Build: nvcc -O3 -arch=native -o w_nonatomic wrong/nonatomic_shared_increment.cu (from the lesson folder)
// See it: ./w_nonatomic --test --quick   (exit 1)
#include "../lesson.cuh"

constexpr int kBlock = 384;

// The bug: 02's kernel with s[bin]++ instead of an atomic: equal bins in a warp lose counts.
template <class T, class Binner> __global__ void racy_privatized(const T* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_bins[];
    hist::block_zero(s_bins, binner.count());
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t bin;
        if (binner(uint32_t(in[i]), bin)) s_bins[bin]++;   // BUG: not atomic
    }
    __syncthreads();
    hist::block_flush(s_bins, binner.count(), hist);
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    racy_privatized<<<grid, kBlock, sizeof(uint32_t) * binner.count()>>>(d_in, n, binner, d_hist);
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
    return hist::run_lesson(argc, argv, "wrong_nonatomic_shared_increment", s);
}
