// lesson05_histogram/histogram.cuh — small reusable histogram pieces (device side), for this
// lesson's versions and for the lessons that count digits or buckets (radix sort, top-k).
//
//   hist::ByteBins          bin = the byte itself (256 bins, every sample counted)
//   hist::EvenBins          32-bit keys, `bins` equal bins over [lo, hi) as CUB's HistogramEven:
//                           bin = floor((key - lo) * bins / (hi - lo)); keys outside: not counted.
//                           Exact, with no 64-bit division on the GPU (a multiply-high and one fix-up).
//   hist::block_count       all threads of a block count [begin, end) into shared counters
//   hist::block_flush       add a block's shared counters into global bins (atomics, skip zeros)
//   hist::block_histogram   the two together: a block-privatized histogram of one range
//
// Use (a block of any size, `s` = bins 32-bit words of shared memory):
//     extern __shared__ uint32_t s[];
//     hist::block_histogram(in, begin, end, hist::EvenBins{...}, s, g_bins);
// The caller zeroes g_bins before the launch (or uses block_count and writes its own way, e.g. a
// radix sort storing each block's digit counts for a scan).
#pragma once
#include <cstddef>
#include <cstdint>

namespace hist {

// ---- bin rules ------------------------------------------------------------------------------------

// Bytes: the bin is the value; nothing is ever out of range.
struct ByteBins {
    __host__ __device__ uint32_t count() const { return 256; }
    __host__ __device__ bool operator()(uint32_t sample, uint32_t& bin) const {
        bin = sample & 255u;
        return true;
    }
};

// `bins` even bins over [lo, hi) for uint32 keys, 1 <= bins <= 2^20, lo < hi <= 2^32.
// bin = floor(d * bins / range) with d = key - lo, range = hi - lo, computed exactly:
//   p = d * bins < 2^52;  q = mulhi64(p, inv) with inv = floor(2^64 / range) underestimates
//   p / range by less than 1 (the error is p * (fraction lost in inv) / 2^64 < 2^-12), so q is the
//   answer or one less; one multiply-subtract-compare fixes it. CUB computes the same floor with a
//   64-bit division per sample (dozens of instructions on a GPU, which has no divide unit).
struct EvenBins {
    uint32_t lo = 0;
    uint32_t bins = 1;
    uint64_t range = 1;   // hi - lo, in [1, 2^32]
    uint64_t inv = 0;     // floor(2^64 / range); 0 when range == 1 (then d == 0 and q == 0)

    static EvenBins make(uint64_t lo, uint64_t hi, uint32_t bins) {
        EvenBins e;
        e.lo = uint32_t(lo);
        e.bins = bins;
        e.range = hi - lo;
        // floor(2^64 / range) without 128-bit arithmetic: (2^64 - 1) / range, plus one when
        // range divides 2^64 exactly (range a power of two).
        e.inv = e.range == 1 ? 0 : (~uint64_t(0)) / e.range + (((~uint64_t(0)) % e.range) + 1 == e.range ? 1 : 0);
        return e;
    }
    __host__ __device__ uint32_t count() const { return bins; }
    __host__ __device__ bool operator()(uint32_t key, uint32_t& bin) const {
        uint32_t d = key - lo;   // wraps for key < lo: caught by key >= lo
        if (key < lo || uint64_t(d) >= range) return false;
        uint64_t p = uint64_t(d) * bins;
#ifdef __CUDA_ARCH__
        uint64_t q = __umul64hi(p, inv);
#else
        uint64_t q = uint64_t((unsigned __int128)p * inv >> 64);
#endif
        if (p - q * range >= range) ++q;   // the one fix-up: q was floor - 1
        bin = uint32_t(q);
        return true;
    }
};

// ---- 16-bit counters, two per 32-bit word (05_large_bins) -----------------------------------------

// Bin b lives in half (b & 1) of word b >> 1. An add of c returns the old word; if the counter's 16
// bits went from below 0x8000 to 0x8000 or more, the adder must hand 0x8000 over to the global bin
// and take it back out of the word (see 05_large_bins.cu for why the counter never passes 0xFFFF).
__host__ __device__ inline uint32_t half_shift(uint32_t bin) { return (bin & 1u) * 16u; }
__host__ __device__ inline bool crosses_half(uint32_t old_word, uint32_t shift, uint32_t c) {
    const uint32_t old16 = (old_word >> shift) & 0xFFFFu;
    return old16 < 0x8000u && old16 + c >= 0x8000u;
}
// What the crossing thread adds to the word: -(0x8000 << shift) modulo 2^32.
__host__ __device__ inline uint32_t half_takeback(uint32_t shift) { return 0u - (0x8000u << shift); }

// ---- a block-privatized histogram -----------------------------------------------------------------

// Zero `nbins` shared counters. All threads of the block call it; ends with a barrier.
__device__ inline void block_zero(uint32_t* s, uint32_t nbins) {
    for (uint32_t b = threadIdx.x; b < nbins; b += blockDim.x) s[b] = 0;
    __syncthreads();
}

// Count in[begin, end) into the shared counters: thread t takes begin + t, + blockDim, ...
// (consecutive threads read consecutive samples: coalesced). Shared atomics, because two threads
// of the block can hit the same bin in the same instant. Ends with a barrier, so every count has
// landed before anyone reads `s`.
template <class T, class Binner>
__device__ void block_count(const T* in, size_t begin, size_t end, Binner binner, uint32_t* s) {
    for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        uint32_t bin;
        if (binner(uint32_t(in[i]), bin)) atomicAdd(&s[bin], 1u);
    }
    __syncthreads();
}

// Add the block's counters into global bins: one atomic per non-zero bin (many blocks add to the
// same global bins). Call after block_count (its barrier makes the counts visible).
__device__ inline void block_flush(const uint32_t* s, uint32_t nbins, uint32_t* g_bins) {
    for (uint32_t b = threadIdx.x; b < nbins; b += blockDim.x)
        if (s[b]) atomicAdd(&g_bins[b], s[b]);
}

// The whole primitive: zero, count, flush. `s` holds binner.count() words of shared memory.
template <class T, class Binner>
__device__ void block_histogram(const T* in, size_t begin, size_t end, Binner binner, uint32_t* s, uint32_t* g_bins) {
    block_zero(s, binner.count());
    block_count(in, begin, end, binner, s);
    block_flush(s, binner.count(), g_bins);
}

}   // namespace hist
