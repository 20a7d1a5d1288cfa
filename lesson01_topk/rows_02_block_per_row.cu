// rows_02_block_per_row — row-wise top-k, step 2: a block a row, radix select by digit histograms.
//
// What changed since rows_01: rows of any length. A warp's registers hold 256 keys; a block of 1024
// threads reads its row in a loop instead, and finds the k-th key as part 1's 05_radix_select does, a
// digit at a time: count the next 11 bits of the keys that share the k-th key's known prefix in a
// shared-memory histogram, scan it from the top, keep the bucket that holds the k-th key. The passes
// stop as soon as that bucket and every key above it fit the 4096 candidates of shared memory; one
// more pass keeps those keys, and the select finishes there (block_select.cuh: digits over the
// candidates, the winners sorted by part 1's merge sort). Against rows_01 on long rows: rows_01 cannot
// run them (a lane would hold 4008 keys of a row of 128256), and a block has 32 warps' loads in flight.
// Cost model: the row is read 2-4 times (uniform rows of 128K: 3; the reads after the first come from
// L2 while the matrix fits there); each key read costs a key transform, a prefix test and, for the
// keys that carry the prefix, a shared-memory atomic: one block reads its row at a rate set by those
// instructions, not by DRAM. Target shape: a batch that fills the GPU with rows, 64 x 128256, k = 50.
// Its limit: k <= 2048 (the winners are sorted in shared memory); each row is read several times, and
// a few rows leave most SMs idle (4 x 2^24 runs on 4 SMs): rows_03 cuts a row over many blocks.
//
// Build alone:  nvcc -O3 -arch=native -o rows02 rows_02_block_per_row.cu
// Run:          ./rows02 --rows 64 --n 128256 --k 50      ./rows02 --test      ./rows02 --sweep
#include "block_select.cuh"
#include "rows_steps.cuh"

namespace block_per_row {

using namespace block_select;

// A block a row: digit passes over the row until the k-th key's bucket and the keys above it fit in
// shared memory, one pass keeps them, then the select over those candidates; the winners sorted.
__global__ void __launch_bounds__(kBlock, course::min_blocks_that_fit(2, kBlock))
    block_rows(const float* __restrict__ in, uint32_t cols, uint32_t k, bool smallest, float* __restrict__ out_vals,
               uint32_t* __restrict__ out_idx) {
    __shared__ SelectSmem sm;
    const size_t r = blockIdx.x;
    const float* row = in + r * cols;
    // What is known of the k-th key: its top pbits bits (prefix); rem of the keys in its bucket are
    // wanted; `count` keys carry the prefix, so k - rem + count keys lie at or above the bucket.
    uint32_t prefix = 0, rem = k, count = cols;
    int pbits = 0;
    while (pbits < 32 && k - rem + count > kCap)
        count =
            narrow([&](auto g) { for_each_in_row(row, 0, cols, [&](float x, uint32_t) { g(to_key(x, smallest)); }); },
                   prefix, pbits, rem, sm.digit);
    if (pbits == 32) {
        // The k-th key itself is known (many copies of it: an all-equal row): take the keys above it and rem copies.
        collect_from_row(row, cols, smallest, prefix, rem, sm);
    } else {
        // Every key at or above the bucket's lowest key: at most kCap of them, at least k.
        const uint32_t n = keep_at_or_above(row, cols, smallest, pbits == 0 ? 0u : prefix << (32 - pbits), sm);
        select_candidates(n, k, sm);
    }
    sort_and_write(row, cols, r, k, k, sm, out_vals, out_idx);
}

// The launcher: a block of 1024 threads a row, one launch.
void topk_rows(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest, float* d_vals, uint32_t* d_idx) {
    if (rows > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 rows: a block a row");
    block_rows<<<unsigned(rows), kBlock>>>(d_in, uint32_t(cols), uint32_t(k), smallest, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

}   // namespace block_per_row

int main(int argc, char** argv) {
    return rows_steps::run_step(argc, argv, "rows_02_block_per_row", block_per_row::topk_rows,
                                {~uint64_t(0), block_select::kMaxK, "a row's winners are sorted in shared memory"});
}
