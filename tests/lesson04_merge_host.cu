// tests/lesson04_merge_host.cu — host tests of the comparison sorts' building blocks (no GPU, no
// CUDA runtime call). The functions in lesson04_sort/comparison.cuh are __host__ __device__, so
// the very code the kernels run is checked here against brute force:
//   * merge_path (05's splitters) against a stable merge done by hand, every diagonal
//   * count_less / count_less_equal and the rank merge of 04: a permutation, stable, sorted
//   * 05's tiling of a merge pass: independent 4096-output tiles (here 8) reproduce the merge,
//     also when a tile is a whole run pair (tile = 2 x width); cmp::tile_span names the same pieces
//   * serial_merge_select (05_merge_path's serial merge): from every diagonal, ITEMS = 1..32 outputs equal
//     the stable merge's, with positions that name the right key, and no read outside the lists
//   * warp_stripe (the lean kernel's per-warp staging): each warp reads back exactly what it wrote
//   * the always-ascending bitonic network with skipped out-of-range partners sorts EVERY n,
//     also split the way 03 runs it (tile sort, global steps, in-tile tails), and the classic
//     alternating network with the same skipping (wrong/bitonic_power_of_two.cu) does not
//   * the lesson's key order inside compare_exchange (-0.0 < +0.0, NaN after +inf, int32 signs)
//   * the checker fails a pairs result whose equal keys were swapped (unstable merge)
// Prints one line per test and 'N passed, N failed'; exit 1 if any failed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../lesson04_sort/comparison.cuh"

using namespace sorting;

static int g_passed = 0, g_failed = 0;
static void expect(bool ok, const std::string& name, const std::string& why = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    (ok ? g_passed : g_failed)++;
}

static uint32_t rnd(uint64_t seed, uint64_t i, uint32_t range) { return uint32_t(course::hash64(seed, i) % range); }

static std::vector<uint32_t> sorted_random(size_t n, uint64_t seed, uint32_t range) {
    std::vector<uint32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = rnd(seed, i, range);
    std::sort(v.begin(), v.end());
    return v;
}

// The stable merge by hand: (key, 0 = from a / 1 = from b, index) in output order.
struct Tagged {
    uint32_t key;
    int side;
    size_t idx;
};
static std::vector<Tagged> brute_merge(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    std::vector<Tagged> out;
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (j < b.size() && (i >= a.size() || b[j] < a[i])) {
            out.push_back({b[j], 1, j});
            ++j;
        } else {
            out.push_back({a[i], 0, i});
            ++i;
        }
    }
    return out;
}

static void test_merge_path() {
    int cases = 0, bad = 0;
    std::string why;
    for (uint64_t seed = 0; seed < 300; ++seed) {
        size_t na = rnd(seed, 1000, 40), nb = rnd(seed, 1001, 40);
        uint32_t range = 1 + rnd(seed, 1002, seed % 3 == 0 ? 3 : 100);   // many duplicates sometimes
        auto a = sorted_random(na, seed * 2, range), b = sorted_random(nb, seed * 2 + 1, range);
        auto m = brute_merge(a, b);
        size_t from_a = 0;
        for (size_t d = 0; d <= na + nb; ++d) {
            if (d > 0 && m[d - 1].side == 0) ++from_a;
            size_t got = cmp::merge_path(a.data(), na, b.data(), nb, d);
            const int got32 =
                cmp::merge_path(a.data(), int(na), b.data(), int(nb), int(d));   // 05's shared-memory searches
            if (size_t(got32) != got) got = ~size_t(0);
            ++cases;
            if (got != from_a) {
                if (!bad++)
                    why = "na=" + std::to_string(na) + " nb=" + std::to_string(nb) + " diag=" + std::to_string(d) +
                          " expected " + std::to_string(from_a) + " got " + std::to_string(got);
            }
        }
    }
    expect(bad == 0,
           "merge_path equals the stable merge's split at every diagonal (" + std::to_string(cases) + " cases)", why);
}

static void test_ranks_and_rank_merge() {
    int bad_rank = 0, bad_merge = 0;
    for (uint64_t seed = 0; seed < 300; ++seed) {
        size_t na = rnd(seed, 7, 50), nb = rnd(seed, 8, 50);
        uint32_t range = 1 + rnd(seed, 9, seed % 2 ? 4 : 1000);
        auto a = sorted_random(na, seed * 5, range), b = sorted_random(nb, seed * 5 + 1, range);
        for (uint32_t key = 0; key <= range; ++key) {
            size_t lt = std::count_if(b.begin(), b.end(), [&](uint32_t x) { return x < key; });
            size_t le = std::count_if(a.begin(), a.end(), [&](uint32_t x) { return x <= key; });
            if (cmp::count_less(b.data(), nb, key) != lt || cmp::count_less_equal(a.data(), na, key) != le) ++bad_rank;
        }
        // 04's merge: a[i] -> i + count_less(b, a[i]); b[j] -> j + count_less_equal(a, b[j])
        std::vector<Tagged> out(na + nb, Tagged{0, -1, 0});
        for (size_t i = 0; i < na; ++i) out[i + cmp::count_less(b.data(), nb, a[i])] = {a[i], 0, i};
        for (size_t j = 0; j < nb; ++j) out[j + cmp::count_less_equal(a.data(), na, b[j])] = {b[j], 1, j};
        auto ref = brute_merge(a, b);
        for (size_t k = 0; k < out.size(); ++k)
            if (out[k].side != ref[k].side || out[k].idx != ref[k].idx) {
                ++bad_merge;
                break;
            }
    }
    expect(bad_rank == 0, "count_less / count_less_equal equal brute-force counts",
           std::to_string(bad_rank) + " wrong");
    expect(bad_merge == 0, "04's rank merge places every key exactly where the stable merge does",
           std::to_string(bad_merge) + " merges differ");
}

// 05's pass, with 8-output tiles instead of 4096: partition every tile's start diagonal, merge each
// tile on its own from (ac0, ac1), and compare with the stable merge of each run pair.
static void test_tiled_merge_pass() {
    const size_t T = 8;
    int bad = 0;
    std::string why;
    for (uint64_t seed = 0; seed < 200 && !bad; ++seed) {
        size_t n = 1 + rnd(seed, 3, 200);
        // 4, 8, 16 or 32: the tile divides every run pair (2 x width), down to a tile that IS a
        // whole run pair (a tile of 8192 outputs over 4096-key sorted runs)
        size_t width = (T / 2) << rnd(seed, 4, 4);
        std::vector<uint32_t> src(n);
        uint32_t range = 1 + rnd(seed, 5, seed % 2 ? 5 : 1000);
        for (size_t r = 0; r < n; r += width) {   // sorted runs of `width`
            auto run = sorted_random(std::min(width, n - r), seed * 1000 + r, range);
            std::copy(run.begin(), run.end(), src.begin() + r);
        }
        size_t tiles = (n + T - 1) / T;
        std::vector<size_t> splits(tiles + 1);
        for (size_t t = 0; t < tiles; ++t) {
            size_t start = t * T, a0 = start / (2 * width) * (2 * width);
            size_t b0 = std::min(a0 + width, n), e = std::min(a0 + 2 * width, n);
            splits[t] = cmp::merge_path(src.data() + a0, b0 - a0, src.data() + b0, e - b0, start - a0);
        }
        std::vector<uint32_t> dst(n, 0xDEADBEEF);
        for (size_t t = 0; t < tiles; ++t) {   // the merge kernel's arithmetic
            size_t start = t * T, a0 = start / (2 * width) * (2 * width);
            size_t b0 = std::min(a0 + width, n), e = std::min(a0 + 2 * width, n);
            size_t end = std::min(start + T, e);
            size_t d0 = start - a0, d1 = end - a0, ac0 = splits[t], ac1 = end == e ? b0 - a0 : splits[t + 1];
            std::vector<uint32_t> a(src.begin() + a0 + ac0, src.begin() + a0 + ac1);
            std::vector<uint32_t> b(src.begin() + b0 + (d0 - ac0), src.begin() + b0 + (d1 - ac1));
            // the lean / async kernels' cmp::tile_span must name the same pieces
            const size_t next = t + 1 < tiles ? splits[t + 1] : 0;
            const cmp::TileSpan sp = cmp::tile_span(t, T, n, width, splits[t], next);
            if (sp.start != start || sp.a_at != a0 + ac0 || sp.b_at != b0 + (d0 - ac0) || size_t(sp.na) != a.size() ||
                size_t(sp.nb) != b.size()) {
                bad++;
                why = "tile_span differs at tile " + std::to_string(t);
                break;
            }
            auto m = brute_merge(a, b);
            if (m.size() != end - start) {
                bad++;
                why = "tile " + std::to_string(t) + " has the wrong size";
                break;
            }
            for (size_t k = 0; k < m.size(); ++k) dst[start + k] = m[k].key;
        }
        for (size_t a0 = 0; a0 < n && !bad; a0 += 2 * width) {
            size_t b0 = std::min(a0 + width, n), e = std::min(a0 + 2 * width, n);
            std::vector<uint32_t> a(src.begin() + a0, src.begin() + b0), b(src.begin() + b0, src.begin() + e);
            auto m = brute_merge(a, b);
            for (size_t k = 0; k < m.size(); ++k)
                if (dst[a0 + k] != m[k].key) {
                    bad++;
                    why = "n=" + std::to_string(n) + " width=" + std::to_string(width);
                    break;
                }
        }
    }
    expect(bad == 0, "05's tiled merge pass (splitters + independent tiles, cmp::tile_span) equals the stable merge",
           why);
}

// A bounds-checked view of a|b for serial_merge_select: counts reads outside the thread's lists.
// (__host__ __device__ only because serial_merge_select is; it runs on the host here.)
struct CheckedSeq {
    const uint32_t* s;
    int a_lo, a_end, b_lo, b_end;
    mutable int bad_reads = 0;
    __host__ __device__ uint32_t operator[](int x) const {
        if (!((x >= a_lo && x < a_end) || (x >= b_lo && x < b_end))) {
            ++bad_reads;
            return 0xDEADBEEFu;
        }
        return s[x];
    }
};

template <int ITEMS> static void check_select(uint64_t seeds, int& cases, int& bad, std::string& why) {
    for (uint64_t seed = 0; seed < seeds; ++seed) {
        size_t na = rnd(seed, 2000, 70), nb = rnd(seed, 2001, 70);
        uint32_t range = 1 + rnd(seed, 2002, seed % 3 == 0 ? 3 : 1000);
        auto a = sorted_random(na, seed * 3, range), b = sorted_random(nb, seed * 3 + 1, range);
        std::vector<uint32_t> ab(a);
        ab.insert(ab.end(), b.begin(), b.end());
        auto m = brute_merge(a, b);
        const int total = int(na + nb);
        for (int d = 0; d < total; ++d) {
            const int i = int(cmp::merge_path(a.data(), na, b.data(), nb, size_t(d)));
            CheckedSeq seq{ab.data(), i, int(na), int(na) + d - i, total};
            uint32_t keys[ITEMS];
            int pos[ITEMS];
            cmp::serial_merge_select<ITEMS>(seq, i, int(na), int(na) + d - i, total, keys, pos);
            ++cases;
            const int count = std::min(ITEMS, total - d);
            bool ok = seq.bad_reads == 0;
            for (int k = 0; k < count && ok; ++k) {
                const Tagged& r = m[size_t(d + k)];
                const int want = r.side == 0 ? int(r.idx) : int(na + r.idx);
                ok = keys[k] == r.key && pos[k] == want;
            }
            if (!ok && !bad++)
                why = "ITEMS=" + std::to_string(ITEMS) + " na=" + std::to_string(na) + " nb=" + std::to_string(nb) +
                      " diag=" + std::to_string(d) + (seq.bad_reads ? " (read outside the lists)" : " (wrong output)");
        }
    }
}

static void test_serial_merge_select() {
    int cases = 0, bad = 0;
    std::string why;
    check_select<1>(100, cases, bad, why);
    check_select<3>(100, cases, bad, why);
    check_select<16>(200, cases, bad, why);
    check_select<32>(200, cases, bad, why);
    expect(bad == 0,
           "serial_merge_select equals the stable merge from every diagonal, reads only its lists (" +
               std::to_string(cases) + " cases)",
           why);
    // The test can fail: a merge whose ties go to b must be caught on duplicates.
    std::vector<uint32_t> a = {1, 2, 2}, b = {2, 3};
    auto m = brute_merge(a, b);
    std::vector<uint32_t> ab = {1, 2, 2, 2, 3};
    uint32_t keys[5];
    int pos[5];
    cmp::serial_merge_select<5>(ab.data(), 0, 3, 3, 5, keys, pos);
    bool ties_to_a = pos[1] == 1 && pos[2] == 2 && pos[3] == 3 && m[3].side == 1;
    expect(ties_to_a, "serial_merge_select takes equal keys from a first (stable), as the brute merge does");
}

static void test_warp_stripe() {
    int bad = 0;
    std::string why;
    for (int items : {1, 4, 8, 16, 17, 32}) {
        for (int threads : {32, 64, 128, 256, 512}) {
            const int tile = threads * items;
            for (int total : {tile, tile - 1, tile / 2 + 3, 33, 1}) {
                if (total < 1 || total > tile) continue;
                std::vector<int> writer(size_t(tile), -1), reader(size_t(tile), -1);
                for (int t = 0; t < threads; ++t) {
                    const int first = t * items, count = first < total ? std::min(items, total - first) : 0;
                    for (int it = 0; it < count; ++it) writer[size_t(first + it)] = t / 32;
                    for (int k = 0; k < items; ++k) {
                        const int x = cmp::warp_stripe(t, k, items);
                        if (x < 0 || x >= tile) {
                            if (!bad++) why = "position out of the tile";
                            continue;
                        }
                        if (x < total) {
                            if (reader[size_t(x)] != -1 && !bad++) why = "position read twice";
                            reader[size_t(x)] = t / 32;
                        }
                    }
                }
                for (int x = 0; x < total; ++x)
                    if ((reader[size_t(x)] != writer[size_t(x)] || writer[size_t(x)] < 0) && !bad++)
                        why = "items=" + std::to_string(items) + " threads=" + std::to_string(threads) +
                              " total=" + std::to_string(total) + ": position " + std::to_string(x) +
                              " written by warp " + std::to_string(writer[size_t(x)]) + ", read by warp " +
                              std::to_string(reader[size_t(x)]);
            }
        }
    }
    expect(bad == 0, "warp_stripe: every output is read back exactly once, by the warp that wrote it", why);
}

// The network exactly as block_bitonic_sort / 03 run it.
template <class K> static void bitonic_whole(std::vector<K>& v) {
    size_t n = v.size(), P = cmp::next_pow2(n);
    for (size_t k = 2; k <= P; k *= 2)
        for (size_t j = k / 2; j >= 1; j /= 2)
            for (size_t t = 0; t < P / 2; ++t) {
                size_t i, p;
                cmp::bitonic_pair(t, k, j, i, p);
                if (p < n) cmp::compare_exchange(v[i], v[p]);
            }
}
// 03's decomposition with a tile of T: tile sort (network up to next_pow2(count) per tile),
// then per stage k > T the global steps j >= T and the in-tile tail j < T (i + j < count).
static void bitonic_as_03(std::vector<uint32_t>& v, size_t T) {
    size_t n = v.size();
    for (size_t base = 0; base < n; base += T) {
        std::vector<uint32_t> tile(v.begin() + base, v.begin() + std::min(n, base + T));
        bitonic_whole(tile);
        std::copy(tile.begin(), tile.end(), v.begin() + base);
    }
    size_t P = cmp::next_pow2(n);
    for (size_t k = 2 * T; k <= P; k *= 2) {
        for (size_t j = k / 2; j >= T; j /= 2)
            for (size_t t = 0; t < P / 2; ++t) {
                size_t i, p;
                cmp::bitonic_pair(t, k, j, i, p);
                if (p < n) cmp::compare_exchange(v[i], v[p]);
            }
        for (size_t base = 0; base < n; base += T) {
            size_t count = std::min(T, n - base);
            for (size_t j = T / 2; j >= 1; j /= 2)
                for (size_t t = 0; t < T / 2; ++t) {
                    size_t i = (t / j) * 2 * j + t % j;
                    if (i + j < count) cmp::compare_exchange(v[base + i], v[base + i + j]);
                }
        }
    }
}
// The classic network (alternating directions) with the same skipping: the wrong/ program's bug.
static void bitonic_alternating_skip(std::vector<uint32_t>& v) {
    size_t n = v.size(), P = cmp::next_pow2(n);
    for (size_t k = 2; k <= P; k *= 2)
        for (size_t j = k / 2; j >= 1; j /= 2)
            for (size_t i = 0; i < P; ++i) {
                size_t p = i ^ j;
                if (p <= i || p >= n) continue;
                bool up = (i & k) == 0;
                if (up ? v[p] < v[i] : v[i] < v[p]) std::swap(v[i], v[p]);
            }
}

static void test_bitonic() {
    int bad = 0, bad03 = 0;
    std::string why, why03;
    for (size_t n = 0; n <= 300; ++n) {
        for (uint64_t seed = 0; seed < 3; ++seed) {
            std::vector<uint32_t> v(n);
            for (size_t i = 0; i < n; ++i) v[i] = rnd(seed + n * 7, i, seed == 2 ? 3 : 1u << 31);
            if (seed == 1 && n) v[n / 2] = 0xFFFFFFFFu;   // the largest key: no value is a sentinel
            auto ref = v;
            std::sort(ref.begin(), ref.end());
            auto a = v;
            bitonic_whole(a);
            if (a != ref && !bad++) why = "n=" + std::to_string(n);
            auto b = v;
            bitonic_as_03(b, 8);
            if (b != ref && !bad03++) why03 = "n=" + std::to_string(n);
        }
    }
    expect(bad == 0, "always-ascending bitonic with skipped partners sorts every n in 0..300", why);
    expect(bad03 == 0, "03's split of the network (tile sort, global steps, in-tile tails) sorts every n in 0..300",
           why03);
    int wrong_fails = 0, pow2_ok = 0;
    for (size_t n = 2; n <= 300; ++n) {
        std::vector<uint32_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = rnd(99, i + n * 1000, 1000);
        auto ref = v;
        std::sort(ref.begin(), ref.end());
        bitonic_alternating_skip(v);
        bool pow2 = (n & (n - 1)) == 0;
        if (pow2) pow2_ok += v == ref;
        else wrong_fails += v != ref;
    }
    expect(pow2_ok == 8 && wrong_fails > 100,
           "the alternating network with skipping sorts powers of two only (wrong/bitonic_power_of_two.cu)",
           "powers of two sorted: " + std::to_string(pow2_ok) + "/8, other n failing: " + std::to_string(wrong_fails));
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

static void test_key_order() {
    float a = 0.0f, b = -0.0f;
    cmp::compare_exchange(a, b);
    expect(bitsf(a) == 0x80000000u && bitsf(b) == 0u, "compare_exchange puts -0.0 before +0.0");
    float inf = std::numeric_limits<float>::infinity();
    float nan = fbits(0x7FC00000u), nneg = fbits(0xFFC00001u);
    float x = nan, y = inf;
    cmp::compare_exchange(x, y);
    bool ok1 = std::isinf(x) && std::isnan(y);
    x = nneg;
    y = inf;
    cmp::compare_exchange(x, y);
    bool ok2 = std::isinf(x) && std::isnan(y) && bitsf(y) == 0xFFC00001u;
    expect(ok1 && ok2, "compare_exchange puts every NaN (negative ones too) after +inf, bits kept");
    int32_t p = 5, q = -7;
    cmp::compare_exchange(p, q);
    expect(p == -7 && q == 5, "compare_exchange orders int32 by sign");
    std::vector<float> f = {3.0f, -0.0f, nan, -inf, 0.0f, nneg, inf, -1.0f, 1e-45f};
    bitonic_whole(f);
    bool ordered = true;
    for (size_t i = 1; i < f.size(); ++i) ordered &= !key_less(f[i], f[i - 1]);
    expect(ordered && bitsf(f[2]) == 0x80000000u && bitsf(f[3]) == 0u,
           "bitonic sorts specials in the lesson's float order");
}

static void test_checker_catches_unstable() {
    std::vector<uint32_t> keys_in = {5, 3, 5, 1, 3};
    // stable answer: keys 1 3 3 5 5, values 3 1 4 0 2
    std::vector<uint32_t> ko = {1, 3, 3, 5, 5}, vo = {3, 1, 4, 0, 2};
    expect(check_pairs(keys_in, ko, vo).ok, "check_pairs passes the stable answer");
    std::vector<uint32_t> vs = {3, 4, 1, 0, 2};   // equal keys 3 swapped
    expect(!check_pairs(keys_in, ko, vs).ok, "check_pairs fails equal keys swapped (an unstable merge)");
    std::vector<uint32_t> ks = {1, 3, 3, 5, 5}, vx = {3, 1, 1, 0, 2};   // a value duplicated
    expect(!check_pairs(keys_in, ks, vx).ok, "check_pairs fails a duplicated value");
}

int main() {
    test_merge_path();
    test_ranks_and_rank_merge();
    test_tiled_merge_pass();
    test_serial_merge_select();
    test_warp_stripe();
    test_bitonic();
    test_key_order();
    test_checker_catches_unstable();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
