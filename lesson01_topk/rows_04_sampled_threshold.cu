// rows_04_sampled_threshold — row-wise top-k, step 4: a sample sets a threshold, the row is read ONCE.
//
// What changed since rows_02: its digit passes read the row 2-4 times only to learn which keys are
// worth keeping. Here a block first reads 4096 keys of its row (128 pieces of 32 neighbours spread
// over the row: 16 KB, one coalesced load a warp) and takes their j-th largest as a threshold tau,
// with j chosen so that a little more than k of the row's keys reach it (below). ONE pass then keeps
// the keys at or above tau in shared memory (a compare per key; an atomic only for the few that pass),
// and rows_02's select finishes on those few thousand candidates (block_select.cuh). A row of at most
// 4096 keys skips the sample: all of it fits. If the sample misled it (fewer than k keys passed, or
// more than the 4096 the buffer holds: an all-equal row, a row of a few levels) the block runs the full
// select over the row instead (select_from_row: four more reads): slower, never wrong.
// Cost model: one read of the row plus a fixed chain a row (the sample, the threshold's three digit
// steps over 4096 keys, the select over the candidates, the sort). Target shape: rows that fill the
// GPU, 256 x 256000, k = 1024 (rows_02 reads each row three times, rows_03 four). Its limit: k <= 2048
// (the sort); a block a row leaves SMs idle on few rows; a row past 2^20 needs more than 4096 samples
// or more than shared memory for its candidates (it mostly misses): rows_05_serving composes this with
// rows_03's chunks and keeps long rows' candidates in global memory.
//
// Build alone:  nvcc -O3 -arch=native -o rows04 rows_04_sampled_threshold.cu
// Run:          ./rows04 --rows 256 --n 256000 --k 1024      ./rows04 --test      ./rows04 --dist equal --n 8192
#include "block_select.cuh"
#include "rows_steps.cuh"

namespace sampled_threshold {

using namespace block_select;

constexpr uint32_t kSamples = 4096;           // S: as uint32 keys they fit in the candidate buffer (32 KB)
constexpr uint32_t kPieces = kSamples / 32;   // a warp's coalesced load each
static_assert(kSamples * sizeof(uint32_t) <= sizeof(SelectSmem::cand), "the sample is held in the candidate buffer");

// Which sample to take as the threshold: the j-th largest of S, for a row of len keys and kk wanted.
// The threshold misses (fewer than kk keys reach it) exactly when at least j samples fall among the
// row's kk - 1 largest keys. Each sample lands there with chance (kk - 1) / len, so their number is
// close to a Poisson count of mean lambda = kk S / len (for a row whose large keys are not all in one
// run; sorted runs only cost a fallback). j = lambda + 4 sqrt(lambda) + 3 keeps that count below j in
// all but about 3 rows in 10^5 for any lambda (4 standard deviations, and 3 more for small lambda).
// About j len / S keys pass: k + (4 sqrt(lambda) + 3) len / S, e.g. 2250 for k = 1024 of 256000.
// The other way to miss, more than kCap passing, needs fewer than j samples among the row's kCap
// largest keys (mean kCap S / len): rare while j len / S stays well under kCap (k = 2048 of 131072:
// 3 rows in 1000 overflow), certain for long rows where it does not (k = 1024 of 2^20 aims at 3840).
__device__ __forceinline__ uint32_t sample_rank(uint32_t kk, uint32_t len) {
    const float lambda = float(kk) * float(kSamples) / float(len);
    const uint32_t j = uint32_t(ceilf(lambda + 4.f * sqrtf(lambda) + 3.f));
    return min(j, kSamples);
}

// The threshold of a row longer than kCap: S keys in pieces of 32 neighbours, piece p from column
// p (len / kPieces), as keys in the candidate buffer, then their j-th largest found exactly by three
// digit steps in shared memory (rows_02's narrow over the sample, not the row). Barriers inside.
__device__ uint32_t sample_threshold(const float* __restrict__ row, uint32_t len, bool smallest, uint32_t kk,
                                     SelectSmem& sm) {
    uint32_t* sample = reinterpret_cast<uint32_t*>(sm.cand);
    const uint32_t step = len / kPieces;   // >= 32: len > kCap = kSamples
    for (uint32_t i = threadIdx.x; i < kSamples; i += kBlock)
        sample[i] = to_key(row[(i / 32) * step + i % 32], smallest);
    __syncthreads();
    uint32_t tau = 0, rem = sample_rank(kk, len);
    int pbits = 0;
    while (pbits < 32)
        narrow(
            [&](auto g) {
                for (uint32_t i = threadIdx.x; i < kSamples; i += kBlock) g(sample[i]);
            },
            tau, pbits, rem, sm.digit);
    return tau;   // (narrow's last barrier: every thread is done with the sample)
}

// A block a row: the sample's threshold, one pass keeping the keys at or above it in shared memory, the
// select over them; on a miss the full select over the row. The winners sorted and written.
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    sampled_rows(const float* __restrict__ in, uint32_t cols, uint32_t k, bool smallest, float* __restrict__ out_vals,
                 uint32_t* __restrict__ out_idx) {
    __shared__ SelectSmem sm;
    const size_t r = blockIdx.x;
    const float* row = in + r * cols;
    const uint32_t tau = cols > kCap ? sample_threshold(row, cols, smallest, k, sm) : 0u;   // 0: every key passes
    const uint32_t n = keep_at_or_above(row, cols, smallest, tau, sm);
    if (n >= k && n <= kCap) select_candidates(n, k, sm);
    else select_from_row(row, cols, smallest, k, sm);   // the sample missed: the whole row, never wrong
    sort_and_write(row, cols, r, k, k, sm, out_vals, out_idx);
}

// The launcher: a block of 1024 threads a row, one launch.
void topk_rows(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    if (rows > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 rows: a block a row");
    sampled_rows<<<unsigned(rows), kBlock>>>(d_in, uint32_t(cols), uint32_t(k), smallest, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace sampled_threshold

int main(int argc, char** argv) {
    return rows_steps::run_step(argc, argv, "rows_04_sampled_threshold", sampled_threshold::topk_rows,
                                {~uint64_t(0), block_select::kMaxK, "a row's winners are sorted in shared memory"});
}
