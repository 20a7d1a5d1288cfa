// 06_decoupled_lookback — the best version: one pass, one kernel, decoupled look-back
// (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//
// Build alone:  nvcc -O3 -arch=native -o lookback 06_decoupled_lookback.cu
// Run:          ./lookback --n 2^28          ./lookback --test          ./lookback --type float32
//
// What changed since 05: 05 reads the input twice because a block learns the sum of the tiles
// before it only after a kernel boundary. Here a block scans its tile of 10240 elements in
// registers (tile.cuh, as 05) and asks its predecessors directly through one 64-bit status word
// per tile (lookback.cuh): it publishes AGGREGATE (its own total), warp 0 looks back 32 tiles at a
// time adding AGGREGATEs until it meets a PREFIX, then it publishes PREFIX and writes its output.
// Tiles are numbered in the order blocks start (an atomic counter), so a tile only ever waits for
// running tiles: no deadlock.
// Cost model: read n, write n (a copy's bytes) + 8 bytes of status per tile; 2 barriers per tile.
// Measured (H100, 2^28 int32): 1.02-1.03x cub::DeviceScan in the same run, 83% of a copy.
// Limits: the memory system; for small n the look-back latency and the launches.
// The kernel is scan::device_scan in scan.cuh, because compaction (lesson 03) and radix sort
// (lesson 04) call it too; the tile shape there was chosen by measurement (TUNING.md).
#include "lesson.cuh"
#include "scan.cuh"

// Scratch slot 1 for the tile statuses (the harness's slot 0 convention is "the version's own").
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { scan::device_scan(in, out, n, kind, 1); }

int main(int argc, char** argv) {
    return scan::run_lesson(argc, argv, "06_decoupled_lookback", scan_int, scan_float,
                            {course::kMaxCount, "", scan::detail::kScanTile});
}
