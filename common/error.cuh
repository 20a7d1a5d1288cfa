// common/error.cuh — every CUDA call and every kernel launch in the course goes through these.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));   // a runtime call
//   my_kernel<<<grid, block>>>(...);
//   CUDA_CHECK_LAST();                   // a launch: catches bad configurations at once
//
// On failure they print one line — file:line, the call's text, the error's name and message — and
// exit with status 3 (an internal/CUDA failure, distinct from 1 = wrong answer, 2 = bad usage).
// A kernel that faults reports its error at the next synchronising call, so a fault shows up at
// the first CUDA_CHECK after it; build with `make DEBUG=1` (-G) or run `make sanitize` to find it.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace course {
constexpr int kExitCudaError = 3;

inline void cuda_fail(cudaError_t err, const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: CUDA error in '%s': %s (%s)\n", file, line, what, cudaGetErrorName(err),
                 cudaGetErrorString(err));
    std::exit(kExitCudaError);
}
}   // namespace course

#define CUDA_CHECK(call)                                                                             \
    do {                                                                                             \
        cudaError_t course_err_ = (call);                                                            \
        if (course_err_ != cudaSuccess) ::course::cuda_fail(course_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a launch: configuration errors (too many threads, too much shared memory) are reported
// by cudaGetLastError immediately; faults inside the kernel surface at the next sync.
#define CUDA_CHECK_LAST()                                                                                      \
    do {                                                                                                       \
        cudaError_t course_err_ = cudaGetLastError();                                                          \
        if (course_err_ != cudaSuccess) ::course::cuda_fail(course_err_, "kernel launch", __FILE__, __LINE__); \
    } while (0)
