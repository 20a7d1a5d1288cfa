// common/slices.h — how the multi-GPU programs split n elements over P GPUs (host-only, no NCCL,
// so the host tests use it too): n / P each, the first n % P GPUs one more; a GPU may get none.
// Also the round-robin pairing by which every pair of GPUs gets its own communicator.
#pragma once
#include <algorithm>
#include <cstddef>

namespace mgpu {

struct Slice { size_t begin = 0, count = 0; };
inline Slice slice_of(size_t n, int rank, int ranks) {
    size_t base = n / size_t(ranks), extra = n % size_t(ranks);
    size_t r = size_t(rank);
    return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// Round d (0 <= d < n - 1, n = P rounded up to even) of a round-robin pairing of P GPUs, the
// circle method: GPU n - 1 meets GPU d, GPU g meets 2d - g mod n - 1. Over the n - 1 rounds every
// GPU meets every other exactly once; a partner >= P (the phantom of odd P) means "sit out".
inline int pair_partner(int g, int d, int P) {
    const int n = P + P % 2;
    if (g == n - 1) return d;
    if (g == d) return n - 1;
    return ((2 * d - g) % (n - 1) + (n - 1)) % (n - 1);
}

}  // namespace mgpu
