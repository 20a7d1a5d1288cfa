// exercises/radix_digit_lookback — write the per-digit decoupled look-back of the one-sweep radix
// sort (08_radix_onesweep).
//
// The kernels are 08_radix_onesweep.cu's: each pass, every tile publishes for each digit d its count
// as an AGGREGATE, asks `MyLookback::before` how many keys of digit d all EARLIER tiles hold,
// publishes its inclusive PREFIX and scatters. The skeleton returns 0, so every tile after the
// first writes over the first one's places: cases up to one tile (8192 keys) pass, larger ones
// fail (08 bounds-checks the scatter of any look-back but its own: a FAIL, never a bad write).
// TODO: MyLookback::before(status, tile, d) for tile >= 1: the sum over tiles 0..tile-1 of their
// count of digit d. Tile t's word for digit d is status[t * 256 + d], read with
// onesweep::load_status(ptr); flag = w & onesweep::kFlagMask is 0 (not published yet),
// onesweep::kAggregate (that tile's own count) or onesweep::kPrefix (tiles 0..t inclusive), and
// count = w & onesweep::kCountMask: all in digit_lookback.cuh, which 08 includes.
// Hints: walk pred = tile-1, tile-2, ...: spin while the word is 0, add an AGGREGATE and go on, add
// a PREFIX and stop (tile 0 always publishes a PREFIX). __nanosleep(64) after a few tries leaves
// the tile you wait for more bandwidth. Waiting for tile-1's PREFIX alone is correct but serial.
// Check:  make grade EX=radix_digit_lookback   (exit 0 once done):
//         by hand: make build/lesson04_sort/exercises/radix_digit_lookback, then run it with --test --quick
// Solution: digit_lookback.cuh, DigitLookback (the notes: README_radix.md, 08).
#define COURSE_NO_MAIN
#include "../08_radix_onesweep.cu"   // 08's kernels, without its main

struct MyLookback {
    __device__ static uint32_t before(uint32_t* status, unsigned tile, int d) {
        // TODO: digit d's count in tiles 0 .. tile-1 (see the header).
        (void)status;
        (void)tile;
        (void)d;
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
