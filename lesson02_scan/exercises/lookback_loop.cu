// exercises/lookback_loop — write the look-back of the single-pass scan.
//
// The kernel is 06's (scan.cuh): every block scans a 4096-element tile, publishes its AGGREGATE
// in status[tile] and then asks `MyLookback::prefix` for the sum of all earlier tiles. That
// function is yours; the skeleton returns 0, so every tile after the first is wrong (cases up to
// 4096 elements pass, the rest fail).
//
// TODO: MyLookback::prefix. Warp 0 of the block calls it (all 32 lanes) for tile >= 1; return
// the sum of tiles 0 .. tile-1; lane 0's return value is the one used.
// A status word (64 bits) is read with lookback::load(status + i) and split with
//   lookback::flag_of(w)   kNotReady (not published yet) | kAggregate (value = tile i's own sum)
//                          | kPrefix (value = the sum of tiles 0..i, inclusive)
//   lookback::from_bits<T>(lookback::value_of(w))   the value as a T
// Hints:
//  * Simplest correct version: lane 0 alone walks i = tile-1, tile-2, ...: spin while i is
//    NotReady; add an Aggregate's value and continue; add a Prefix's value and stop.
//    Tile 0 always publishes a Prefix, so the walk ends.
//  * Why must you not just wait for status[tile-1] to become a Prefix? It works, but then every
//    tile waits for the full chain before it: a serial chain of L2 round trips across all tiles.
//  * Faster: all 32 lanes read 32 predecessors at once (__ballot_sync finds the nearest Prefix,
//    a warp reduction adds the values from it up). lookback.cuh's warp_lookback does this.
//  * Values add as T: for int32 T is uint32_t, so the sum wraps as required.
// Check:  make grade   (or  ./lookback_loop --test --quick : exit 0 once done)
#include "../lesson.cuh"
#include "../scan.cuh"

struct MyLookback {
    template <class T>
    __device__ static T prefix(unsigned long long* status, unsigned tile) {
        // TODO: the sum of tiles 0 .. tile-1 (see the header).
        (void)status; (void)tile;
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
    return scan::run_lesson(argc, argv, "lookback_loop", scan_int, scan_float,
                            {course::kMaxCount, "", scan::detail::kScanTile});
}
