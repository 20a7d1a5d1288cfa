// 08_radix_onesweep — one-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022): the lesson's best version for pairs; for uint32
// keys 07 measured faster on the H100 (10.64 vs 12.11 ms at 2^28; README: the likely reasons).
//
// What changes since 07: each pass is ONE kernel that reads every key once and writes it once.
//   * The digit counts of every pass are computed up front, in one read of the input: a key's
//     digit in pass p does not depend on the earlier passes (it is just bits 8p..8p+7), so one
//     histogram kernel fills all 4 (uint32) or 8 (uint64) 256-bin histograms at once. An
//     exclusive scan of each gives the global start of every digit in every pass.
//   * Inside a pass, a tile needs to know how many keys of digit d the earlier tiles hold. 07
//     computed that with a separate count kernel and a scan over all tiles; here it comes from
//     decoupled look-back (lesson02_scan/lookback.cuh has the idea), with one chain per digit:
//     tile t publishes, for each digit, AGGREGATE = its own count as soon as it has ranked its
//     keys, then walks back over tiles t-1, t-2, ... adding AGGREGATEs until it meets a PREFIX
//     (the count of that digit in all tiles up to there), and publishes its own PREFIX. Thread d
//     of the block walks digit d's chain, so 256 chains advance in parallel.
//
// Cost model (uint32, 2^28 keys): histogram 4 B per key; each of the 4 passes 4 B read + 4 B
// written per key; look-back status 1 KB per tile per pass (3840-key tiles: ~7% of a pass's
// bytes, written once, zeroed once, read by the next tile or two). ~37 B per key in all against
// 07's ~50 B and 12 launches; the key moves cannot be avoided by an LSD sort. What limits it:
// the ranking (match + shared-memory counters: instruction bound, not bandwidth bound, at 8 bits)
// and the scatter, which writes 256 runs per tile: about 15 keys per run, so partial sectors.
// Measured against cub::DeviceRadixSort (which is this algorithm, tuned): see the table.
//
// Correctness notes:
//   * tiles are numbered by an atomic counter in the order blocks start (one counter per pass),
//     so a tile only waits for tiles whose blocks already run: no deadlock;
//   * a status word is 32 bits, flag in the top 2 bits and a 30-bit count below, written and read
//     whole (relaxed atomics), so a reader never sees a flag without its count. 30 bits limit
//     n to 2^30 - 1 (stated below; 64-bit words would lift it at twice the status traffic);
//   * the last tile's padding (radix.cuh) is counted out of digit 255 before publishing.
//
// The kernels and the launcher are in onesweep.cuh (shared with exercises/radix_digit_lookback.cu,
// which writes its own look-back); the ranking and scatter are in radix.cuh (shared with 07).
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o onesweep 08_radix_onesweep.cu
// Run:          ./onesweep --n 2^28    ./onesweep --type pairs --n 2^28    ./onesweep --test
#include "onesweep.cuh"

int main(int argc, char** argv) {
    sorting::Sorter s = radix::sorter_for<onesweep::Sort<>>();   // every key type, and pairs
    s.max_n = (uint64_t(1) << 30) - 1;
    s.limit_why = "look-back counts are 30-bit";
    return sorting::run_lesson(argc, argv, "08_radix_onesweep", s);
}
