// lesson02_scan/lookback.cuh — decoupled look-back (Merrill & Garland, "Single-pass Parallel
// Prefix Scan with Decoupled Look-back", 2016): how one kernel can scan across blocks.
//
// Each tile (a block's share of the input) publishes a status word as soon as it can:
//   AGGREGATE  the sum of its own elements      (known right after its local scan)
//   PREFIX     the sum of everything up to and including it (known once its look-back ends)
// A tile looks back over its predecessors' words, adding AGGREGATEs, until it meets a PREFIX.
// It never waits for all of them: usually a PREFIX is a few tiles back, so the chain of
// dependencies is short and the kernel reads the input once and writes the output once.
//
// Two details make it safe:
//  * flag and value share one 64-bit word, written with one store and read with one load, so
//    a reader never sees a flag without its value (no fence is needed between them);
//  * tiles are numbered by an atomic counter in the order blocks *start*, not by blockIdx, so a
//    tile only ever waits for tiles whose blocks are already running: no deadlock, whatever order
//    the hardware schedules blocks in.
// Used by the scan's best version (06_decoupled_lookback.cu) and by compaction's
// (compact_03_lookback.cu); the one-sweep radix sort (lesson04) keeps one such chain per digit.
#pragma once
#include <cstdint>
#include <cstring>
#include <cuda/atomic>

#include "../common/device.cuh"
#include "primitives.cuh"

namespace lookback {

// A warp that polled 8 times without an answer sleeps this many nanoseconds between polls, leaving
// the memory system to the tiles it waits for. Never sleeping (0) and 128 ns measured no
// different (TUNING.md).
constexpr unsigned kBackoffNs = 32;

enum : uint32_t { kNotReady = 0, kAggregate = 1, kPrefix = 2 };

struct State {
    unsigned long long* status;   // one word per tile (per chain), zero = not ready
    unsigned* tile_counter;       // hands out tile numbers in block start order
};

// Scratch for `words` status words plus the counter, zeroed before each launch (that memset is
// the only extra pass: 8 bytes per tile, e.g. 26215 tiles of 10240 elements, about 210 KB, for
// 2^28 elements in 06_decoupled_lookback).
inline State prepare(int scratch_slot, size_t words, cudaStream_t stream = 0) {
    size_t bytes = (words + 1) * sizeof(unsigned long long);
    auto* base = static_cast<unsigned long long*>(course::scratch(scratch_slot, bytes));
    CUDA_CHECK(cudaMemsetAsync(base, 0, bytes, stream));
    return State{base + 1, reinterpret_cast<unsigned*>(base)};
}

template <class T> __device__ __forceinline__ uint32_t to_bits(T v) {
    static_assert(sizeof(T) == 4, "look-back values are 32-bit");
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}
template <class T> __device__ __forceinline__ T from_bits(uint32_t b) {
    T v;
    memcpy(&v, &b, 4);
    return v;
}

__device__ __forceinline__ void publish(unsigned long long* word, uint32_t flag, uint32_t value_bits) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(*word);
    ref.store((static_cast<unsigned long long>(flag) << 32) | value_bits, cuda::memory_order_relaxed);
}
__device__ __forceinline__ unsigned long long load(unsigned long long* word) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(*word);
    return ref.load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ uint32_t flag_of(unsigned long long w) { return uint32_t(w >> 32); }
__device__ __forceinline__ uint32_t value_of(unsigned long long w) { return uint32_t(w); }

// Thread 0 of the block takes the next tile number; everyone gets it through shared memory.
__device__ __forceinline__ unsigned next_tile(State st, unsigned* shared_slot) {
    if (threadIdx.x == 0) *shared_slot = atomicAdd(st.tile_counter, 1u);
    __syncthreads();
    return *shared_slot;
}

// Called by one whole warp for tile `tile` > 0 (after it published its AGGREGATE): returns the
// exclusive prefix of the tile (the op-sum of all earlier tiles) to every lane.
// The warp inspects a window of 32 predecessors at once: it waits until none is NOT_READY, adds
// the values from the nearest PREFIX up (or all 32 AGGREGATEs if there is none) and, without a
// PREFIX, slides the window 32 tiles further back.
template <class T, class Op = scan::Plus>
__device__ T warp_lookback(unsigned long long* status, unsigned tile, Op op = {}, T identity = T(0)) {
    const int lane = threadIdx.x & 31;
    T exclusive = identity;
    long long window_end = tile;   // predecessors [window_end - 32, window_end)
    while (true) {
        long long pred = window_end - 32 + lane;
        unsigned long long w;
        int spins = 0;
        while (true) {
            // a predecessor before tile 0 acts as a PREFIX of the identity: the walk always ends
            w = pred >= 0 ? load(status + pred)
                          : ((static_cast<unsigned long long>(kPrefix) << 32) | to_bits(identity));
            if (!__any_sync(scan::kFullMask, flag_of(w) == kNotReady)) break;
            if (++spins > 8) __nanosleep(kBackoffNs);   // let the tiles we wait for have the memory
        }
        unsigned prefix_lanes = __ballot_sync(scan::kFullMask, flag_of(w) == kPrefix);
        int nearest_prefix = prefix_lanes ? 31 - __clz(prefix_lanes) : -1;
        T v = lane >= nearest_prefix ? from_bits<T>(value_of(w)) : identity;
        exclusive = op(scan::warp_reduce(v, op), exclusive);
        if (prefix_lanes) return exclusive;
        window_end -= 32;
    }
}

}   // namespace lookback
