// tests/fuzz_readers.cpp — fuzzes the course's file readers (host only, no GPU, no CUDA call).
// Plain C++ (no CUDA), built by tests/run_tests.py with the host compiler under AddressSanitizer
// and UndefinedBehaviorSanitizer:  g++ -std=c++17 -O1 -g -fsanitize=address,undefined tests/fuzz_readers.cpp
//
// From valid seed files, thousands of mutated ones are made (flipped bytes, truncations at every
// header boundary, lying shapes and counts, wrong dtypes, huge numbers, NUL bytes, non-UTF-8 bytes,
// very long lines, comments everywhere, inf/nan/hex values) and given to
//   course::load_npy<T>, course::load_npy_2d<T>   (common/npy.h)
//   spmv::read_mtx                                (lesson03_compact_spmv/mtx.h)
// Each file must be either
//   * accepted, with exactly what an independent reading (written here, differently) finds, or
//   * refused with the reader's own error type and a one-line printable message,
// and never crash (CI runs this under AddressSanitizer + UBSan), hang (an alarm ends the run), or
// take memory beyond the file's size plus a bound (a counting operator new tracks the peak).
// Seeded and reproducible: a failure prints the case's seed and the mutated bytes in hex, and
// `fuzz_readers --seed S --cases 1` replays that one case.
//
//   fuzz_readers [--cases N per reader, default 12000] [--seed S] [--plant]
// --plant shows that the fuzzer can fail: it fuzzes planted_load_npy below, a copy of load_npy
// with one real defect (it ignores bytes after the data), and checks that a too-large allocation
// shows in the memory accounting and a flipped byte in the comparison. Each of the three must be
// reported, so that run must FAIL: it ends '0 passed, 3 failed' (tests/run_tests.py checks this).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

#include "../common/npy.h"
#include "../lesson03_compact_spmv/mtx.h"

// ---- memory accounting: every operator new goes through here ---------------------------------
static std::atomic<long long> g_live{0}, g_peak{0};
static void* counted_alloc(size_t n) {
    void* p = std::malloc(n + 16);
    if (!p) throw std::bad_alloc();
    *static_cast<size_t*>(p) = n;
    long long now = g_live += (long long)n;
    long long peak = g_peak.load();
    while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
    return static_cast<char*>(p) + 16;
}
static void counted_free(void* q) {
    if (!q) return;
    char* p = static_cast<char*>(q) - 16;
    g_live -= (long long)*reinterpret_cast<size_t*>(p);
    std::free(p);
}
void* operator new(size_t n) { return counted_alloc(n); }
void* operator new[](size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, size_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t) noexcept { counted_free(p); }

// ---- a small deterministic generator (splitmix64) --------------------------------------------
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    bool coin(int one_in) { return below(uint64_t(one_in)) == 0; }
};

using Bytes = std::string;
static int g_passed = 0, g_failed = 0, g_shown = 0;
static std::string g_path;

static std::string hex(const Bytes& b, size_t max = 400) {
    std::string out;
    char t[4];
    for (size_t i = 0; i < b.size() && i < max; ++i) {
        std::snprintf(t, sizeof t, "%02x", (unsigned char)b[i]);
        out += t;
    }
    if (b.size() > max) out += "...(" + std::to_string(b.size()) + " bytes)";
    return out;
}

static void fail_case(const char* reader, uint64_t seed, const Bytes& file, const std::string& why) {
    ++g_failed;
    if (g_shown++ < 10)
        std::printf("FAIL %s case seed=%llu: %s\n     bytes: %s\n", reader, (unsigned long long)seed, why.c_str(),
                    hex(file).c_str());
}

static void write_file(const Bytes& b) {
    FILE* f = std::fopen(g_path.c_str(), "wb");
    if (!f) {
        std::perror("fuzz_readers: temp file");
        std::exit(2);
    }
    if (!b.empty()) std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
}

// The course promises a one-line error: no newline, printable ASCII, not empty, not a novel.
static bool one_clear_line(const std::string& m) {
    if (m.empty() || m.size() > 600) return false;
    for (unsigned char c : m)
        if (c < 32 || c >= 127) return false;
    return true;
}

// ================================ .npy ==========================================================
// The independent reading: the dict is parsed as the Python literal numpy writes
// ({'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }), keys in any order, nothing else.
struct NpyRef {
    bool ok = false;
    std::string descr;
    std::vector<uint64_t> dims;
    Bytes data;
};

static NpyRef ref_npy(const Bytes& f, size_t elem_size) {
    NpyRef r;
    if (f.size() < 10 || f.compare(0, 6, "\x93NUMPY") != 0) return r;
    unsigned ver = (unsigned char)f[6];
    size_t hl, pre;
    if (ver == 1) {
        hl = (unsigned char)f[8] | ((unsigned char)f[9] << 8);
        pre = 10;
    } else if (ver == 2 || ver == 3) {
        if (f.size() < 12) return r;
        hl = (size_t)(unsigned char)f[8] | ((size_t)(unsigned char)f[9] << 8) | ((size_t)(unsigned char)f[10] << 16) |
             ((size_t)(unsigned char)f[11] << 24);
        pre = 12;
    } else return r;
    if (hl > (1u << 20) || pre + hl > f.size()) return r;
    std::string h = f.substr(pre, hl);
    size_t i = 0;
    auto ws = [&] {
        while (i < h.size() && (h[i] == ' ' || h[i] == '\n')) ++i;
    };
    auto eat = [&](char c) {
        ws();
        if (i < h.size() && h[i] == c) {
            ++i;
            return true;
        }
        return false;
    };
    std::map<std::string, std::string> kv;
    if (!eat('{')) return r;
    while (true) {
        if (eat('}')) break;
        if (!eat('\'')) return r;
        size_t q = h.find('\'', i);
        if (q == std::string::npos) return r;
        std::string key = h.substr(i, q - i);
        i = q + 1;
        if (!eat(':')) return r;
        ws();
        std::string val;
        if (i < h.size() && h[i] == '\'') {
            size_t q2 = h.find('\'', i + 1);
            if (q2 == std::string::npos) return r;
            val = h.substr(i, q2 - i + 1);
            i = q2 + 1;
        } else if (i < h.size() && h[i] == '(') {
            size_t q2 = h.find(')', i);
            if (q2 == std::string::npos) return r;
            val = h.substr(i, q2 - i + 1);
            i = q2 + 1;
        } else if (h.compare(i, 5, "False") == 0) {
            val = "False";
            i += 5;
        } else if (h.compare(i, 4, "True") == 0) {
            val = "True";
            i += 4;
        } else return r;
        if (kv.count(key)) return r;
        kv[key] = val;
        if (eat(',')) continue;
        if (eat('}')) break;
        return r;
    }
    ws();
    if (i != h.size()) return r;   // anything after the dict but padding and the newline
    if (kv.size() != 3 || !kv.count("descr") || !kv.count("fortran_order") || !kv.count("shape")) return r;
    if (kv["fortran_order"] != "False") return r;
    std::string d = kv["descr"];
    r.descr = d.substr(1, d.size() - 2);
    std::string s = kv["shape"];
    std::string body = s.substr(1, s.size() - 2);
    // "3," "3, 4" "3, 4," : numbers and commas, spaces allowed around them
    size_t k = 0;
    uint64_t elements = 1;
    while (k < body.size()) {
        while (k < body.size() && body[k] == ' ') ++k;
        if (k == body.size()) break;
        if (!(body[k] >= '0' && body[k] <= '9')) return r;
        uint64_t v = 0;
        while (k < body.size() && body[k] >= '0' && body[k] <= '9') {
            if (v > (1ull << 50)) return r;
            v = v * 10 + uint64_t(body[k++] - '0');
        }
        r.dims.push_back(v);
        while (k < body.size() && body[k] == ' ') ++k;
        if (k < body.size() && body[k] != ',') return r;
        if (k < body.size()) ++k;
    }
    if (r.dims.empty()) return r;
    for (uint64_t v : r.dims) {
        if (v && elements > (1ull << 50) / v) return r;
        elements *= v;
    }
    if (f.size() - pre - hl != elements * elem_size) return r;
    r.data = f.substr(pre + hl);
    r.ok = true;
    return r;
}

static Bytes npy_file(const std::string& descr, const std::string& shape, const Bytes& payload, int version = 1) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t pre = version == 1 ? 10 : 12;
    h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    Bytes f("\x93NUMPY", 6);
    f += char(version);
    f += char(0);
    f += char(h.size() & 255);
    f += char((h.size() >> 8) & 255);
    if (version != 1) {
        f += char((h.size() >> 16) & 255);
        f += char((h.size() >> 24) & 255);
    }
    return f + h + payload;
}

static Bytes random_payload(Rng& g, size_t bytes) {
    Bytes b(bytes, '\0');
    for (auto& c : b) c = char(g.next());
    return b;
}

// One mutation of a valid .npy file.
static Bytes mutate_npy(Rng& g, Bytes f) {
    static const char* descrs[] = {"<i4", "<u4", "<f4", "<f8",     "<i8", "|u1", "|i1", ">i4",
                                   "=i4", "<f2", "O",   "<i4\x00", "",    "'",   "<U3", "\xff\xfe"};
    static const char* shapes[] = {"(99999999999999,)",
                                   "(0,)",
                                   "()",
                                   "(3,4)",
                                   "(4, 3)",
                                   "(18446744073709551615,)",
                                   "(1125899906842624,)",
                                   "(-1,)",
                                   "(3,,)",
                                   "(,)",
                                   "(2, 2, 2)",
                                   "(12)",
                                   "(0x10,)",
                                   "(3, 0)",
                                   "(1e3,)",
                                   "(\x80,)",
                                   "(3, 4",
                                   "3, 4)"};
    size_t hl_end =
        f.size() > 10 ? std::min<size_t>(f.size(), 10 + ((unsigned char)f[8] | ((unsigned char)f[9] << 8))) : f.size();
    switch (g.below(9)) {
        case 0: {   // flip a few bytes anywhere (mostly in the header)
            int k = 1 + int(g.below(6));
            for (int i = 0; i < k && !f.empty(); ++i) {
                size_t at = g.coin(3) ? g.below(f.size()) : g.below(hl_end);
                f[at] = char(f[at] ^ (1 << g.below(8)));
            }
            break;
        }
        case 1: f.resize(g.below(hl_end + 1)); break;     // cut inside the header
        case 2: f.resize(g.below(f.size() + 1)); break;   // cut anywhere
        case 3: {                                         // a lying shape
            size_t a = f.find("'shape': ");
            if (a != std::string::npos) {
                size_t b = f.find(')', a);
                if (b != std::string::npos)
                    f.replace(a + 9, b - a - 8, shapes[g.below(sizeof shapes / sizeof *shapes)]);
            }
            break;
        }
        case 4: {   // a wrong dtype
            size_t a = f.find("'descr': '");
            if (a != std::string::npos) {
                size_t b = f.find('\'', a + 10);
                if (b != std::string::npos)
                    f.replace(a + 10, b - a - 10, descrs[g.below(sizeof descrs / sizeof *descrs)]);
            }
            break;
        }
        case 5: {   // a lying header length
            if (f.size() >= 10) {
                uint64_t v = g.coin(2) ? g.below(1 << 16) : g.next();
                f[8] = char(v);
                f[9] = char(v >> 8);
                if (g.coin(3)) f[6] = char(g.below(5));
            }
            break;
        }
        case 6: {   // NUL and non-UTF-8 bytes into the header
            int k = 1 + int(g.below(4));
            for (int i = 0; i < k && hl_end > 10; ++i)
                f[10 + g.below(hl_end - 10)] = g.coin(2) ? '\0' : char(0x80 + g.below(128));
            break;
        }
        case 7: f += random_payload(g, 1 + g.below(9)); break;   // extra bytes after the data
        case 8: {                                                // fortran order, or a key dropped
            size_t a = f.find(g.coin(2) ? "False" : "'shape'");
            if (a != std::string::npos) f.replace(a, 5, g.coin(2) ? "True " : "     ");
            break;
        }
    }
    return f;
}

// ---- --plant: load_npy with a real defect ----------------------------------------------------
// load_npy with one mistake: the header is parsed by the real code (course::parse_npy_header: the
// same dict, dtype, order and shape rules), but the file must hold at least the bytes its shape
// needs, not exactly those ('<' where read_npy_header has '!='). Bytes after the data are then
// silently ignored, so a file whose shape claims less than it holds (numpy never writes one) passes
// as valid. --plant fuzzes it like the real reader; the fuzzer must report the files it accepts
// that the independent reading refuses.
template <class T> static std::vector<T> planted_load_npy(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw course::NpyError(path + ": cannot open");
    struct Closer {
        FILE* f;
        ~Closer() { std::fclose(f); }
    } closer{f};
    course::NpyHeader h = course::parse_npy_header<T>(f, path);
    if (h.dims.size() != 1) throw course::NpyError(path + ": not a 1-D array");
    if (h.data_bytes < h.elements * sizeof(T)) throw course::NpyError(path + ": truncated data");   // THE DEFECT
    std::vector<T> out(h.elements);
    if (h.elements && std::fread(out.data(), sizeof(T), h.elements, f) != h.elements)
        throw course::NpyError(path + ": truncated data");
    return out;
}

// What a reader returned is what the independent reading found, byte for byte.
template <class T> static bool same_data(const std::vector<T>& got, const NpyRef& ref) {
    return got.size() * sizeof(T) == ref.data.size() &&
           (got.empty() || std::memcmp(got.data(), ref.data.data(), ref.data.size()) == 0);
}

template <class T> static void check_npy_case(uint64_t seed, const Bytes& file, bool two_d, bool planted = false) {
    const char* reader = planted ? "planted load_npy" : two_d ? "load_npy_2d" : "load_npy";
    write_file(file);
    NpyRef ref = ref_npy(file, sizeof(T));
    bool ref_ok = ref.ok && ref.dims.size() == (two_d ? 2u : 1u) &&
                  (ref.descr == course::npy_descr<T>() ||
                   (ref.descr.size() == 3 && ref.descr[0] == '=' &&
                    ref.descr.substr(1) == std::string(course::npy_descr<T>()).substr(1)) ||
                   (sizeof(T) == 1 && ref.descr.size() == 3 &&
                    ref.descr.substr(1) == std::string(course::npy_descr<T>()).substr(1)));
    long long before = g_live.load();
    g_peak = before;
    try {
        std::vector<T> got;
        uint64_t rows = 0, cols = 0;
        if (two_d) got = course::load_npy_2d<T>(g_path, rows, cols);
        else got = planted ? planted_load_npy<T>(g_path) : course::load_npy<T>(g_path);
        long long used = g_peak.load() - before;
        if (used > (long long)file.size() + (2 << 20))
            fail_case(reader, seed, file, "took " + std::to_string(used) + " bytes");
        if (!ref_ok) {
            fail_case(reader, seed, file, "accepted a file the independent reading refuses");
            return;
        }
        bool same = same_data(got, ref);
        if (two_d) same = same && rows == ref.dims[0] && cols == ref.dims[1];
        if (!same) {
            fail_case(reader, seed, file, "accepted with data or shape unlike the independent reading");
            return;
        }
        ++g_passed;
    } catch (const course::NpyError& e) {
        long long used = g_peak.load() - before;
        if (used > (long long)file.size() + (2 << 20)) {
            fail_case(reader, seed, file, "refused, but took " + std::to_string(used) + " bytes first");
            return;
        }
        if (!one_clear_line(e.what())) {
            fail_case(reader, seed, file, std::string("unclear message: ") + course::printable(e.what(), 200));
            return;
        }
        if (ref_ok) {
            fail_case(reader, seed, file, std::string("refused a valid file: ") + e.what());
            return;
        }
        ++g_passed;
    } catch (const std::exception& e) {
        fail_case(reader, seed, file, std::string("threw something else: ") + e.what());
    }
}

static void fuzz_npy(uint64_t seed0, int cases, bool two_d, bool planted = false) {
    for (int c = 0; c < cases; ++c) {
        uint64_t seed = seed0 * 1000003 + uint64_t(c) + (two_d ? 777777 : 0);
        Rng g{seed};
        Bytes valid;
        int kind = int(g.below(4));
        if (two_d) {
            uint64_t r = g.below(5), k = g.below(7);
            std::string shape = "(" + std::to_string(r) + ", " + std::to_string(k) + ")";
            valid = npy_file("<f4", shape, random_payload(g, r * k * 4), g.coin(4) ? 2 : 1);
        } else {
            uint64_t n = g.coin(5) ? 0 : g.below(40);
            std::string shape = "(" + std::to_string(n) + ",)";
            valid = kind == 3 ? npy_file("|u1", shape, random_payload(g, n), 1)
                              : npy_file(kind == 1 ? "<f4" : "<i4", shape, random_payload(g, n * 4), g.coin(4) ? 2 : 1);
        }
        Bytes file = valid;
        int rounds = g.coin(6) ? 0 : 1 + int(g.below(3));   // some valid files stay valid
        for (int i = 0; i < rounds; ++i) file = mutate_npy(g, file);
        if (two_d) check_npy_case<float>(seed, file, true);
        else if (kind == 3) check_npy_case<uint8_t>(seed, file, false, planted);
        else if (kind == 1) check_npy_case<float>(seed, file, false, planted);
        else check_npy_case<int32_t>(seed, file, false, planted);
    }
    // Truncation at every byte of a small valid file's header and data.
    Rng g{seed0};
    Bytes f = npy_file("<i4", "(5,)", random_payload(g, 20));
    for (size_t cut = 0; cut <= f.size(); ++cut) check_npy_case<int32_t>(seed0, f.substr(0, cut), false, planted);
}

// ================================ .mtx ==========================================================
// The independent reading: tokens split with a different routine, numbers read with C++ streams
// (which take neither hexadecimal nor inf/nan), entries summed in a map.
struct MtxRef {
    bool ok = false;
    int64_t rows = 0, cols = 0;
    std::map<std::pair<int64_t, int64_t>, double> a;
};

static std::vector<std::string> tokens(const std::string& line) {
    std::vector<std::string> t;
    std::string cur;
    for (char c : line) {
        if (c == ' ' || c == '\t' || c == '\r') {
            if (!cur.empty()) t.push_back(cur);
            cur.clear();
        } else cur += c;
    }
    if (!cur.empty()) t.push_back(cur);
    return t;
}
static bool ref_int(const std::string& s, int64_t& v) {
    if (s.empty()) return false;
    size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (i == s.size() || s.size() - i > 19) return false;
    unsigned __int128 acc = 0;
    for (size_t k = i; k < s.size(); ++k) {
        if (s[k] < '0' || s[k] > '9') return false;
        acc = acc * 10 + unsigned(s[k] - '0');
    }
    if (acc > (unsigned __int128)INT64_MAX) return false;
    v = (int64_t)acc;
    if (s[0] == '-') v = -v;
    return true;
}
static bool ref_real(const std::string& s, double& v) {
    // decimal only: [sign] digits [. digits] [e [sign] digits], at least one digit in the mantissa
    size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t d0 = i;
    while (i < n && isdigit((unsigned char)s[i])) ++i;
    size_t digits = i - d0;
    if (i < n && s[i] == '.') {
        ++i;
        size_t d1 = i;
        while (i < n && isdigit((unsigned char)s[i])) ++i;
        digits += i - d1;
    }
    if (!digits) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        size_t d2 = i;
        while (i < n && isdigit((unsigned char)s[i])) ++i;
        if (i == d2) return false;
    }
    if (i != n) return false;
    v = std::strtod(s.c_str(), nullptr);
    return std::isfinite(v);
}
static std::string lower_s(std::string s) {
    for (auto& c : s) c = char(std::tolower((unsigned char)c));
    return s;
}

static MtxRef ref_mtx(const Bytes& f) {
    MtxRef r;
    std::vector<std::string> lines;
    size_t p = 0;
    while (p < f.size()) {
        size_t q = f.find('\n', p);
        if (q == std::string::npos) q = f.size();
        lines.push_back(f.substr(p, q - p));
        p = q + 1;
    }
    if (lines.empty()) return r;
    auto h = tokens(lines[0]);
    if (h.size() != 5 || lower_s(h[0]) != "%%matrixmarket" || lower_s(h[1]) != "matrix" ||
        lower_s(h[2]) != "coordinate")
        return r;
    std::string field = lower_s(h[3]), sym = lower_s(h[4]);
    if (field != "real" && field != "integer" && field != "pattern") return r;
    if (sym != "general" && sym != "symmetric") return r;
    size_t li = 1;
    int64_t decl = -1;
    for (; li < lines.size(); ++li) {
        auto t = tokens(lines[li]);
        if (t.empty() || t[0][0] == '%') continue;
        if (t.size() != 3 || !ref_int(t[0], r.rows) || !ref_int(t[1], r.cols) || !ref_int(t[2], decl)) return r;
        ++li;
        break;
    }
    if (decl < 0 || r.rows < 0 || r.cols < 0 || r.rows > INT32_MAX || r.cols > INT32_MAX) return r;
    if (sym == "symmetric" && r.rows != r.cols) return r;
    int64_t believable = (int64_t(1) << 20) + 8 * int64_t(f.size());
    if (r.rows > believable || r.cols > believable) return r;
    int64_t seen = 0;
    for (; li < lines.size(); ++li) {
        auto t = tokens(lines[li]);
        if (t.empty() || t[0][0] == '%') continue;
        if (seen == decl) return r;
        if (t.size() != (field == "pattern" ? 2u : 3u)) return r;
        int64_t i, j;
        double x = 1.0;
        if (!ref_int(t[0], i) || !ref_int(t[1], j)) return r;
        if (field == "integer") {
            int64_t iv;
            if (!ref_int(t[2], iv)) return r;
            x = double(iv);
        } else if (field == "real" && !ref_real(t[2], x)) return r;
        if (i < 1 || i > r.rows || j < 1 || j > r.cols) return r;
        r.a[{i - 1, j - 1}] += x;
        if (sym == "symmetric" && i != j) r.a[{j - 1, i - 1}] += x;
        ++seen;
    }
    if (seen != decl) return r;
    r.ok = true;
    return r;
}

static Bytes mtx_seed(Rng& g) {
    std::string field = std::vector<std::string>{"real", "integer", "pattern"}[g.below(3)];
    bool sym = g.coin(3);
    int64_t rows = 1 + int64_t(g.below(6)), cols = sym ? rows : 1 + int64_t(g.below(6));
    std::string nl = g.coin(5) ? "\r\n" : "\n";
    std::vector<std::string> ent;
    int64_t m = int64_t(g.below(8));
    for (int64_t e = 0; e < m; ++e) {
        int64_t i = 1 + int64_t(g.below(uint64_t(rows))), j = 1 + int64_t(g.below(uint64_t(cols)));
        if (sym && j > i) std::swap(i, j);
        std::string line = std::to_string(i) + " " + std::to_string(j);
        if (field == "real") {
            char b[40];
            std::snprintf(b, sizeof b, " %.6g", double(int64_t(g.below(2000)) - 1000) / 7.0);
            line += b;
        }
        if (field == "integer") line += " " + std::to_string(int64_t(g.below(200)) - 100);
        ent.push_back(line);
    }
    Bytes f = "%%MatrixMarket matrix coordinate " + field + (sym ? " symmetric" : " general") + nl;
    if (g.coin(2)) f += "% a comment" + nl;
    f += std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(m) + nl;
    for (auto& e : ent) {
        f += e + nl;
        if (g.coin(6)) f += nl;
    }
    return f;
}

static Bytes mutate_mtx(Rng& g, Bytes f) {
    static const char* words[] = {"99999999999",
                                  "2147483647",
                                  "2147483648",
                                  "-1",
                                  "0",
                                  "1e400",
                                  "-1e400",
                                  "inf",
                                  "nan",
                                  "NaN",
                                  "0x1p3",
                                  "0x10",
                                  "1.5e",
                                  "+",
                                  "-",
                                  ".",
                                  "1.",
                                  ".5",
                                  "1e5",
                                  "abc",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "\xff\xfe",
                                  "1\x00",
                                  "%%",
                                  "1e-400"};
    std::vector<size_t> starts{0};
    for (size_t i = 0; i < f.size(); ++i)
        if (f[i] == '\n') starts.push_back(i + 1);
    size_t line_at = starts[g.below(starts.size())];
    switch (g.below(8)) {
        case 0: {   // flip a few bytes
            int k = 1 + int(g.below(4));
            for (int i = 0; i < k && !f.empty(); ++i) {
                size_t at = g.below(f.size());
                f[at] = char(f[at] ^ (1 << g.below(8)));
            }
            break;
        }
        case 1: f.resize(g.below(f.size() + 1)); break;
        case 2: {   // replace one token with a hostile word
            std::vector<std::pair<size_t, size_t>> toks;
            size_t i = 0;
            while (i < f.size()) {
                while (i < f.size() && (f[i] == ' ' || f[i] == '\n' || f[i] == '\r' || f[i] == '\t')) ++i;
                size_t s = i;
                while (i < f.size() && !(f[i] == ' ' || f[i] == '\n' || f[i] == '\r' || f[i] == '\t')) ++i;
                if (i > s) toks.push_back({s, i - s});
            }
            if (!toks.empty()) {
                auto t = toks[g.below(toks.size())];
                const char* w = words[g.below(sizeof words / sizeof *words)];
                f.replace(t.first, t.second, std::string(w, std::strlen(w) + (w[0] == '1' && w[1] == 0 ? 1 : 0)));
            }
            break;
        }
        case 3: f.insert(line_at, g.coin(2) ? "% comment % with %% marks\n" : "\n"); break;   // comments everywhere
        case 4:
            f.insert(line_at, std::string(2000 + g.below(20000), g.coin(2) ? ' ' : '7') + "\n");
            break;   // a long line
        case 5: f.insert(g.below(f.size() + 1), 1, g.coin(2) ? '\0' : char(0x80 + g.below(128))); break;
        case 6: {   // duplicate or drop a line
            size_t e = f.find('\n', line_at);
            std::string line = f.substr(line_at, e == std::string::npos ? std::string::npos : e - line_at + 1);
            if (g.coin(2)) f.insert(line_at, line);
            else f.erase(line_at, line.size());
            break;
        }
        case 7: {   // a lying size line
            size_t a = f.find('\n');
            while (a != std::string::npos && a + 1 < f.size() && (f[a + 1] == '%' || f[a + 1] == '\n'))
                a = f.find('\n', a + 1);
            if (a != std::string::npos) {
                size_t e = f.find('\n', a + 1);
                std::string big = std::to_string(g.coin(2) ? g.below(1ull << 31) : g.below(50));
                f.replace(a + 1, (e == std::string::npos ? f.size() : e) - a - 1,
                          g.coin(3) ? big + " " + big + " " + big : "3 3 " + big);
            }
            break;
        }
    }
    return f;
}

static void check_mtx_case(uint64_t seed, const Bytes& file) {
    write_file(file);
    MtxRef ref = ref_mtx(file);
    long long before = g_live.load();
    g_peak = before;
    // the bound: the text, the entry lists and the CSR, all proportional to the file, plus the rows'
    // offsets for at most 2^20 + 8 per byte rows (see mtx.h)
    long long bound = 64 * (long long)file.size() + 40 * ((1 << 20) + 8 * (long long)file.size()) + (1 << 20);
    try {
        spmv::HostCsr A = spmv::read_mtx(g_path);
        long long used = g_peak.load() - before;
        if (used > bound) {
            fail_case("read_mtx", seed, file, "took " + std::to_string(used) + " bytes");
            return;
        }
        if (!ref.ok) {
            fail_case("read_mtx", seed, file, "accepted a file the independent reading refuses");
            return;
        }
        bool same = A.rows == ref.rows && A.cols == ref.cols && A.nnz() == ref.a.size();
        size_t k = 0;
        for (auto it = ref.a.begin(); same && it != ref.a.end(); ++it, ++k) {
            int64_t r = it->first.first;
            same = k < A.col.size() && A.col[k] == it->first.second && int64_t(A.row_ptr[size_t(r)]) <= int64_t(k) &&
                   int64_t(k) < int64_t(A.row_ptr[size_t(r) + 1]) &&
                   std::fabs(A.val[k] - it->second) <= 1e-12 * (1 + std::fabs(it->second));
        }
        if (!same) {
            fail_case("read_mtx", seed, file, "accepted with entries unlike the independent reading");
            return;
        }
        ++g_passed;
    } catch (const spmv::MtxError& e) {
        long long used = g_peak.load() - before;
        if (used > bound) {
            fail_case("read_mtx", seed, file, "refused, but took " + std::to_string(used) + " bytes first");
            return;
        }
        if (!one_clear_line(e.what())) {
            fail_case("read_mtx", seed, file, std::string("unclear message: ") + course::printable(e.what(), 200));
            return;
        }
        if (ref.ok) {
            fail_case("read_mtx", seed, file, std::string("refused a valid file: ") + e.what());
            return;
        }
        ++g_passed;
    } catch (const std::exception& e) {
        fail_case("read_mtx", seed, file, std::string("threw something else: ") + e.what());
    }
}

static void fuzz_mtx(uint64_t seed0, int cases) {
    for (int c = 0; c < cases; ++c) {
        uint64_t seed = seed0 * 1000003 + uint64_t(c) + 555555;
        Rng g{seed};
        Bytes file = mtx_seed(g);
        int rounds = g.coin(6) ? 0 : 1 + int(g.below(3));
        for (int i = 0; i < rounds; ++i) file = mutate_mtx(g, file);
        check_mtx_case(seed, file);
    }
    Rng g{seed0};
    Bytes f = mtx_seed(g);
    for (size_t cut = 0; cut <= f.size(); ++cut) check_mtx_case(seed0, f.substr(0, cut));
}

static void on_alarm(int) {
    const char m[] = "FAIL fuzz_readers: a case hung (no progress for 120 s)\n0 passed, 1 failed\n";
    if (write(1, m, sizeof m - 1) < 0) {}
    _exit(1);
}

int main(int argc, char** argv) {
    int cases = 12000;
    uint64_t seed = 20261124;
    bool plant = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--cases" && i + 1 < argc) cases = std::atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--plant") plant = true;
        else {
            std::fprintf(stderr, "usage: fuzz_readers [--cases N] [--seed S] [--plant]\n");
            return 2;
        }
    }
    std::signal(SIGALRM, on_alarm);
    alarm(120);
    char tmpl[] = "/tmp/fuzz_readers_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        std::perror("mkstemp");
        return 2;
    }
    close(fd);
    g_path = tmpl;
    // One summary line per reader (its cases all pass, or it fails), so that the test runner's
    // totals count readers, not the thousands of cases.
    int readers_ok = 0, readers_bad = 0;
    auto run_reader = [&](const char* name, auto&& fuzz) {
        int p0 = g_passed, f0 = g_failed;
        fuzz();
        int cases_run = g_passed - p0 + g_failed - f0, bad = g_failed - f0;
        std::printf("%s fuzz %s: %d cases, %d failed (seed %llu)\n", bad ? "FAIL" : "PASS", name, cases_run, bad,
                    (unsigned long long)seed);
        (bad ? readers_bad : readers_ok)++;
    };
    if (plant) {
        // Three planted defects, each of which the fuzzer must report: the run ends '0 passed, 3 failed'.
        // 1. The memory accounting: an allocation such as a reader trusting a lying header would make
        //    (scaled down 4096 times) shows in the peak, beyond the file's size plus the bound.
        Rng g{seed};
        Bytes lie = npy_file("<i4", "(99999999999,)", random_payload(g, 8));
        int f0 = g_failed;
        long long before = g_live.load();
        g_peak = before;
        try {
            std::vector<int32_t> planted(size_t(99999999999ull) / 4096);
            (void)planted;
        } catch (...) {}
        long long used = g_peak.load() - before;
        if (used > (long long)lie.size() + (2 << 20))
            fail_case("planted allocation", seed, lie, "took " + std::to_string(used) + " bytes");
        (g_failed > f0 ? readers_bad : readers_ok)++;
        // 2. The comparison the fuzzer uses: a reader's answer with one flipped byte differs.
        f0 = g_failed;
        Bytes small = npy_file("<i4", "(3,)", "abcdefghijkl");
        NpyRef r = ref_npy(small, 4);
        std::vector<int32_t> flipped(3);
        std::memcpy(flipped.data(), r.data.data(), 12);
        reinterpret_cast<unsigned char*>(flipped.data())[0] ^= 1;
        if (!same_data(flipped, r))
            fail_case("planted compare", seed, small, "one flipped byte differs from the independent reading");
        (g_failed > f0 ? readers_bad : readers_ok)++;
        // 3. A reader with a real defect (planted_load_npy), fuzzed as load_npy is.
        run_reader("planted load_npy", [&] { fuzz_npy(seed, cases, false, true); });
    } else {
        run_reader("load_npy", [&] { fuzz_npy(seed, cases, false); });
        run_reader("load_npy_2d", [&] { fuzz_npy(seed, cases, true); });
        run_reader("read_mtx", [&] { fuzz_mtx(seed, cases); });
    }
    std::remove(g_path.c_str());
    std::printf("%d passed, %d failed\n", readers_ok, readers_bad);
    return g_failed ? 1 : 0;
}
