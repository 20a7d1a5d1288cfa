// 01_hillis_steele — the naive end: Hillis & Steele (Kogge-Stone) scan in one block.
//
// The source post's first version, written fresh and made correct. Step d adds the element
// 2^d places to the left: after log2(n) steps every element holds its prefix sum.
//   work:  n log2 n additions (a sequential scan needs n): not work-efficient
//   steps: log2 n, each one barrier
// The post scanned in place and saw "a non-reproducible bug above 512 elements": a thread reads
// s[i - offset] while the thread that owns that slot is already overwriting it in the same step.
// Here each step reads one buffer and writes the other (double buffering), so no thread ever
// reads a value of the step in progress. (wrong/hillis_steele_in_place.cu keeps the race.)
//
// Limit: one block, one element per thread: n <= 1024. Later versions lift it.
//
// Build alone:  nvcc -O3 -arch=native -o hs 01_hillis_steele.cu
// Run:          ./hs --n 1000          ./hs --test
#include "lesson.cuh"

constexpr int kBlock = 1024;

// The naive end: one block, one element a thread; each step adds the element offset places left, double-buffered.
__global__ void hillis_steele_scan(const int32_t* in, int32_t* out, int n, bool exclusive) {
    __shared__ int32_t buffer[2][kBlock];
    int i = threadIdx.x;
    // Exclusive = inclusive shifted right by one, with 0 entering on the left.
    int32_t x = 0;
    if (exclusive) x = (i > 0 && i - 1 < n) ? in[i - 1] : 0;
    else x = i < n ? in[i] : 0;
    int src = 0;
    buffer[src][i] = x;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        int32_t v = buffer[src][i];
        if (i >= offset) v = scan::wrap_add(v, buffer[src][i - offset]);
        buffer[1 - src][i] = v;   // written to the other buffer: nobody reads it this step
        src = 1 - src;
        __syncthreads();   // the whole step is written before anyone reads it
    }
    if (i < n) out[i] = buffer[src][i];
}

void scan_hillis_steele(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    hillis_steele_scan<<<1, kBlock>>>(d_in, d_out, int(n), kind == scan::Kind::exclusive);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.max_n = kBlock;
    limits.why = "one block, one element per thread";
    return scan::run_lesson(argc, argv, "01_hillis_steele", scan_hillis_steele, nullptr, limits);
}
