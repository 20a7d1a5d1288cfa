// tests/lesson03_spmv_host.cu — host tests of the SpMV lesson (no GPU needed; no CUDA call is made).
// The Matrix Market reader on good and malformed files (written to /tmp here), the matrix
// generators' shapes, the CPU reference against a dense brute force, and the checker shown to
// fail on planted wrong answers; spmv_05's tile walk and partition search (spmv::merge) over whole
// matrices. Prints one line per test and 'N passed, N failed'.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "../lesson03_compact_spmv/spmv.cuh"

static int g_passed = 0, g_failed = 0;
static void expect(bool ok, const std::string& name, const std::string& why = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    (ok ? g_passed : g_failed)++;
}

static std::string tmp_file(const std::string& name, const std::string& text) {
    std::string path = "/tmp/lesson03_spmv_host_" + std::to_string(getpid()) + "_" + name + ".mtx";
    std::ofstream(path) << text;
    return path;
}

// Dense copy of a CSR (for brute-force comparisons on small matrices).
static std::vector<double> dense(const spmv::HostCsr& A) {
    std::vector<double> d(size_t(A.rows * A.cols), 0.0);
    for (int64_t i = 0; i < A.rows; ++i)
        for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) d[size_t(i * A.cols + A.col[k])] += A.val[k];
    return d;
}

// CSR invariants: offsets start at 0, never decrease, end at nnz; columns in range, strictly
// increasing inside a row (sorted, no duplicates).
static std::string csr_problem(const spmv::HostCsr& A) {
    if (A.row_ptr.size() != size_t(A.rows) + 1) return "row_ptr has the wrong length";
    if (A.row_ptr[0] != 0 || size_t(A.row_ptr.back()) != A.nnz()) return "row_ptr does not run 0..nnz";
    if (A.val.size() != A.nnz()) return "val and col lengths differ";
    for (int64_t i = 0; i < A.rows; ++i) {
        if (A.row_ptr[i + 1] < A.row_ptr[i]) return "row_ptr decreases at row " + std::to_string(i);
        for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
            if (A.col[k] < 0 || A.col[k] >= A.cols) return "column out of range in row " + std::to_string(i);
            if (k > A.row_ptr[i] && A.col[k] <= A.col[k - 1])
                return "columns not strictly increasing in row " + std::to_string(i);
        }
    }
    return "";
}

static void test_mtx_good() {
    {   // general real, unsorted entries, a duplicate (summed), comments, blank lines, CRLF
        std::string p = tmp_file(
            "general",
            "%%MatrixMarket matrix coordinate real general\r\n% a comment\n\n3 4 5\n3 1 2.5\n1 4 -1e-1\n1 2 3\n3 1 0.5\n2 3 7\n");
        spmv::HostCsr A = spmv::read_mtx(p);
        std::vector<double> d = dense(A);
        bool ok = A.rows == 3 && A.cols == 4 && A.nnz() == 4 && csr_problem(A).empty() && d[0 * 4 + 1] == 3 &&
                  std::fabs(d[0 * 4 + 3] + 0.1) < 1e-15 && d[1 * 4 + 2] == 7 && d[2 * 4 + 0] == 3.0;
        expect(ok, "mtx general real: values, duplicate summed, sorted CSR", csr_problem(A));
        std::remove(p.c_str());
    }
    {   // symmetric pattern: off-diagonal mirrored, diagonal once, values 1
        std::string p =
            tmp_file("sympat", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
        spmv::HostCsr A = spmv::read_mtx(p);
        std::vector<double> d = dense(A);
        bool ok = A.nnz() == 5 && csr_problem(A).empty() && d[0] == 1 && d[2 * 3 + 0] == 1 && d[0 * 3 + 2] == 1 &&
                  d[1 * 3 + 2] == 1 && d[2 * 3 + 1] == 1 && d[1 * 3 + 1] == 0;
        expect(ok, "mtx symmetric pattern: mirrored, diagonal once", csr_problem(A));
        std::remove(p.c_str());
    }
    {   // integer field, upper-case banner words, empty rows, zero entries
        std::string p = tmp_file("integer", "%%MatrixMarket MATRIX Coordinate INTEGER General\n4 2 2\n4 2 -7\n2 1 3\n");
        spmv::HostCsr A = spmv::read_mtx(p);
        bool ok = A.rows == 4 && A.cols == 2 && A.nnz() == 2 && A.row_ptr == std::vector<int32_t>{0, 0, 1, 1, 2} &&
                  A.val[0] == 3 && A.val[1] == -7;
        expect(ok, "mtx integer field, empty rows", csr_problem(A));
        std::remove(p.c_str());
    }
    {
        std::string p = tmp_file("empty", "%%MatrixMarket matrix coordinate real general\n5 5 0\n");
        spmv::HostCsr A = spmv::read_mtx(p);
        expect(A.rows == 5 && A.nnz() == 0 && csr_problem(A).empty(), "mtx with no entries");
        std::remove(p.c_str());
    }
}

static void test_mtx_bad() {
    struct Bad {
        const char* name;
        const char* text;
        const char* expect_in_message;
    };
    const Bad bad[] = {
        {"empty_file", "", "empty file"},
        {"no_banner", "3 3 1\n1 1 1\n", "not a Matrix Market file"},
        {"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "format 'array'"},
        {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "field 'complex'"},
        {"skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", "symmetry 'skew-symmetric'"},
        {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n2 1 1\n", "symmetry 'hermitian'"},
        {"short_header", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", "header must be"},
        {"no_size", "%%MatrixMarket matrix coordinate real general\n% only comments\n", "no size line"},
        {"bad_size", "%%MatrixMarket matrix coordinate real general\n3 x 1\n1 1 1\n", "size line"},
        {"negative_size", "%%MatrixMarket matrix coordinate real general\n-3 3 1\n1 1 1\n", "negative"},
        {"huge_size", "%%MatrixMarket matrix coordinate real general\n3000000000 3 1\n1 1 1\n", "2^31 - 1"},
        {"zero_index", "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n", "1-based"},
        {"index_too_big", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n", "outside"},
        {"too_few", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", "2 of the 3"},
        {"too_many", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", "more entries"},
        {"missing_value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", "found 2 fields"},
        {"extra_field", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 5\n", "found 3 fields"},
        {"bad_value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 abc\n", "not a number"},
        {"nan_value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 nan\n", "not finite"},
        {"inf_value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1e999\n", "not finite"},
        {"float_in_integer", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", "integer"},
        {"nonsquare_symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", "square"},
        {"float_index", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1.0 1 1\n", "integers"},
    };
    for (const Bad& b : bad) {
        std::string p = tmp_file(b.name, b.text);
        std::string msg;
        try {
            spmv::read_mtx(p);
        } catch (const spmv::MtxError& e) { msg = e.what(); }
        bool ok =
            !msg.empty() && msg.find(b.expect_in_message) != std::string::npos && msg.find('\n') == std::string::npos;
        expect(ok, std::string("mtx refuses ") + b.name, msg.empty() ? "accepted" : "message: " + msg);
        std::remove(p.c_str());
    }
    std::string msg;
    try {
        spmv::read_mtx("/tmp/lesson03_spmv_host_no_such_file.mtx");
    } catch (const spmv::MtxError& e) { msg = e.what(); }
    expect(msg.find("cannot open") != std::string::npos, "mtx refuses a missing file", msg);
}

static void test_generators() {
    for (const std::string& fam : spmv::families())
        for (int64_t rows : {0, 1, 2, 33, 1000, 4099})
            for (int64_t per : {1, 3, 16, 100}) {
                spmv::HostCsr A = spmv::generate_matrix(fam, rows, per, 7);
                std::string why = csr_problem(A);
                if (!why.empty()) {
                    expect(false, "generator " + fam + " is a valid CSR", why);
                    return;
                }
            }
    expect(true, "generators: every family, sizes and per_row give a valid sorted CSR");

    auto lengths = [](const spmv::HostCsr& A) {
        std::vector<int64_t> L(size_t(A.rows));
        for (int64_t i = 0; i < A.rows; ++i) L[size_t(i)] = A.row_ptr[i + 1] - A.row_ptr[i];
        return L;
    };
    {
        spmv::HostCsr A = spmv::generate_matrix("poisson2d", 100, 16, 1);   // 10 x 10 grid
        std::vector<int64_t> L = lengths(A);
        std::vector<double> d = dense(A);
        bool ok = L[0] == 3 && L[11] == 5 && L[99] == 3 && L[5] == 4 && d[11 * 100 + 11] == 4 &&
                  d[11 * 100 + 1] == -1 && d[11 * 100 + 21] == -1 &&
                  d[10 * 100 + 9] == 0;   // row 10 starts a grid row: no left neighbour
        expect(ok, "poisson2d: 5-point stencil on the grid, no wrap across grid rows");
    }
    {
        spmv::HostCsr A = spmv::generate_matrix("banded", 1000, 16, 1);
        std::vector<int64_t> L = lengths(A);
        bool ok = L[500] == 16 && A.col[A.row_ptr[500]] == 492 && L[0] == 8 && L[999] == 9;
        expect(ok, "banded: 16 consecutive diagonals, clipped at the edges");
    }
    {
        spmv::HostCsr A = spmv::generate_matrix("random", 5000, 16, 1);
        bool all16 = true;
        for (int64_t i = 0; i < 5000; ++i) all16 &= A.row_ptr[i + 1] - A.row_ptr[i] == 16;
        int64_t lo = 0, hi = 0;
        for (int32_t c : A.col) (c < 2500 ? lo : hi)++;
        expect(all16 && std::llabs(lo - hi) < 2000, "random: 16 per row, columns spread over the whole width");
    }
    {
        spmv::HostCsr A = spmv::generate_matrix("powerlaw", 1 << 18, 16, 1);
        std::vector<int64_t> L = lengths(A);
        int64_t mx = 0;
        for (int64_t l : L) mx = std::max(mx, l);
        double mean = double(A.nnz()) / double(A.rows);
        expect(mean > 8 && mean < 24 && mx > 2048, "powerlaw: mean ~16, some rows beyond 2048 (mean " +
                                                       std::to_string(mean) + ", max " + std::to_string(mx) + ")");
    }
    {
        spmv::HostCsr A = spmv::generate_matrix("empty_rows", 4000, 16, 1);
        std::vector<int64_t> L = lengths(A);
        bool ok = L[0] == 0 && L[3999] == 0;
        for (int i = 1000; i < 2000; ++i) ok &= L[i] == 0;
        int64_t nonempty = 0;
        for (int64_t l : L) nonempty += l > 0;
        expect(ok && nonempty > 1000 && nonempty < 2000,
               "empty_rows: first, last, the 2nd quarter and ~half the rest empty");
    }
    {
        spmv::HostCsr A = spmv::generate_matrix("giant_row", 3000, 16, 1);
        std::vector<int64_t> L = lengths(A);
        expect(L[1000] == 3000 && L[0] == 2 && L[2999] == 2, "giant_row: row n/3 holds every column, others per_row/8");
    }
    {
        spmv::HostCsr a = spmv::generate_matrix("powerlaw", 3000, 16, 9),
                      b = spmv::generate_matrix("powerlaw", 3000, 16, 9);
        spmv::HostCsr c = spmv::generate_matrix("powerlaw", 3000, 16, 10);
        expect(a.col == b.col && a.val == b.val && a.col != c.col,
               "generators: same seed same matrix, other seed other");
    }
    std::vector<float> x = spmv::make_x<float>(10000, 3);
    int neg = 0, ones = 0;
    for (float v : x) {
        neg += v < 0;
        ones += v == 1.0f;
    }
    expect(neg > 4000 && neg < 6000 && ones == 0, "x: random signs, not all ones");
}

static void test_reference() {
    for (const std::string& fam : spmv::families())
        for (int64_t rows : {1, 17, 300}) {
            spmv::HostCsr A = spmv::generate_matrix(fam, rows, 5, 11);
            std::vector<double> val(A.val.begin(), A.val.end());
            std::vector<double> x = spmv::make_x<double>(A.cols, 11);
            std::vector<double> ref, scale;
            spmv::reference(A, val, x, ref, scale);
            std::vector<double> d = dense(A);
            bool ok = true;
            for (int64_t i = 0; i < A.rows; ++i) {
                double s = 0, a = 0;
                for (int64_t j = 0; j < A.cols; ++j) {
                    s += d[size_t(i * A.cols + j)] * x[size_t(j)];
                    a += std::fabs(d[size_t(i * A.cols + j)] * x[size_t(j)]);
                }
                ok &= std::fabs(s - ref[size_t(i)]) <= 1e-12 * (1 + a) &&
                      std::fabs(a - scale[size_t(i)]) <= 1e-12 * (1 + a);
            }
            if (!ok) {
                expect(false, "reference = dense brute force on " + fam + " rows=" + std::to_string(rows));
                return;
            }
        }
    expect(true, "reference = dense brute force (every family, 1/17/300 rows)");
    {   // a .mtx file through the whole host path
        std::string p =
            tmp_file("ref", "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 1\n");
        spmv::HostCsr A = spmv::read_mtx(p);
        std::vector<float> val(A.val.begin(), A.val.end()), x = {1.0f, 2.0f, -1.0f};
        std::vector<double> ref, scale;
        spmv::reference(A, val, x, ref, scale);
        expect(ref == std::vector<double>{0.0, -5.0, 7.0} && scale == std::vector<double>{4.0, 5.0, 9.0},
               "reference on a small symmetric .mtx by hand");
        std::remove(p.c_str());
    }
}

static void test_checker() {
    spmv::HostCsr A = spmv::generate_matrix("powerlaw", 2000, 16, 5);
    std::vector<float> val(A.val.begin(), A.val.end());
    std::vector<float> x = spmv::make_x<float>(A.cols, 5);
    std::vector<double> ref, scale;
    spmv::reference(A, val, x, ref, scale);
    // A float computation in a different order (reversed rows) must pass.
    std::vector<float> y(size_t(A.rows));
    for (int64_t i = 0; i < A.rows; ++i) {
        float s = 0;
        for (int64_t k = A.row_ptr[i + 1] - 1; k >= A.row_ptr[i]; --k) s += val[k] * x[A.col[k]];
        y[size_t(i)] = s;
    }
    expect(spmv::check_y(y, ref, scale).ok, "checker passes a float32 sum in another order");
    int64_t r = 0;   // a row with at least 3 entries
    while (A.row_ptr[r + 1] - A.row_ptr[r] < 3) ++r;
    auto planted = [&](const char* name, auto change) {
        std::vector<float> bad = y;
        change(bad);
        course::CheckResult c = spmv::check_y(bad, ref, scale);
        expect(!c.ok, std::string("checker fails ") + name, "passed");
    };
    int64_t b = A.row_ptr[r];
    planted("a missing term (off by one at the row end)",
            [&](std::vector<float>& v) { v[size_t(r)] -= val[A.row_ptr[r + 1] - 1] * x[A.col[A.row_ptr[r + 1] - 1]]; });
    planted("a doubled term", [&](std::vector<float>& v) { v[size_t(r)] += val[b] * x[A.col[b]]; });
    planted("a wrong column (x[col+1])", [&](std::vector<float>& v) {
        v[size_t(r)] += val[b] * (x[A.col[b] + 1 < A.cols ? A.col[b] + 1 : 0] - x[A.col[b]]);
    });
    planted("two rows swapped", [&](std::vector<float>& v) { std::swap(v[size_t(r)], v[size_t(r + 1)]); });
    planted("an unwritten row (poison 0xAB)",
            [&](std::vector<float>& v) { std::memset(&v[size_t(r)], 0xAB, sizeof(float)); });
    planted("NaN", [&](std::vector<float>& v) { v[size_t(r)] = std::numeric_limits<float>::quiet_NaN(); });
    planted("inf", [&](std::vector<float>& v) { v[size_t(r)] = std::numeric_limits<float>::infinity(); });
    // an empty row must be exactly 0: the poison pattern and a stray value both fail
    spmv::HostCsr E = spmv::generate_matrix("empty_rows", 100, 4, 5);
    std::vector<float> ev(E.val.begin(), E.val.end()), ex = spmv::make_x<float>(E.cols, 5);
    std::vector<double> eref, escale;
    spmv::reference(E, ev, ex, eref, escale);
    std::vector<float> ey(eref.begin(), eref.end());
    expect(spmv::check_y(ey, eref, escale).ok, "checker passes the exact answer with empty rows");
    std::memset(&ey[0], 0xAB, sizeof(float));
    expect(!spmv::check_y(ey, eref, escale).ok, "checker fails a poisoned empty row");
    // float64 at its own tolerance: a float32-accurate answer is not good enough
    std::vector<double> dval(A.val.begin(), A.val.end()), dx(x.begin(), x.end());
    std::vector<double> dref, dscale;
    spmv::reference(A, dval, dx, dref, dscale);
    std::vector<double> dy(dref.begin(), dref.end());
    expect(spmv::check_y(dy, dref, dscale).ok, "float64 checker passes the exact answer");
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = double(float(dy[i]));
    expect(!spmv::check_y(dy, dref, dscale).ok, "float64 checker fails an answer rounded to float32");
    expect(spmv::problem_bytes(4, 5, 10, 4) == 10 * 8 + 5 * 4 + 5 * 4 + 4 * 4, "problem bytes = matrix + x + y");
}

static void test_args() {
    char a0[] = "prog", a1[] = "--gen", a2[] = "random", a3[] = "--gen=banded";
    char* argv1[] = {a0, a1, a2, a3};
    std::vector<std::string> r = spmv::rewrite_args(4, argv1);
    expect(r.size() == 4 && r[1] == "--dist" && r[2] == "random" && r[3] == "--dist=banded", "--gen is --dist");
    char b1[] = "--matrix", b2[] = "m.mtx";
    char* argv2[] = {a0, b1, b2};
    r = spmv::rewrite_args(3, argv2);
    expect(r.size() == 5 && r[3] == "--dist" && r[4] == "file", "--matrix selects dist 'file'");
}

// spmv_05's tile on the host: the same tiles, staging layout (row ends rebased to the tile's
// nonzeros, the sentinel, one spare product slot), search_local and walk as the kernel, and the
// open sums added to their row (or carried to the next tile) as the kernel's atomics do. y must
// equal the reference for every family, tile shape and thread count.
template <int kItems> static std::string tile_problem(const spmv::HostCsr& A, int block) {
    const int64_t rows = A.rows, nnz = int64_t(A.nnz()), total = rows + nnz, tile = int64_t(block) * kItems;
    // Row end i sits at merge position i + row_ptr[i + 1] (after its row's nonzeros and the earlier
    // row ends): the row ends among the first d items are those at positions < d. The positions
    // come from one linear merge (the definition), then a lookup answers any diagonal.
    std::vector<int64_t> pos;
    for (int64_t i = 0, k = 0; i < rows;) {
        if (A.row_ptr[size_t(i) + 1] <= k) {
            pos.push_back(i + k);
            ++i;
        } else ++k;
    }
    auto brute = [&](int64_t d) { return int64_t(std::lower_bound(pos.begin(), pos.end(), d) - pos.begin()); };
    std::vector<double> x(size_t(A.cols)), y(size_t(rows), 0.0);
    for (int64_t c = 0; c < A.cols; ++c) x[size_t(c)] = double(c % 7) - 3.0;
    for (int64_t d0 = 0; d0 < total; d0 += tile) {
        const int64_t d1 = std::min(d0 + tile, total), r0 = brute(d0), r1 = brute(d1), k0 = d0 - r0, k1 = d1 - r1;
        const int n_rows = int(r1 - r0), n_nz = int(k1 - k0);
        std::vector<int> re(size_t(tile) + 1, -5);   // garbage where the kernel writes nothing
        std::vector<double> prod(size_t(tile) + 1, 1e300), ys(size_t(tile), 1e300);
        for (int r = 0; r < n_rows; ++r) re[size_t(r)] = A.row_ptr[size_t(r0 + 1 + r)] - int(k0);
        re[size_t(n_rows)] = 0x7FFFFFFF;
        for (int j = 0; j < n_nz; ++j) prod[size_t(j)] = A.val[size_t(k0 + j)] * x[size_t(A.col[size_t(k0 + j)])];
        double carry = 0;
        std::vector<std::pair<int, double>> open;   // (row, sum) left open by each thread
        const int items = n_rows + n_nz;
        for (int t = 0; t < block; ++t) {
            const int dt = std::min(t * kItems, items), dt_end = std::min(dt + kItems, items);
            int i = spmv::merge::search_local(dt, n_rows, n_nz, re.data());
            int j = dt - i;
            if (i != int(brute(d0 + dt) - r0)) return "search_local wrong at diagonal " + std::to_string(d0 + dt);
            double sum = 0;
            if (dt_end - dt == kItems)
                spmv::merge::walk<kItems, true>(re.data(), prod.data(), ys.data(), i, j, kItems, sum);
            else spmv::merge::walk<kItems, false>(re.data(), prod.data(), ys.data(), i, j, dt_end - dt, sum);
            if (i + j != dt_end)
                return "walk took " + std::to_string(i + j - dt) + " items, not " + std::to_string(dt_end - dt);
            if (dt < dt_end) open.push_back({i, sum});
        }
        for (auto& o : open) (o.first < n_rows ? ys[size_t(o.first)] : carry) += o.second;
        for (int r = 0; r < n_rows; ++r) y[size_t(r0 + r)] += ys[size_t(r)];   // row r0 may continue an earlier tile
        if (r1 < rows) y[size_t(r1)] += carry;
    }
    for (int64_t i = 0; i < rows; ++i) {
        double ref = 0, scale = 0;
        for (int64_t k = A.row_ptr[size_t(i)]; k < A.row_ptr[size_t(i) + 1]; ++k) {
            ref += A.val[size_t(k)] * x[size_t(A.col[size_t(k)])];
            scale += std::fabs(A.val[size_t(k)] * x[size_t(A.col[size_t(k)])]);
        }
        if (std::fabs(y[size_t(i)] - ref) > 1e-12 * (1 + scale)) return "row " + std::to_string(i) + " wrong";
    }
    return "";
}

static void test_merge_tile() {
    auto first_problem = [] {   // the first failing case, or ""
        for (const std::string& fam : spmv::families())
            for (int64_t rows : {1, 2, 33, 1000, 4099})
                for (int64_t per : {1, 16, 100}) {
                    spmv::HostCsr A = spmv::generate_matrix(fam, rows, per, 3);
                    std::string why = tile_problem<11>(A, 32);
                    if (why.empty()) why = tile_problem<5>(A, 64);
                    if (why.empty()) why = tile_problem<3>(A, 1);
                    if (!why.empty())
                        return fam + " rows=" + std::to_string(rows) + " per_row=" + std::to_string(per) + ": " + why;
                }
        return std::string();
    };
    const std::string why = first_problem();
    expect(why.empty(), "spmv_05 tiles (search_local, walk, open sums) = reference, every family", why);
    // A 2-row matrix by hand: row 0 = {a}, row 1 empty, then row 2 = {b, c}; one tile of 6 items,
    // threads of 4 items: thread 0 walks nonzero a, row end 0, row end 1, nonzero b (left open);
    // thread 1 walks nonzero c and row end 2.
    spmv::HostCsr H;
    H.rows = 3;
    H.cols = 3;
    H.row_ptr = {0, 1, 1, 3};
    H.col = {0, 1, 2};
    H.val = {2, 3, 4};
    std::vector<int> re = {1, 1, 3, 0x7FFFFFFF};
    std::vector<double> prod = {2, 3, 4, 0}, ys(6, -1);
    int i = spmv::merge::search_local(0, 3, 3, re.data()), j = 0;
    double sum = 0;
    spmv::merge::walk<4, true>(re.data(), prod.data(), ys.data(), i, j, 4, sum);
    bool ok = i == 2 && j == 2 && sum == 3 && ys[0] == 2 && ys[1] == 0;
    int i1 = spmv::merge::search_local(4, 3, 3, re.data()), j1 = 4 - i1;
    double sum1 = 0;
    spmv::merge::walk<4, false>(re.data(), prod.data(), ys.data(), i1, j1, 2, sum1);
    ok &= i1 == 3 && j1 == 3 && sum1 == 0 && ys[2] == 4;
    expect(ok && tile_problem<4>(H, 2).empty(), "spmv_05 walk by hand (an empty row, an open row)");
}

// spmv_05's partition on the host: a group of G lanes per boundary, each probing spmv::merge::probe's
// point, the group keeping the largest lo and smallest hi that narrow_proposal gives, as
// partition_tiles does with shuffles. Returns the steps taken, or -1 when the boundary found is
// wrong. `guessed` false: every step evenly spaced (spmv_05's earlier partition, the yardstick for
// the step counts below).
template <int G> static int guess_search_steps(const spmv::HostCsr& A, int64_t d, int64_t want, bool guessed) {
    const int64_t rows = A.rows, nnz = int64_t(A.nnz());
    int64_t lo = d > nnz ? d - nnz : 0, hi = d < rows ? d : rows;
    const int64_t guess = spmv::merge::linear_guess(d, rows, nnz);
    int steps = 0;
    for (bool first = guessed; lo < hi; first = false, ++steps) {
        int64_t new_lo = lo, new_hi = hi;
        for (int gl = 0; gl < G; ++gl) {
            const int64_t m = spmv::merge::probe<G>(lo, hi, guess, gl, first);
            if (m < lo || m >= hi) return -1;   // row end m must exist and lie in the interval
            int64_t l = lo, h = hi;
            spmv::merge::narrow_proposal(A.row_ptr[size_t(m) + 1] <= d - m - 1, m, l, h);
            new_lo = std::max(new_lo, l);
            new_hi = std::min(new_hi, h);
        }
        if (new_lo > new_hi || (new_lo == lo && new_hi == hi)) return -1;   // crossed, or no progress
        lo = new_lo;
        hi = new_hi;
    }
    return lo == want ? steps : -1;
}

static void test_partition_guess() {
    std::string why;
    // Steps: the slowest boundary sets the kernel's time (its warp loops until every group is
    // done), so the guessed search must not take more steps than the even one on any matrix's
    // slowest boundary (+1 allowed: its first step splits G/2-fold instead of G-fold), and on
    // matrices of near-equal rows it must take 1 (random) or 2 (banded) steps.
    int worst_equal = 0, worst_banded = 0, over_even = 0;
    for (const std::string& fam : spmv::families()) {
        for (int64_t rows : {1, 2, 33, 1000, 100003}) {
            spmv::HostCsr A = spmv::generate_matrix(fam, rows, 16, 3);
            const int64_t total = rows + int64_t(A.nnz());
            std::vector<int64_t> pos;   // merge position of each row end (as in tile_problem)
            for (int64_t i = 0, k = 0; i < rows;) {
                if (A.row_ptr[size_t(i) + 1] <= k) {
                    pos.push_back(i + k);
                    ++i;
                } else ++k;
            }
            for (int64_t tile : {int64_t(11), int64_t(2816), int64_t(1280)}) {
                int max_guessed = 0, max_even = 0;
                for (int64_t d = 0;; d = std::min(d + tile, total)) {
                    const int64_t want = int64_t(std::lower_bound(pos.begin(), pos.end(), d) - pos.begin());
                    const int s8 = guess_search_steps<8>(A, d, want, true),
                              s4 = guess_search_steps<4>(A, d, want, true);
                    const int s2 = guess_search_steps<2>(A, d, want, true),
                              e8 = guess_search_steps<8>(A, d, want, false);
                    const int s16 = guess_search_steps<16>(A, d, want, true);
                    if (s8 < 0 || s4 < 0 || s2 < 0 || s16 < 0 || e8 < 0) {
                        if (why.empty()) why = fam + " rows=" + std::to_string(rows) + " diagonal " + std::to_string(d);
                    } else {
                        max_guessed = std::max(max_guessed, s8);
                        max_even = std::max(max_even, e8);
                    }
                    if (d == total) break;
                }
                if (fam == "random") worst_equal = std::max(worst_equal, max_guessed);
                if (fam == "banded") worst_banded = std::max(worst_banded, max_guessed);
                over_even = std::max(over_even, max_guessed - max_even);
            }
        }
    }
    expect(why.empty(), "guessed partition search = merge positions (G = 16, 8, 4, 2; every family)", why);
    expect(worst_equal <= 1 && worst_banded <= 2 && over_even <= 1,
           "guessed partition: random in 1 step, banded in <= 2, slowest boundary <= even spacing's + 1 (random " +
               std::to_string(worst_equal) + ", banded " + std::to_string(worst_banded) + ", over " +
               std::to_string(over_even) + ")");
}

int main() {
    test_mtx_good();
    test_mtx_bad();
    test_generators();
    test_reference();
    test_checker();
    test_args();
    test_merge_tile();
    test_partition_guess();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
