// topk_03_warp_select — per-thread queues and warp-wide bitonic merges in registers (after Faiss's
// WarpSelect, Johnson, Douze & Jegou 2017).
//
// What changed since 02: no shared-memory lists and no O(k) insertions. Each warp keeps its best
// 32*Q elements (Q = k/32 rounded up to a power of two) sorted across its registers: element
// e = r*32 + lane lives in register r of that lane, and each lane has a queue of Q registers. An
// element that beats the warp's current k-th best (one compare; on large inputs mostly "no") goes
// into its lane's queue; when any queue is full (a __ballot) the warp sorts the queues with a
// bitonic network in registers (shuffles for strides < 32, register swaps above) and merges them
// into its list. Passes then reduce the warps' lists (as 02 does) until one warp is left.
// Cost model: the input is read once, one compare an element; merges are rare once the list holds
// large values (uniform: O(k log n) insertions), each O(Q log^2(32Q)) register operations a lane,
// no shared memory, no barriers. Worst input: increasing (every element enters a queue).
// Measured: README.md's progression table. Limits: k <= 1024 (Q = 32: 64 packed 8-byte values in
// registers a lane); n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -o topk03 topk_03_warp_select.cu
// Run:          ./topk03 --n 2^24 --k 256       ./topk03 --test
#include "lesson.cuh"

namespace ws {

using topk::kEmpty;
using topk::pack;
using topk::to_key;
constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr int kWarpsPerBlock = 4;

// One compare-exchange step of a bitonic network over v[0..Q) of a warp (element e = r*32 + lane).
// The pair (e, e ^ stride) goes in descending order when bit `size` of e is 0, ascending otherwise.
template <int Q> __device__ __forceinline__ void step(uint64_t (&v)[Q], int size, int stride) {
    const int lane = threadIdx.x & 31;
    if (stride >= 32) {   // partner in another register of the same lane
        const int rs = stride >> 5;
#pragma unroll
        for (int r = 0; r < Q; ++r) {
            const int p = r ^ rs;
            if (p > r) {
                bool desc = ((r * 32 + lane) & size) == 0;
                uint64_t a = v[r], b = v[p];
                if ((a < b) == desc) {
                    v[r] = b;
                    v[p] = a;
                }
            }
        }
    } else {   // partner in the same register of lane ^ stride
#pragma unroll
        for (int r = 0; r < Q; ++r) {
            bool desc = ((r * 32 + lane) & size) == 0;
            bool lower = (lane & stride) == 0;
            uint64_t y = __shfl_xor_sync(kFull, v[r], stride);
            v[r] = (lower == desc) ? (v[r] > y ? v[r] : y) : (v[r] < y ? v[r] : y);
        }
    }
}

// Sorts the warp's 32*Q values descending.
template <int Q> __device__ __forceinline__ void sort_desc(uint64_t (&v)[Q]) {
#pragma unroll
    for (int size = 2; size <= 32 * Q; size *= 2)
#pragma unroll
        for (int stride = size / 2; stride > 0; stride /= 2) step<Q>(v, size, stride);
}

// list (sorted descending) := the top 32*Q of list and q (sorted descending): take the larger of
// list[e] and q[32Q-1-e] (a bitonic sequence), then a bitonic merge sorts it. The kernels take the
// merge as a template parameter: exercises/warp_merge.cu replaces MergeTop with its own.
struct MergeTop {
    template <int Q> __device__ __forceinline__ static void apply(uint64_t (&list)[Q], const uint64_t (&q)[Q]) {
        const int lane = threadIdx.x & 31;
#pragma unroll
        for (int r = 0; r < Q; ++r) {
            uint64_t y = __shfl_sync(kFull, q[Q - 1 - r], 31 - lane);   // q[32Q-1-e] for my e
            list[r] = list[r] > y ? list[r] : y;
        }
#pragma unroll
        for (int stride = 16 * Q; stride > 0; stride /= 2) step<Q>(list, 64 * Q, stride);
    }
};

// Each warp reduces elements [w * per_warp, (w + 1) * per_warp) of the input (as packed keys) or of
// the candidates to its sorted top 32*Q, written to out[w * 32Q ...].
template <class T, int Q, bool kFromInput, class Merge>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_select(const T* __restrict__ in, const uint64_t* __restrict__ cand, size_t m, size_t per_warp, bool smallest,
                uint64_t* __restrict__ out) {
    const int lane = threadIdx.x & 31;
    const size_t w = blockIdx.x * size_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const size_t begin = w * per_warp, end = min(m, begin + per_warp);
    uint64_t list[Q], q[Q];
#pragma unroll
    for (int r = 0; r < Q; ++r) {
        list[r] = kEmpty;
        q[r] = kEmpty;
    }
    uint64_t kth = kEmpty;                                // the warp's current k-th best (list's last element)
    int count = 0;                                        // this lane's queue length
    for (size_t base = begin; base < end; base += 32) {   // the whole warp iterates together
        size_t i = base + lane;
        uint64_t x = kEmpty;
        if (i < end) x = kFromInput ? pack(to_key(in[i], smallest), uint32_t(i)) : cand[i];
        if (x > kth) {
#pragma unroll
            for (int r = 0; r < Q; ++r)
                if (r == count) q[r] = x;   // no run-time register index
            ++count;
        }
        if (__any_sync(kFull, count == Q)) {   // a queue is full: merge every queue into the list
            sort_desc<Q>(q);
            Merge::template apply<Q>(list, q);
#pragma unroll
            for (int r = 0; r < Q; ++r) q[r] = kEmpty;
            count = 0;
            kth = __shfl_sync(kFull, list[Q - 1], 31);
        }
    }
    sort_desc<Q>(q);   // what is left in the queues
    Merge::template apply<Q>(list, q);
    if (begin < m) {
#pragma unroll
        for (int r = 0; r < Q; ++r) out[w * 32 * Q + r * 32 + lane] = list[r];
    }
}

template <class T, int Q, class Merge>
void run(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    const size_t list = 32 * Q;
    const size_t per_warp = std::max<size_t>(8192, 64 * list);   // each pass shrinks by >= 64x
    auto warps_for = [&](size_t m) { return (m + per_warp - 1) / per_warp; };
    size_t warps = warps_for(n);
    uint64_t* buf[2] = {course::scratch_as<uint64_t>(0, warps * list), course::scratch_as<uint64_t>(1, warps * list)};
    unsigned grid = course::blocks_for(warps, kWarpsPerBlock);
    warp_select<T, Q, true, Merge><<<grid, 32 * kWarpsPerBlock>>>(d_in, nullptr, n, per_warp, smallest, buf[0]);
    CUDA_CHECK_LAST();
    size_t m = warps * list;
    int cur = 0;
    while (warps > 1) {
        warps = warps_for(m);
        grid = course::blocks_for(warps, kWarpsPerBlock);
        warp_select<T, Q, false, Merge>
            <<<grid, 32 * kWarpsPerBlock>>>(d_in, buf[cur], m, per_warp, smallest, buf[1 - cur]);
        CUDA_CHECK_LAST();
        m = warps * list;
        cur = 1 - cur;
    }
    topk::write_packed<<<course::blocks_for(k, 256), 256>>>(d_in, n, buf[cur], k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

template <class T, class Merge = MergeTop>
void warp_select_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    if (k <= 32) run<T, 1, Merge>(d_in, n, k, smallest, d_vals, d_idx);
    else if (k <= 64) run<T, 2, Merge>(d_in, n, k, smallest, d_vals, d_idx);
    else if (k <= 128) run<T, 4, Merge>(d_in, n, k, smallest, d_vals, d_idx);
    else if (k <= 256) run<T, 8, Merge>(d_in, n, k, smallest, d_vals, d_idx);
    else if (k <= 512) run<T, 16, Merge>(d_in, n, k, smallest, d_vals, d_idx);
    else run<T, 32, Merge>(d_in, n, k, smallest, d_vals, d_idx);
}

inline topk::Limits limits() {
    topk::Limits lim;
    lim.max_k = 1024;
    lim.why = "the warp's list and queues live in registers: 2 * k / 32 packed values per lane";
    return lim;
}

}   // namespace ws

#ifndef COURSE_NO_MAIN   // exercises/ and wrong/ programs include this file for its kernels
int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "topk_03_warp_select", ws::warp_select_topk<float>,
                            ws::warp_select_topk<int32_t>, ws::warp_select_topk<uint32_t>, ws::limits());
}
#endif
