// common/npy.h — read and write NumPy .npy files (host-only), so every program runs on your data:
//   python3 -c "import numpy as np; np.save('x.npy', np.random.randint(-9, 9, 10**6, dtype=np.int32))"
//   build/lesson02_scan/06_decoupled_lookback --input x.npy --output y.npy
//
// Supported: format versions 1.0, 2.0 and 3.0; 1-D (load_npy) and 2-D (load_npy_2d), C order,
// little-endian int32, uint32, int64, uint64, float32, float64, uint8. Anything else is refused
// with one clear line (NpyError). Every claim of a header (its length, the shape) is checked
// against the file's size before memory is taken, so a lying header costs nothing: a 128-byte file
// that claims 10^14 elements is refused, not allocated. tests/fuzz_readers.cpp fuzzes this reader.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "inputs.h"   // TypeName<T>
#include "text.h"     // printable

namespace course {

struct NpyError : Refusal {
    using Refusal::Refusal;
};

template <class T> const char* npy_descr();
template <> inline const char* npy_descr<int32_t>() { return "<i4"; }
template <> inline const char* npy_descr<uint32_t>() { return "<u4"; }
template <> inline const char* npy_descr<int64_t>() { return "<i8"; }
template <> inline const char* npy_descr<uint64_t>() { return "<u8"; }
template <> inline const char* npy_descr<float>() { return "<f4"; }
template <> inline const char* npy_descr<double>() { return "<f8"; }
template <> inline const char* npy_descr<uint8_t>() { return "|u1"; }

// The header is a Python dict literal, e.g. {'descr': '<i4', 'fortran_order': False, 'shape': (5,), }
// followed by spaces and a newline. Parsed strictly into key -> value text ('<i4', False, (5,)):
// each of the three keys exactly once, nothing else, nothing after the closing brace but padding.
inline std::map<std::string, std::string> npy_header_dict(const std::string& h, const std::string& path) {
    auto bad = [&](const std::string& why) { return NpyError(path + ": malformed .npy header (" + why + ")"); };
    std::map<std::string, std::string> dict;
    size_t i = 0;
    auto skip = [&] {
        while (i < h.size() && (h[i] == ' ' || h[i] == '\n')) ++i;
    };
    auto expect = [&](char c) {
        skip();
        if (i >= h.size() || h[i] != c) throw bad(std::string("expected '") + c + "'");
        ++i;
    };
    // a value ends at its closing quote or parenthesis, or (False/True) at its last letter
    auto value = [&]() -> std::string {
        skip();
        if (i >= h.size()) throw bad("a value is missing");
        size_t start = i, close;
        if (h[i] == '\'') close = h.find('\'', i + 1);
        else if (h[i] == '(') close = h.find(')', i);
        else if (h.compare(i, 5, "False") == 0) close = i + 4;
        else if (h.compare(i, 4, "True") == 0) close = i + 3;
        else throw bad("a value is not a string, a tuple or a boolean");
        if (close == std::string::npos) throw bad("an unclosed value");
        i = close + 1;
        return h.substr(start, close + 1 - start);
    };
    expect('{');
    while (true) {
        skip();
        if (i < h.size() && h[i] == '}') {
            ++i;
            break;
        }
        std::string key = value();
        if (key.size() < 2 || key[0] != '\'') throw bad("a key is not a string");
        key = key.substr(1, key.size() - 2);
        if (key != "descr" && key != "fortran_order" && key != "shape")
            throw bad("unknown key '" + printable(key) + "'");
        if (dict.count(key)) throw bad("key '" + key + "' twice");
        expect(':');
        dict[key] = value();
        skip();
        if (i < h.size() && h[i] == ',') {
            ++i;
            continue;
        }
        expect('}');
        break;
    }
    skip();
    if (i != h.size()) throw bad("bytes after the dict");
    for (const char* k : {"descr", "fortran_order", "shape"})
        if (!dict.count(k)) throw bad(std::string("no '") + k + "'");
    return dict;
}

// What a .npy header says: the element type, the dimensions, and where the data starts.
struct NpyHeader {
    std::string descr;            // e.g. <i4
    std::string shape;            // the header's shape text, e.g. (5,)
    std::vector<uint64_t> dims;   // e.g. {5} or {3, 4}
    uint64_t elements = 1;        // the product of dims (<= 2^50, checked)
    uint64_t data_bytes = 0;      // bytes after the header in the file
};

// Reads and checks the header of an open .npy file: magic, version, length, dict, dtype T, C order,
// and a shape of at most 2^50 elements; data_bytes is what the file holds after the header (not yet
// compared with the shape: read_npy_header does that).
template <class T> NpyHeader parse_npy_header(FILE* f, const std::string& path) {
    if (std::fseek(f, 0, SEEK_END) != 0) throw NpyError(path + ": cannot seek (not a regular file?)");
    long size_l = std::ftell(f);
    if (size_l < 0 || std::fseek(f, 0, SEEK_SET) != 0) throw NpyError(path + ": cannot tell its size");
    const uint64_t file_size = uint64_t(size_l);
    unsigned char pre[10];
    if (std::fread(pre, 1, 10, f) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        throw NpyError(path + ": not a .npy file (bad magic)");
    int major = pre[6];
    uint64_t header_len, prefix = 10;
    if (major == 1) header_len = pre[8] | (uint64_t(pre[9]) << 8);
    else if (major == 2 || major == 3) {
        unsigned char more[2];
        if (std::fread(more, 1, 2, f) != 2) throw NpyError(path + ": truncated .npy header");
        header_len = pre[8] | (uint64_t(pre[9]) << 8) | (uint64_t(more[0]) << 16) | (uint64_t(more[1]) << 24);
        prefix = 12;
    } else throw NpyError(path + ": unsupported .npy format version " + std::to_string(major));
    if (header_len > (1u << 20)) throw NpyError(path + ": malformed .npy header (too long)");
    if (prefix + header_len > file_size) throw NpyError(path + ": truncated .npy header (the file ends inside it)");
    std::string header(header_len, '\0');
    if (header_len && std::fread(&header[0], 1, header_len, f) != header_len)
        throw NpyError(path + ": truncated .npy header");

    NpyHeader h;
    std::map<std::string, std::string> dict = npy_header_dict(header, path);
    std::string descr = dict["descr"], order = dict["fortran_order"], shape = dict["shape"];
    if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
        throw NpyError(path + ": malformed dtype " + printable(descr));
    descr = descr.substr(1, descr.size() - 2);
    if (order != "False") throw NpyError(path + ": Fortran-order arrays are not supported (save a C-order copy)");
    if (!descr.empty() && descr[0] == '>')
        throw NpyError(path + ": big-endian data ('" + printable(descr) + "') is not supported; use .astype('<...')");
    std::string want = npy_descr<T>();
    bool same = descr == want || (sizeof(T) == 1 && descr.size() == 3 && descr.substr(1) == want.substr(1)) ||
                (descr.size() == 3 && descr[0] == '=' && descr.substr(1) == want.substr(1));
    if (!same)
        throw NpyError(path + ": dtype '" + printable(descr) + "' but this program needs " + TypeName<T>::get() +
                       " ('" + want + "')");
    h.descr = descr;
    h.shape = shape;
    // shape: "(N,)", "(R, C)", ... : decimal numbers separated by commas, an optional trailing comma
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
        throw NpyError(path + ": malformed shape " + printable(shape));
    std::string body = shape.substr(1, shape.size() - 2);
    size_t pos = 0;
    while (true) {
        while (pos < body.size() && body[pos] == ' ') ++pos;
        if (pos == body.size()) break;
        uint64_t d = 0;
        size_t digits = 0;
        while (pos < body.size() && body[pos] >= '0' && body[pos] <= '9') {
            if (d > (uint64_t(1) << 50)) throw NpyError(path + ": shape " + printable(shape) + " is too large");
            d = d * 10 + uint64_t(body[pos++] - '0');
            ++digits;
        }
        if (!digits) throw NpyError(path + ": malformed shape " + printable(shape));
        h.dims.push_back(d);
        while (pos < body.size() && body[pos] == ' ') ++pos;
        if (pos == body.size()) break;
        if (body[pos] != ',') throw NpyError(path + ": malformed shape " + printable(shape));
        ++pos;
    }
    if (h.dims.empty()) throw NpyError(path + ": a 0-d array (shape ()) is not supported");
    for (uint64_t d : h.dims) {
        if (d != 0 && h.elements > (uint64_t(1) << 50) / d)
            throw NpyError(path + ": shape " + printable(shape) + " is too large");
        h.elements *= d;
    }
    h.data_bytes = file_size - prefix - header_len;
    return h;
}

// The header, and that the file holds exactly the bytes the shape claims. Nothing is allocated from
// a claim of the file before that claim is checked against the file's size.
template <class T> NpyHeader read_npy_header(FILE* f, const std::string& path) {
    NpyHeader h = parse_npy_header<T>(f, path);
    if (h.data_bytes != h.elements * sizeof(T))
        throw NpyError(path + ": the header's shape " + printable(h.shape) + " needs " +
                       std::to_string(h.elements * sizeof(T)) + " bytes of data, the file has " +
                       std::to_string(h.data_bytes) + (h.data_bytes < h.elements * sizeof(T) ? " (truncated)" : ""));
    return h;
}

namespace detail {
// want_dims: 1 or 2; 0 accepts either (a matrix reader that takes a 1-D file as one row).
template <class T> std::vector<T> load_npy_dims(const std::string& path, size_t want_dims, NpyHeader& h) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw NpyError(path + ": cannot open (" + std::strerror(errno) + ")");
    struct Closer {
        FILE* f;
        ~Closer() { std::fclose(f); }
    } closer{f};
    h = read_npy_header<T>(f, path);
    bool fits = want_dims ? h.dims.size() == want_dims : (h.dims.size() == 1 || h.dims.size() == 2);
    if (!fits) {
        std::string shape = "(";
        for (size_t i = 0; i < h.dims.size(); ++i) shape += (i ? ", " : "") + std::to_string(h.dims[i]);
        shape += h.dims.size() == 1 ? ",)" : ")";
        throw NpyError(path + ": array has shape " + shape + "; a " +
                       (want_dims ? std::to_string(want_dims) + "-D" : std::string("1-D or 2-D")) + " array is needed");
    }
    // Only now, with the size checked against the file, is memory taken.
    std::vector<T> data(h.elements);
    if (h.elements && std::fread(data.data(), sizeof(T), h.elements, f) != h.elements)
        throw NpyError(path + ": truncated data (header says " + std::to_string(h.elements) + " elements)");
    return data;
}
}   // namespace detail

// Reads a 1-D array of exactly type T.
template <class T> std::vector<T> load_npy(const std::string& path) {
    NpyHeader h;
    return detail::load_npy_dims<T>(path, 1, h);
}

// Reads a 2-D C-order array of exactly type T (shape (rows, cols), row-major).
template <class T> std::vector<T> load_npy_2d(const std::string& path, uint64_t& rows, uint64_t& cols) {
    NpyHeader h;
    std::vector<T> data = detail::load_npy_dims<T>(path, 2, h);
    rows = h.dims[0];
    cols = h.dims[1];
    return data;
}

// Reads a matrix: a 2-D C-order array (rows, cols), or a 1-D array as one row (1, n).
template <class T> std::vector<T> load_npy_matrix(const std::string& path, uint64_t& rows, uint64_t& cols) {
    NpyHeader h;
    std::vector<T> data = detail::load_npy_dims<T>(path, 0, h);
    rows = h.dims.size() == 2 ? h.dims[0] : 1;
    cols = h.dims.back();
    return data;
}

namespace detail {
template <class T> void save_npy_shape(const std::string& path, const T* data, size_t n, const std::string& shape) {
    std::string header =
        std::string("{'descr': '") + npy_descr<T>() + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw NpyError(path + ": cannot write (" + std::strerror(errno) + ")");
    unsigned char pre[10] = {
        0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header.size() & 255), (unsigned char)(header.size() >> 8)};
    bool ok = std::fwrite(pre, 1, 10, f) == 10 && std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
              (n == 0 || std::fwrite(data, sizeof(T), n, f) == n);
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) throw NpyError(path + ": write failed");
}
}   // namespace detail

template <class T> void save_npy(const std::string& path, const T* data, size_t n) {
    detail::save_npy_shape(path, data, n, "(" + std::to_string(n) + ",)");
}

// Writes a 2-D C-order array: rows x cols elements, row-major.
template <class T> void save_npy_2d(const std::string& path, const T* data, uint64_t rows, uint64_t cols) {
    detail::save_npy_shape(path, data, size_t(rows * cols),
                           "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
}

// Where a second output of the same result goes: sorted.npy -> sorted_idx.npy (suffix "_idx").
inline std::string npy_sibling(const std::string& path, const std::string& suffix) {
    bool npy = path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
    return (npy ? path.substr(0, path.size() - 4) : path) + suffix + ".npy";
}

}   // namespace course
