// lesson02_scan/blelloch.cuh — Blelloch's work-efficient scan tree in shared memory, shared by
// 02_blelloch, 03_blelloch_padded, 04_scan_then_propagate and the wrong/ programs.
//
// The tree works on N = a power of two slots (unused slots hold 0, the identity, so any n <= N
// works) with N/2 threads:
//   up-sweep    log2 N levels: slot offset*(2t+2)-1 += slot offset*(2t+1)-1   (a reduction tree;
//               afterwards the last slot holds the total)
//   down-sweep  clear the last slot, then log2 N levels: the left child takes the parent's value,
//               the right child the parent's value plus the left child's old value
// At the end slot i holds the EXCLUSIVE prefix of slot i. Work: 2N additions (Hillis-Steele does
// N log N), but 2 log2 N barriers and strided shared-memory accesses: at level d the threads of a
// warp touch slots 2^d apart, so they pile into the same banks. The padding policies below move
// slot i to i + offset(i) to spread them (03_blelloch_padded.cu measures the difference).
#pragma once
#include <cstdint>

namespace blelloch {

constexpr int kLogBanks = 5;   // 32 banks of 4 bytes on every GPU since Fermi

// No padding: slot i lives at i. At level d a warp's 32 accesses have stride 2^(d+1) words, so up
// to 32 of them fall in one bank (a 32-way conflict: 32 serialized shared-memory wavefronts).
struct NoPadding {
    static constexpr const char* name = "none";
    __host__ __device__ static constexpr int offset(int) { return 0; }
};

// The macro as it is copied around from GPU Gems 3 (chapter 39), adapted to 32 banks:
//     #define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))
// `+` binds tighter than `>>`, so the compiler reads it as
//     ((n) >> (LOG_NUM_BANKS + (n))) >> (2 * LOG_NUM_BANKS)
// which shifts n right by more than its own width: 0 for every n (and for n + 5 >= 32 the shift
// count is out of range, undefined in C++; the GPU's shift instruction clamps it, giving 0 again).
// So the "padded" kernel pads nothing and keeps every conflict of NoPadding. We evaluate the
// expression exactly as parsed, with the clamp written out so that the C++ stays defined.
struct GemsPadding {
    static constexpr const char* name = "gems";
    __host__ __device__ static constexpr int offset(int n) {
        // (n >> (kLogBanks + n)) with a clamped shift, then >> (2 * kLogBanks)
        return int(((kLogBanks + n) >= 32 ? 0u : unsigned(n) >> (kLogBanks + n)) >> (2 * kLogBanks));
    }
};

// The macro as intended: one extra word after every 32 (and one more after every 1024, for the
// strides of 1024 and up). Slot i moves to i + i/32 + i/1024, so accesses 32 words apart land in
// neighbouring banks instead of the same one.
struct RightPadding {
    static constexpr const char* name = "right";
    __host__ __device__ static constexpr int offset(int n) { return (n >> kLogBanks) + (n >> (2 * kLogBanks)); }
};

// Shared-memory words needed for N logical slots under padding P.
template <class P> __host__ __device__ constexpr int padded_words(int N) { return N + P::offset(N - 1); }

template <class P> __device__ __forceinline__ int at(int i) { return i + P::offset(i); }

// Exclusive scan, in place, of the N logical slots of `s` (N a power of two, N/2 <= blockDim.x).
// Every thread of the block must call it (it contains barriers); it starts with one, so the
// caller's writes to `s` need no barrier of their own, and it ends with one, so the caller may
// read any slot at once. Returns the total of all N slots to every thread. T is uint32_t for int32
// (unsigned adds wrap, as the semantics require) or float.
template <class P, class T> __device__ T exclusive_scan_tree(T* s, int N) {
    const int t = threadIdx.x;
    int offset = 1;
    // Up-sweep: after level d, slot offset*(2t+2)-1 holds the sum of its 2*offset-slot subtree.
    for (int active = N >> 1; active > 0; active >>= 1) {
        __syncthreads();   // the previous level (or the caller's loads) is complete
        if (t < active) {
            int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            s[at<P>(right)] += s[at<P>(left)];
        }
        offset <<= 1;
    }
    __syncthreads();
    const T total = s[at<P>(N - 1)];
    __syncthreads();   // everybody has read the total before thread 0 clears the slot
    if (t == 0) s[at<P>(N - 1)] = T(0);
    // Down-sweep: walk back down; each parent hands its prefix to the left child and
    // prefix + (left subtree's sum) to the right child.
    for (int active = 1; active < N; active <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < active) {
            int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            T left_sum = s[at<P>(left)];
            s[at<P>(left)] = s[at<P>(right)];
            s[at<P>(right)] += left_sum;
        }
    }
    __syncthreads();
    return total;
}

}   // namespace blelloch
