// tests/lesson02_host.cu — host-only tests of lesson02_scan (no GPU, no CUDA runtime calls):
//   * the CPU reference (parallel, chunked) against a brute-force sequential loop: inclusive and
//     exclusive, int32 wrap-around, float32 against a sequential double sum;
//   * the lesson's input shapes (alternating, intmax) and their reproducibility;
//   * the checker FAILS on planted wrong answers (shift by one, swapped pair, poisoned element,
//     tile-edge error, saturating instead of wrapping, NaN, a too-large float error) and passes
//     the float32 result of a plain sequential float loop;
//   * the bank-conflict model behind 03_blelloch_padded: the GPU Gems macro pads nothing, the
//     right one removes most conflicts and never maps two slots to one word.
// Prints `PASS name` / `FAIL name: why` per test and `N passed, N failed`; exit 1 if any failed.
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "../lesson02_scan/blelloch.cuh"
#include "../lesson02_scan/lesson.cuh"

static int g_passed = 0, g_failed = 0;

static void report(const std::string& name, bool ok, const std::string& why = "") {
    if (ok) {
        std::printf("PASS %s\n", name.c_str());
        ++g_passed;
    } else {
        std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
        ++g_failed;
    }
}

// Brute force: the definition, one element at a time.
static std::vector<uint32_t> brute_int(const std::vector<int32_t>& in, scan::Kind kind) {
    std::vector<uint32_t> out(in.size());
    uint32_t run = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        if (kind == scan::Kind::exclusive) out[i] = run;
        run += uint32_t(in[i]);
        if (kind == scan::Kind::inclusive) out[i] = run;
    }
    return out;
}

static std::vector<double> brute_double(const std::vector<float>& in, scan::Kind kind) {
    std::vector<double> out(in.size());
    double run = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        if (kind == scan::Kind::exclusive) out[i] = run;
        run += double(in[i]);
        if (kind == scan::Kind::inclusive) out[i] = run;
    }
    return out;
}

static const char* kind_name(scan::Kind k) { return k == scan::Kind::inclusive ? "inclusive" : "exclusive"; }

static void test_reference_int() {
    for (const char* dist : {"uniform", "intmax", "alternating", "equal", "sorted"})
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(31), size_t(1000), size_t(70001), size_t(300007)})
            for (scan::Kind kind : {scan::Kind::inclusive, scan::Kind::exclusive}) {
                auto in = scan::make_input<int32_t>(n, dist, 7);
                std::vector<uint32_t> ref;
                scan::reference(in, kind, ref, nullptr);
                auto brute = brute_int(in, kind);
                std::string name =
                    std::string("reference_int32_") + dist + "_" + kind_name(kind) + "_n" + std::to_string(n);
                if (ref != brute) {
                    size_t i = 0;
                    while (i < n && ref[i] == brute[i]) ++i;
                    report(name, false, "differs at " + std::to_string(i));
                } else {
                    report(name, true);
                }
            }
}

// The int32 semantics: INT_MAX + 1 wraps to INT_MIN, and the exclusive scan starts at 0.
static void test_wrap_semantics() {
    std::vector<int32_t> in = {INT32_MAX, 1, INT32_MIN, -1, 5};
    std::vector<uint32_t> incl, excl;
    scan::reference(in, scan::Kind::inclusive, incl, nullptr);
    scan::reference(in, scan::Kind::exclusive, excl, nullptr);
    std::vector<int32_t> want_incl = {INT32_MAX, INT32_MIN, 0, -1, 4};
    std::vector<int32_t> want_excl = {0, INT32_MAX, INT32_MIN, 0, -1};
    bool ok = true;
    for (size_t i = 0; i < in.size(); ++i)
        ok = ok && int32_t(incl[i]) == want_incl[i] && int32_t(excl[i]) == want_excl[i];
    report("wrap_around_int32_max_plus_one_is_min", ok, "wrapped sums not as expected");
    report("wrap_add_device_helper", scan::wrap_add(INT32_MAX, 1) == INT32_MIN && scan::wrap_add(-1, -1) == -2,
           "wrap_add");
}

static void test_reference_float() {
    for (const char* dist : {"uniform", "alternating", "sorted", "equal"})
        for (size_t n : {size_t(0), size_t(1), size_t(33), size_t(4097), size_t(200003)})
            for (scan::Kind kind : {scan::Kind::inclusive, scan::Kind::exclusive}) {
                auto in = scan::make_input<float>(n, dist, 11);
                std::vector<double> ref, abs_sum;
                scan::reference(in, kind, ref, &abs_sum);
                auto brute = brute_double(in, kind);
                bool ok = ref.size() == n && abs_sum.size() == n;
                double run_abs = 0;
                for (size_t i = 0; ok && i < n; ++i) {
                    run_abs += std::fabs(double(in[i]));
                    // chunk offsets add in another order: equal to double rounding of the scale
                    ok = std::fabs(ref[i] - brute[i]) <= 1e-12 * (run_abs + 1) &&
                         std::fabs(abs_sum[i] - run_abs) <= 1e-12 * (run_abs + 1);
                }
                report(std::string("reference_float32_") + dist + "_" + kind_name(kind) + "_n" + std::to_string(n), ok,
                       "double reference or |x| running sum differs from brute force");
            }
}

// The float32 orders. A single-pass GPU scan adds in a tree inside each tile and in a chain across
// tiles (the look-back); emulate that order on the host (16 items per group sequentially, a
// Hillis-Steele tree over the 256 group sums of a 4096-tile, a float chain over the tiles): the
// tolerance must accept it. A plain sequential float32 loop chains every addition (i additions
// for element i): on a long monotone input its error grows past the tolerance, which is why the
// reference is a double sum and not the CPU's float loop (README, semantics card).
static std::vector<float> gpu_order_float_scan(const std::vector<float>& in) {
    const size_t n = in.size(), tile = 4096, group = 16;
    std::vector<float> out(n);
    float carry = 0.f;
    for (size_t t0 = 0; t0 < n; t0 += tile) {
        size_t groups = tile / group;
        std::vector<float> gsum(groups, 0.f);
        for (size_t g = 0; g < groups; ++g)
            for (size_t k = 0; k < group; ++k) {
                size_t i = t0 + g * group + k;
                if (i < n) gsum[g] += in[i];
            }
        std::vector<float> incl = gsum;   // inclusive tree scan of the group sums (log2 256 steps)
        for (size_t d = 1; d < groups; d *= 2) {
            std::vector<float> next = incl;
            for (size_t g = d; g < groups; ++g) next[g] = incl[g - d] + incl[g];
            incl = next;
        }
        for (size_t g = 0; g < groups; ++g) {
            float run = carry + (g ? incl[g - 1] : 0.f);
            for (size_t k = 0; k < group; ++k) {
                size_t i = t0 + g * group + k;
                if (i < n) out[i] = run += in[i];
            }
        }
        carry = carry + incl[groups - 1];
    }
    return out;
}

static void test_float_tolerance() {
    for (const char* dist : {"uniform", "alternating", "sorted", "equal"}) {
        size_t n = size_t(1) << 22;
        auto in = scan::make_input<float>(n, dist, 3);
        std::vector<double> ref, abs_sum;
        scan::reference(in, scan::Kind::inclusive, ref, &abs_sum);
        std::vector<float> gpu = gpu_order_float_scan(in);
        auto r =
            course::compare_close(gpu.data(), ref.data(), abs_sum.data(), n, scan::kFloatRelTol, scan::kFloatAbsTol);
        report(std::string("float_tolerance_accepts_gpu_order_float32_") + dist, r.ok, r.message);
        // an error of 1e-3 of the scale at one element must fail
        std::vector<float> bad = gpu;
        size_t k = n / 2;
        bad[k] = float(ref[k] + 1e-3 * abs_sum[k]);
        auto rb =
            course::compare_close(bad.data(), ref.data(), abs_sum.data(), n, scan::kFloatRelTol, scan::kFloatAbsTol);
        report(std::string("float_tolerance_rejects_1e-3_error_") + dist, !rb.ok, "a 1e-3 relative error passed");
    }
    {   // the sequential float loop: fine on random signs, past the tolerance on a sorted ramp
        size_t n = size_t(1) << 20;
        for (const char* dist : {"uniform", "sorted"}) {
            auto in = scan::make_input<float>(n, dist, 3);
            std::vector<double> ref, abs_sum;
            scan::reference(in, scan::Kind::inclusive, ref, &abs_sum);
            std::vector<float> seq(n);
            float run = 0;
            for (size_t i = 0; i < n; ++i) seq[i] = run += in[i];
            auto r = course::compare_close(seq.data(), ref.data(), abs_sum.data(), n, scan::kFloatRelTol,
                                           scan::kFloatAbsTol);
            bool expect_ok = std::string(dist) == "uniform";
            report(std::string("sequential_float32_loop_") + (expect_ok ? "passes_" : "exceeds_tolerance_on_") + dist,
                   r.ok == expect_ok,
                   expect_ok ? r.message : "the sequential loop passed: the README's example is stale");
        }
    }
    std::vector<float> in = {1.f, 2.f, 3.f};
    std::vector<double> ref, abs_sum;
    scan::reference(in, scan::Kind::inclusive, ref, &abs_sum);
    std::vector<float> got = {1.f, NAN, 6.f};
    auto r = course::compare_close(got.data(), ref.data(), abs_sum.data(), 3, scan::kFloatRelTol, scan::kFloatAbsTol);
    report("float_checker_rejects_nan", !r.ok, "NaN passed");
    got = {1.f, 3.f, INFINITY};
    r = course::compare_close(got.data(), ref.data(), abs_sum.data(), 3, scan::kFloatRelTol, scan::kFloatAbsTol);
    report("float_checker_rejects_inf", !r.ok, "inf passed");
}

static void test_shapes() {
    const size_t n = 100000;
    auto a = scan::make_input<int32_t>(n, "alternating", 5);
    bool ok = a.size() == n;
    for (size_t i = 0; ok && i < n; ++i) ok = (i & 1) ? a[i] < 0 : a[i] > 0;
    report("shape_alternating_int32_signs_alternate", ok, "sign pattern broken");
    auto af = scan::make_input<float>(n, "alternating", 5);
    ok = af.size() == n;
    for (size_t i = 0; ok && i < n; ++i) ok = (i & 1) ? af[i] < 0 : af[i] > 0;
    report("shape_alternating_float32_signs_alternate", ok, "sign pattern broken");

    auto m = scan::make_input<int32_t>(n, "intmax", 5);
    size_t others = 0, only_max = 0;
    for (int32_t v : m) {
        others += v != INT32_MAX && v != INT32_MIN;
        only_max += v == INT32_MAX;
    }
    report("shape_intmax_values_are_int_max_or_min", others == 0, std::to_string(others) + " other values");
    report("shape_intmax_mostly_int_max", only_max > n * 8 / 10 && only_max < n, std::to_string(only_max) + " INT_MAX");
    // its sums really wrap: the running sum leaves the int32 range many times
    long long run = 0, wraps = 0;
    for (int32_t v : m) {
        run += v;
        if (run > INT32_MAX || run < INT32_MIN) {
            ++wraps;
            run = int32_t(uint32_t(run));
        }
    }
    report("shape_intmax_sums_wrap", wraps > 1000, std::to_string(wraps) + " wraps");

    auto b = scan::make_input<int32_t>(n, "uniform", 5);
    auto c = scan::make_input<int32_t>(n, "uniform", 5);
    auto d = scan::make_input<int32_t>(n, "uniform", 6);
    report("shape_reproducible_by_seed", b == c && b != d, "same seed differs or new seed equal");
    bool negatives = false;
    for (int32_t v : b) negatives = negatives || v < 0;
    report("shape_uniform_has_negatives", negatives, "no negative values");
    report("shape_all_dists_known", scan::dists().size() >= 9, "lesson dists missing");
    for (const auto& dist : scan::dists()) {
        auto v = scan::make_input<int32_t>(1000, dist, 1);
        auto f = scan::make_input<float>(1000, dist, 1);
        report("shape_generates_" + dist, v.size() == 1000 && f.size() == 1000, "wrong length");
    }
}

// The checker must fail on the classic mistakes.
static void test_checker_catches() {
    const size_t n = 3 * 4096 + 17;
    auto in = scan::make_input<int32_t>(n, "uniform", 9);
    std::vector<uint32_t> incl, excl;
    scan::reference(in, scan::Kind::inclusive, incl, nullptr);
    scan::reference(in, scan::Kind::exclusive, excl, nullptr);
    auto fails = [&](const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
        return !course::compare_exact(got.data(), want.data(), want.size()).ok;
    };
    report("checker_passes_right_answer", !fails(incl, incl), "right answer failed");
    report("checker_catches_inclusive_for_exclusive", fails(incl, excl), "off-by-one shift passed");
    std::vector<uint32_t> shifted(n);   // out[i] = incl[i+1]: shifted the other way
    for (size_t i = 0; i < n; ++i) shifted[i] = i + 1 < n ? incl[i + 1] : incl[i];
    report("checker_catches_shift_left", fails(shifted, incl), "shift passed");
    auto swapped = incl;
    std::swap(swapped[100], swapped[101]);
    report("checker_catches_swapped_pair", fails(swapped, incl), "swapped pair passed");
    auto poisoned = incl;
    poisoned[n - 1] = 0xABABABABu;   // an unwritten last element (the harness's poison)
    report("checker_catches_unwritten_last_element", fails(poisoned, incl), "poison passed");
    auto edge = incl;   // tile totals missing their last element (wrong/tile_edge_off_by_one)
    for (size_t i = 4096; i < n; ++i) edge[i] -= uint32_t(in[4095]) + (i >= 8192 ? uint32_t(in[8191]) : 0u);
    report("checker_catches_tile_edge_off_by_one", fails(edge, incl), "tile-edge error passed");
    // saturating instead of wrapping, on the intmax shape
    auto big = scan::make_input<int32_t>(4096, "intmax", 9);
    std::vector<uint32_t> want, sat(big.size());
    scan::reference(big, scan::Kind::inclusive, want, nullptr);
    long long run = 0;
    for (size_t i = 0; i < big.size(); ++i) {
        run = std::min<long long>(INT32_MAX, std::max<long long>(INT32_MIN, run + big[i]));
        sat[i] = uint32_t(int32_t(run));
    }
    report("checker_catches_saturation_instead_of_wrap", fails(sat, want), "saturating sums passed");
    // the message names the first mismatch
    auto r = course::compare_exact(swapped.data(), incl.data(), n);
    report("checker_message_names_index", r.message.find("[100]") != std::string::npos, r.message);
}

// Bank-conflict model of the Blelloch tree: for every level of both sweeps and every warp, the
// number of shared-memory wavefronts = the most distinct words any one bank must serve.
template <class P> static long long tree_wavefronts(int N) {
    long long total = 0;
    auto level = [&](int active, int offset) {
        for (int w0 = 0; w0 < active; w0 += 32) {
            for (int which = 0; which < 2; ++which) {   // the `left` and the `right` accesses
                std::set<int> words[32];
                for (int t = w0; t < std::min(active, w0 + 32); ++t) {
                    int i = which == 0 ? offset * (2 * t + 1) - 1 : offset * (2 * t + 2) - 1;
                    int word = i + P::offset(i);
                    words[word % 32].insert(word);
                }
                size_t most = 0;
                for (auto& s : words) most = std::max(most, s.size());
                total += long(most);
            }
        }
    };
    int offset = 1;
    for (int active = N / 2; active > 0; active /= 2, offset *= 2) level(active, offset);
    for (int active = 1; active < N; active *= 2) {
        offset /= 2;
        level(active, offset);
    }
    return total;
}

static void test_padding() {
    bool zero = true;
    for (int i = 0; i < 4096; ++i) zero = zero && blelloch::GemsPadding::offset(i) == 0;
    report("gems_macro_parses_to_zero_offset", zero, "the buggy macro padded something");
    // what the parenthesized (intended) macro gives instead: 0 only below 32
    bool intended = blelloch::RightPadding::offset(31) == 0 && blelloch::RightPadding::offset(32) == 1 &&
                    blelloch::RightPadding::offset(1024) == 33 && blelloch::RightPadding::offset(2047) == 64;
    report("right_padding_offsets", intended, "offsets of 31, 32, 1024, 2047 not 0, 1, 33, 64");

    const int N = 2048;
    std::set<int> used;
    bool injective = true, in_range = true;
    for (int i = 0; i < N; ++i) {
        int w = i + blelloch::RightPadding::offset(i);
        injective = injective && used.insert(w).second;
        in_range = in_range && w < blelloch::padded_words<blelloch::RightPadding>(N);
    }
    report("right_padding_is_one_to_one_and_fits", injective && in_range, "two slots share a word or overflow");

    long long none = tree_wavefronts<blelloch::NoPadding>(N);
    long long gems = tree_wavefronts<blelloch::GemsPadding>(N);
    long long right = tree_wavefronts<blelloch::RightPadding>(N);
    std::printf("     tree wavefronts for N=2048: none %lld, gems %lld, right %lld\n", none, gems, right);
    report("gems_padding_has_the_same_conflicts_as_none", gems == none, "counts differ");
    report("right_padding_removes_most_conflicts", right * 2 < none, "not even halved");
}

int main() {
    test_reference_int();
    test_wrap_semantics();
    test_reference_float();
    test_float_tolerance();
    test_shapes();
    test_checker_catches();
    test_padding();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
