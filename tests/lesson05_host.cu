// tests/lesson05_host.cu — host-only tests of lesson05_histogram (no GPU, no CUDA runtime calls):
// the bin rule against brute force, the CPU reference against a plain loop, the input shapes,
// the 16-bit counter hand-off of 05_large_bins under interleaving, and that the checker fails on
// planted wrong answers. Prints PASS/FAIL per test and ends with 'N passed, N failed'.
#include <cstdio>
#include <algorithm>
#include <functional>
#include <tuple>
#include <random>
#include <string>
#include <vector>

#include "../lesson05_histogram/lesson.cuh"

namespace {

int g_pass = 0, g_fail = 0;

void report(const std::string& name, bool ok, const std::string& why = "") {
    if (ok) {
        ++g_pass;
        std::printf("PASS %s\n", name.c_str());
    } else {
        ++g_fail;
        std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
}

// Brute force: 128-bit arithmetic, no reciprocal.
bool brute_bin(uint64_t lo, uint64_t hi, uint32_t bins, uint32_t key, uint32_t& bin) {
    if (key < lo || key >= hi) return false;
    bin = uint32_t((unsigned __int128)(key - lo) * bins / (hi - lo));
    return true;
}

void test_even_bins() {
    std::mt19937_64 rng(7);
    const uint64_t K = hist::kKeySpace;
    std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> ranges = {
        {0, K, 1},
        {0, K, 2},
        {0, K, 7},
        {0, K, 256},
        {0, K, 1000},
        {0, K, 65536},
        {0, K, hist::kMaxBins},
        {0, 1, 1},
        {0, 1, 5},
        {K - 1, K, 3},
        {5, 6, 65536},
        {100, 107, 7},
        {100, 107, 1000},
        {(1ull << 30) + 12345, 3 * (1ull << 30) - 999, 4096},
        {3, K - 3, 65535},
        {0, 1000, 1 << 20}};
    for (int r = 0; r < 40; ++r) {
        uint64_t a = rng() % K, b = rng() % K;
        if (a == b) continue;
        ranges.push_back({std::min(a, b), std::max(a, b) + (r & 1), uint32_t(1 + rng() % hist::kMaxBins)});
    }
    size_t bad = 0, checked = 0;
    std::string first;
    for (auto& [lo, hi, bins] : ranges) {
        hist::EvenBins e = hist::EvenBins::make(lo, hi, bins);
        std::vector<uint32_t> keys = {0u, 1u, 0xFFFFFFFFu, 0xFFFFFFFEu, uint32_t(lo), uint32_t(hi - 1)};
        if (lo > 0) keys.push_back(uint32_t(lo - 1));
        if (hi < K) keys.push_back(uint32_t(hi));
        // Keys at and next to every bin edge of a few bins, and random keys.
        for (uint32_t j : {0u, 1u, bins / 2, bins - 1}) {
            uint64_t edge = lo + ((unsigned __int128)(hi - lo) * j + bins - 1) / bins;   // first key of bin j
            for (int64_t d = -1; d <= 1; ++d) keys.push_back(uint32_t(edge + d));
        }
        for (int i = 0; i < 2000; ++i) keys.push_back(uint32_t(rng()));
        for (int i = 0; i < 2000; ++i) keys.push_back(uint32_t(lo + rng() % (hi - lo)));
        for (uint32_t k : keys) {
            uint32_t b1 = 0, b2 = 0;
            bool v1 = e(k, b1), v2 = brute_bin(lo, hi, bins, k, b2);
            ++checked;
            if (v1 != v2 || (v1 && b1 != b2)) {
                if (!bad)
                    first = "lo=" + std::to_string(lo) + " hi=" + std::to_string(hi) + " bins=" + std::to_string(bins) +
                            " key=" + std::to_string(k) + " got " + (v1 ? std::to_string(b1) : "out") + " want " +
                            (v2 ? std::to_string(b2) : "out");
                ++bad;
            }
        }
    }
    report("even_bins_exact_vs_128bit_division (" + std::to_string(checked) + " keys)", bad == 0, first);
    uint32_t bin;
    report("byte_bins_identity", hist::ByteBins{}(0xA7, bin) && bin == 0xA7 && hist::ByteBins{}.count() == 256);
}

template <class T, class Binner>
std::vector<uint32_t> plain_count(const std::vector<T>& in, Binner b, uint64_t& counted) {
    std::vector<uint32_t> h(b.count(), 0);
    counted = 0;
    for (T x : in) {
        uint32_t bin;
        if (b(uint32_t(x), bin)) {
            ++h[bin];
            ++counted;
        }
    }
    return h;
}

void test_reference() {
    for (const char* d : {"uniform", "equal", "zipf", "hot60", "text"}) {
        for (size_t n : {size_t(0), size_t(1), size_t(33), size_t(300001)}) {
            auto in = hist::make_bytes(n, d, 42);
            uint64_t c1 = 0, c2 = 0;
            auto want = plain_count(in, hist::ByteBins{}, c1);
            auto got = hist::reference(in, hist::ByteBins{}, &c2);
            report(std::string("reference_bytes_") + d + "_n" + std::to_string(n), got == want && c1 == c2 && c1 == n);
        }
    }
    for (uint32_t bins : {1u, 2u, 7u, 256u, 1000u, 4096u, 65536u}) {
        for (const char* d : {"uniform", "equal", "zipf", "hot60", "text", "outside"}) {
            course::Options o;
            hist::Range r = hist::key_range(o, d);
            auto in = hist::make_keys(200003, d, r, 9);
            hist::EvenBins e = hist::EvenBins::make(r.lo, r.hi, bins);
            uint64_t c1 = 0, c2 = 0;
            auto want = plain_count(in, e, c1);
            auto got = hist::reference(in, e, &c2);
            report("reference_keys_" + std::string(d) + "_bins" + std::to_string(bins), got == want && c1 == c2);
        }
    }
}

void test_shapes() {
    const size_t n = 1 << 20;
    auto u = hist::make_bytes(n, "uniform", 1);
    uint64_t c = 0;
    auto h = hist::reference(u, hist::ByteBins{}, &c);
    bool flat = true;
    for (uint32_t v : h) flat = flat && v > n / 256 * 0.9 && v < n / 256 * 1.1;
    report("shape_uniform_bytes_flat", flat);
    report("shape_reproducible", hist::make_bytes(1000, "zipf", 5) == hist::make_bytes(1000, "zipf", 5) &&
                                     hist::make_bytes(1000, "uniform", 5) != hist::make_bytes(1000, "uniform", 6));
    auto e = hist::make_bytes(n, "equal", 1);
    h = hist::reference(e, hist::ByteBins{}, &c);
    report("shape_equal_one_bin", *std::max_element(h.begin(), h.end()) == n);
    auto hot = hist::make_bytes(n, "hot60", 1);
    h = hist::reference(hot, hist::ByteBins{}, &c);
    double top = double(*std::max_element(h.begin(), h.end())) / n;
    report("shape_hot60_about_60_percent", top > 0.59 && top < 0.62, "top share " + std::to_string(top));
    auto z = hist::make_bytes(n, "zipf", 1);
    h = hist::reference(z, hist::ByteBins{}, &c);
    top = double(*std::max_element(h.begin(), h.end())) / n;
    report("shape_zipf_skewed", top > 0.1, "top share " + std::to_string(top));
    auto t = hist::make_bytes(n, "text", 1);
    h = hist::reference(t, hist::ByteBins{}, &c);
    report("shape_text_space_then_e", h[' '] > h['e'] && h['e'] > h['t'] && h['t'] > h['z'] && h['x'] > 0);

    course::Options o;
    hist::Range r = hist::key_range(o, "outside");
    auto k = hist::make_keys(n, "outside", r, 3);
    size_t below = 0, above = 0, inside = 0, at_lo = 0, at_last = 0;
    for (uint32_t x : k) {
        if (x < r.lo) ++below;
        else if (x >= r.hi) ++above;
        else ++inside;
        at_lo += x == r.lo;
        at_last += x == r.hi - 1;
    }
    report("shape_outside_has_all_sides", below > n / 8 && above > n / 8 && inside > n / 8 && at_lo > 0 && at_last > 0,
           "below " + std::to_string(below) + " above " + std::to_string(above));
    hist::Range full;
    auto ku = hist::make_keys(n, "uniform", {100, 107}, 3);
    bool in7 = true;
    for (uint32_t x : ku) in7 = in7 && x >= 100 && x < 107;
    report("shape_keys_follow_range", in7 && full.lo == 0 && full.hi == hist::kKeySpace);
    bool threw = false;
    try {
        hist::make_bytes(10, "outside", 1);
    } catch (const course::UsageError&) { threw = true; }
    report("shape_outside_refused_for_bytes", threw);
}

// 05_large_bins' 16-bit counters: random adds (runs of 1..4) to two bins sharing one word, with each
// crossing's take-back applied after a random delay (other adds land in between, as on the GPU),
// but never more than `window` adds later (the per-round barrier's bound). Exact totals expected,
// and no counter may ever exceed 0xFFFF.
void test_half_counters() {
    std::mt19937_64 rng(11);
    bool ok = true;
    std::string why;
    for (int trial = 0; trial < 200 && ok; ++trial) {
        uint32_t word = 0;
        uint64_t global[2] = {0, 0}, truth[2] = {0, 0};
        struct Pending {
            uint32_t due, shift;
        };
        std::vector<Pending> pending;
        const uint32_t window = 16384 / 4;   // ops of up to 4 samples: <= 16384 samples, the bound 05_large_bins proves
        const uint32_t ops = 200000 + uint32_t(rng() % 100000);
        for (uint32_t op = 0; op < ops; ++op) {
            for (size_t p = 0; p < pending.size();) {   // take-backs that are due now
                if (pending[p].due == op || rng() % 512 == 0) {
                    word += hist::half_takeback(pending[p].shift);
                    pending.erase(pending.begin() + p);
                } else ++p;
            }
            uint32_t bin = (trial & 1) ? uint32_t(rng() & 1) : (rng() % 10 ? 0u : 1u);
            uint32_t c = 1 + uint32_t(rng() % 4), shift = hist::half_shift(bin);
            uint32_t old = word;
            word += c << shift;
            truth[bin] += c;
            if (hist::crosses_half(old, shift, c)) {
                global[bin] += 0x8000;
                pending.push_back({op + 1 + uint32_t(rng() % window), shift});
            }
            // Between corrections, the true value of each half must equal what the word shows,
            // i.e. no carry may have crossed from one half into the other.
            for (uint32_t b = 0; b < 2; ++b) {
                uint64_t owed = 0;
                for (auto& p : pending) owed += p.shift == hist::half_shift(b) ? 0x8000 : 0;
                uint64_t shown = (word >> hist::half_shift(b)) & 0xFFFF;
                if (global[b] + shown - owed != truth[b]) {
                    ok = false;
                    why = "trial " + std::to_string(trial) + " op " + std::to_string(op) + " bin " + std::to_string(b);
                }
            }
            if (!ok) break;
        }
        for (auto& p : pending) word += hist::half_takeback(p.shift);
        if (ok && (global[0] + (word & 0xFFFF) != truth[0] || global[1] + (word >> 16) != truth[1])) {
            ok = false;
            why = "final totals differ in trial " + std::to_string(trial);
        }
    }
    report("half_counters_handoff_exact_under_delay", ok, why);
}

void test_checker_catches() {
    std::vector<uint32_t> want = {5, 0, 7, 3, 9, 1, 0, 2};
    uint64_t total = 27;
    report("checker_accepts_right_answer", hist::check_counts(want, want, total).ok);
    auto planted = [&](const char* name, std::function<void(std::vector<uint32_t>&)> f, uint64_t t) {
        std::vector<uint32_t> got = want;
        f(got);
        course::CheckResult r = hist::check_counts(got, want, t);
        report(std::string("checker_rejects_") + name, !r.ok, "accepted");
    };
    planted(
        "off_by_one_bin", [](auto& g) { g[2] += 1; }, total);
    planted(
        "lost_count", [](auto& g) { g[4] -= 1; }, total);
    planted(
        "count_in_neighbour_bin",
        [](auto& g) {
            g[4] -= 1;
            g[5] += 1;
        },
        total);
    planted(
        "swapped_bins", [](auto& g) { std::swap(g[0], g[2]); }, total);
    planted(
        "unwritten_bin_poison", [](auto& g) { g[6] = 0xABABABABu; }, total);
    planted(
        "empty_bin_left_unwritten", [](auto& g) { g[1] = 0xABABABABu; }, total);
    planted(
        "missing_last_bin", [](auto& g) { g.pop_back(); }, total);
    planted(
        "all_zero", [](auto& g) { std::fill(g.begin(), g.end(), 0u); }, total);
    // The sum check on its own: right bins but a wrong number of counted samples is reported.
    course::CheckResult r = hist::check_counts(want, want, total + 1);
    report("checker_sum_mismatch_named", !r.ok && r.message.find("sum") != std::string::npos, r.message);
    // A planted error on a large histogram is found and named with its index.
    std::vector<uint32_t> big(65536, 3), bad = big;
    bad[65535] = 2;
    r = hist::check_counts(bad, big, 3ull * 65536);
    report("checker_names_last_bin", !r.ok && r.message.find("[65535]") != std::string::npos, r.message);
}

}   // namespace

int main() {
    test_even_bins();
    test_reference();
    test_shapes();
    test_half_counters();
    test_checker_catches();
    std::printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
