// exercises/lookback_loop — write the look-back of the single-pass scan (06_decoupled_lookback).
//
// The kernel is 06's: every block scans a 10240-element tile, publishes its AGGREGATE in
// status[tile] and then asks `MyLookback::prefix` for the sum of all earlier tiles. That function
// is yours; the skeleton returns 0, so every tile after the first is wrong (one tile passes).
// TODO: MyLookback::prefix. Warp 0 of the block calls it (all 32 lanes) for tile >= 1; return the
// sum of tiles 0 .. tile-1; lane 0's return value is the one used. The status-word helpers are in
// lookback.cuh (namespace lookback): load(status + i) reads a 64-bit word; flag_of(w) is kNotReady
// (not published yet), kAggregate (value = tile i's own sum) or kPrefix (value = the sum of tiles
// 0..i, inclusive); from_bits<T>(value_of(w)) is the value as a T (uint32_t for int32: it wraps).
// Hints:
//  * Simplest: lane 0 alone walks i = tile-1, tile-2, ...: spin while i is NotReady; add an
//    Aggregate's value and go on; add a Prefix's value and stop (tile 0 always publishes a Prefix).
//    Waiting for status[tile-1] to become a Prefix also works, but why is it slow?
//  * Faster, what the notes teach (README, 06): 32 lanes read 32 predecessors at once
//    (__ballot_sync finds the nearest Prefix, a warp reduction adds the values from it up).
// Check:  make grade EX=lookback_loop   (exit 0 once done):
//         by hand: make build/lesson02_scan/exercises/lookback_loop, then run it with --test --quick
// Solution: lookback.cuh, warp_lookback (06_decoupled_lookback.cu calls it).
#define COURSE_NO_MAIN   // 06's kernel and launcher, without its main
#include "../06_decoupled_lookback.cu"

struct MyLookback {
    template <class T> __device__ static T prefix(unsigned long long* status, unsigned tile) {
        // TODO: the sum of tiles 0 .. tile-1 (see the header).
        (void)status;
        (void)tile;
        return T(0);
    }
};

void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) {
    scan::detail::launch_lookback_scan<uint32_t, MyLookback>(reinterpret_cast<const uint32_t*>(in),
                                                             reinterpret_cast<uint32_t*>(out), n, kind, 1, 0);
}
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) {
    scan::detail::launch_lookback_scan<float, MyLookback>(in, out, n, kind, 1, 0);
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = scan::detail::kScanTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "lookback_loop", scan_int, scan_float, limits);
}
