// expand_00_thrust — the library bar, composed from library calls: CUB scan + Thrust vectorized
// search.
//
//   1. ends = inclusive scan of the counts (cub::DeviceScan::InclusiveSum)
//   2. out[j] = upper_bound(ends, j) for every output j (thrust::upper_bound over 0..total-1):
//      the first item whose run ends after j owns output j.
// No library has an "expand" call; this is how it is usually written with them. Every output does
// its own binary search over n ends: log2(n) dependent loads, most hitting L2 near the top of the
// search tree and DRAM near the bottom. Simple, balanced whatever the counts (work is per output),
// but far more memory traffic and latency than writing 4 bytes needs.
//
// Build alone:  nvcc -O3 -arch=native -o expand00 expand_00_thrust.cu
// Run:          ./expand00 --n 2^24 --dist uniform        ./expand00 --test
#include <cub/device/device_scan.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include "compact.cuh"

void expand_thrust(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    if (n == 0 || total == 0) return;
    const uint32_t* counts = reinterpret_cast<const uint32_t*>(d_counts);   // >= 0: same bits
    uint32_t* ends = course::scratch_as<uint32_t>(0, n);
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, counts, ends, int64_t(n)));
    void* temp = course::scratch(1, temp_bytes);
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, counts, ends, int64_t(n)));
    CUDA_CHECK_LAST();
    // par_nosync: no device-wide synchronization at the end (the harness times with events).
    thrust::counting_iterator<uint64_t> first(0);
    thrust::upper_bound(thrust::cuda::par_nosync, ends, ends + n, first, first + total, d_out);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return expand::run_lesson(argc, argv, "expand_00_thrust", expand_thrust); }
