// 06_decoupled_lookback — the best version: ONE pass, single kernel, decoupled look-back
// (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//
// What changed since 05_reduce_then_scan: 05 reads the input twice because a block cannot know
// the sum of the tiles before it until a grid-wide barrier (a kernel boundary) has passed. Here
// each block scans one tile of 6144 elements (the same registers-and-shuffles tile as 05, from
// tile.cuh) and then asks its predecessors directly, through one 64-bit status word per tile in
// global memory (lookback.cuh):
//   * right after its local scan a tile publishes AGGREGATE = its own total;
//   * warp 0 then looks back 32 tiles at a time, adding AGGREGATEs until it meets a PREFIX (a
//     tile that already knows its inclusive prefix); usually that is a few tiles back;
//   * it publishes PREFIX = that sum + its own total and writes its output.
// Flag and value share one 64-bit word, stored and loaded whole, so nobody sees a flag without
// its value. Tiles are numbered by an atomic counter in the order blocks START, not by blockIdx:
// a tile only waits for tiles already running, so it cannot deadlock, whatever the scheduler does.
// Cost model: the input is read once and the output written once (2n words, the same as a
// copy), plus 8 bytes of status per 6144 elements and one memset of them; 2 barriers per tile;
// the look-back is a chain of L2 round trips that overlaps other tiles' loads. Its bound is copy
// speed; measured on the H100 it reaches 81% of a copy at 2^28, like CUB (82%; also decoupled
// look-back). What limits it: the memory system itself, the
// latency of the look-back for small n (where the whole input is one wave of tiles) and the
// launch of the memset plus the kernel.
//
// The kernel lives in scan.cuh as scan::device_scan(in, out, n, kind) for int32 (wrapping, as
// uint32), uint32 and float: compaction (lesson03) and radix sort (lesson04) call it too.
// Tuning knobs there: kScanBlock (128 threads) and kScanVecs (12 vectors of 4 = 48 items/thread),
// chosen by measurement: with 256 threads x 16 items this kernel ran 1.00 ms at 2^28 against
// CUB's 0.877; with 128 x 48 it runs 0.883 (results/ncu/H100_scan_tuning_and_bank_conflicts.txt).
//
// Build alone:  nvcc -O3 -arch=native -o lookback 06_decoupled_lookback.cu
// Run:          ./lookback --n 2^28          ./lookback --test          ./lookback --type float32
#include "lesson.cuh"
#include "scan.cuh"

// Scratch slot 1 for the tile statuses (the harness's slot 0 convention is "the version's own").
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }

int main(int argc, char** argv) {
    return scan::run_lesson(argc, argv, "06_decoupled_lookback", scan_int, scan_float,
                            {course::kMaxCount, "", scan::detail::kScanTile});
}
