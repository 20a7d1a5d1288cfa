// tests/lesson01_host.cu — host-only tests of lesson01_topk (no GPU, no CUDA runtime calls):
// the order-preserving keys, the CPU reference against brute force, the input shapes, the checker
// (it must accept every right answer, whatever the tie choice, and reject planted wrong ones), and
// the battery's rules. Prints PASS/FAIL per test and 'N passed, N failed'; exit 1 if any failed.
#include <cstdio>
#include <functional>
#include <numeric>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include "../lesson01_topk/lesson.cuh"
#include "../lesson01_topk/rows.cuh"

static int g_pass = 0, g_fail = 0;
static void report(const std::string& name, bool ok, const std::string& why = "") {
    if (ok) {
        std::printf("PASS %s\n", name.c_str());
        ++g_pass;
    } else {
        std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
        ++g_fail;
    }
}

static float fbits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// A right answer by brute force: indices sorted by key (descending), ties by index or reversed.
template <class T>
static void brute(const std::vector<T>& in, size_t k, bool smallest, bool ties_reversed, std::vector<T>& vals,
                  std::vector<uint32_t>& idx) {
    std::vector<uint32_t> order(in.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        uint32_t ka = topk::to_key(in[a], smallest), kb = topk::to_key(in[b], smallest);
        if (ka != kb) return ka > kb;
        return ties_reversed ? a > b : a < b;
    });
    idx.assign(order.begin(), order.begin() + k);
    vals.resize(k);
    for (size_t j = 0; j < k; ++j) vals[j] = in[idx[j]];
}

template <class T>
static course::CheckResult run_check(const std::vector<T>& in, size_t k, bool smallest, const std::vector<T>& vals,
                                     const std::vector<uint32_t>& idx) {
    auto keys = topk::keys_of(in, smallest);
    auto ref = topk::reference(keys, k);
    return topk::check_topk(in, keys, ref, k, smallest, vals.data(), idx.data());
}

static void test_keys() {
    // torch's order, smallest first; groups of equal values share a key.
    std::vector<std::vector<uint32_t>> groups = {
        {0xFF800000u},                                          // -inf
        {0xFF7FFFFFu},                                          // -FLT_MAX
        {0xBF800000u},                                          // -1
        {0x80800000u},                                          // -FLT_MIN
        {0x80000001u},                                          // -denorm_min
        {0x80000000u, 0x00000000u},                             // -0.0 == +0.0
        {0x00000001u},                                          // denorm_min
        {0x3F800000u},                                          // 1
        {0x7F7FFFFFu},                                          // FLT_MAX
        {0x7F800000u},                                          // +inf
        {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu},   // every NaN, above +inf
    };
    bool ok = true;
    std::string why;
    for (bool smallest : {false, true}) {
        for (size_t g = 0; g < groups.size(); ++g) {
            uint32_t first = topk::to_key(fbits(groups[g][0]), smallest);
            for (uint32_t b : groups[g])
                if (topk::to_key(fbits(b), smallest) != first) {
                    ok = false;
                    why = "group " + std::to_string(g) + " not equal";
                }
            if (g > 0) {
                uint32_t prev = topk::to_key(fbits(groups[g - 1][0]), smallest);
                if (smallest ? !(first < prev) : !(first > prev)) {
                    ok = false;
                    why = "group " + std::to_string(g) + " out of order";
                }
            }
        }
    }
    report("keys_float_order_nan_zero", ok, why);
    std::vector<int32_t> iv = {INT32_MIN, INT32_MIN + 1, -2, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
    ok = true;
    for (size_t i = 1; i < iv.size(); ++i)
        ok &= topk::to_key(iv[i], false) > topk::to_key(iv[i - 1], false) &&
              topk::to_key(iv[i], true) < topk::to_key(iv[i - 1], true);
    report("keys_int32_order", ok, "not monotonic");
    std::vector<uint32_t> uv = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    ok = true;
    for (size_t i = 1; i < uv.size(); ++i) ok &= topk::to_key(uv[i], false) > topk::to_key(uv[i - 1], false);
    report("keys_uint32_order", ok, "not monotonic");
    ok = topk::pack(0, 0) > topk::kEmpty && topk::pack(5, 3) > topk::pack(5, 4) &&
         topk::pack(6, 9) > topk::pack(5, 0) && topk::packed_index(topk::pack(123, 456)) == 456;
    report("pack_order_and_empty", ok, "packed order wrong");
}

template <class T> static void test_reference_vs_brute() {
    std::string name = std::string("reference_vs_brute_") + course::TypeName<T>::get();
    for (auto& d : topk::dists()) {
        for (size_t n : {1, 2, 5, 33, 1000, 4097}) {
            auto in = topk::make_input<T>(n, d, 7 + n);
            for (bool smallest : {false, true}) {
                auto keys = topk::keys_of(in, smallest);
                std::vector<uint32_t> sorted = keys;
                std::sort(sorted.begin(), sorted.end(), std::greater<uint32_t>());
                for (size_t k : {size_t(1), size_t(2), n / 2, n - 1, n}) {
                    if (k < 1 || k > n) continue;
                    auto r = topk::reference(keys, k);
                    size_t greater =
                        std::count_if(keys.begin(), keys.end(), [&](uint32_t x) { return x > sorted[k - 1]; });
                    if (r.kth != sorted[k - 1] || r.greater != greater) {
                        report(name, false, d + " n=" + std::to_string(n) + " k=" + std::to_string(k) + " mismatch");
                        return;
                    }
                }
            }
        }
    }
    // The chunked path (many threads, small k) on a larger input.
    auto in = topk::make_input<T>(300000, "dupes", 3);
    auto keys = topk::keys_of(in, false);
    std::vector<uint32_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end(), std::greater<uint32_t>());
    for (size_t k : {1, 100, 2048, 5000}) {
        auto r = topk::reference(keys, k);
        if (r.kth != sorted[k - 1]) {
            report(name, false, "chunked path k=" + std::to_string(k));
            return;
        }
    }
    report(name, true);
}

static void test_shapes() {
    auto f = topk::make_input<float>(100000, "topbits", 1);
    report("shape_topbits_in_1_2", std::all_of(f.begin(), f.end(), [](float x) { return x >= 1.0f && x < 2.0f; }),
           "out of [1,2)");
    auto ti = topk::make_input<uint32_t>(100000, "topbits", 1);
    report("shape_topbits_uint_share_9_bits",
           std::all_of(ti.begin(), ti.end(), [](uint32_t x) { return (x >> 23) == 0x7Fu; }), "top bits differ");
    auto ng = topk::make_input<float>(100000, "negatives", 1);
    auto ni = topk::make_input<int32_t>(100000, "negatives", 1);
    report("shape_negatives",
           std::all_of(ng.begin(), ng.end(), [](float x) { return x < 0; }) &&
               std::all_of(ni.begin(), ni.end(), [](int32_t x) { return x < 0; }),
           "non-negative value");
    auto dp = topk::make_input<float>(100000, "dupes", 1);
    std::set<float> distinct(dp.begin(), dp.end());
    report("shape_dupes_64_levels", distinct.size() <= 64 && distinct.size() >= 60,
           std::to_string(distinct.size()) + " distinct");
    auto sp = topk::make_input<float>(100000, "specials", 1);
    size_t nan = 0, pinf = 0, ninf = 0, nzero = 0;
    for (float x : sp) {
        uint32_t b = topk::float_bits(x);
        nan += std::isnan(x);
        pinf += b == 0x7F800000u;
        ninf += b == 0xFF800000u;
        nzero += b == 0x80000000u;
    }
    report("shape_specials", nan > 1000 && pinf > 1000 && ninf > 1000 && nzero > 1000, "missing NaN/inf/-0");
    auto a = topk::make_input<float>(5000, "uniform", 9), b = topk::make_input<float>(5000, "uniform", 9);
    report("shape_reproducible", std::memcmp(a.data(), b.data(), a.size() * 4) == 0, "same seed, different input");
}

// A planted wrong answer must be rejected, and the plant must have changed the answer (bits of a value or
// an index), or the case checks nothing; `same_answer`: the question changes instead (e.g. --smallest).
template <class T>
static void expect_reject(const std::string& name, const std::vector<T>& in, size_t k, bool smallest,
                          std::vector<T> vals, std::vector<uint32_t> idx,
                          const std::function<void(std::vector<T>&, std::vector<uint32_t>&)>& plant,
                          bool same_answer = false) {
    const std::vector<T> right_vals = vals;
    const std::vector<uint32_t> right_idx = idx;
    plant(vals, idx);
    const bool changed = std::memcmp(vals.data(), right_vals.data(), vals.size() * sizeof(T)) != 0 || idx != right_idx;
    if (!same_answer && !changed) {
        report(name, false, "the plant left the answer as it was");
        return;
    }
    auto r = run_check(in, k, smallest, vals, idx);
    report(name, !r.ok, "planted error accepted");
    if (!r.ok) std::printf("     (%s)\n", r.message.c_str());
}

static void test_checker() {
    // Accepts right answers: any tie choice, both directions, -0.0 for +0.0, another NaN's bits.
    bool ok = true;
    std::string why;
    for (auto& d : topk::dists())
        for (bool smallest : {false, true})
            for (size_t k : {1, 7, 64, 500}) {
                auto in = topk::make_input<float>(1000, d, 11);
                for (bool rev : {false, true}) {
                    std::vector<float> v;
                    std::vector<uint32_t> i;
                    brute(in, k, smallest, rev, v, i);
                    auto r = run_check(in, k, smallest, v, i);
                    if (!r.ok) {
                        ok = false;
                        why = d + ": " + r.message;
                    }
                }
            }
    report("checker_accepts_any_tie_choice", ok, why);

    std::vector<float> in = {3.0f, 0.0f, 5.0f, fbits(0x7FC00000u), 5.0f, -1.0f, 2.0f, 5.0f, 0.0f, 1.0f};
    std::vector<float> v;
    std::vector<uint32_t> i;
    brute(in, 6, false, false, v, i);   // NaN, 5, 5, 5, 3, 2
    {
        auto v2 = v;
        v2[0] = fbits(0xFFC00001u);   // another NaN pattern for the same element
        report("checker_nan_equals_nan", run_check(in, 6, false, v2, i).ok, "rejected another NaN's bits");
        std::vector<float> z = {0.0f, -1.0f};
        std::vector<float> zv = {-0.0f};
        std::vector<uint32_t> zi = {0};
        report("checker_minus_zero_equals_zero", run_check(z, 1, false, zv, zi).ok, "rejected -0.0 for +0.0");
    }
    expect_reject<float>("checker_rejects_off_by_one", in, 6, false, v, i, [](auto& vv, auto& ii) {
        ii[5] = 9;
        vv[5] = 1.0f;
    });   // 1 instead of 2
    expect_reject<float>("checker_rejects_swapped_pair", in, 6, false, v, i, [](auto& vv, auto& ii) {
        std::swap(vv[3], vv[4]);
        std::swap(ii[3], ii[4]);
    });
    expect_reject<float>("checker_rejects_poisoned_index", in, 6, false, v, i,
                         [](auto&, auto& ii) { ii[2] = 0xABABABABu; });
    expect_reject<float>("checker_rejects_unwritten_value", in, 6, false, v, i,
                         [](auto& vv, auto&) { vv[4] = fbits(0xABABABABu); });
    expect_reject<float>("checker_rejects_duplicate_index", in, 6, false, v, i, [](auto& vv, auto& ii) {
        ii[2] = ii[1];
        vv[2] = vv[1];
    });
    expect_reject<float>("checker_rejects_nan_as_inf", in, 6, false, v, i,
                         [](auto& vv, auto&) { vv[0] = fbits(0x7F800000u); });
    expect_reject<float>("checker_rejects_value_not_at_index", in, 6, false, v, i,
                         [](auto&, auto& ii) { ii[4] = 5; });   // in[5] is -1, not 3
    // The seed's distinct values on duplicated input: NaN, 5, 3, 2, 1, 0 instead of NaN, 5, 5, 5, 3, 2.
    expect_reject<float>("checker_rejects_distinct_values", in, 6, false, v, i, [&](auto& vv, auto& ii) {
        std::vector<uint32_t> d = {3, 2, 0, 6, 9, 1};
        for (int j = 0; j < 6; ++j) {
            ii[j] = d[j];
            vv[j] = in[d[j]];
        }
    });
    expect_reject<float>(
        "checker_rejects_largest_for_smallest", in, 6, true, v, i, [](auto&, auto&) {}, true);
    // int32 with a missing tie: the top 3 of {9,9,9,1} is 9,9,9.
    std::vector<int32_t> t = {9, 1, 9, 9};
    std::vector<int32_t> tv = {9, 9, 1};
    std::vector<uint32_t> ti = {0, 2, 1};
    report("checker_rejects_missing_duplicate", !run_check(t, 3, false, tv, ti).ok, "accepted");
}

static void test_battery() {
    course::Options o;
    topk::Limits lim;
    auto full = topk::battery(o, lim);
    o.quick = true;
    auto quick = topk::battery(o, lim);
    bool ok = !full.empty() && quick.size() < full.size();
    for (auto& c : full) ok &= c.param >= 1 && c.param <= c.n;
    report("battery_k_between_1_and_n", ok, "a case with k > n or k = 0");
    std::set<uint64_t> ks;
    for (auto& c : full) ks.insert(c.param);
    ok = true;
    for (uint64_t k : {1, 2, 31, 32, 33, 100, 256, 1000, 1024, 2048}) ok &= ks.count(k) != 0;
    report("battery_has_the_lesson_k", ok, "missing a k");
    lim.max_k = 128;
    auto capped = topk::battery(course::Options{}, lim);
    report("battery_respects_max_k", std::all_of(capped.begin(), capped.end(), [](auto& c) { return c.param <= 128; }),
           "k above the cap");
    topk::Limits best;
    best.best = true;
    auto bb = topk::battery(course::Options{}, best);
    report("battery_best_has_k_n",
           std::any_of(bb.begin(), bb.end(), [](auto& c) { return c.n == 1000003 && c.param == c.n; }),
           "no k = n case");
    course::Options so;
    so.dist = "uniform";
    so.dtype = "float32";
    auto sw = topk::sweep(so, best);
    std::set<uint64_t> k28;
    for (auto& c : sw)
        if (c.n == (uint64_t(1) << 28) && c.dist == "uniform") k28.insert(c.param);
    report("sweep_2_28_all_k", k28 == std::set<uint64_t>{1, 32, 256, 1024, 2048}, "2^28 k set wrong");
    std::string d = "specials/smallest";
    report("smallest_suffix", topk::split_smallest(d) && d == "specials", "suffix not split");
}

// Row-wise: the per-row checker accepts a right answer (brute force per row, either tie order)
// and rejects planted wrong ones, naming the row; the battery covers what the issue asked for.
static void test_rows() {
    const uint64_t rows = 9, cols = 37, k = 5;
    for (const std::string shape : {"mixed", "uniform", "ties", "nan", "equal", "specials"}) {
        for (bool smallest : {false, true}) {
            std::vector<float> m = topk::rows::make_matrix(rows, cols, shape, 7);
            std::vector<float> vals(rows * k);
            std::vector<uint32_t> idx(rows * k);
            for (uint64_t r = 0; r < rows; ++r) {
                std::vector<float> row(m.begin() + r * cols, m.begin() + (r + 1) * cols), v;
                std::vector<uint32_t> ix;
                brute(row, k, smallest, r % 2 == 1, v, ix);
                std::copy(v.begin(), v.end(), vals.begin() + r * k);
                std::copy(ix.begin(), ix.end(), idx.begin() + r * k);
            }
            auto keys = topk::keys_of(m, smallest);
            auto ref = topk::rows::reference(keys, rows, cols, k);
            std::string name = "rows_" + shape + (smallest ? "_smallest" : "");
            auto good = topk::rows::check_rows(m, keys, ref, rows, cols, k, smallest, vals.data(), idx.data());
            report(name + "_accepts_right", good.ok, good.message);
            if (shape != "mixed") continue;
            // planted: row 4's second result taken from row 3 (the same column, the wrong row)
            auto bad_idx = idx;
            auto bad_vals = vals;
            bad_vals[4 * k + 1] = m[3 * cols + bad_idx[4 * k + 1]];
            auto r1 = topk::rows::check_rows(m, keys, ref, rows, cols, k, smallest, bad_vals.data(), bad_idx.data());
            // the plant must change the value (as a key: two NaNs are the same answer), or it checks nothing
            const bool wrong_row =
                topk::to_key(bad_vals[4 * k + 1], smallest) != topk::to_key(vals[4 * k + 1], smallest);
            report(name + "_rejects_value_from_other_row", wrong_row && !r1.ok && r1.message.rfind("row 4:", 0) == 0,
                   !wrong_row ? "the plant left the value as it was"
                   : r1.ok    ? "accepted"
                              : r1.message);
            // planted: a column shifted by one (the wrong/row_float4 bug)
            bad_idx = idx;
            bad_idx[7 * k] = (idx[7 * k] + 1) % cols;
            auto r2 = topk::rows::check_rows(m, keys, ref, rows, cols, k, smallest, vals.data(), bad_idx.data());
            report(name + "_rejects_shifted_column",
                   bad_idx[7 * k] != idx[7 * k] && !r2.ok && r2.message.rfind("row 7:", 0) == 0,
                   r2.ok ? "accepted" : r2.message);
            // planted: the last row left unwritten (poison)
            bad_idx = idx;
            bad_idx[(rows - 1) * k + k - 1] = 0xFFFFFFFFu;
            auto r3 = topk::rows::check_rows(m, keys, ref, rows, cols, k, smallest, vals.data(), bad_idx.data());
            report(name + "_rejects_unwritten", bad_idx != idx && !r3.ok, "accepted");
        }
    }
    course::Options o;
    auto cases = topk::rows::battery(o, true);
    auto has = [&](const std::string& dist, uint64_t k) {
        return std::any_of(cases.begin(), cases.end(), [&](auto& c) { return c.dist == dist && c.param == k; });
    };
    bool all_rows = true, all_cols = true;
    for (uint64_t r : {1, 2, 7, 1000, 65536})
        all_rows &= std::any_of(cases.begin(), cases.end(), [&](auto& c) {
            return c.dist.find(":" + std::to_string(r) + "x") != std::string::npos;
        });
    for (uint64_t c : {1, 2, 31, 32, 33, 1000, 4097, 128256, 1 << 20})
        all_cols &= std::any_of(cases.begin(), cases.end(), [&](auto& x) {
            return x.dist.size() > std::to_string(c).size() + 1 &&
                   x.dist.compare(x.dist.size() - std::to_string(c).size() - 1, std::string::npos,
                                  "x" + std::to_string(c)) == 0;
        });
    report("rows_battery_every_rows", all_rows, "a rows value missing");
    report("rows_battery_every_cols", all_cols, "a cols value missing");
    report("rows_battery_k_eq_cols", has("mixed:7x1048576", 1048576) && has("mixed:1000x4097", 4097),
           "k = cols missing");
    report("rows_battery_shapes",
           has("nan:7x4097", 50) && has("ties:1x128256", 50) && has("sorted:7x33", 33) && has("reversed:1x1000", 1),
           "a shape missing");
    report("rows_battery_bench", has("uniform:64x128256", 50) && has("uniform:4x16777216", 1024),
           "bench shapes missing");
    uint64_t most = 0;
    for (auto& c : cases) most = std::max<uint64_t>(most, c.n);
    report("rows_battery_bounded", most <= (uint64_t(1) << 27), "a case above 2^27 elements");
}

// float16 / bfloat16: every one of the 65,536 bit patterns. The key round-trips (NaN -> a NaN,
// -0.0 -> +0.0, every other pattern to itself), orders exactly like the value (sorted by the value
// as a double, NaN last: keys rise where values rise and are equal where values are equal, so
// -0.0 == +0.0 and every NaN equal), agrees with the float32 key of the same value, and --smallest
// reverses it with the low 16 bits still 0.
template <class T> static void test_half_keys() {
    const std::string name = std::string("keys_") + course::TypeName<T>::get();
    const uint16_t inf = topk::half_inf_bits<T>();
    auto is_nan = [&](uint16_t b) { return (b & 0x7FFFu) > inf; };
    std::string why;
    for (uint32_t b = 0; b < 65536 && why.empty(); ++b) {
        uint16_t k = topk::half_key(uint16_t(b), inf), back = topk::half_key_bits(k);
        bool ok = is_nan(uint16_t(b)) ? is_nan(back) : back == (b == 0x8000u ? 0u : b);
        if (!ok) why = "pattern " + std::to_string(b) + " came back as " + std::to_string(back);
    }
    report(name + "_round_trip", why.empty(), why);
    std::vector<uint16_t> pats(65536);
    std::iota(pats.begin(), pats.end(), uint16_t(0));
    auto value = [&](uint16_t b) { return double(float(topk::half_from_bits<T>(b))); };
    std::stable_sort(pats.begin(), pats.end(), [&](uint16_t a, uint16_t b) {
        if (is_nan(a) || is_nan(b)) return !is_nan(a) && is_nan(b);
        return value(a) < value(b);
    });
    why.clear();
    for (size_t i = 1; i < pats.size() && why.empty(); ++i) {
        uint16_t a = pats[i - 1], b = pats[i];
        bool same = (is_nan(a) && is_nan(b)) || (!is_nan(a) && !is_nan(b) && value(a) == value(b));
        for (bool smallest : {false, true}) {
            T va = topk::half_from_bits<T>(a), vb = topk::half_from_bits<T>(b);
            uint32_t ka = topk::to_key(va, smallest), kb = topk::to_key(vb, smallest);
            uint32_t fa = topk::to_key(float(va), smallest), fb = topk::to_key(float(vb), smallest);
            bool up = smallest ? kb < ka : kb > ka;
            if ((ka & 0xFFFFu) || (kb & 0xFFFFu)) why = "low 16 bits not 0";
            else if (same ? ka != kb : !up)
                why = "patterns " + std::to_string(a) + " and " + std::to_string(b) + (smallest ? " (smallest)" : "") +
                      " out of order";
            else if ((ka < kb) != (fa < fb) || (ka == kb) != (fa == fb))
                why = "disagrees with the float32 key at " + std::to_string(a) + ", " + std::to_string(b);
        }
    }
    report(name + "_order_like_values", why.empty(), why);
    // The checker on 16-bit data: a right answer passes (either tie order, and unsorted after
    // order_results), a value one unit off, a value from another index and the order broken fail.
    auto in = topk::make_input<T>(5000, "specials", 3);
    for (size_t k : {size_t(1), size_t(33), size_t(1000)}) {
        for (bool smallest : {false, true}) {
            std::vector<T> v;
            std::vector<uint32_t> ix;
            brute(in, k, smallest, k % 2 == 1, v, ix);
            std::string at = name + "_checker_k" + std::to_string(k) + (smallest ? "_smallest" : "");
            auto good = run_check(in, k, smallest, v, ix);
            report(at + "_accepts_right", good.ok, good.message);
            std::vector<T> sv(v.rbegin(), v.rend());
            std::vector<uint32_t> si(ix.rbegin(), ix.rend());
            if (topk::to_key(v.front(), smallest) != topk::to_key(v.back(), smallest))   // (all-NaN tops stay ordered)
                report(at + "_rejects_reversed", !run_check(in, k, smallest, sv, si).ok, "accepted");
            topk::order_results(sv.data(), si.data(), k, smallest);
            auto re = run_check(in, k, smallest, sv, si);
            report(at + "_unsorted_ordered_accepted", re.ok, re.message);
            auto bad = v;
            uint16_t b = topk::half_bits(bad[k / 2]);
            bad[k / 2] = topk::half_from_bits<T>(uint16_t(b ^ 1u));
            if (!is_nan(b) && !is_nan(uint16_t(b ^ 1u))) {
                auto r = run_check(in, k, smallest, bad, ix);
                report(at + "_rejects_one_unit_off", !r.ok, "accepted");
                topk::order_results(bad.data(), ix.data(), k, smallest);
                report(at + "_unsorted_still_rejects_wrong_value", !run_check(in, k, smallest, bad, ix).ok, "accepted");
            }
        }
    }
    // .npy: the reader knows the type by name, and float16 / bfloat16 files round-trip.
    const std::string path = "/tmp/lesson01_host_" + std::string(course::TypeName<T>::get()) + ".npy";
    course::save_npy(path, in.data(), in.size());
    auto back = course::load_npy<T>(path);
    report(name + "_npy_round_trip",
           back.size() == in.size() && std::memcmp(back.data(), in.data(), in.size() * sizeof(T)) == 0, "differs");
    std::remove(path.c_str());
}

// The row-wise chunk end in 64 bits (M's and the sampled pass's chunks): with cols near 2^32 the last chunk stops at cols, not at a
// wrapped begin + chunk below begin.
static void test_chunk_end() {
    const uint32_t cols = 0xFFFFFFFFu, chunk = 1u << 20;
    const uint32_t last = (cols / chunk) * chunk;
    bool ok = topk::rows::chunk_end(cols, last, chunk) == cols && topk::rows::chunk_end(cols, 0, chunk) == chunk &&
              topk::rows::chunk_end(100, 96, 8) == 100 && topk::rows::chunk_end(cols, cols - 8, 8) == cols;
    uint32_t wrapped = last + chunk;   // what the 32-bit sum gives
    report("rows_chunk_end_64bit", ok && wrapped < last, "chunk_end wrong near 2^32");
}

// The 16-bit cases in both batteries, and the new benchmark shapes.
static void test_half_battery() {
    course::Options o;
    auto rows = topk::rows::battery(o, true), rows32 = topk::rows::battery(o, false);
    auto count = [](const std::vector<course::Case>& v, const char* t) {
        return std::count_if(v.begin(), v.end(), [&](auto& c) { return c.dtype == t; });
    };
    report("rows_battery_half_types",
           count(rows, "float16") > 20 && count(rows, "bfloat16") > 20 && count(rows32, "float16") == 0,
           "16-bit row cases missing (or present without 16-bit launchers)");
    // has(v, dist, k, type): the battery v holds that case.
    auto has = [](const std::vector<course::Case>& v, const char* dist, uint64_t k, const char* t) {
        return std::any_of(v.begin(), v.end(), [&](auto& c) { return c.dist == dist && c.param == k && c.dtype == t; });
    };
    report("rows_battery_serving_shapes", has(rows, "uniform:256x262144", 256, "bfloat16"),
           "256 x 262144 k 256 bfloat16 missing");
    // 128-256 winners of 16-bit rows, largest and smallest: write_winners places them by 32-bit ranks, or by the
    // packed keys when they lie 2^11 keys or more apart (the mixed rows' specials and negatives).
    report("rows_battery_ranked_winners",
           has(rows, "mixed:1000x4097", 256, "float16") && has(rows, "mixed/smallest:7x128256", 200, "bfloat16"),
           "16-bit rows with 128-256 winners missing");
    // 16-bit rows past 2^20 whose winners 08 gathers from the row's list (gather_winners): by all the row's blocks
    // (collect_together, both directions), and by one block in a ragged batch.
    auto ragged = topk::rows::battery(o, true, true);
    report("rows_battery_long_16bit",
           has(rows, "mixed:3x4194309", 1024, "bfloat16") && has(rows, "mixed/smallest:1x4194309", 700, "bfloat16") &&
               has(ragged, "ragged:8x4194309", 2048, "bfloat16"),
           "16-bit rows past 2^20 (collected from a list) missing");
    // run_rows' battery starts with float32 then bfloat16 in one case (TwoTypesTrial), before any other call; 07's has none.
    auto first = topk::rows::battery(o, true, true, true);
    report("rows_battery_two_types_first",
           !first.empty() && first[0].dtype == topk::rows::kTwoTypes && first[0].dist == "uniform:4x4194309" &&
               std::none_of(rows.begin(), rows.end(), [](auto& c) { return c.dtype == topk::rows::kTwoTypes; }),
           "the two-types case is not first, or is in the plain battery");
    const bool chunked =
        std::count_if(rows.begin(), rows.end(), [](auto& c) { return c.dist == "mixed:64x16383"; }) >= 4 &&
        std::any_of(rows.begin(), rows.end(), [](auto& c) { return c.dist == "mixed:40x40009"; });
    report("rows_battery_chunked_rows", chunked, "rows of 2-8 chunks (64 x 16383, 40 x 40009) missing");
    topk::Limits lim;
    lim.half_floats = true;
    auto one = topk::battery(o, lim);
    lim.half_floats = false;
    auto one32 = topk::battery(o, lim);
    report("battery_half_types",
           count(one, "float16") > 20 && count(one, "bfloat16") > 20 && count(one32, "bfloat16") == 0,
           "16-bit cases missing");
}

// Ragged rows: the lengths cover 0, 1, k-1, k, k+1 and the longest; the checker accepts a brute-
// force answer with the documented padding and rejects a padding slot with a real index, a short
// row missing one of its elements, a value from the neighbouring row, and a wrong pad value.
template <class T> static void test_ragged() {
    const std::string name = std::string("ragged_") + course::TypeName<T>::get();
    const uint64_t rows = 24, max_len = 300, k = 50;
    auto len = topk::rows::ragged_lengths("ragged", rows, max_len, k, 5);
    std::set<uint64_t> seen(len.begin(), len.end());
    report(name + "_lengths",
           seen.count(0) && seen.count(1) && seen.count(k - 1) && seen.count(k) && seen.count(k + 1) &&
               seen.count(max_len),
           "a length pattern missing");
    auto serving = topk::rows::ragged_lengths("serving", 64, 131072, 2048, 5);
    report(name + "_serving_lengths",
           std::all_of(serving.begin(), serving.end(), [](uint64_t l) { return l >= 8192 && l <= 131072; }),
           "a serving row outside 8K-128K");
    std::vector<int64_t> off(rows + 1, 0);
    for (uint64_t r = 0; r < rows; ++r) off[r + 1] = off[r] + int64_t(len[r]);
    for (bool smallest : {false, true}) {
        auto in = topk::rows::make_ragged<T>(off, 9);
        auto keys = topk::keys_of(in, smallest);
        std::vector<T> vals(rows * k, topk::rows::pad_value<T>(smallest));
        std::vector<uint32_t> idx(rows * k, topk::rows::kNoIndex);
        for (uint64_t r = 0; r < rows; ++r) {
            std::vector<T> row(in.begin() + off[r], in.begin() + off[r + 1]), v;
            std::vector<uint32_t> ix;
            const uint64_t kk = std::min<uint64_t>(k, len[r]);
            if (kk == 0) continue;
            brute(row, kk, smallest, r % 2 == 1, v, ix);
            std::copy(v.begin(), v.end(), vals.begin() + r * k);
            std::copy(ix.begin(), ix.end(), idx.begin() + r * k);
        }
        const std::string at = name + (smallest ? "_smallest" : "");
        auto good = topk::rows::check_ragged(in, keys, off, k, smallest, vals.data(), idx.data());
        report(at + "_accepts_right", good.ok, good.message);
        uint64_t short_row = 0, long_row = 0;   // a row of k-1 elements and one of max_len
        for (uint64_t r = 0; r < rows; ++r) {
            if (len[r] == k - 1) short_row = r;
            if (len[r] == max_len) long_row = r;
        }
        // Each plant must change the answer (shown below), or its case checks nothing.
        auto changed = [&](const std::vector<T>& v, const std::vector<uint32_t>& ix) {
            return std::memcmp(v.data(), vals.data(), v.size() * sizeof(T)) != 0 || ix != idx;
        };
        report(at + "_has_short_and_long_rows", len[short_row] == k - 1 && len[long_row] == max_len,
               "no row of k - 1 or of max_len elements to plant in");
        auto bad_idx = idx;
        bad_idx[short_row * k + k - 1] = 0;
        report(at + "_rejects_padding_index",
               changed(vals, bad_idx) &&
                   !topk::rows::check_ragged(in, keys, off, k, smallest, vals.data(), bad_idx.data()).ok,
               "accepted");
        auto bad_vals = vals;
        bad_vals[short_row * k + k - 1] = T(0.0f);
        report(at + "_rejects_padding_value",
               changed(bad_vals, idx) &&
                   !topk::rows::check_ragged(in, keys, off, k, smallest, bad_vals.data(), idx.data()).ok,
               "accepted");
        bad_idx = idx;
        bad_idx[short_row * k + k - 2] = topk::rows::kNoIndex;   // one of the row's own elements dropped
        report(at + "_rejects_short_row_missing",
               changed(vals, bad_idx) &&
                   !topk::rows::check_ragged(in, keys, off, k, smallest, vals.data(), bad_idx.data()).ok,
               "accepted");
        // A value from another row in one of the long row's slots: the first element of any other row whose key
        // differs from the right one (rows 20 and 21 are both NaN rows: a neighbour's may equal it).
        bad_vals = vals;
        const uint64_t slot = long_row * k + 3;
        bool planted = false;
        for (uint64_t r = 0; r < rows && !planted; ++r)
            for (int64_t i = off[r]; r != long_row && i < off[r + 1] && !planted; ++i)
                if (topk::to_key(in[i], smallest) != topk::to_key(vals[slot], smallest)) {
                    bad_vals[slot] = in[i];
                    planted = true;
                }
        report(at + "_rejects_other_rows_value",
               planted && changed(bad_vals, idx) &&
                   !topk::rows::check_ragged(in, keys, off, k, smallest, bad_vals.data(), idx.data()).ok,
               planted ? "accepted" : "no other row's value differs from the right one");
    }
    course::Options o;
    auto cases = topk::rows::battery(o, true, true);
    bool has_serving = false, has_ragged = false;
    for (auto& c : cases) {
        has_serving |= c.dist == "serving:64x131072" && c.param == 2048;
        has_ragged |= c.dist.rfind("ragged:", 0) == 0 && c.param == 2048;
    }
    report(name + "_battery", has_serving && has_ragged, "ragged or serving cases missing");
    // A row past 2^20 beside all-equal rows half as long (1.0, -inf, NaN): the lengths, the values, the battery.
    const uint64_t big = uint64_t(1) << 21;
    auto eq_len = topk::rows::ragged_lengths("ragged_equal", 4, big, 50, 5);
    report(name + "_ragged_equal_lengths", eq_len == std::vector<uint64_t>{big, big / 2, big / 2, big / 2},
           "lengths wrong");
    std::vector<int64_t> eq_off = {0, 1000, 1100, 1200, 1300};
    auto eq = topk::rows::make_ragged<T>(eq_off, 9, false, true);
    bool one_value = true;
    for (uint64_t r = 1; r < 4; ++r)
        for (int64_t i = eq_off[r]; i < eq_off[r + 1]; ++i)
            one_value &= std::memcmp(&eq[i], &eq[eq_off[r]], sizeof(T)) == 0;
    const float first[3] = {1.0f, -INFINITY, NAN};
    bool right = one_value;
    for (uint64_t r = 1; r < 4; ++r) {
        const float v = float(eq[eq_off[r]]), want = first[r - 1];
        right &= std::isnan(want) ? std::isnan(v) : v == want;
    }
    report(name + "_ragged_equal_values", right && !std::isnan(float(eq[0])) && float(eq[0]) != float(eq[1]),
           "rows 1-3 are not 1.0, -inf, NaN each throughout");
    bool has_equal = false;
    for (auto& c : cases) has_equal |= c.dist == "ragged_equal:4x2097152" && c.param == 50;
    report(name + "_battery_ragged_equal", has_equal, "ragged_equal:4x2097152 k 50 missing");
}

// The row-wise command line's checks run while parsing, before the GPU is asked for (exit 2 with a GPU or
// without one): each call of validate runs in a child process, since a refusal ends the process.
static int validate_status(const course::LessonDef& def, const course::Options& o) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        if (!std::freopen("/dev/null", "w", stderr)) _exit(9);
        def.validate(o);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_rows_cli() {
    const course::LessonDef def = topk::rows::rows_lesson("rows_cli", true, true, true, 2048);
    course::Options o;
    o.dist = "ragged";
    o.dtype = "float32";
    o.n = 131072;
    o.param = 2048;
    o.extra["rows"] = "8";
    report("rows_cli_ragged_accepted", validate_status(def, o) == 0, "a ragged run of k 2048 refused");
    o.param = 5000;
    report("rows_cli_ragged_k_beyond_limit_refused", validate_status(def, o) == 2,
           "ragged --k 5000 not refused while parsing");
    o.param = 50;
    o.extra["rows"] = "0";
    report("rows_cli_ragged_zero_rows_refused", validate_status(def, o) == 2,
           "--dist ragged --rows 0 not refused while parsing");
    o.extra["rows"] = "8";
    o.n = 0;
    report("rows_cli_ragged_zero_n_refused", validate_status(def, o) == 2,
           "--dist ragged --n 0 not refused while parsing");
    course::Options t;
    t.test = true;
    t.extra["lengths"] = "lens.npy";
    report("rows_cli_test_with_lengths_refused", validate_status(def, t) == 2, "--test --lengths accepted");
    t.extra.clear();
    report("rows_cli_test_accepted", validate_status(def, t) == 0, "--test refused");
    // A program whose ragged launchers take any k (the CUB bar) accepts k 5000.
    const course::LessonDef any_k = topk::rows::rows_lesson("rows_cli_any_k", true, true, true);
    o.n = 131072;
    o.param = 5000;
    report("rows_cli_ragged_k_unlimited_accepted", validate_status(any_k, o) == 0, "k 5000 refused without a limit");
}

// The sampled pass's filter (rows_sampled_pass.cuh): for a threshold key tau, the elements that pass(x, bar_of(tau)) must be
// an upper set of the output order (pass is false then true along the elements sorted by key) and
// hold every element whose key is >= tau. Elements: every 16-bit pattern of T (for float, each
// pattern in the top half with a hashed bottom half, and the specials); thresholds: every 97th
// pattern in the top half and all of them near +-0, +-inf and the NaNs, in both directions.
template <class T> static void test_bar(const std::string& name) {
    std::vector<T> xs;
    for (uint32_t b = 0; b < 65536; ++b) {
        if constexpr (std::is_same_v<T, float>) {
            xs.push_back(fbits((b << 16) | uint32_t(course::hash64(7, b) & 0xFFFFu)));
            xs.push_back(fbits(b << 16));
        } else {
            xs.push_back(topk::half_from_bits<T>(uint16_t(b)));
        }
    }
    if constexpr (std::is_same_v<T, float>)
        for (uint32_t b : {0x00000001u, 0x80000001u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800001u, 0xFFFFFFFFu})
            xs.push_back(fbits(b));
    std::vector<uint32_t> taus;
    for (uint32_t t = 1; t < 65536; ++t) {
        const bool edge = t < 0x100 || (t >= 0x7E00 && t <= 0x8200) || t >= 0xFE00 || (t >= 0x7F00 && t <= 0x7FFF) ||
                          (t >= 0xFF00 && t <= 0xFFFF) || (t & 0x7FFF) >= 0x7B00;
        if (edge || t % 97 == 0) {
            taus.push_back(t << 16);
            taus.push_back((t << 16) | 0xFC00u);
        }
    }
    std::string why;
    for (bool smallest : {false, true}) {
        std::vector<std::pair<uint32_t, size_t>> order;
        for (size_t i = 0; i < xs.size(); ++i) order.push_back({topk::to_key(xs[i], smallest), i});
        std::sort(order.begin(), order.end());
        for (uint32_t tau : taus) {
            const float bar = topk::bar_of<T>(tau, smallest);
            bool seen_pass = false;
            for (auto& [key, i] : order) {
                const bool p = topk::passes(xs[i], bar, smallest);
                if (seen_pass && !p) { why = "not an upper set"; }
                if (key >= tau && !p) { why = "drops a key >= tau"; }
                seen_pass |= p;
                if (!why.empty()) {
                    why += " (tau " + std::to_string(tau) + (smallest ? ", smallest" : "") + ", key " +
                           std::to_string(key) + ")";
                    break;
                }
            }
            if (!why.empty()) break;
        }
        if (!why.empty()) break;
    }
    report(name + "_bar_is_an_upper_set_holding_tau", why.empty(), why);
    // The test can fail: a bar one step too high drops keys >= tau.
    const float bad = std::nextafter(topk::bar_of<T>(0x80000000u + (1u << 24), false), 1e30f);
    bool dropped = false;
    for (auto& x : xs) dropped |= topk::to_key(x, false) >= 0x80000000u + (1u << 24) && !topk::passes(x, bad, false);
    report(name + "_bar_check_can_fail", dropped, "a raised bar dropped nothing");
}

int main() {
    test_keys();
    test_ragged<float>();
    test_ragged<__nv_bfloat16>();
    test_half_keys<__half>();
    test_half_keys<__nv_bfloat16>();
    test_chunk_end();
    test_rows_cli();
    test_bar<float>("float32");
    test_bar<__half>("float16");
    test_bar<__nv_bfloat16>("bfloat16");
    test_half_battery();
    test_rows();
    test_reference_vs_brute<float>();
    test_reference_vs_brute<int32_t>();
    test_reference_vs_brute<uint32_t>();
    test_shapes();
    test_checker();
    test_battery();
    std::printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
