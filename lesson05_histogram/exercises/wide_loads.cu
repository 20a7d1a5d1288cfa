// exercises/wide_loads — read the input with 16-byte loads.
//
// The task: `count_vectors` below counts a block-privatized histogram (zeroing and merging are
// done for you: hist::block_zero and hist::block_flush, histogram.cuh), and it already handles the
// samples that are not part of a whole 16-byte vector: the `head` before the first 16-byte
// aligned address and the `tail` after the last whole vector.
// TODO: count the `nvec` whole vectors in between. Each is a uint4 at vin[i]: 16 bytes (uint8
// input) or 4 keys (uint32 input), in memory order, x first, little-endian inside each word.
// Hints: grid-stride over i in [0, nvec) with consecutive threads on consecutive vectors (the
// loads coalesce); load several vectors before using any (more bytes in flight); the bytes of a
// 32-bit word w are (w >> 0) & 255, (w >> 8) & 255, ...; count each sample with count_one<T>
// below. Until done, every input of 16 samples or more is miscounted and the checker fails (exit 1).
// Check:  make grade EX=wide_loads   (exit 0 once done):
//         by hand: make build/lesson05_histogram/exercises/wide_loads, then run it with --test --quick
// Solution: 03_wide_loads.cu with wide_loads.cuh (for_each_vector, for_each_in_vector).
#include "../lesson.cuh"

constexpr int kBlock = 512;

template <class T, class Binner> __device__ void count_one(uint32_t x, Binner binner, uint32_t* s_bins) {
    uint32_t bin;
    if (binner(x, bin)) atomicAdd(&s_bins[bin], 1u);
}

// 03's counting with 16-byte loads; the whole vectors between head and tail are the exercise.
template <class T, class Binner> __global__ void count_vectors(const T* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_bins[];
    hist::block_zero(s_bins, binner.count());
    constexpr int kPer = 16 / sizeof(T);   // samples per vector
    const size_t gid = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t head = ((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / sizeof(T);
    if (head > n) head = n;
    const size_t nvec = (n - head) / kPer, tail_begin = head + nvec * kPer;
    if (gid < head) count_one<T>(uint32_t(in[gid]), binner, s_bins);
    if (gid < n - tail_begin) count_one<T>(uint32_t(in[tail_begin + gid]), binner, s_bins);
    const uint4* vin = reinterpret_cast<const uint4*>(in + head);   // 16-byte aligned
    // TODO: count every sample of vin[0, nvec).
    (void)vin;
    __syncthreads();
    hist::block_flush(s_bins, binner.count(), hist);
}

template <class T, class Binner> void launch(const T* d_in, size_t n, Binner binner, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * binner.count()));
    if (n == 0) return;
    unsigned grid = std::min<unsigned>(4 * course::device().sm_count, course::blocks_for(n, kBlock * 16));
    count_vectors<<<grid, kBlock, sizeof(uint32_t) * binner.count()>>>(d_in, n, binner, d_hist);
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
    return hist::run_lesson(argc, argv, "exercise_wide_loads", s);
}
