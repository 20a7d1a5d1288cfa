// tests/common_host.cu — host tests of the shared harness (no GPU needed; no CUDA call is made).
// Option parsing, input generators, .npy round trips and malformed files, the error-text escapers,
// and the checkers, each shown to fail on a planted wrong answer. Prints one line per test and
// 'N passed, N failed'.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "../common/harness.cuh"

static int g_passed = 0, g_failed = 0;
static void expect(bool ok, const std::string& name, const std::string& why = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    (ok ? g_passed : g_failed)++;
}

static void test_parse_count() {
    struct Good {
        const char* text;
        uint64_t value;
    };
    for (Good g : {Good{"1000000", 1000000}, Good{"1<<24", 1u << 24}, Good{"2^24", 1u << 24}, Good{"16M", 16u << 20},
                   Good{"0", 0}, Good{"1", 1}, Good{"3K", 3072}, Good{"1G", 1u << 30}, Good{"2^31", 1ull << 31},
                   Good{"10^6", 1000000}}) {
        uint64_t v = 7;
        bool ok = course::parse_count(g.text, v);
        expect(ok && v == g.value, std::string("parse_count accepts '") + g.text + "'", "got " + std::to_string(v));
    }
    for (const char* bad : {"-3", "abc", "1e99", "1e6", "12x", "", "0x10", "1<<", "<<3", "2^", "1<<64", "2^99",
                            "99999999999999999999", "16MB", "1.5M", " 5", "5 ", "+5", "1<<-1"}) {
        uint64_t v = 7;
        expect(!course::parse_count(bad, v) && v == 7, std::string("parse_count rejects '") + bad + "'");
    }
}

template <class T> static bool nondecreasing(const std::vector<T>& v) {
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] < v[i - 1]) return false;
    return true;
}

template <class T> static void test_generators(const char* type) {
    std::string t = type;
    const size_t n = 100000;
    for (auto& d : course::common_dists()) {
        std::vector<T> a, b, c;
        course::generate(a, n, d, 1);
        course::generate(b, n, d, 1);
        course::generate(c, n, d, 2);
        expect(a == b && a.size() == n, "generate " + t + " " + d + " is reproducible from the seed");
        bool seed_matters = d == "sorted" || d == "reversed" || d == "equal" || a != c;
        expect(seed_matters, "generate " + t + " " + d + " changes with the seed");
    }
    std::vector<T> v;
    course::generate(v, n, "sorted", 3);
    expect(nondecreasing(v) && v.front() != v.back(), "generate " + t + " sorted is non-decreasing and not constant");
    course::generate(v, n, "reversed", 3);
    std::vector<T> r(v.rbegin(), v.rend());
    expect(nondecreasing(r) && v.front() != v.back(), "generate " + t + " reversed is non-increasing");
    course::generate(v, n, "equal", 3);
    expect(std::set<T>(v.begin(), v.end()).size() == 1 && v[0] != T(0) && v[0] != T(1),
           "generate " + t + " equal is one value, neither 0 nor 1");
    course::generate(v, n, "few", 3);
    size_t distinct = std::set<T>(v.begin(), v.end()).size();
    expect(distinct >= 8 && distinct <= 16, "generate " + t + " few has at most 16 distinct values",
           std::to_string(distinct));
    course::generate(v, n, "zipf", 3);
    std::map<T, size_t> freq;
    for (T x : v) freq[x]++;
    size_t top = 0;
    for (auto& kv : freq) top = std::max(top, kv.second);
    expect(top > n / 20 && freq.size() > 50, "generate " + t + " zipf has a heavy head and a long tail",
           "top " + std::to_string(top) + " distinct " + std::to_string(freq.size()));
    course::generate(v, n, "extremes", 3);
    auto edges = course::extreme_values<T>();
    bool all_edges = true;
    for (T x : v) {
        bool found = false;
        for (T e : edges) found |= course::same_bits(x, e);
        all_edges &= found;
    }
    expect(all_edges && std::set<T>(v.begin(), v.end()).size() >= 5,
           "generate " + t + " extremes uses the type's edges");
    course::generate(v, n, "uniform", 3);
    double mean = 0;
    for (T x : v) mean += double(x);
    mean /= n;
    double lo = double(std::numeric_limits<T>::lowest()), hi = double(std::numeric_limits<T>::max());
    if (std::is_floating_point_v<T>) {
        lo = -1;
        hi = 1;
    }
    double mid = 0.5 * (lo + hi), span = hi - lo;
    expect(std::fabs(mean - mid) < 0.02 * span, "generate " + t + " uniform is centred on its range",
           "mean " + std::to_string(mean));
    if constexpr (std::is_signed_v<T>) {
        bool neg = false;
        for (T x : v) neg |= x < T(0);
        expect(neg, "generate " + t + " uniform has negatives");
    }
    expect(!course::generate(v, 10, "no-such-dist", 1), "generate " + t + " refuses an unknown name");
}

static void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

static std::string npy_file(const std::string& header_dict, const std::string& payload, int major = 1) {
    std::string h = header_dict;
    size_t pre = major == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string s = "\x93NUMPY";
    s += char(major);
    s += char(0);
    if (major == 1) {
        s += char(h.size() & 255);
        s += char(h.size() >> 8);
    } else {
        s += char(h.size() & 255);
        s += char((h.size() >> 8) & 255);
        s += char(0);
        s += char(0);
    }
    return s + h + payload;
}

template <class T> static bool npy_refuses(const std::string& path, const std::string& needle) {
    try {
        course::load_npy<T>(path);
    } catch (const course::NpyError& e) { return std::string(e.what()).find(needle) != std::string::npos; }
    return false;
}

static void test_npy() {
    const std::string dir = "/tmp/course_npy_test_";
    std::vector<int32_t> a = {5, -7, 2147483647, (int32_t)0x80000000, 0};
    course::save_npy(dir + "a.npy", a.data(), a.size());
    expect(course::load_npy<int32_t>(dir + "a.npy") == a, "npy int32 round trip");
    std::vector<float> f = {1.5f, -0.0f, std::numeric_limits<float>::infinity(), 3e-39f};
    course::save_npy(dir + "f.npy", f.data(), f.size());
    auto f2 = course::load_npy<float>(dir + "f.npy");
    bool same = f2.size() == f.size();
    for (size_t i = 0; same && i < f.size(); ++i) same = course::same_bits(f[i], f2[i]);
    expect(same, "npy float32 round trip keeps the bits");
    std::vector<uint8_t> b = {0, 255, 7};
    course::save_npy(dir + "b.npy", b.data(), b.size());
    expect(course::load_npy<uint8_t>(dir + "b.npy") == b, "npy uint8 round trip");
    std::vector<double> d = {1.0 / 3};
    course::save_npy(dir + "d.npy", d.data(), d.size());
    expect(course::load_npy<double>(dir + "d.npy") == d, "npy float64 round trip");
    std::vector<uint64_t> u = {1ull << 63};
    course::save_npy(dir + "u.npy", u.data(), u.size());
    expect(course::load_npy<uint64_t>(dir + "u.npy") == u, "npy uint64 round trip");
    std::vector<uint32_t> empty;
    course::save_npy(dir + "e.npy", empty.data(), 0);
    expect(course::load_npy<uint32_t>(dir + "e.npy").empty(), "npy empty array round trip");

    std::string payload(12, '\0');
    payload[0] = 9;
    write_bytes(dir + "v2.npy", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", payload, 2));
    auto v2 = course::load_npy<int32_t>(dir + "v2.npy");
    expect(v2.size() == 3 && v2[0] == 9, "npy format 2.0 is read");
    write_bytes(dir + "v1.npy", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", payload));
    expect(course::load_npy<int32_t>(dir + "v1.npy").size() == 3, "npy hand-made 1.0 file is read");

    expect(npy_refuses<int32_t>(dir + "missing.npy", "cannot open"), "npy: missing file refused");
    write_bytes(dir + "junk.npy", "hello world, not numpy");
    expect(npy_refuses<int32_t>(dir + "junk.npy", "bad magic"), "npy: bad magic refused");
    write_bytes(dir + "trunc.npy", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (30,), }", payload));
    expect(npy_refuses<int32_t>(dir + "trunc.npy", "truncated"), "npy: truncated data refused");
    write_bytes(dir + "trunch.npy",
                npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", "").substr(0, 30));
    expect(npy_refuses<int32_t>(dir + "trunch.npy", "truncated"), "npy: truncated header refused");
    write_bytes(dir + "fort.npy", npy_file("{'descr': '<i4', 'fortran_order': True, 'shape': (3,), }", payload));
    expect(npy_refuses<int32_t>(dir + "fort.npy", "Fortran"), "npy: Fortran order refused");
    write_bytes(dir + "big.npy", npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", payload));
    expect(npy_refuses<int32_t>(dir + "big.npy", "big-endian"), "npy: big-endian refused");
    write_bytes(dir + "f8.npy",
                npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')));
    expect(npy_refuses<int32_t>(dir + "f8.npy", "dtype '<f8'"), "npy: wrong dtype refused");
    write_bytes(dir + "2d.npy", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 1), }", payload));
    expect(npy_refuses<int32_t>(dir + "2d.npy", "1-D"), "npy: 2-D array refused");
    write_bytes(dir + "noshape.npy", npy_file("{'descr': '<i4', 'fortran_order': False, }", payload));
    expect(npy_refuses<int32_t>(dir + "noshape.npy", "malformed"), "npy: header without shape refused");
    write_bytes(dir + "v9.npy", std::string("\x93NUMPY\x09\x00\x00\x00", 10));
    expect(npy_refuses<int32_t>(dir + "v9.npy", "version"), "npy: unknown format version refused");
}

static void test_checkers() {
    std::vector<int32_t> want = {1, 2, 3, 4, 5, 6};
    auto got = want;
    expect(course::compare_exact(got.data(), want.data(), want.size()).ok, "compare_exact passes equal arrays");
    got[4] = 99;
    auto r = course::compare_exact(got.data(), want.data(), want.size());
    expect(!r.ok && r.message.find("[4] expected 5 got 99") != std::string::npos,
           "compare_exact fails a planted wrong element and names it", r.message);
    got = want;
    std::memset(&got[2], 0xAB, sizeof(int32_t));   // what DeviceArray::poison leaves behind
    expect(!course::compare_exact(got.data(), want.data(), want.size()).ok,
           "compare_exact fails an unwritten (poisoned) element");
    std::vector<int32_t> many(1000, 1), many_want(1000, 2);
    r = course::compare_exact(many.data(), many_want.data(), many.size());
    expect(!r.ok && r.message.find("1000 of 1000") != std::string::npos && r.message.find("[0]") != std::string::npos &&
               r.message.find("[5]") == std::string::npos,
           "compare_exact counts all mismatches and shows the first five", r.message);
    float fz = 0.0f, fnz = -0.0f;
    expect(!course::compare_exact(&fnz, &fz, 1).ok, "compare_exact tells -0.0 from +0.0");
    float nan = std::nanf("");
    expect(course::compare_exact(&nan, &nan, 1).ok, "compare_exact: the same NaN bits are equal");

    std::vector<float> fg = {1.0f, 2.0f, 3.0f};
    std::vector<double> fw = {1.0, 2.0, 3.0}, scale = {1, 2, 3};
    expect(course::compare_close(fg.data(), fw.data(), scale.data(), 3, 1e-6, 0).ok,
           "compare_close passes exact floats");
    fg[1] = 2.0001f;
    expect(!course::compare_close(fg.data(), fw.data(), scale.data(), 3, 1e-6, 0).ok,
           "compare_close fails beyond tolerance");
    expect(course::compare_close(fg.data(), fw.data(), scale.data(), 3, 1e-4, 0).ok,
           "compare_close passes within tolerance");
    fg[1] = std::nanf("");
    expect(!course::compare_close(fg.data(), fw.data(), scale.data(), 3, 1e9, 1e9).ok,
           "compare_close: NaN never passes");
    fg[1] = std::numeric_limits<float>::infinity();
    expect(!course::compare_close(fg.data(), fw.data(), scale.data(), 3, 1e9, 1e9).ok,
           "compare_close: inf never passes a finite reference");
}

static void test_battery_sizes() {
    auto s = course::battery_sizes(4096, false);
    std::set<uint64_t> have(s.begin(), s.end());
    bool ok = true;
    for (uint64_t n : {0ull, 1ull, 31ull, 32ull, 33ull, 1023ull, 1024ull, 1025ull, 4095ull, 4096ull, 4097ull,
                       1000003ull, 1ull << 20, 1ull << 24, 1ull << 28})
        ok &= have.count(n) == 1;
    expect(ok, "battery sizes cover the awkward sizes, a prime and 2^28");
    auto q = course::battery_sizes(4096, true);
    expect(*std::max_element(q.begin(), q.end()) == (1u << 20), "--quick battery stops at 2^20");
    auto w = course::sweep_sizes();
    expect(w.front() == 1024 && w.back() == (1u << 28) && w.size() == 10, "sweep sizes are 2^10..2^28 step x4");
}

// The two escapers of common/text.h: what each keeps, escapes and cuts.
static void test_text() {
    expect(course::printable("ab\ncd") == "ab\\x0acd", "printable escapes a newline as \\x0a");
    expect(course::printable("caf\xc3\xa9\x7f") == "caf\\xc3\\xa9\\x7f", "printable escapes UTF-8 bytes and DEL");
    expect(course::printable(std::string(100, 'a')) == std::string(60, 'a') + "...", "printable cuts at 60 with '...'");
    expect(course::printable(std::string(60, 'a')) == std::string(60, 'a'), "printable keeps 60 characters whole");
    expect(course::printable("\x01\x02", 4) == "\\x01...", "printable counts the escapes' characters");
    expect(course::one_line("caf\xc3\xa9\r\n\x1b[31m\x7f") == "caf\xc3\xa9\\x0d\\x0a\\x1b[31m\\x7f",
           "one_line keeps UTF-8, escapes control characters and DEL");
    expect(course::one_line(std::string(3000, 'a')) == std::string(2000, 'a'),
           "one_line stops at 2000 characters, no mark");
}

int main() {
    test_parse_count();
    test_generators<int32_t>("int32");
    test_generators<uint32_t>("uint32");
    test_generators<float>("float32");
    test_generators<uint8_t>("uint8");
    test_npy();
    test_checkers();
    test_battery_sizes();
    test_text();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
