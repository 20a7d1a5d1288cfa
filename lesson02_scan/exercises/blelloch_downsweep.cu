// exercises/blelloch_downsweep — complete Blelloch's down-sweep (one block, n <= 2048).
//
// The kernel loads 2048 slots (zeros past n), runs the up-sweep (given) and clears the last
// slot. The down-sweep is missing, so the output is the up-sweep's partial sums: the checker
// fails on almost every element until you write it.
//
// TODO: the down-sweep. After it, slot i must hold the EXCLUSIVE prefix of slot i.
// Hints:
//  * Walk the same tree back down: `offset` goes 1024, 512, ..., 1 while the number of active
//    threads goes 1, 2, ..., 1024 (thread t < active works on the pair
//    left = offset*(2t+1) - 1, right = offset*(2t+2) - 1, the same pairs as the up-sweep).
//  * At each pair: the left child takes the parent's value (which sits in `right`), and the right
//    child takes parent + the left child's OLD value. Keep the old left value in a register.
//  * One __syncthreads() per level, before the level reads what the previous one wrote (and one
//    after the loop, before the results are read).
// Check:  make grade EX=blelloch_downsweep   (exit 0 once done):
//         by hand: make build/lesson02_scan/exercises/blelloch_downsweep, then run it with --test --quick
// Solution: blelloch.cuh, exclusive_scan_tree (02_blelloch.cu uses it).
#include "../lesson.cuh"

constexpr int kThreads = 1024;
constexpr int kSlots = 2 * kThreads;

// 02's kernel with its tree written out: the up-sweep is given, the down-sweep is the exercise.
__global__ void __launch_bounds__(kThreads)
    blelloch_exercise(const uint32_t* in, uint32_t* out, int n, bool exclusive) {
    __shared__ uint32_t s[kSlots];
    const int t = threadIdx.x;
    const uint32_t x0 = t < n ? in[t] : 0u, x1 = t + kThreads < n ? in[t + kThreads] : 0u;
    s[t] = x0;
    s[t + kThreads] = x1;

    // Up-sweep (given): slot offset*(2t+2)-1 accumulates its subtree; the last slot ends with the total.
    int offset = 1;
    for (int active = kSlots / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            s[right] += s[left];
        }
        offset *= 2;
    }
    __syncthreads();
    if (t == 0) s[kSlots - 1] = 0;   // the root's exclusive prefix is the identity
    // here offset == 2048

    // TODO: the down-sweep (see the header).

    __syncthreads();
    if (t < n) out[t] = exclusive ? s[t] : s[t] + x0;
    if (t + kThreads < n) out[t + kThreads] = exclusive ? s[t + kThreads] : s[t + kThreads] + x1;
}

void scan_exercise(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    blelloch_exercise<<<1, kThreads>>>(reinterpret_cast<const uint32_t*>(d_in), reinterpret_cast<uint32_t*>(d_out),
                                       int(n), kind == scan::Kind::exclusive);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.max_n = kSlots;
    limits.why = "one block of 1024 threads, two elements each";
    limits.tile = kSlots;
    return scan::run_lesson(argc, argv, "blelloch_downsweep", scan_exercise, nullptr, limits);
}
