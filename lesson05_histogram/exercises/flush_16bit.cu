// exercises/flush_16bit — 16-bit shared counters that hand their count over before they overflow.
//
// The task: 65536 bins of 32-bit counters do not fit in shared memory (256 KB); as 16-bit counters,
// two per 32-bit word, they do (128 KB). Everything is written except `add` below:
// TODO: add `c` (1..4) to bin `bin`: its counter is the 16-bit half (bin & 1) of word s[bin >> 1].
//   Use one atomicAdd on the word; if the counter's old 16-bit value was below 0x8000 and the add
//   took it to 0x8000 or more, take 0x8000 back out of the word and add 0x8000 to hist[bin].
// Hints: hist::half_shift, hist::crosses_half and hist::half_takeback in histogram.cuh do the bit
// work, as in the notes (README, 05_large_bins); why a counter can then never pass 0xFFFF (and
// carry into its neighbour) is argued in 05_large_bins.cu: the kernel synchronises the block after
// every round of 16 keys per thread. The loads (hist::for_each_vector) come from wide_loads.cuh.
// Until done nothing is counted in shared memory and the checker fails (exit 1).
// Check:  make grade EX=flush_16bit   (exit 0 once done):
//         by hand: make build/lesson05_histogram/exercises/flush_16bit, then run it with --test --quick
// Solution: 05_large_bins.cu (Visit16::add).
#include "../lesson.cuh"
#include "../wide_loads.cuh"

constexpr int kBlock = 1024;
constexpr int kVecs = 4;
static_assert(kBlock * kVecs * 4 + 8 < 0x8000, "a round could overflow a 16-bit counter");

struct Visit {
    uint32_t* s;
    uint32_t* hist;
    hist::EvenBins binner;
    __device__ void add(uint32_t bin, uint32_t c) {
        // TODO: count c samples of `bin` in its 16-bit counter, handing 0x8000 to hist[bin] on a crossing.
        (void)bin;
        (void)c;
    }
    __device__ void one(uint32_t x) {
        uint32_t bin;
        if (binner(x, bin)) add(bin, 1);
    }
    __device__ void vec(const uint4& v) {
        hist::for_each_in_vector<uint32_t>(v, [&](uint32_t x) { one(x); });
    }
};

// 05's 16-bit counting kernel; the add with its hand-off at 0x8000 is the exercise.
__global__ void __launch_bounds__(kBlock) count16(const uint32_t* in, size_t n, hist::EvenBins binner, uint32_t* hist) {
    extern __shared__ uint32_t s_words[];
    const uint32_t nb = binner.count(), words = (nb + 1) / 2;
    hist::block_zero(s_words, words);
    Visit visit{s_words, hist, binner};
    hist::for_each_vector<kVecs, true>(in, n, visit);
    __syncthreads();
    for (uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
        const uint32_t v = s_words[w];
        if (v & 0xFFFFu) atomicAdd(&hist[2 * w], v & 0xFFFFu);
        if ((v >> 16) && 2 * w + 1 < nb) atomicAdd(&hist[2 * w + 1], v >> 16);
    }
}

void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * b.bins));
    if (n == 0) return;
    hist::launch_resident(count16, kBlock, sizeof(uint32_t) * ((size_t(b.bins) + 1) / 2), n, size_t(kBlock) * kVecs * 4,
                          d_in, n, b, d_hist);
}

uint32_t max_bins_here() { return uint32_t(std::min<size_t>(hist::kMaxBins, hist::smem_optin() / 2)); }

int main(int argc, char** argv) {
    hist::Support s;
    s.keys = hist_keys;   // keys only: bytes have 256 bins, no need for narrow counters
    s.device_max_bins = max_bins_here;
    return hist::run_lesson(argc, argv, "exercise_flush_16bit", s);
}
