// 02_blelloch — Blelloch's work-efficient scan (up-sweep / down-sweep) in one block.
//
// What changed since 01_hillis_steele: Hillis-Steele adds n log2 n times; Blelloch's two trees
// add about 2n times (up-sweep: a reduction tree, n-1 additions; down-sweep: the same tree walked
// back, handing each left child its parent's prefix). Each of the 1024 threads now owns TWO
// elements, so one block scans 2048 elements instead of 1024.
// Cost model (one block, N = 2048 slots):
//   global memory  n reads + n writes (as before)
//   work           2N additions instead of N log2 N
//   barriers       2 log2 N + 3 = 25 (Hillis-Steele: log2 N = 10 for half the elements)
//   shared memory  strided: at level d a warp's threads touch slots 2^(d+1) apart, so most of
//                  them hit the same bank. 03_blelloch_padded removes those conflicts.
// Any n up to 2048 works, not only powers of two: slots past n are filled with 0 (the identity)
// and the tree always runs on all 2048 slots. The tree produces the EXCLUSIVE scan; inclusive is
// exclusive + the element itself (kept in a register).
// The tree itself (shared with 03, 04 and wrong/) is in blelloch.cuh, with NoPadding here.
// Limit: one block, n <= 2048.
//
// Build alone:  nvcc -O3 -arch=native -o blelloch 02_blelloch.cu
// Run:          ./blelloch --n 2000          ./blelloch --test
#include "blelloch.cuh"
#include "lesson.cuh"

constexpr int kThreads = 1024;
constexpr int kSlots = 2 * kThreads;   // N: two elements per thread

// Delta from 01: two elements a thread, and Blelloch's up-sweep and down-sweep (about 2N additions, not N log2 N).
__global__ void __launch_bounds__(kThreads) blelloch_scan(const uint32_t* in, uint32_t* out, int n, bool exclusive) {
    __shared__ uint32_t s[kSlots];
    const int t = threadIdx.x;
    // Thread t loads elements t and t + 1024: each load instruction is coalesced across the warp.
    const int i0 = t, i1 = t + kThreads;
    const uint32_t x0 = i0 < n ? in[i0] : 0u, x1 = i1 < n ? in[i1] : 0u;
    s[i0] = x0;
    s[i1] = x1;
    blelloch::exclusive_scan_tree<blelloch::NoPadding>(s, kSlots);   // starts and ends with a barrier
    if (i0 < n) out[i0] = exclusive ? s[i0] : s[i0] + x0;
    if (i1 < n) out[i1] = exclusive ? s[i1] : s[i1] + x1;
}

void scan_blelloch(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    blelloch_scan<<<1, kThreads>>>(reinterpret_cast<const uint32_t*>(d_in), reinterpret_cast<uint32_t*>(d_out), int(n),
                                   kind == scan::Kind::exclusive);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.max_n = kSlots;
    limits.why = "one block of 1024 threads, two elements each";
    limits.tile = kSlots;
    return scan::run_lesson(argc, argv, "02_blelloch", scan_blelloch, nullptr, limits);
}
