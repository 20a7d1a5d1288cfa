// 00_cub — the library bar: cub::DeviceHistogram::HistogramEven.
//
// CUB counts each block's samples into a private histogram and adds the block histograms into
// the output. For bytes (256 bins) the private histograms live in shared memory: one shared atomic
// per sample (CUB's sm_90 tuning merges no runs of equal samples; its older default policy does).
// Above 256 bins (MAX_PRIVATIZED_SMEM_BINS in its dispatch) CUB keeps each block's private
// histogram in global memory, so every sample becomes a global atomic: that is where later
// versions of this lesson pull ahead. For integer keys CUB
// computes the bin exactly, (key - lo) * bins / (hi - lo), with a 64-bit division per sample.
// It zeroes the output itself (an init kernel), so nothing is added here.
//
// Both modes: bytes (levels 0..256, 256 bins) and uint32 keys (levels lo..hi as uint64, so hi
// can be 2^32; the sample count is passed as int64 so n up to 2^32 - 1 is accepted).
//
// Build alone:  nvcc -O3 -arch=native -o cub_hist 00_cub.cu
// Run:          ./cub_hist --n 2^30          ./cub_hist --type uint32 --bins 4096 --n 2^28
//               ./cub_hist --test            ./cub_hist --help
#include <cub/device/device_histogram.cuh>

#include "lesson.cuh"

void cub_bytes(const uint8_t* d_in, size_t n, uint32_t* d_hist) {
    size_t temp_bytes = 0;
    // First call: CUB only reports how much scratch it needs.
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_hist, 257, 0, 256, int64_t(n)));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d_in, d_hist, 257, 0, 256, int64_t(n)));
    CUDA_CHECK_LAST();
}

void cub_keys(const uint32_t* d_in, size_t n, hist::EvenBins b, uint32_t* d_hist) {
    const int levels = int(b.bins) + 1;
    const uint64_t lo = b.lo, hi = uint64_t(b.lo) + b.range;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_hist, levels, lo, hi, int64_t(n)));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d_in, d_hist, levels, lo, hi, int64_t(n)));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    hist::Support s;
    s.bytes = cub_bytes;
    s.keys = cub_keys;
    return hist::run_lesson(argc, argv, "00_cub", s);
}
