// exercises/radix_digit_lookback — write the per-digit decoupled look-back of the one-sweep radix
// sort (08_radix_onesweep).
//
// The kernels are 08_radix_onesweep.cu's: each pass, every tile ranks its keys, publishes for each
// digit d its count as an AGGREGATE, then thread d asks `MyLookback::before` how many keys of
// digit d all EARLIER tiles hold, publishes its inclusive PREFIX and scatters. The skeleton
// returns 0, so every tile after the first writes over the first one's places: cases up to one
// tile (3840 keys) pass, larger ones fail. (A wrong look-back also leaves holes that the next
// pass reads as keys its precomputed counts do not know; 08_radix_onesweep.cu bounds-checks the scatter
// of any look-back but its own, so that shows up as a FAIL, never as an out-of-bounds write.)
//
// TODO: MyLookback::before(status, tile, d) for tile >= 1: the sum over tiles 0..tile-1 of their
// count of digit d. Tile t's word for digit d is status[t * 256 + d]; read it with
// onesweep::load_status(ptr). A word is (flag | count):
//   flag = w & onesweep::kFlagMask:  0 (not published yet) | onesweep::kAggregate (count = that
//          tile's own count of d) | onesweep::kPrefix (count = tiles 0..t inclusive)
//   count = w & onesweep::kCountMask
// Hints:
//  * Walk pred = tile-1, tile-2, ...: spin while the word is 0; add an AGGREGATE's count and go
//    on; add a PREFIX's count and stop. Tile 0 always publishes a PREFIX, so the walk ends.
//  * Spinning: a plain loop is correct (the tile you wait for is running: tiles are numbered in
//    start order), but __nanosleep(64) after a few tries leaves it more memory bandwidth.
//  * Why not wait until tile-1's word is a PREFIX? Correct too, but then tiles finish strictly
//    one after another: a serial chain of L2 round trips through all ~70000 tiles of 2^28 keys.
//  * Each of the 256 threads walks its own digit's chain: threads of one warp may spin for
//    different lengths; that is fine on Volta and later (independent thread scheduling).
// Check:  make grade   (or  ./radix_digit_lookback --test --quick : exit 0 once done)
// Solution: 08_radix_onesweep.cu, DigitLookback.
#define COURSE_NO_MAIN
#include "../08_radix_onesweep.cu"   // 08's kernels, without its main

struct MyLookback {
    __device__ static uint32_t before(uint32_t* status, unsigned tile, int d) {
        // TODO: digit d's count in tiles 0 .. tile-1 (see the header).
        (void)status; (void)tile; (void)d;
        return 0;
    }
};

int main(int argc, char** argv) {
    using Mine = radix::KeysAndPairs<onesweep::Sort<MyLookback>>;   // 08's sort with your look-back
    sorting::Sorter s;
    s.u32 = Mine::keys<uint32_t>;   // uint32 keys and pairs only: a short battery
    s.pairs = Mine::pairs;
    s.max_n = (uint64_t(1) << 30) - 1;
    s.limit_why = "look-back counts are 30-bit";
    return sorting::run_lesson(argc, argv, "radix_digit_lookback", s);
}
