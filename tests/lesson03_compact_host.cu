// tests/lesson03_compact_host.cu — host tests of lesson03's compaction and expand parts (no GPU
// needed; no CUDA runtime call is made): the predicate's selectivity, the CPU references against
// brute force, the count generators, the checkers failing on planted wrong answers, and the
// merge-path search and walk of expand_02 (the header's own __host__ __device__ functions) run on
// the host over a whole input, block by block and thread by thread, with several tile sizes.
// Prints one line per test and 'N passed, N failed'.
#include <cstdio>
#include <string>
#include <vector>

#include "../lesson03_compact_spmv/compact.cuh"
#include "../lesson03_compact_spmv/expand_path.cuh"

static int g_passed = 0, g_failed = 0;
static void expect(bool ok, const std::string& name, const std::string& why = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    (ok ? g_passed : g_failed)++;
}

// ---- compaction -----------------------------------------------------------------------------

static void test_selectivity() {
    std::vector<int32_t> v;
    course::generate(v, 1 << 20, "uniform", 7);
    for (uint32_t pct : {0u, 1u, 10u, 50u, 90u, 100u}) {
        size_t k = 0;
        for (int32_t x : v) k += compact::keep(x, pct);
        double frac = 100.0 * double(k) / double(v.size());
        bool ok = pct == 0 ? k == 0 : pct == 100 ? k == v.size() : std::fabs(frac - pct) < 0.5;
        expect(ok, "keep() selects about " + std::to_string(pct) + "% of uniform values",
               "got " + std::to_string(frac) + "%");
    }
    // The predicate depends on the value only.
    expect(compact::keep(12345, 37) == compact::keep(12345, 37), "keep() is a function of the value");
}

static std::vector<int32_t> brute_compact(const std::vector<int32_t>& in, uint32_t pct) {
    std::vector<int32_t> out;
    for (int32_t x : in)
        if (compact::keep(x, pct)) out.push_back(x);
    return out;
}

static void test_compact_reference() {
    bool ok = true;
    std::string why;
    for (size_t n : {0, 1, 2, 31, 33, 1000, 4097, 70001, 300007})
        for (const char* d : {"uniform", "sorted", "equal", "few", "extremes"})
            for (uint32_t pct : {0u, 1u, 10u, 50u, 90u, 100u}) {
                std::vector<int32_t> in;
                course::generate(in, n, d, n * 31 + pct);
                if (compact::reference(in, pct) != brute_compact(in, pct)) {
                    ok = false;
                    why = "n=" + std::to_string(n) + " " + d + " pct=" + std::to_string(pct);
                }
            }
    expect(ok, "compact::reference equals brute force (sizes x dists x pcts)", why);
}

static void test_compact_checker() {
    std::vector<int32_t> in;
    course::generate(in, 100003, "uniform", 3);
    auto ref = compact::reference(in, 50);
    expect(compact::check(ref.data(), ref.size(), ref).ok, "compact checker passes the right answer");
    std::vector<int32_t> empty;
    expect(compact::check(nullptr, 0, empty).ok, "compact checker passes an empty answer");
    expect(!compact::check(ref.data(), 1, empty).ok, "compact checker fails a count of 1 for nothing kept");
    {
        auto g = ref;
        std::swap(g[10], g[11]);
        expect(!compact::check(g.data(), g.size(), ref).ok, "compact checker fails a swapped pair (lost order)");
    }
    {
        auto g = ref;
        std::reverse(g.begin(), g.end());
        expect(!compact::check(g.data(), g.size(), ref).ok,
               "compact checker fails the right multiset in the wrong order");
    }
    expect(!compact::check(ref.data(), ref.size() - 1, ref).ok, "compact checker fails count - 1");
    {
        auto g = ref;
        g.push_back(ref.back());
        expect(!compact::check(g.data(), g.size(), ref).ok, "compact checker fails count + 1");
    }
    {
        auto g = ref;
        g[ref.size() / 2] = int32_t(0xABABABABu);
        expect(!compact::check(g.data(), g.size(), ref).ok, "compact checker fails a poisoned (unwritten) element");
    }
    {
        auto g = ref;
        g.erase(g.begin() + 5);
        g.push_back(ref.back());   // one missing, the tail shifted
        expect(!compact::check(g.data(), g.size(), ref).ok, "compact checker fails a missing element");
    }
    {
        auto r = compact::check(ref.data(), 0xABABABABull, ref);
        expect(!r.ok && r.message.find("count") != std::string::npos, "compact checker names a poisoned count",
               r.message);
    }
}

// compact_03's in-warp offset bookkeeping (byte-packed flags, one scan), on the host: one warp of 32
// lanes x kVecs rows x 4 elements (memory order: row, lane, element), flags packed one byte per row,
// the warp scan done as a plain sum over lanes (what the 5 shuffle steps compute), then every lane
// stages its kept elements with compact::stage_kept into the warp's run. The run must be exactly
// the kept elements in memory order, nothing written past it, and the count must match.
template <int kVecs> static bool host_warp_stage(uint32_t pct, uint64_t seed, bool use_inclusive, std::string& why) {
    constexpr int kWords = (kVecs + 3) / 4;
    int32_t x[32][kVecs][4];
    uint32_t flags[32][kWords] = {};
    std::vector<int32_t> expected;
    for (int j = 0; j < kVecs; ++j)
        for (int lane = 0; lane < 32; ++lane)
            for (int k = 0; k < 4; ++k) {
                const int32_t v = int32_t(course::hash64(seed, uint64_t(128 * j + 4 * lane + k)));
                x[lane][j][k] = v;
                if (compact::keep(v, pct)) {
                    flags[lane][j / 4] |= compact::flag_bit(j, k);
                    expected.push_back(v);
                }
            }
    uint32_t incl[32][kWords], excl[32][kWords], tot[kWords];
    uint32_t warp_kept = 0;
    for (int w = 0; w < kWords; ++w) {
        uint32_t run = 0;
        for (int lane = 0; lane < 32; ++lane) {
            const uint32_t counts = compact::row_counts(flags[lane][w]);
            run += counts;   // packed: four byte sums at once
            incl[lane][w] = run;
            excl[lane][w] = run - counts;
        }
        tot[w] = incl[31][w];
        warp_kept += compact::bytes_sum(tot[w]);
    }
    const int32_t poison = int32_t(0xABABABABu);
    std::vector<int32_t> run(32 * kVecs * 4 + 8, poison);
    for (int lane = 0; lane < 32; ++lane)
        compact::stage_kept<kVecs>(flags[lane], use_inclusive ? incl[lane] : excl[lane], tot, x[lane], run.data());
    if (warp_kept != expected.size()) {
        why = "count " + std::to_string(warp_kept) + ", expected " + std::to_string(expected.size());
        return false;
    }
    for (size_t i = 0; i < run.size(); ++i) {
        const int32_t want = i < expected.size() ? expected[i] : poison;
        if (run[i] != want) {
            why = "kVecs=" + std::to_string(kVecs) + " pct=" + std::to_string(pct) + ": slot " + std::to_string(i) +
                  (i < expected.size() ? " holds the wrong element" : " past the run was written");
            return false;
        }
    }
    return true;
}

static void test_compact03_packed_flags() {
    // row_counts: each byte's low nibble counted, the high nibble ignored, no byte leaking into another.
    bool ok = true;
    for (uint32_t nib = 0; nib < 16; ++nib)
        for (int b = 0; b < 4; ++b) {
            const uint32_t want = uint32_t(__builtin_popcount(nib)) << (8 * b);
            ok &= compact::row_counts(nib << (8 * b)) == want;
            ok &= compact::row_counts((nib << (8 * b)) | (0xF0u << (8 * b))) == want;   // high nibble ignored
        }
    ok &= compact::row_counts(0x0F0F0F0Fu) == 0x04040404u && compact::row_counts(0x05030F01u) == 0x02020401u;
    expect(ok, "compact::row_counts counts the low nibble of every byte separately");
    expect(compact::flag_bit(0, 0) == 1u && compact::flag_bit(5, 3) == (1u << 11) &&
               compact::flag_bit(11, 2) == (1u << 26),
           "compact::flag_bit: row j, element k is bit 8 (j % 4) + k");
    expect(compact::bytes_sum(0x80808080u) == 512 && compact::byte_of(0x12345678u, 2) == 0x34u,
           "compact::bytes_sum / byte_of");
    // Everything kept: every byte of lane 31's inclusive sum is 128, the most a byte must hold.
    uint32_t all = 0;
    for (int lane = 0; lane < 32; ++lane) all += compact::row_counts(0x0F0F0F0Fu);
    expect(all == 0x80808080u, "32 lanes x 4 kept per row sum to 128 per byte: no carry into the next row");

    std::string why;
    ok = true;
    for (uint32_t pct : {0u, 1u, 10u, 50u, 90u, 100u})
        for (uint64_t seed : {1ull, 2ull, 3ull}) {
            ok = ok && host_warp_stage<12>(pct, seed, false, why);   // the default tile's 12 rows
            ok = ok && host_warp_stage<16>(pct, seed, false, why);   // 16 rows: the most compact_03 allows
            ok = ok && host_warp_stage<5>(pct, seed, false, why);    // a last word partly used
            ok = ok && host_warp_stage<6>(pct, seed, false, why);    // 256 threads x 24 items
            ok = ok && host_warp_stage<1>(pct, seed, false, why);
        }
    expect(ok, "compact_03 byte-scan staging: a warp's run is its kept elements in order (rows 1/5/6/12/16, 0..100 %)",
           why);
    std::string ignored;
    expect(!host_warp_stage<12>(50, 1, true, ignored),
           "the same simulation with the INCLUSIVE lane counts (an off-by-one lane) is caught");
}

// ---- expand ---------------------------------------------------------------------------------

static void test_expand_generators() {
    const size_t n = 1 << 20;
    std::vector<int32_t> c;
    bool ok = expand::generate_counts(c, n, "uniform", 5);
    int32_t mx = 0;
    size_t zeros = 0;
    bool nonneg = true;
    for (int32_t x : c) {
        mx = std::max(mx, x);
        zeros += x == 0;
        nonneg &= x >= 0;
    }
    expect(ok && nonneg && mx == 8 && zeros > n / 12 && zeros < n / 6, "counts 'uniform' are 0..8",
           "max " + std::to_string(mx) + " zeros " + std::to_string(zeros));

    expand::generate_counts(c, n, "zeros", 5);
    zeros = 0;
    mx = 0;
    nonneg = true;
    for (int32_t x : c) {
        mx = std::max(mx, x);
        zeros += x == 0;
        nonneg &= x >= 0;
    }
    expect(nonneg && zeros > n * 93 / 100 && zeros < n * 97 / 100 && mx <= 64,
           "counts 'zeros' are ~95% zeros, the rest <= 64");

    expand::generate_counts(c, n, "powerlaw", 5);
    zeros = 0;
    mx = 0;
    nonneg = true;
    for (int32_t x : c) {
        mx = std::max(mx, x);
        zeros += x == 0;
        nonneg &= x >= 0;
    }
    uint64_t total = expand::total_of(c);
    expect(nonneg && zeros > n / 2 && mx > 1000 && uint64_t(mx) * 50 > total / 1000 && total < 8ull * n,
           "counts 'powerlaw' have many zeros and a few huge counts",
           "zeros " + std::to_string(zeros) + " max " + std::to_string(mx) + " total " + std::to_string(total));

    expand::generate_counts(c, n, "one", 5);
    size_t nonzero = 0;
    for (int32_t x : c) nonzero += x != 0;
    expect(nonzero == 1 && expand::total_of(c) == 4ull * n, "counts 'one': one item holds 4n");

    std::vector<int32_t> a, b;
    expand::generate_counts(a, 4097, "powerlaw", 9);
    expand::generate_counts(b, 4097, "powerlaw", 9);
    expect(a == b, "counts are reproducible from the seed");
    expect(!expand::generate_counts(a, 10, "nope", 1), "an unknown count distribution is refused");
    expand::generate_counts(a, 0, "one", 1);
    expect(a.empty(), "counts 'one' with n = 0 is empty");
}

static void test_expand_reference_and_checker() {
    std::vector<int32_t> c = {2, 0, 3, 0, 0, 1};
    std::vector<int32_t> want = {0, 0, 2, 2, 2, 5};
    expect(expand::reference(c) == want, "expand::reference of {2,0,3,0,0,1} is {0,0,2,2,2,5}");
    bool ok = true;
    for (auto& d : expand::dists())
        for (size_t n : {0, 1, 2, 33, 1025, 50000}) {
            expand::generate_counts(c, n, d, n + 1);
            auto r = expand::reference(c);
            ok &= expand::check(r.data(), r.size(), c).ok;
        }
    expect(ok, "expand checker passes the reference on every distribution");

    expand::generate_counts(c, 20000, "uniform", 11);
    auto r = expand::reference(c);
    {
        auto g = r;
        size_t i = 0;
        while (g[i] == g[i + 1]) ++i;
        std::swap(g[i], g[i + 1]);
        expect(!expand::check(g.data(), g.size(), c).ok, "expand checker fails a swapped pair");
    }
    {
        auto g = r;
        size_t i = 1;
        while (g[i] == g[i - 1]) ++i;
        g[i] = g[i - 1];   // the first output of an item handed to its predecessor (the tie pitfall)
        expect(!expand::check(g.data(), g.size(), c).ok, "expand checker fails an off-by-one at a run boundary");
    }
    {
        auto g = r;
        g[g.size() / 3] = int32_t(0xABABABABu);
        expect(!expand::check(g.data(), g.size(), c).ok, "expand checker fails a poisoned (unwritten) output");
    }
    expect(!expand::check(r.data(), r.size() - 1, c).ok, "expand checker fails a short output");
    {
        auto g = r;
        g.push_back(g.back());
        expect(!expand::check(g.data(), g.size(), c).ok, "expand checker fails a long output");
    }
}

// The merge-path expansion of expand_02, run on the host with the header's own search and walk:
// partition at every `tile` diagonals, each block's ends into a local array, each "thread" of
// `per` steps searches its start and walks. Small tiles and odd `per` stress every boundary.
template <bool kTie>
static std::vector<int32_t> host_merge_path(const std::vector<int32_t>& counts, int tile, int per) {
    size_t n = counts.size();
    uint64_t total = expand::total_of(counts);
    std::vector<uint32_t> off(n);
    uint64_t run = 0;
    for (size_t i = 0; i < n; ++i) {
        off[i] = uint32_t(run);
        run += uint64_t(counts[i]);
    }
    std::vector<int32_t> out(total, int32_t(0xABABABABu));
    if (n == 0 || total == 0) return out;
    expand::GlobalEnds global{off.data(), n, size_t(total)};
    uint64_t steps = n + total, blocks = (steps + tile - 1) / tile;
    std::vector<uint64_t> sa(blocks + 1), sb(blocks + 1);
    for (uint64_t p = 0; p <= blocks; ++p) {
        uint64_t d = std::min<uint64_t>(p * tile, steps);
        sa[p] = expand::merge_path_search<kTie>(0, global, total, n, d);
        sb[p] = d - sa[p];
    }
    for (uint64_t p = 0; p < blocks; ++p) {
        int na = int(sa[p + 1] - sa[p]), nb = int(sb[p + 1] - sb[p]);
        std::vector<uint32_t> ends(std::max(nb, 1));
        for (int k = 0; k < nb; ++k) ends[k] = global(sb[p] + k);
        std::vector<int32_t> stage(std::max(na, 1), int32_t(0xABABABABu));
        expand::LocalEnds local{ends.data()};
        int len = na + nb;
        for (int t = 0; t * per < len; ++t) {
            int dt = t * per, st = std::min(per, len - dt);
            int a = int(expand::merge_path_search<kTie>(sa[p], local, uint64_t(na), uint64_t(nb), uint64_t(dt)));
            expand::merge_path_walk<kTie>(sa[p], local, na, nb, a, dt - a, st, stage.data(), sb[p]);
        }
        for (int k = 0; k < na; ++k) out[sa[p] + k] = stage[k];
    }
    return out;
}

static void test_merge_path_on_host() {
    bool ok = true;
    std::string why;
    for (auto& d : expand::dists())
        for (size_t n : {1, 2, 3, 31, 100, 1025, 20000})
            for (auto tp : {std::pair<int, int>{7, 3}, {64, 16}, {4096, 16}, {5, 5}}) {
                std::vector<int32_t> c;
                expand::generate_counts(c, n, d, n * 7 + 3);
                auto got = host_merge_path<false>(c, tp.first, tp.second);
                auto r = expand::check(got.data(), got.size(), c);
                if (!r.ok) {
                    ok = false;
                    why = d + " n=" + std::to_string(n) + " tile " + std::to_string(tp.first) + ": " + r.message;
                }
            }
    expect(ok, "merge-path search + walk (expand_02's functions) expand every distribution correctly", why);
    std::vector<int32_t> c = {2, 0, 3, 0, 0, 1};
    auto good = host_merge_path<false>(c, 4, 2);
    auto bad = host_merge_path<true>(c, 4, 2);
    expect(good == std::vector<int32_t>({0, 0, 2, 2, 2, 5}), "merge path with strict ties gives {0,0,2,2,2,5}");
    expect(bad == std::vector<int32_t>({0, 0, 0, 2, 2, 2}) && !expand::check(bad.data(), bad.size(), c).ok,
           "merge path with 'a <= end' (wrong/expand_merge_path_ties) is caught by the checker");
    // The search itself on a tiny case: ends {2, 2, 5}; diagonal 3 = outputs 0, 1 and item end 0.
    std::vector<uint32_t> off = {0, 2, 2};
    expand::GlobalEnds g{off.data(), 3, 5};
    expect(expand::merge_path_search<false>(0, g, 5, 3, 3) == 2 &&
               expand::merge_path_search<false>(0, g, 5, 3, 4) == 2 &&
               expand::merge_path_search<false>(0, g, 5, 3, 5) == 3 &&
               expand::merge_path_search<false>(0, g, 5, 3, 8) == 5,
           "merge_path_search finds the split on hand-checked diagonals");
}

// expand_03's partition from one offset per 32 items must land on the same path points as the
// full merge-path search, on every diagonal, and report the right starting offset.
static void test_group_partition() {
    bool ok = true;
    std::string why;
    for (auto& d : expand::dists())
        for (size_t n : {1, 2, 31, 32, 33, 64, 65, 1000, 2049}) {
            std::vector<int32_t> c;
            expand::generate_counts(c, n, d, n * 13 + 1);
            uint64_t total = expand::total_of(c);
            std::vector<uint32_t> off(n), group_off((n + 31) / 32);
            uint64_t run = 0;
            for (size_t i = 0; i < n; ++i) {
                off[i] = uint32_t(run);
                if (i % 32 == 0) group_off[i / 32] = uint32_t(run);
                run += uint64_t(c[i]);
            }
            expand::GlobalEnds g{off.data(), n, size_t(total)};
            for (uint64_t diag = 0; diag <= n + total; ++diag) {
                uint64_t a = expand::merge_path_search<false>(0, g, total, n, diag);
                expand::PathPoint q = expand::group_partition(group_off.data(), c.data(), n, size_t(total), diag);
                uint64_t want_off = q.b < n ? off[q.b] : total;
                if (q.a != a || q.b != diag - a || q.off_b != want_off) {
                    ok = false;
                    why = d + " n=" + std::to_string(n) + " diagonal " + std::to_string(diag) + ": got (" +
                          std::to_string(q.a) + ", " + std::to_string(q.b) + ") expected (" + std::to_string(a) + ", " +
                          std::to_string(diag - a) + ")";
                    break;
                }
            }
        }
    expect(ok, "group_partition (expand_03) finds the merge-path point and offset on every diagonal", why);
}

int main() {
    test_selectivity();
    test_compact_reference();
    test_compact_checker();
    test_compact03_packed_flags();
    test_expand_generators();
    test_expand_reference_and_checker();
    test_merge_path_on_host();
    test_group_partition();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
