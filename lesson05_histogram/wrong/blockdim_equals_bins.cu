// wrong/blockdim_equals_bins — the source post's privatized kernel, which assumes one thread per
// bin (blockDim == 256), launched with 128 threads per block.
// CAUGHT-BY: checker
//
// The post's kernel zeroes temp[threadIdx.x] and merges temp[threadIdx.x]: with 256 threads and
// 256 bins every bin is covered exactly once. With 128 threads, bins 128..255 are never zeroed
// (they count on top of whatever the shared memory held) and never merged, so they come out 0 in
// the result; with 512 threads, threads 256..511 would index past the array. Nothing fails to
// compile and nothing crashes: the checker sees half the bins empty. 02_shared_privatized strides
// over the bins (for b = threadIdx.x; b < bins; b += blockDim.x) and works for any block size.
//
// Build: nvcc -O3 -arch=native -o w_blockdim wrong/blockdim_equals_bins.cu (from the lesson folder)
// See it: ./w_blockdim --test --quick   (exit 1)
#include "../lesson.cuh"

constexpr int kBlock = 128;   // the post used 256; any other size breaks its kernel

// The bug: thread t zeroes and merges bin t, so with 128 threads bins 128..255 are never merged.
__global__ void seed_privatized(const uint8_t* in, size_t n, uint32_t* hist) {
    __shared__ uint32_t temp[256];
    temp[threadIdx.x] = 0;   // BUG: covers bins [0, blockDim) only
    __syncthreads();
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        atomicAdd(&temp[in[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], temp[threadIdx.x]);   // BUG: merges bins [0, blockDim) only
}

void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * 256));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(2 * course::device().sm_count, course::blocks_for(n, kBlock));
    seed_privatized<<<grid, kBlock>>>(d_in, n, d_hist);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;   // the post's kernel only knows bytes
    return hist::run_lesson(argc, argv, "wrong_blockdim_equals_bins", s);
}
