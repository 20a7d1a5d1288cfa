// 01_odd_even — the naive end: odd-even transposition ("brick") sort.
//
// Step s compares every pair (i, i+1) with i of the step's parity and swaps the pairs that are out
// of order. The pairs of a step are disjoint, so one thread per pair needs no atomics; after n
// steps any input is sorted (the 0-1 principle).
//   steps:  n; up to 4096 keys one block keeps them in shared memory and a step is a
//           __syncthreads(); beyond that every step is a kernel launch (only the end of a kernel
//           orders all blocks) that reads and writes the whole array
//   work:   n * n/2 compare-exchanges, O(n^2): 2^16 uint32 keys move 34 GB for 256 KB of data
// Each step is a launch, and the launches' fixed cost is the time.
// What limits it: n sequential steps. 03's network needs about log2(n)^2 / 2 of them.
// Limit: n <= 2^16 (past that, minutes: refused with one line). Keys: uint32, int32, float32.
// Stable as it happens: only strictly out-of-order pairs swap, so equal keys never pass each other.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o odd_even 01_odd_even.cu
// Run:          ./odd_even --n 4096     ./odd_even --test     ./odd_even --n 2^17  (refused)
#include "comparison.cuh"

constexpr int kBlock = 1024;
constexpr size_t kOneBlockMax = 4 * kBlock;     // shared-memory regime up to here (16 KB)
constexpr uint64_t kMaxN = uint64_t(1) << 16;   // stated limit (O(n^2) work, n launches)

// All n steps inside one block: the keys live in shared memory, a step ends with a barrier.
template <class K> __global__ void odd_even_one_block(const K* in, K* out, int n) {
    __shared__ K s[kOneBlockMax];
    for (int x = threadIdx.x; x < n; x += kBlock) s[x] = in[x];
    __syncthreads();
    for (int step = 0; step < n; ++step) {
        for (int i = 2 * threadIdx.x + (step & 1); i + 1 < n; i += 2 * kBlock)   // this thread's pairs (i, i+1)
            sorting::cmp::compare_exchange(s[i], s[i + 1]);
        __syncthreads();   // the whole step is done before the next reads
    }
    for (int x = threadIdx.x; x < n; x += kBlock) out[x] = s[x];
}

// One step over global memory: thread t owns pair (2t + parity, 2t + parity + 1).
template <class K> __global__ void odd_even_step(K* data, size_t n, int parity) {
    size_t i = 2 * (blockIdx.x * size_t(blockDim.x) + threadIdx.x) + parity;
    if (i + 1 < n) {
        K a = data[i], b = data[i + 1];
        if (sorting::key_less(b, a)) {
            data[i] = b;
            data[i + 1] = a;
        }
    }
}

template <class K> void odd_even_sort(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    if (n <= kOneBlockMax) {
        odd_even_one_block<K><<<1, kBlock>>>(d_in, d_out, int(n));
        CUDA_CHECK_LAST();
        return;
    }
    CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(K), cudaMemcpyDeviceToDevice));
    unsigned grid = course::blocks_for(n / 2 + 1, 256);
    for (size_t step = 0; step < n; ++step) {   // n launches: the kernel boundary is the barrier
        odd_even_step<K><<<grid, 256>>>(d_out, n, int(step & 1));
        CUDA_CHECK_LAST();
    }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = odd_even_sort<uint32_t>;
    s.i32 = odd_even_sort<int32_t>;
    s.f32 = odd_even_sort<float>;
    s.max_n = kMaxN;
    s.limit_why = "O(n^2) work and one launch per step: n <= 2^16 runs in well under a second";
    return sorting::run_lesson(argc, argv, "01_odd_even", s);
}
