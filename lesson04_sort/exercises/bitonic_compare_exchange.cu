// exercises/bitonic_compare_exchange — write the one step of a bitonic sorting network.
//
// The program below is a complete bitonic sort for ANY n (the always-ascending network of
// 03_bitonic.cu, one kernel launch per step, no shared memory) except for the body of
// network_step: every thread handles one pair of the step and must
//   1. skip the pair if its partner p is >= n (positions >= n are a virtual +infinity padding:
//      in this form of the network the smaller key always goes to the LOWER index, so the
//      padding never moves and the step has nothing to do), and
//   2. compare data[i] with data[p] in the lesson's order (sorting::key_less, lesson.cuh: int32 by sign,
//      float with -0.0 < +0.0 and NaNs last) and swap them if they are out of order.
// Until then the output is the unsorted input and the checker fails (exit 1).
// Hints: the pair's indices come from sorting::cmp::bitonic_pair(t, k, j, i, p) (comparison.cuh,
// already called for you). Compare with key_less, never with <, or float32 cases fail. Write both keys
// only when they move.
// Check:  make grade EX=bitonic_compare_exchange   (exit 0 once done):
//         by hand: make build/lesson04_sort/exercises/bitonic_compare_exchange, then run it with --test --quick
// Solution: sorting::cmp::bitonic_global_step in 03_bitonic.cu.
#include "../comparison.cuh"

// 03's global step with its body cut out: one thread per pair (i, p) of step (k, j).
template <class K> __global__ void network_step(K* data, size_t n, size_t pairs, size_t k, size_t j) {
    size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= pairs) return;
    size_t i, p;
    sorting::cmp::bitonic_pair(t, k, j, i, p);   // i < p: the smaller key belongs at i
    // TODO: skip the pair when p >= n; otherwise compare data[i] and data[p] with
    //       sorting::key_less and swap them when data[p] < data[i].
    (void)data;
    (void)n;
    (void)i;
    (void)p;
}

template <class K> void bitonic_exercise(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(K), cudaMemcpyDeviceToDevice));
    const size_t P = sorting::cmp::next_pow2(n), pairs = P / 2;
    for (size_t k = 2; k <= P; k *= 2)             // stage: blocks of k become sorted
        for (size_t j = k / 2; j >= 1; j /= 2) {   // step: the flip (j = k/2), then half-cleaners
            network_step<K><<<course::blocks_for(pairs, 256), 256>>>(d_out, n, pairs, k, j);
            CUDA_CHECK_LAST();
        }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = bitonic_exercise<uint32_t>;
    s.i32 = bitonic_exercise<int32_t>;
    s.f32 = bitonic_exercise<float>;
    return sorting::run_lesson(argc, argv, "bitonic_compare_exchange", s);
}
