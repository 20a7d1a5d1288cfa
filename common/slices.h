// common/slices.h — how the multi-GPU programs split n elements over P GPUs (host-only, no NCCL,
// so the host tests use it too): n / P each, the first n % P GPUs one more; a GPU may get none.
// Also the round-robin pairing of the exchange: every pair of GPUs gets its own communicator and round.
#pragma once
#include <algorithm>
#include <cstddef>

namespace mgpu {

struct Slice {
    size_t begin = 0, count = 0;
};
inline Slice slice_of(size_t n, int rank, int ranks) {
    size_t base = n / size_t(ranks), extra = n % size_t(ranks);
    size_t r = size_t(rank);
    return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// The exchange's rounds: P - 1 for even P, P for odd P (each round one GPU sits out).
inline int pair_rounds(int P) { return P + P % 2 - 1; }

// The circle method over n = P rounded up to even, round d (0 <= d < n - 1): GPU n - 1 meets GPU
// d, GPU g meets 2d - g mod n - 1; a partner >= P (the phantom of odd P) means "sit out".
inline int circle_partner(int g, int d, int P) {
    const int n = P + P % 2;
    if (g == n - 1) return d;
    if (g == d) return n - 1;
    return ((2 * d - g) % (n - 1) + (n - 1)) % (n - 1);
}

// GPU g's partner in round d (0 <= d < pair_rounds(P)) of the exchange's round-robin pairing: over
// the rounds every GPU meets every other exactly once.
//   P a power of two: g XOR (d + 1). Round 0 pairs neighbours (0-1, 2-3, ...), rounds 1-2 complete
//     aligned groups of 4, rounds 3-6 groups of 8: the order of 11's merge tree, so its merge of a
//     group's runs (in source order) waits only for that group's pairs.
//   other P: the circle method.
inline int pair_partner(int g, int d, int P) {
    if ((P & (P - 1)) == 0) return g ^ (d + 1);
    return circle_partner(g, d, P);
}

// The round in which GPU g meets GPU p (p != g).
inline int pair_round(int g, int p, int P) {
    for (int d = 0; d < pair_rounds(P); ++d)
        if (pair_partner(g, d, P) == p) return d;
    return -1;
}

}   // namespace mgpu
