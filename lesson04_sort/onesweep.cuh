// lesson04_sort/onesweep.cuh — the arithmetic of 08_radix_onesweep's one-step ranking, in a header
// because tests/lesson04_radix_host.cu replays a warp's ranking with it on the host. The sort's
// kernels are in 08_radix_onesweep.cu.
#pragma once
#include <cstdint>

namespace onesweep {

// Bit counts that compile on the host too (the host test): the intrinsics on the device.
__host__ __device__ __forceinline__ int clz32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __clz(x);
#else
    return x ? __builtin_clz(x) : 32;
#endif
}
__host__ __device__ __forceinline__ int popc32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

// The two pieces of arithmetic of a one-step rank, shared by both ways of matching and by the host
// test (tests/lesson04_radix_host.cu replays a warp's ranking with them). `peers`: the lanes with
// this lane's digit. The group's highest lane is its leader (it adds the group's size to the
// counter); a key's rank = the counter's old value + the peers below it (index order).
__host__ __device__ __forceinline__ int group_leader(uint32_t peers) { return 31 - clz32(peers); }
__host__ __device__ __forceinline__ uint32_t rank_in_group(uint32_t old, uint32_t peers, int lane) {
    return old + popc32(peers & ((1u << lane) - 1u));
}

}  // namespace onesweep
