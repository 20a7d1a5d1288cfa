// exercises/compact_scatter — write the scatter step of the three-kernel compaction.
//
// The flags (1 = keep: compact::keep, compact.cuh) and their exclusive scan (each element's address
// among the kept ones: scan::device_scan, lesson02_scan/scan.cuh) are computed for you, into
// scratch from course::scratch_as (common/device.cuh). Your part, in scatter_kernel below:
//   1. if element i is kept, write it to out[offsets[i]];
//   2. the thread of the LAST element writes the number of kept elements to *count
//      (hint: what does an exclusive scan leave out at the end?).
// Until then the output is left unwritten and the battery fails (exit 1).
// Check:  make grade EX=compact_scatter   (exit 0 once done):
//         by hand: make build/lesson03_compact_spmv/exercises/compact_scatter, then run it with --test --quick
// Solution:  ../compact_01_three_kernels.cu
// Think about: why is the output in input order? What would break with an inclusive scan?
#include "../../lesson02_scan/scan.cuh"
#include "../compact.cuh"

constexpr int kBlock = 256;

// compact_01's step 1, given: flags[i] = 1 where in[i] is kept.
__global__ void flag_kernel(const int32_t* __restrict__ in, uint32_t* __restrict__ flags, size_t n, uint32_t pct) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i < n) flags[i] = compact::keep(in[i], pct) ? 1u : 0u;
}

// compact_01's scatter with its body cut out: out[offsets[i]] and the count are the exercise.
__global__ void scatter_kernel(const int32_t* __restrict__ in, const uint32_t* __restrict__ flags,
                               const uint32_t* __restrict__ offsets, int32_t* __restrict__ out,
                               uint32_t* __restrict__ count, size_t n) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i >= n) return;
    // TODO: scatter element i if it is kept, and write *count from the last element's thread.
    (void)in;
    (void)flags;
    (void)offsets;
    (void)out;
    (void)count;
}

void compact_scatter(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
        return;
    }
    uint32_t* flags = course::scratch_as<uint32_t>(0, n);
    uint32_t* offsets = course::scratch_as<uint32_t>(1, n);
    unsigned grid = course::blocks_for(n, kBlock);
    flag_kernel<<<grid, kBlock>>>(d_in, flags, n, pct);
    CUDA_CHECK_LAST();
    scan::device_scan(flags, offsets, n, scan::Kind::exclusive);
    scatter_kernel<<<grid, kBlock>>>(d_in, flags, offsets, d_out, d_count, n);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    compact::Limits lim;
    lim.scratch_bytes_per_item = 8;
    return compact::run_lesson(argc, argv, "compact_scatter", compact_scatter, lim);
}
