// tests/lesson04_radix_host.cu — host-only tests of lesson04_sort/lesson.cuh (no GPU needed):
// the key order transforms, the input shapes, the CPU reference sort, and that the checker
// FAILS planted wrong answers (a swapped pair, an all-zeros output, a lost or duplicated key,
// -0.0/+0.0 swapped, a NaN moved or canonicalised, an unstable pair order, a value separated from
// its key) while passing right ones, on both its exact path and its fingerprint path; and 08's
// OR-mask ranking (08_radix_onesweep.cu; the arithmetic in onesweep.cuh), replayed lane by lane on the host, against
// a plain stable count, on each of the three paths a warp can take (warp_path: one digit, dominant
// digit by ballot, OR masks), with planted bugs that the replay must catch.
//
//   make build/tests/lesson04_radix_host && build/tests/lesson04_radix_host
#include <cmath>
#include <cstdio>
#include <limits>

#include "../lesson04_sort/lesson.cuh"
#include "../lesson04_sort/onesweep.cuh"   // the ranking arithmetic, __host__ __device__
#include "../lesson04_sort/radix.cuh"      // kDigits

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
static uint32_t bitsf(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// The brute-force reference: selection sort by the lesson's order, O(n^2).
template <class K> std::vector<K> brute_sort(std::vector<K> v) {
    for (size_t i = 0; i < v.size(); ++i) {
        size_t m = i;
        for (size_t j = i + 1; j < v.size(); ++j)
            if (sorting::key_less(v[j], v[m])) m = j;
        std::swap(v[i], v[m]);
    }
    return v;
}
// What a right GPU answer looks like: the input sorted by the codes (parallel_sort), mapped back.
template <class K> std::vector<K> good_sort(const std::vector<K>& in) {
    auto c = sorting::codes_of(in.data(), in.size());
    sorting::parallel_sort(c);
    std::vector<K> out(in.size());
    for (size_t i = 0; i < c.size(); ++i) out[i] = sorting::Ordered<K>::from(c[i]);
    return out;
}
template <class K> course::CheckResult check(const std::vector<K>& in, const std::vector<K>& out) {
    sorting::KeysReference<K> ref;
    return sorting::check_keys(in, out, ref);
}
// A stable sort of (key, index) pairs on the CPU.
static void good_pairs(const std::vector<uint32_t>& keys, std::vector<uint32_t>& ko, std::vector<uint32_t>& vo) {
    std::vector<uint32_t> idx(keys.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = uint32_t(i);
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    ko.resize(keys.size());
    vo = idx;
    for (size_t i = 0; i < idx.size(); ++i) ko[i] = keys[idx[i]];
}

static void test_float_transform() {
    // Bijective on all 2^32 patterns: decode(encode(b)) == b.
    std::atomic<uint64_t> bad{0};
    course::parallel_chunks(
        uint64_t(1) << 32,
        [&](size_t b, size_t e, unsigned) {
            uint64_t local = 0;
            for (size_t i = b; i < e; ++i)
                if (sorting::ordered_to_float(sorting::float_to_ordered(uint32_t(i))) != uint32_t(i)) ++local;
            bad += local;
        },
        size_t(1) << 20);
    report("float transform round-trips all 2^32 bit patterns", bad == 0, std::to_string(bad.load()) + " differ");

    // The documented order, strictly increasing codes.
    const uint32_t chain[] = {0xFF800000u /*-inf*/,
                              0xFF7FFFFFu /*-FLT_MAX*/,
                              bitsf(-1.0f),
                              0x80800000u /*-FLT_MIN*/,
                              0x80000001u /*-denorm*/,
                              0x80000000u /*-0*/,
                              0x00000000u /*+0*/,
                              0x00000001u,
                              bitsf(1.0f),
                              0x7F7FFFFFu,
                              0x7F800000u /*+inf*/,
                              0x7F800001u /*+sNaN*/,
                              0x7FC00000u /*+qNaN*/,
                              0x7FFFFFFFu,
                              0xFFFFFFFFu /*-NaN*/,
                              0xFFC00000u,
                              0xFF800001u};
    bool ok = true;
    std::string why;
    for (size_t i = 1; i < sizeof chain / sizeof chain[0]; ++i)
        if (!(sorting::float_to_ordered(chain[i - 1]) < sorting::float_to_ordered(chain[i]))) {
            ok = false;
            char b[96];
            std::snprintf(b, sizeof b, "0x%08x not before 0x%08x; ", chain[i - 1], chain[i]);
            why += b;
        }
    report("float order: -inf < ... < -0 < +0 < ... < +inf < +NaNs (payload up) < -NaNs (payload down)", ok, why);
    report("float codes: -inf is 0, -NaN 0xFF800001 is the largest",
           sorting::float_to_ordered(0xFF800000u) == 0 && sorting::float_to_ordered(0xFF800001u) == 0xFFFFFFFFu);

    // Agrees with IEEE < on random non-NaN pairs (zeros of different sign aside).
    size_t wrong = 0;
    for (uint64_t i = 0; i < 2000000; ++i) {
        uint64_t h = course::hash64(7, i);
        float a = fbits(uint32_t(h)), b = fbits(uint32_t(h >> 32));
        if (i & 1) b = std::nextafter(a, (i & 2) ? INFINITY : -INFINITY);   // neighbours too
        if (std::isnan(a) || std::isnan(b) || (a == 0 && b == 0)) continue;
        if ((a < b) != sorting::key_less(a, b)) ++wrong;
    }
    report("float order agrees with IEEE < on 2M random and neighbouring pairs", wrong == 0,
           std::to_string(wrong) + " disagree");
}

static void test_int_transform() {
    size_t wrong = 0;
    for (uint64_t i = 0; i < 2000000; ++i) {
        uint64_t h = course::hash64(9, i);
        int32_t a = int32_t(uint32_t(h)), b = (i & 1) ? int32_t(uint32_t(h >> 32)) : int32_t(uint32_t(a) + 1u);
        if ((a < b) != sorting::key_less(a, b)) ++wrong;
        if (sorting::ordered_to_int(sorting::int_to_ordered(a)) != a) ++wrong;
    }
    report("int32 order and round trip on 2M pairs", wrong == 0, std::to_string(wrong) + " wrong");
    report("int32 codes: INT_MIN -> 0, INT_MAX -> 0xFFFFFFFF",
           sorting::int_to_ordered(std::numeric_limits<int32_t>::min()) == 0 &&
               sorting::int_to_ordered(std::numeric_limits<int32_t>::max()) == 0xFFFFFFFFu);
}

static void test_parallel_sort() {
    bool ok = true;
    for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(65536), size_t(1000003), size_t(3) << 20}) {
        std::vector<uint32_t> v(n), w;
        for (size_t i = 0; i < n; ++i) v[i] = uint32_t(course::hash64(3, i) >> 40);   // duplicates
        w = v;
        sorting::parallel_sort(v);
        std::sort(w.begin(), w.end());
        if (v != w) {
            ok = false;
            report("parallel_sort n=" + std::to_string(n), false, "differs from std::sort");
        }
    }
    if (ok) report("parallel_sort equals std::sort (n up to 3*2^20, odd sizes)", true);
}

template <class K> void test_brute_force(const char* type) {
    for (const std::string& d : sorting::dists()) {
        bool ok = true;
        std::string why;
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(33), size_t(257), size_t(1500)}) {
            std::vector<K> in = sorting::make_input<K>(n, d, 42 + n);
            std::vector<K> bf = brute_sort(in), good = good_sort(in);
            for (size_t i = 0; i < n; ++i)
                if (!course::same_bits(bf[i], good[i])) {
                    ok = false;
                    why = "n=" + std::to_string(n) + " differs at " + std::to_string(i);
                    break;
                }
            course::CheckResult r = check(in, bf);
            if (!r.ok) {
                ok = false;
                why = "checker rejects the brute-force answer: " + r.message;
            }
        }
        report(std::string("reference == brute force, checker passes it: ") + type + " " + d, ok, why);
    }
}

static void test_shapes() {
    const size_t n = 100000;
    {   // deterministic and sized
        auto a = sorting::make_input<uint32_t>(n, "zipf", 5), b = sorting::make_input<uint32_t>(n, "zipf", 5);
        auto c = sorting::make_input<uint32_t>(n, "zipf", 6);
        report("shapes: same seed same input, other seed other input", a == b && a != c && a.size() == n);
    }
    auto varying = [&](auto tag, const char* dist) {
        using K = decltype(tag);
        auto v = sorting::make_input<K>(n, dist, 11);
        using U = typename sorting::Ordered<K>::U;
        U ored = 0, andd = ~U(0);
        for (K k : v) {
            U b;
            if constexpr (sizeof(K) == 4) {
                uint32_t t;
                std::memcpy(&t, &k, 4);
                b = t;
            } else b = U(k);
            ored |= b;
            andd &= b;
        }
        return ored ^ andd;   // the bits that vary
    };
    report("shapes: highbyte varies only the top byte (uint32)", varying(uint32_t(), "highbyte") == 0xFF000000u);
    report("shapes: highbyte varies only the top byte (uint64)",
           varying(uint64_t(), "highbyte") == 0xFF00000000000000ull);
    report("shapes: lowbits varies only the low 8 bits (float32)", varying(float(), "lowbits") == 0xFFu);
    report("shapes: lowbits varies only the low 8 bits (int32)", varying(int32_t(), "lowbits") == 0xFFu);
    {
        auto v = sorting::make_input<float>(n, "highbyte", 3);
        bool finite = true;
        for (float f : v) finite &= std::isfinite(f);
        report("shapes: float highbyte has no inf or NaN", finite);
    }
    {
        auto v = sorting::make_input<float>(n, "specials", 3);
        bool pz = false, nz = false, pi = false, ni = false, pnan = false, nnan = false, neg = false;
        for (float f : v) {
            uint32_t b = bitsf(f);
            pz |= b == 0;
            nz |= b == 0x80000000u;
            pi |= b == 0x7F800000u;
            ni |= b == 0xFF800000u;
            pnan |= std::isnan(f) && !(b >> 31);
            nnan |= std::isnan(f) && (b >> 31);
            neg |= f < 0 && std::isfinite(f);
        }
        report("shapes: float specials has +-0, +-inf, +NaN, -NaN, negatives",
               pz && nz && pi && ni && pnan && nnan && neg);
    }
}

template <class K> bool fails(const std::vector<K>& in, const std::vector<K>& out, std::string* msg = nullptr) {
    course::CheckResult r = check(in, out);
    if (msg) *msg = r.message;
    return !r.ok;
}

static void test_checker_keys(size_t n, const char* path) {
    std::string p = std::string(" (") + path + ")";
    std::vector<uint32_t> in = sorting::make_input<uint32_t>(n, "uniform", 77);
    std::vector<uint32_t> good = good_sort(in);
    report("checker passes a right answer" + p, !fails(in, good));
    {
        auto bad = good;
        size_t i = n / 3;
        while (i + 1 < n && bad[i] == bad[i + 1]) ++i;
        std::swap(bad[i], bad[i + 1]);
        report("checker fails a swapped adjacent pair" + p, fails(in, bad));
    }
    {
        std::vector<uint32_t> zeros(n, 0);
        bool sorted_only = std::is_sorted(zeros.begin(), zeros.end());
        report("checker fails an all-zeros output (which a sortedness-only check passes)" + p,
               sorted_only && fails(in, zeros));
    }
    {
        auto bad = good;
        bad[n / 2] = bad[n / 2 - 1];   // one key lost, its neighbour duplicated: still sorted
        report("checker fails a lost key replaced by a duplicate (still sorted)" + p, fails(in, bad));
    }
    {
        auto bad = good;
        bad.back() = 0xABABABABu;   // the poison value left unwritten at the end
        std::sort(bad.begin(), bad.end());
        report("checker fails a poisoned/unwritten element" + p, fails(in, bad));
    }
    {
        auto bad = good;   // one key off by one where the order survives it
        size_t i = n / 2;
        while (i + 1 < n && bad[i] + 1 >= bad[i + 1]) ++i;
        bad[i] += 1;
        report("checker fails a key off by one (still sorted)" + p, fails(in, bad));
    }
}

static void test_checker_floats() {
    std::vector<float> in = sorting::make_input<float>(5000, "specials", 8);
    std::vector<float> good = good_sort(in);
    report("checker passes right float specials", !fails(in, good));
    {
        auto bad = good;   // -0.0 and +0.0 exchanged
        size_t nz = 0, pz = 0;
        for (size_t i = 0; i < bad.size(); ++i) {
            if (bitsf(bad[i]) == 0x80000000u) nz = i;
            if (bitsf(bad[i]) == 0) pz = i;
        }
        std::swap(bad[nz], bad[pz]);
        report("checker fails +0.0 sorted before -0.0", fails(in, bad));
    }
    {
        auto bad = good;   // -0.0 canonicalised to +0.0 (what CUB may do)
        for (auto& f : bad)
            if (bitsf(f) == 0x80000000u) f = 0.0f;
        std::sort(bad.begin(), bad.end(), [](float a, float b) { return sorting::key_less(a, b); });
        report("checker fails -0.0 rewritten as +0.0", fails(in, bad));
    }
    {
        auto bad = good;   // every NaN canonicalised to the quiet NaN
        for (auto& f : bad)
            if (std::isnan(f)) f = fbits(0x7FC00000u);
        std::sort(bad.begin(), bad.end(), [](float a, float b) { return sorting::key_less(a, b); });
        report("checker fails NaN payloads canonicalised", fails(in, bad));
    }
    {
        auto bad = good;   // the classic sign-flip order: -NaNs first
        std::stable_partition(bad.begin(), bad.end(), [](float f) { return std::isnan(f) && std::signbit(f); });
        report("checker fails negative NaNs sorted first", fails(in, bad));
    }
}

static void test_checker_pairs() {
    for (const char* d : {"few", "uniform", "equal"}) {
        size_t n = 20000;
        std::vector<uint32_t> keys = sorting::make_input<uint32_t>(n, d, 4), ko, vo;
        good_pairs(keys, ko, vo);
        std::string dn = std::string(" (") + d + ")";
        report("pairs checker passes a stable sort" + dn, sorting::check_pairs(keys, ko, vo).ok);
        {
            auto vb = vo;   // two values of equal keys exchanged: unstable
            size_t i = 1;
            while (i < n && ko[i] != ko[i - 1]) ++i;
            if (i < n) {
                std::swap(vb[i], vb[i - 1]);
                course::CheckResult r = sorting::check_pairs(keys, ko, vb);
                report("pairs checker fails an unstable order" + dn,
                       !r.ok && r.message.find("stable") != std::string::npos, r.message);
            }
        }
        {
            auto vb = vo;   // a value duplicated (another lost) among equal keys
            size_t i = 1;
            while (i < n && ko[i] != ko[i - 1]) ++i;
            if (i < n) {
                vb[i] = vb[i - 1];
                report("pairs checker fails a duplicated value" + dn, !sorting::check_pairs(keys, ko, vb).ok);
            }
        }
        if (std::string(d) != "equal") {
            auto vb = vo;   // values of different keys exchanged: keys sorted, values wrong
            size_t i = 1;
            while (i < n && ko[i] == ko[i - 1]) ++i;
            std::swap(vb[i], vb[i - 1]);
            report("pairs checker fails a value separated from its key" + dn, !sorting::check_pairs(keys, ko, vb).ok);
        }
        {
            std::vector<uint32_t> z(n, 0);
            report("pairs checker fails all-zeros keys and values" + dn, !sorting::check_pairs(keys, z, z).ok);
        }
        {
            auto vb = vo;
            vb[n / 2] = 0xABABABABu;
            report("pairs checker fails a poisoned value" + dn, !sorting::check_pairs(keys, ko, vb).ok);
        }
    }
}

// 08's OR-mask ranking of one warp, replayed on the host step by step as the warp runs it (the
// same group_leader / rank_in_group as the kernel): for each item j, every lane ORs its bit into
// masks[digit]; each lane reads its word (its group) and its leader; each leader adds the group's
// size to counts[digit] and keeps the old value; a lane takes the old value from ITS leader (the
// shuffle); the leaders zero their words. The rank must equal the number of earlier keys (item,
// then lane: index order) of the same digit, and the masks must end all zero (the next tile's
// ranking starts from them). The warp first takes its path from its counts as the kernel does
// (dominant_word, warp_path with `ballot_min`): a one-digit warp's ranks are one_digit_rank; on the
// dominant-ballot path the dominant digit's lanes take their group from the ballot (the lanes
// holding it) and leave its word alone. `bug` plants a fault: the rank counts the lane itself; the
// leader is off by one lane; the words are never zeroed; the one-digit ranks forget the item's
// stride; the dominant lanes OR into their word as well; `path` (if not null) receives the path.
enum class RankBug { none, counts_self, leader_off_by_one, no_zeroing, one_digit_no_stride, dominant_ors_too };
static bool replay_or_ranking(const std::vector<uint32_t>& digit, int items, uint32_t ballot_min, RankBug bug,
                              std::string& why, onesweep::WarpPath* path_out = nullptr) {
    uint32_t masks[radix::kDigits] = {}, counts[radix::kDigits] = {}, seen[radix::kDigits] = {};
    uint32_t dominant = 0;
    {
        uint32_t c[radix::kDigits] = {};
        for (uint32_t d : digit) ++c[d];
        for (uint32_t d = 0; d < radix::kDigits; ++d) dominant = std::max(dominant, onesweep::dominant_word(c[d], d));
    }
    const uint32_t dom = dominant & 0xffu;
    const onesweep::WarpPath path = onesweep::warp_path(dominant, uint32_t(items) * 32u, ballot_min);
    if (path_out) *path_out = path;
    for (int j = 0; j < items; ++j) {
        const uint32_t* dj = &digit[size_t(j) * 32];
        if (path == onesweep::WarpPath::one_digit) {   // counts[dom] is the warp's start, 0 here
            for (int lane = 0; lane < 32; ++lane) {
                const uint32_t r = bug == RankBug::one_digit_no_stride ? onesweep::one_digit_rank(0, 0, lane)
                                                                       : onesweep::one_digit_rank(0, j, lane);
                const uint32_t want = seen[dj[lane]]++;
                if (r != want) {
                    why = "one-digit warp, item " + std::to_string(j) + " lane " + std::to_string(lane) + ": rank " +
                          std::to_string(r) + ", expected " + std::to_string(want);
                    return false;
                }
            }
            continue;
        }
        const bool ballot = path == onesweep::WarpPath::dominant_ballot;
        uint32_t dom_lanes = 0;   // __ballot_sync(is_dom)
        for (int lane = 0; lane < 32; ++lane)
            if (ballot && dj[lane] == dom) dom_lanes |= 1u << lane;
        for (int lane = 0; lane < 32; ++lane)   // atomicOr (not by the dominant lanes), then __syncwarp
            if (!(ballot && dj[lane] == dom) || bug == RankBug::dominant_ors_too) masks[dj[lane]] |= 1u << lane;
        uint32_t peers[32], old_of[32] = {};
        int leader[32];
        for (int lane = 0; lane < 32; ++lane) {
            peers[lane] = ballot && dj[lane] == dom ? dom_lanes : masks[dj[lane]];
            leader[lane] = onesweep::group_leader(peers[lane]) - (bug == RankBug::leader_off_by_one ? 1 : 0);
            if (leader[lane] < 0) leader[lane] += 32;
        }
        for (int lane = 0; lane < 32; ++lane)   // the leaders' atomicAdds (one per group)
            if (lane == leader[lane]) {
                old_of[lane] = counts[dj[lane]];
                counts[dj[lane]] += onesweep::popc32(peers[lane]);
            }
        for (int lane = 0; lane < 32; ++lane) {
            const uint32_t old = old_of[leader[lane]];   // __shfl_sync from the leader
            uint32_t r = onesweep::rank_in_group(old, peers[lane], lane);
            if (bug == RankBug::counts_self) r = old + onesweep::popc32(peers[lane] & ((2u << lane) - 1u));
            const uint32_t want = seen[dj[lane]]++;
            if (r != want) {
                why = "item " + std::to_string(j) + " lane " + std::to_string(lane) + " digit " +
                      std::to_string(dj[lane]) + ": rank " + std::to_string(r) + ", expected " + std::to_string(want);
                return false;
            }
        }
        if (bug != RankBug::no_zeroing)
            for (int lane = 0; lane < 32; ++lane)
                if (lane == leader[lane] && !(ballot && dj[lane] == dom)) masks[dj[lane]] = 0;
    }
    for (int d = 0; d < radix::kDigits; ++d)
        if (masks[d] != 0) {
            why = "match word of digit " + std::to_string(d) + " left non-zero";
            return false;
        }
    return true;
}

static void test_or_ranking() {
    const int items = 32;
    const uint32_t keys_min = 256, pairs_min = 0;   // 08's Shape::kBallotMin for keys and for pairs
    // Digit patterns: uniform, 3 distinct, all equal, all distinct per lane, two lanes per digit,
    // one digit per item (whole warp one group, changing every item), and skewed: 80 % one digit
    // (the dominant-ballot path), and one digit but the last key (all but one lane on the ballot).
    std::vector<std::pair<std::string, std::vector<uint32_t>>> cases;
    auto make = [&](const std::string& name, auto f) {
        std::vector<uint32_t> v(size_t(items) * 32);
        for (size_t i = 0; i < v.size(); ++i) v[i] = f(i) & 0xFFu;
        cases.push_back({name, v});
    };
    make("uniform", [](size_t i) { return uint32_t(course::hash64(11, i)); });
    make("3 digits", [](size_t i) { return uint32_t(course::hash64(12, i) % 3) * 77u; });
    make("equal", [](size_t) { return 255u; });
    make("distinct per lane", [](size_t i) { return uint32_t(i % 32) * 8u; });
    make("pairs of lanes", [](size_t i) { return uint32_t(i % 32) / 2u + uint32_t(i / 32); });
    make("one digit per item", [](size_t i) { return uint32_t(i / 32) * 5u; });
    make("80 % one digit", [](size_t i) { return course::hash64(13, i) % 5 ? 42u : uint32_t(course::hash64(14, i)); });
    make("one digit but the last key", [](size_t i) { return i == size_t(items) * 32 - 1 ? 7u : 200u; });
    const char* path_name[] = {"one digit", "dominant ballot", "OR masks"};
    bool seen_path[2][3] = {};
    for (const auto& c : cases)
        for (int t = 0; t < 2; ++t) {
            std::string why;
            onesweep::WarpPath path;
            const bool ok = replay_or_ranking(c.second, items, t ? pairs_min : keys_min, RankBug::none, why, &path);
            seen_path[t][int(path)] = true;
            report(std::string("08 OR-mask ranking replay = stable count, ") + c.first +
                       (t ? " (pairs' " : " (keys' ") + "paths: " + path_name[int(path)] + ")",
                   ok, why);
        }
    report("08 ranking replay: keys take all three paths, pairs never the plain OR masks",
           seen_path[0][0] && seen_path[0][1] && seen_path[0][2] && seen_path[1][0] && seen_path[1][1] &&
               !seen_path[1][2]);
    // Planted bugs: each must make the replay fail on some case.
    const std::pair<RankBug, const char*> bugs[] = {
        {RankBug::counts_self, "rank counts the lane itself"},
        {RankBug::leader_off_by_one, "leader off by one lane"},
        {RankBug::no_zeroing, "match words never zeroed"},
        {RankBug::one_digit_no_stride, "one-digit ranks without the item stride"},
        {RankBug::dominant_ors_too, "dominant lanes OR into their word too"}};
    for (const auto& b : bugs) {
        bool caught = false;
        for (const auto& c : cases)
            for (uint32_t m : {keys_min, pairs_min}) {
                std::string why;
                if (!replay_or_ranking(c.second, items, m, b.first, why)) caught = true;
            }
        report(std::string("08 OR-mask ranking replay catches a planted bug: ") + b.second, caught);
    }
}

int main() {
    test_float_transform();
    test_int_transform();
    test_parallel_sort();
    test_brute_force<uint32_t>("uint32");
    test_brute_force<int32_t>("int32");
    test_brute_force<float>("float32");
    test_brute_force<uint64_t>("uint64");
    test_shapes();
    test_checker_keys(100000, "exact path");
    test_checker_keys(sorting::kExactLimit + 4097, "fingerprint path");
    test_checker_floats();
    test_checker_pairs();
    test_or_ranking();
    std::printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
