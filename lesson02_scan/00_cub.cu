// 00_cub — the library bar: cub::DeviceScan::InclusiveSum / ExclusiveSum.
//
// CUB's scan is a single-pass decoupled look-back scan (Merrill & Garland 2016) tuned per GPU:
// it reads the input once and writes the output once, so its time is close to a device-to-device
// copy of the same bytes. Every other version in this lesson is measured against it.
//
// Build alone:  nvcc -O3 -arch=native -o cub_scan 00_cub.cu
// Run:          ./cub_scan --n 2^28            ./cub_scan --test            ./cub_scan --help
#include <cub/device/device_scan.cuh>

#include "lesson.cuh"

// int32 wraps: CUB adds with the type's own operator+, which on the GPU wraps in two's complement
// just like our uint32 reference (the hardware has no trap on overflow).
template <class T> void cub_scan(const T* d_in, T* d_out, size_t n, scan::Kind kind) {
    size_t temp_bytes = 0;
    // First call: CUB only reports how much scratch it needs.
    if (kind == scan::Kind::inclusive) CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, d_in, d_out, n));
    else CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_in, d_out, n));
    void* temp = course::scratch(0, temp_bytes);
    if (kind == scan::Kind::inclusive) CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, d_in, d_out, n));
    else CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return scan::run_lesson(argc, argv, "00_cub", cub_scan<int32_t>, cub_scan<float>); }
