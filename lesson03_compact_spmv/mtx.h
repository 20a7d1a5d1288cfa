// lesson03_compact_spmv/mtx.h — a CSR matrix on the host and a Matrix Market (.mtx) reader, so
// every SpMV version runs on real matrices (SuiteSparse: https://sparse.tamu.edu). Host-only.
//
//   spmv::HostCsr A = spmv::read_mtx("bcsstk17.mtx");   // throws spmv::MtxError with one clear line
//
// Supported: `%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric`, 1-based
// indices. A pattern matrix gets the value 1 everywhere. A symmetric file stores one triangle;
// every off-diagonal entry (i, j) also yields (j, i). Duplicate entries are summed (CSR keeps one
// entry per (row, column), columns sorted within each row). Refused with a reason: array format,
// complex / hermitian / skew-symmetric, non-finite values, indices out of range or 0, a count that
// does not match the size line, more than 2^31 - 1 rows, columns or stored entries (the CSR here
// uses 32-bit column indices and row offsets, as cuSPARSE's CSR with CUSPARSE_INDEX_32I does).
// Values are decimal numbers (C's strtod without hexadecimal); inf and nan are refused. A size line
// must be believable for the file: at most 2^20 rows (columns) plus 8 per byte of the file, so a
// small file that claims two billion rows is refused instead of taking gigabytes for empty rows.
// tests/fuzz_readers.cpp fuzzes this reader; every refusal is one line, with the line number.
#pragma once
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../common/parallel.h"
#include "../common/text.h"

namespace spmv {

// Compressed sparse rows: row i's entries are col[row_ptr[i] .. row_ptr[i+1]) with values val[...].
// Values are kept in double here; a run converts them to its element type (float or double).
struct HostCsr {
    int64_t rows = 0, cols = 0;
    std::vector<int32_t> row_ptr{0};   // rows + 1 offsets
    std::vector<int32_t> col;
    std::vector<double> val;
    size_t nnz() const { return col.size(); }
};

constexpr int64_t kMaxIndex = INT32_MAX;   // rows, columns and nonzeros: 32-bit CSR

struct MtxError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Builds a CSR from coordinate triples (0-based): rows sorted by counting, columns sorted within a
// row, duplicates summed. Throws MtxError if the result would not fit 32-bit indices.
inline HostCsr coo_to_csr(int64_t rows, int64_t cols, const std::vector<int64_t>& ri, const std::vector<int64_t>& ci,
                          const std::vector<double>& v) {
    HostCsr A;
    A.rows = rows;
    A.cols = cols;
    size_t m = ri.size();
    if (m > size_t(kMaxIndex)) throw MtxError("more than 2^31 - 1 stored entries (32-bit CSR)");
    std::vector<int64_t> start(size_t(rows) + 1, 0);
    for (size_t e = 0; e < m; ++e) ++start[size_t(ri[e]) + 1];
    for (int64_t r = 0; r < rows; ++r) start[r + 1] += start[r];
    std::vector<std::pair<int32_t, double>> ent(m);
    {
        std::vector<int64_t> fill(start.begin(), start.end() - 1);
        for (size_t e = 0; e < m; ++e) ent[size_t(fill[size_t(ri[e])]++)] = {int32_t(ci[e]), v[e]};
    }
    // Sort and merge duplicates inside each row (rows are independent: in parallel).
    std::vector<int64_t> kept(static_cast<size_t>(rows), 0);
    course::parallel_chunks(
        size_t(rows),
        [&](size_t b, size_t e, unsigned) {
            for (size_t r = b; r < e; ++r) {
                auto first = ent.begin() + start[r], last = ent.begin() + start[r + 1];
                std::sort(first, last, [](const auto& a, const auto& c) { return a.first < c.first; });
                int64_t out = start[r];
                for (auto it = first; it != last; ++it) {
                    if (out > start[r] && ent[size_t(out - 1)].first == it->first)
                        ent[size_t(out - 1)].second += it->second;
                    else ent[size_t(out++)] = *it;
                }
                kept[r] = out - start[r];
            }
        },
        1024);
    A.row_ptr.assign(size_t(rows) + 1, 0);
    int64_t total = 0;
    for (int64_t r = 0; r < rows; ++r) {
        total += kept[size_t(r)];
        A.row_ptr[size_t(r) + 1] = int32_t(total);
    }
    A.col.resize(size_t(total));
    A.val.resize(size_t(total));
    course::parallel_chunks(
        size_t(rows),
        [&](size_t b, size_t e, unsigned) {
            for (size_t r = b; r < e; ++r)
                for (int64_t k = 0; k < kept[r]; ++k) {
                    A.col[size_t(A.row_ptr[r] + k)] = ent[size_t(start[r] + k)].first;
                    A.val[size_t(A.row_ptr[r] + k)] = ent[size_t(start[r] + k)].second;
                }
        },
        1024);
    return A;
}

namespace detail {
inline std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
// Parses one whole token [p, end) as a signed 64-bit integer; false on junk or overflow.
inline bool parse_int(const char* p, const char* end, int64_t& out) {
    if (p == end) return false;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        ++p;
    }
    if (p == end) return false;
    int64_t v = 0;
    for (; p < end; ++p) {
        if (*p < '0' || *p > '9') return false;
        if (v > (INT64_MAX - (*p - '0')) / 10) return false;
        v = v * 10 + (*p - '0');
    }
    out = neg ? -v : v;
    return true;
}
inline bool parse_real(const char* p, const char* end, double& out) {
    std::string tok(p, end);
    // strtod would also take hexadecimal ("0x1p3"): Matrix Market values are decimal.
    if (tok.find_first_of("xX") != std::string::npos) return false;
    char* stop = nullptr;
    errno = 0;
    out = std::strtod(tok.c_str(), &stop);
    if (stop != tok.c_str() + tok.size() || tok.empty()) return false;
    return true;   // overflow gives inf: refused by the caller as non-finite
}
// Splits [p, end) at blanks/tabs into at most `max` tokens; returns how many there were (up to max+1).
inline int split(const char* p, const char* end, const char** b, const char** e, int max) {
    int n = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
        if (p >= end) break;
        const char* s = p;
        while (p < end && !(*p == ' ' || *p == '\t' || *p == '\r')) ++p;
        if (n < max) {
            b[n] = s;
            e[n] = p;
        }
        ++n;
        if (n > max) break;
    }
    return n;
}
}   // namespace detail

// Reads a Matrix Market coordinate file. Every problem is one MtxError line naming the file and,
// where it applies, the line number.
inline HostCsr read_mtx(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw MtxError("cannot open matrix file '" + path + "': " + std::strerror(errno));
    std::string text;
    {
        char buf[1 << 16];
        size_t got;
        while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
        std::fclose(f);
    }
    const std::string where = course::printable(path, 200) + ": ";
    auto fail = [&](size_t line, const std::string& why) -> MtxError {
        return MtxError(where + (line ? "line " + std::to_string(line) + ": " : std::string()) + why);
    };
    const char* p = text.data();
    const char* end = p + text.size();
    size_t line_no = 0;
    auto next_line = [&](const char*& b, const char*& e) -> bool {
        if (p >= end) return false;
        b = p;
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
        e = nl ? nl : end;
        p = nl ? nl + 1 : end;
        ++line_no;
        return true;
    };
    const char *b, *e;
    if (!next_line(b, e)) throw fail(0, "empty file (expected a %%MatrixMarket header)");
    const char* tb[6];
    const char* te[6];
    int nt = detail::split(b, e, tb, te, 5);
    if (nt < 1 || detail::lower(std::string(tb[0], te[0])) != "%%matrixmarket")
        throw fail(1, "not a Matrix Market file (the first line must start with %%MatrixMarket)");
    if (nt != 5) throw fail(1, "header must be '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    auto word = [&](int k) { return course::printable(detail::lower(std::string(tb[k], te[k])), 40); };
    std::string object = word(1), format = word(2), field = word(3), symmetry = word(4);
    if (object != "matrix") throw fail(1, "object '" + object + "' is not supported (only 'matrix')");
    if (format != "coordinate")
        throw fail(1, "format '" + format + "' is not supported (only 'coordinate', i.e. sparse)");
    if (field != "real" && field != "integer" && field != "pattern")
        throw fail(1, "field '" + field + "' is not supported (real, integer or pattern)");
    if (symmetry != "general" && symmetry != "symmetric")
        throw fail(1, "symmetry '" + symmetry + "' is not supported (general or symmetric)");
    const bool pattern = field == "pattern", symmetric = symmetry == "symmetric";

    // Comments and blank lines, then the size line.
    int64_t rows = -1, cols = -1, declared = -1;
    while (next_line(b, e)) {
        int n = detail::split(b, e, tb, te, 3);
        if (n == 0 || *tb[0] == '%') continue;
        if (n != 3 || !detail::parse_int(tb[0], te[0], rows) || !detail::parse_int(tb[1], te[1], cols) ||
            !detail::parse_int(tb[2], te[2], declared))
            throw fail(line_no, "size line must be three integers: rows columns entries");
        break;
    }
    if (declared < 0) throw fail(0, "no size line (rows columns entries) after the header");
    if (rows < 0 || cols < 0) throw fail(line_no, "negative matrix size");
    if (rows > kMaxIndex || cols > kMaxIndex)
        throw fail(line_no, "more than 2^31 - 1 rows or columns (32-bit CSR indices)");
    if (symmetric && rows != cols) throw fail(line_no, "a symmetric matrix must be square");
    const int64_t believable = (int64_t(1) << 20) + 8 * int64_t(text.size());
    if (rows > believable || cols > believable)
        throw fail(line_no, "the size line claims " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " for a file of " + std::to_string(text.size()) +
                                " bytes (at most 2^20 + 8 per byte rows and columns)");
    if (declared > (symmetric ? kMaxIndex / 2 + 1 : kMaxIndex))
        throw fail(line_no, "more than 2^31 - 1 stored entries (32-bit CSR indices)");

    std::vector<int64_t> ri, ci;
    std::vector<double> v;
    // Reserve no more than the file can hold (an entry takes at least 4 bytes: "1 1\n").
    ri.reserve(size_t(std::min<int64_t>(declared, int64_t(text.size() / 4) + 1)) * (symmetric ? 2 : 1));
    ci.reserve(ri.capacity());
    v.reserve(ri.capacity());
    const int want = pattern ? 2 : 3;
    int64_t seen = 0;
    while (next_line(b, e)) {
        int n = detail::split(b, e, tb, te, 3);
        if (n == 0 || *tb[0] == '%') continue;
        if (seen == declared)
            throw fail(line_no, "more entries than the " + std::to_string(declared) + " declared on the size line");
        if (n != want)
            throw fail(line_no, std::string("expected ") + (pattern ? "'row column'" : "'row column value'") +
                                    ", found " + std::to_string(n) + " fields");
        int64_t i, j;
        double x = 1.0;
        if (!detail::parse_int(tb[0], te[0], i) || !detail::parse_int(tb[1], te[1], j))
            throw fail(line_no, "row and column must be integers");
        if (!pattern) {
            bool ok = field == "integer" ? [&] { int64_t iv; bool r = detail::parse_int(tb[2], te[2], iv); x = double(iv); return r; }()
                                         : detail::parse_real(tb[2], te[2], x);
            if (!ok)
                throw fail(line_no, "value '" + course::printable(std::string(tb[2], te[2]), 40) + "' is not a" +
                                        (field == "integer" ? "n integer" : " number"));
            if (!std::isfinite(x)) throw fail(line_no, "value is not finite (inf or nan)");
        }
        if (i < 1 || i > rows || j < 1 || j > cols)
            throw fail(line_no, "index (" + std::to_string(i) + ", " + std::to_string(j) + ") outside 1.." +
                                    std::to_string(rows) + " x 1.." + std::to_string(cols) + " (indices are 1-based)");
        ri.push_back(i - 1);
        ci.push_back(j - 1);
        v.push_back(x);
        if (symmetric && i != j) {
            ri.push_back(j - 1);
            ci.push_back(i - 1);
            v.push_back(x);
        }
        ++seen;
    }
    if (seen < declared)
        throw fail(
            0, "file ends after " + std::to_string(seen) + " of the " + std::to_string(declared) + " declared entries");
    try {
        return coo_to_csr(rows, cols, ri, ci, v);
    } catch (const MtxError& err) { throw fail(0, err.what()); }
}

}   // namespace spmv
