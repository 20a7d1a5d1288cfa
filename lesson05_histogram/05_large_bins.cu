// 05_large_bins — 4,096 to 65,536 bins and beyond: 16-bit shared counters with overflow flushing.
//
// What changed since 04: nothing up to 12288 bins (bytes included): that is 04's counting, so this
// is never slower than 04 where 04 applies. Above, 32-bit counters need more than 48 KB per block
// (65536 bins: 256 KB), so they shrink to 16 bits, two per word (65536 bins: 128 KB, one block of
// 1024 threads per SM), and a counter that reaches 0x8000 hands 0x8000 to the global bin:
//   old = atomicAdd(&word[b/2], c << 16*(b%2));   on a crossing of 0x8000:
//   atomicAdd(&word[b/2], -(0x8000 << 16*(b%2)));   atomicAdd(&global[b], 0x8000)
// A counter never passes 0xFFFF: a barrier after every 16 keys per thread bounds what the block
// adds between a crossing and its take-back to 16384 (the argument is below the includes).
// Cost: n shared atomics + at most n / 32768 global ones from crossings + blocks x non-zero bins.
// What limits it: not DRAM: bank conflicts of random bins among 65536 (TUNING.md). The other way
// past the shared-memory limit, clusters sharing 32-bit counters, is 06_cluster_dsmem.cu.
// Limit: bins x 2 bytes of shared memory (H100: 116224 bins).
//
// Build alone:  nvcc -O3 -arch=native -o hist05 05_large_bins.cu
// Run:          ./hist05 --type uint32 --bins 65536 --n 2^28          ./hist05 --test
#include "lesson.cuh"
#include "counting.cuh"

// Why a 16-bit counter can never pass 0xFFFF (which would carry into its neighbour): every thread
// works in rounds of 4 vectors (16 keys) with a __syncthreads() after each round, so between a
// crossing and its correction (issued by the same thread before the barrier) the block adds at
// most 1024 x 16 = 16384 samples: the counter stays below 0x8000 + 16384 + 4. Only one thread sees
// a given crossing (atomics are ordered), and after the correction the counter is below 0x8000.
// The subtraction of 0x8000 from the high half adds 2^31 to the word: the carry leaves the word and
// the low half is untouched; from the low half it adds 0xFFFF8000: the carry into the high half is
// cancelled by the 0xFFFF added there. At the end each block adds what its counters hold
// (blocks x non-zero bins global atomics: 132 x 65536 on an H100, ~8.6 M, not free at small n).
// Runs: this 16-bit path still merges runs of equal neighbouring keys into one add of +run
// (Visit16::vec), as it did when it was measured (TUNING.md). On 256 and 4096 bins the same merging measured slower on every input
// (wrong/run_aggregation_slowdown.cu); here it is untested without.

constexpr int kBlock16 = 1024;
constexpr int kVecs16 = 4;
constexpr uint32_t kMax32BitBins = 48 * 1024 / 4;
// The bound the proof above needs: what one round of a block can add stays below 2^15.
static_assert(kBlock16 * kVecs16 * 4 + 8 < 0x8000, "a round could overflow a 16-bit counter");

template <class Binner> struct Visit16 {
    uint32_t* s;   // (bins + 1) / 2 words, two 16-bit counters each
    uint32_t* hist;
    Binner binner;
    __device__ __forceinline__ void add(uint32_t bin, uint32_t c) {
        const uint32_t shift = hist::half_shift(bin);
        const uint32_t old = atomicAdd(&s[bin >> 1], c << shift);
        if (hist::crosses_half(old, shift, c)) {   // this add crossed 2^15: hand it over
            atomicAdd(&s[bin >> 1], hist::half_takeback(shift));
            atomicAdd(&hist[bin], 0x8000u);
        }
    }
    __device__ __forceinline__ void one(uint32_t x) {
        uint32_t bin;
        if (binner(x, bin)) add(bin, 1);
    }
    // Runs of equal bins become one add (see the header: kept as measured in this path only).
    __device__ __forceinline__ void vec(const uint4& v) {
        constexpr uint32_t kNone = 0xFFFFFFFFu;
        uint32_t cur = kNone, run = 0;
        hist::for_each_in_vector<uint32_t>(v, [&](uint32_t x) {
            uint32_t bin;
            if (!binner(x, bin)) bin = kNone;
            if (bin == cur) {
                ++run;
                return;
            }
            if (cur != kNone) add(cur, run);
            cur = bin;
            run = 1;
        });
        if (cur != kNone) add(cur, run);
    }
};

// Delta from 04's count_kernel: 16-bit counters, two to a word, with a hand-off to global at 0x8000.
template <class Binner>
__global__ void __launch_bounds__(kBlock16)
    count16_kernel(const uint32_t* in, size_t n, Binner binner, uint32_t* hist) {
    extern __shared__ uint32_t s_words[];
    const uint32_t nb = binner.count(), words = (nb + 1) / 2;
    hist::block_zero(s_words, words);
    Visit16<Binner> visit{s_words, hist, binner};
    hist::for_each_vector<kVecs16, /*kSyncEachRound=*/true>(in, n, visit);
    __syncthreads();
    for (uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
        const uint32_t v = s_words[w];
        if (v & 0xFFFFu) atomicAdd(&hist[2 * w], v & 0xFFFFu);
        if ((v >> 16) && 2 * w + 1 < nb) atomicAdd(&hist[2 * w + 1], v >> 16);
    }
}

// Bytes and up to 12288 bins: 04's counting (per-lane copies, no run merging).
void hist_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    hist::launch_count<false>(d_in, n, hist::ByteBins{}, hist::copies_log2(256, hist::kCopiesBudget), d_hist);
}

void hist_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    if (b.bins <= kMax32BitBins) {
        hist::launch_count<false>(d_in, n, b, hist::copies_log2(b.bins, hist::kCopiesBudget), d_hist);
        return;
    }
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(uint32_t) * b.bins));
    if (n == 0) return;
    hist::launch_resident(count16_kernel<hist::EvenBins>, kBlock16, sizeof(uint32_t) * ((size_t(b.bins) + 1) / 2), n,
                          size_t(kBlock16) * kVecs16 * 4, d_in, n, b, d_hist);
}

// The plan --plan prints: 04's counting up to 12288 bins, else one 16-bit copy of the bins a block.
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    if (c.dtype == "uint8" || c.param <= kMax32BitBins) return std::vector<course::KernelPlan>{hist::count_plan(c)};
    const size_t smem = sizeof(uint32_t) * ((size_t(c.param) + 1) / 2);
    course::require_smem(smem, "05_large_bins' 16-bit bins");
    return std::vector<course::KernelPlan>{
        {"count16_kernel", kBlock16, smem, 0, 1, "16-bit counters, flushed before they wrap"}};
});

uint32_t max_bins_here() {
    return uint32_t(std::min<size_t>(hist::kMaxBins, std::max<size_t>(hist::smem_optin() / 2, kMax32BitBins)));
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = hist_bytes;
    s.keys = hist_keys;
    s.device_max_bins = max_bins_here;
    return hist::run_lesson(argc, argv, "05_large_bins", s);
}
