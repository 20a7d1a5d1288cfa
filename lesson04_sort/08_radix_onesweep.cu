// 08_radix_onesweep — one-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022): the lesson's best radix sort, for keys and pairs.
//
// What changes since 07: each pass is ONE kernel that reads every key once and writes it once.
//   * The digit counts of every pass are computed up front, in one read of the input: a key's
//     digit in pass p does not depend on the earlier passes (it is just bits 8p..8p+7), so one
//     histogram kernel fills all 4 (uint32) or 8 (uint64) 256-bin histograms at once. An
//     exclusive scan of each gives the global start of every digit in every pass.
//   * Inside a pass, a tile needs to know how many keys of digit d the earlier tiles hold. 07
//     computed that with a separate count kernel and a scan over all tiles; here it comes from
//     decoupled look-back (lesson02_scan/lookback.cuh has the idea), with one chain per digit:
//     tile t publishes, for each digit, AGGREGATE = its own count as soon as it has counted its
//     keys, then walks back over tiles t-1, t-2, ... adding AGGREGATEs until it meets a PREFIX
//     (the count of that digit in all tiles up to there), and publishes its own PREFIX. Thread d
//     of the block walks digit d's chain, so 256 chains advance in parallel.
//   * The pass counts before it ranks ("early counts", as CUB does): each warp counts its digits
//     with shared atomics, the AGGREGATEs go out at once, and only then does the block rank, each
//     key getting its tile rank in one step (match, the group's highest lane does one atomicAdd
//     on the warp's counter, a shuffle shares the old value). For 32-bit keys the match is an
//     OR mask: each lane ORs its bit into a shared word of its digit, and the word read back is
//     the group (~40 instructions per key in all, against ~87 with 8 ballots per key). Later tiles find the AGGREGATE
//     already there instead of spinning while this tile ranks.
//   * Tiles of 6144 keys (256 x 24) for keys, 7680 (256 x 30) for pairs, whose values reuse the
//     keys' shared-memory staging space once the keys are out; full tiles load and scatter with
//     no bounds tests.
//
// Cost model (uint32, 2^28 keys): histogram 4 B per key; each of the 4 passes 4 B read + 4 B
// written per key; look-back status 1 KB per tile per pass (6144-key tiles: 44 MB a pass, ~2% of
// its 2 GiB; all passes' status zeroed by one memset, 179 MB). ~33 B per key in all, 6 launches +
// 1 memset. ncu (H100, 2^28, one pass, 2026-11-23): DRAM traffic is what it should be and the same
// as CUB's (1.07-1.10 GB read + 1.09-1.16 GB written per pass, ours and CUB's alike), so the gap
// is not bytes: it is instructions. 08's first version executed 1.14e9 warp instructions per pass
// (~136 per key) in 2.16 ms (with early counts, still 3840-key tiles: 1.05e9, 2.14 ms; the final
// tiles were not profiled), CUB's onesweep kernel 0.71e9 (~85 per key) in 1.47 ms; both issue at
// about half the SM's peak (barrier-heavy, ~50% of warps active). What limits it: the ranking
// (8 ballots per key to match digits, shared-memory counters) and per-tile overhead (zeroing and
// scanning 8 x 256 counters, the block scan, the look-back, 4 barriers), which larger tiles
// spread over more keys.
// Measured (H100, 2^28 uniform, single-case probes 2026-11-23, CUB in the same run): with ballot
// matching, keys 6.67 ms, 0.82x SortKeys (5.48 ms; 08's first version 8.01 ms, 0.69x); pairs
// 9.35 ms, 0.98x SortPairs (9.12 ms; first version 11.71 ms, 0.78x). The steps: early counts +
// one-step ranking + unchecked full-tile loads at the old 3840-key tile: keys 8.01 -> 7.77 ms,
// pairs 11.71 -> 11.44; 6144-key tiles (24 items, 3 blocks/SM): keys 6.67-6.87 ms; pairs with
// values staged in the keys' space: 20 items 10.75, 24 items 10.12, 30 items (2 blocks/SM) 9.35 ms.
// uint64 (8 passes): 22.5 ms. Then OR-mask matching for 32-bit keys (probe, 16:20 UTC, two
// rounds): keys 6.71 -> 5.92 ms, 0.82x -> 0.93x CUB (5.51 ms); ncu on one middle pass: 3.2 -> 1.8
// instructions per key, 1.83 -> 1.57 ms. It costs on skewed keys (the shared atomicOr serialises
// when many lanes share a digit): few-unique 6.31 -> 6.61 ms, Zipf 6.43 -> 6.61 (CUB 4.71, 5.04).
// Build with -DONESWEEP_OR_MATCH=0 to get the ballots back. The sweep table is in README.md.
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
// which writes its own look-back); the partial last tile's loads and scatter are radix.cuh's.
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
