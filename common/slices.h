// common/slices.h — how the multi-GPU programs split n elements over P GPUs (host-only, no NCCL,
// so the host tests use it too): n / P each, the first n % P GPUs one more; a GPU may get none.
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

}  // namespace mgpu
