// lesson04_sort/onesweep.cuh — the arithmetic of 08_radix_onesweep's one-step ranking and of its
// choice of ranking path per warp, in a header because tests/lesson04_radix_host.cu replays a
// warp's ranking with it on the host. The sort's kernels are in 08_radix_onesweep.cu.
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

// How a warp ranks its keys, chosen once per tile from the warp's own digit counts (it counted
// them first, so the choice is free): the most common digit and how many of the warp's keys hold
// it travel as one word, (count << 8) | digit, so that a plain max over the warp picks it.
__host__ __device__ __forceinline__ uint32_t dominant_word(uint32_t count, uint32_t digit) {
    return (count << 8) | digit;
}
enum class WarpPath {
    one_digit,         // every key of the warp has the dominant digit: ranks are arithmetic
    dominant_ballot,   // the dominant digit's lanes find each other with one ballot, the rest OR
    or_masks           // every lane ORs into its digit's word
};
// `keys`: the warp's keys in the tile (32 x items); `ballot_min`: the fewest keys of the dominant
// digit for which its lanes take a ballot instead of the OR (0: always).
__host__ __device__ __forceinline__ WarpPath warp_path(uint32_t dominant, uint32_t keys, uint32_t ballot_min) {
    const uint32_t count = dominant >> 8;
    if (count == keys) return WarpPath::one_digit;
    return count >= ballot_min ? WarpPath::dominant_ballot : WarpPath::or_masks;
}
// A one-digit warp's key (item j, lane) is the warp's (32 j + lane)-th key of that digit.
__host__ __device__ __forceinline__ uint32_t one_digit_rank(uint32_t start, int j, int lane) {
    return start + 32u * uint32_t(j) + uint32_t(lane);
}

}   // namespace onesweep
