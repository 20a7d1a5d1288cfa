// wrong/compact_atomic_counter — compaction with one global counter: fast to write, wrong order.
// CAUGHT-BY: checker
//
// Every thread whose element is kept does `pos = atomicAdd(&count, 1); out[pos] = x`. The count
// is right and the output holds the right multiset, but positions are handed out in the order the
// atomics reach the L2, not in input order: warps of different blocks (and SMs) interleave, so
// element 5000 can land before element 10. The checker compares the kept elements in order, so
// it fails at the first misplaced pair. (Compilers even help a little: nvcc turns same-address
// atomics of a warp into one atomic plus a popcount, which keeps order inside a warp, never
// across warps.)
// It is also slow where it counts: every kept element is a read-modify-write on ONE address in
// the L2; they serialize there (about one per clock per address), so at 50% kept of 2^28 that is
// 2^27 serialized updates, while an order-preserving scan needs no atomics on the data path at all.
// Used where order does not matter (building work queues), and then with one atomic per warp
// (ballot + popc) or per block, never per element.
//
// Build alone:  nvcc -O3 -arch=native -o atomic ../wrong/compact_atomic_counter.cu (from wrong/: -o atomic compact_atomic_counter.cu)
// Run:          ./atomic --test --quick      (fails: lost order)
#include "../compact.cuh"

constexpr int kBlock = 256;

// The bug: each kept element takes its place from one global atomicAdd: arrival order, not input order.
__global__ void atomic_compact(const int32_t* __restrict__ in, int32_t* __restrict__ out, uint32_t* count, size_t n,
                               uint32_t pct) {
    size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
    if (i >= n) return;
    int32_t x = in[i];
    if (compact::keep(x, pct)) out[atomicAdd(count, 1u)] = x;   // BUG: arrival order, not input order
}

void compact_atomic(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(uint32_t)));
    if (n == 0) return;
    atomic_compact<<<course::blocks_for(n, kBlock), kBlock>>>(d_in, d_out, d_count, n, pct);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return compact::run_lesson(argc, argv, "compact_atomic_counter", compact_atomic); }
