// first_scan — the course's first program, with no harness: the whole life of one GPU computation.
//
// An inclusive prefix sum (out[i] = in[0] + ... + in[i]) of up to 1024 ints, in six steps:
// allocate on the GPU, copy the input there, launch one block, copy the answer back, compare it
// with a loop on the CPU, time the kernel with CUDA events. Every later program does these same
// steps inside common/driver.cuh (plus a poisoned output, repeated runs, an L2 flush and a median),
// so read this one first and the harness will hold no surprises.
//
// The kernel is 01_hillis_steele's idea: step d adds the value 2^d places to the left, reading one
// shared-memory buffer and writing the other, so no thread reads a slot that is being rewritten.
//
// Build alone:  nvcc -O3 -arch=native -o first_scan first_scan.cu      (or: make build/lesson02_scan/intro/first_scan)
// Run:          ./first_scan            ./first_scan --n 1000
// Exit status:  0 correct, 1 wrong answer, 2 bad usage, 3 CUDA error, 77 no GPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "../../common/error.cuh"

constexpr int kBlock = 1024;   // one thread per element, so n <= 1024

// One block, one element per thread: after log2(1024) steps every thread holds its prefix sum.
__global__ void inclusive_scan_one_block(const int* in, int* out, int n) {
    __shared__ int buf[2][kBlock];
    int i = threadIdx.x, src = 0;
    buf[src][i] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        int v = buf[src][i];
        if (i >= offset) v += buf[src][i - offset];
        buf[1 - src][i] = v;   // the other buffer: nobody reads it during this step
        src = 1 - src;
        __syncthreads();   // the whole step is written before the next one reads it
    }
    if (i < n) out[i] = buf[src][i];
}

int main(int argc, char** argv) {
    int n = kBlock;
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--help")) {
            std::printf("usage: first_scan [--n N]   (1 <= N <= %d; default %d)\n", kBlock, kBlock);
            return 0;
        }
        char* end = nullptr;
        long v = (!std::strcmp(argv[a], "--n") && a + 1 < argc) ? std::strtol(argv[++a], &end, 10) : 0;
        if (!end || *end || v < 1 || v > kBlock) {
            for (char* c = argv[a]; *c; ++c)   // echo it on one line: control bytes shown as '?'
                if ((unsigned char)*c < 32 || *c == 127) *c = '?';
            std::fprintf(stderr, "error: bad argument '%s' (usage: first_scan [--n N], 1 <= N <= %d)\n", argv[a],
                         kBlock);
            return 2;
        }
        n = int(v);
    }
    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "no CUDA device available (%s): this program needs an NVIDIA GPU; skipped\n",
                     err != cudaSuccess ? cudaGetErrorName(err) : "device count is 0");
        return 77;
    }
    std::vector<int> in(n), out(n), want(n);
    for (int i = 0; i < n; ++i) in[i] = int((i * 2654435761u) % 19) - 9;   // small values in [-9, 9]
    for (int i = 0, sum = 0; i < n; ++i) want[i] = sum += in[i];           // the CPU reference

    int *d_in = nullptr, *d_out = nullptr;   // 1. allocate
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));   // 2. copy in
    inclusive_scan_one_block<<<1, kBlock>>>(d_in, d_out, n);                            // 3. launch
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));   // 4. copy back
    int bad = 0;                                                                          // 5. check
    for (int i = 0; i < n; ++i)
        if (out[i] != want[i] && bad++ < 3) std::printf("mismatch at %d: expected %d, got %d\n", i, want[i], out[i]);

    cudaEvent_t start, stop;   // 6. time (the kernel only)
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const int reps = 100;
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) inclusive_scan_one_block<<<1, kBlock>>>(d_in, d_out, n);
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("first_scan  n=%d  %.4f ms per launch (mean of %d)  %s\n", n, ms / reps, reps, bad ? "FAIL" : "PASS");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return bad ? 1 : 0;
}
