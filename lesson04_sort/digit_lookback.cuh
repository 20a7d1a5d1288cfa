// lesson04_sort/digit_lookback.cuh — 08_radix_onesweep's per-digit decoupled look-back: tile t's
// status word for digit d holds a 2-bit flag (AGGREGATE: the tile's own count; PREFIX: the count
// in tiles 0..t) over a 30-bit count, written and read whole (relaxed atomics), so a reader never
// sees a flag without its count; 30 bits limit n to 2^30 - 1. DigitLookback::before walks back
// from tile t - 1, adding AGGREGATEs until it meets a PREFIX (exercises/radix_digit_lookback.cu
// writes its own, with publish/load_status and the flags below).
#pragma once
#include <cuda/atomic>

#include "radix.cuh"

namespace onesweep {

constexpr uint32_t kAggregate = 1u << 30, kPrefix = 2u << 30, kFlagMask = 3u << 30, kCountMask = (1u << 30) - 1;

__device__ __forceinline__ void publish(uint32_t* word, uint32_t flag, uint32_t count) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> ref(*word);
    ref.store(flag | count, cuda::memory_order_relaxed);
}
__device__ __forceinline__ uint32_t load_status(uint32_t* word) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> ref(*word);
    return ref.load(cuda::memory_order_relaxed);
}

// The look-back policy: called by thread d for tile > 0 after it published its AGGREGATE; returns
// the number of keys of digit d in all earlier tiles. `status` points at the pass's words; tile
// t's word for digit d is status[t * 256 + d]. (exercises/radix_digit_lookback.cu writes its own.)
struct DigitLookback {
    __device__ static uint32_t before(uint32_t* status, unsigned tile, int d) {
        uint32_t before = 0;
        long long pred = (long long)tile - 1;
        int spins = 0;
        while (true) {
            uint32_t w = load_status(status + size_t(pred) * radix::kDigits + d);
            uint32_t flag = w & kFlagMask;
            if (flag == 0) {   // not ready yet: wait (briefly back off)
                if (++spins > 16) __nanosleep(64);
                continue;
            }
            before += w & kCountMask;
            if (flag == kPrefix) return before;   // everything before `pred` is included in it
            --pred;                               // an AGGREGATE: keep walking (tile 0 is a PREFIX)
            spins = 0;
        }
    }
};

}   // namespace onesweep
