// common/npy.h — read and write NumPy .npy files (host-only), so every program runs on your data:
//   python3 -c "import numpy as np; np.save('x.npy', np.random.randint(-9, 9, 10**6, dtype=np.int32))"
//   build/lesson02_scan/06_decoupled_lookback --input x.npy --output y.npy
//
// Supported: format versions 1.0, 2.0 and 3.0; 1-D, C order, little-endian int32, uint32, int64,
// uint64, float32, float64, uint8. Anything else is refused with one clear line (NpyError).
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "inputs.h"   // TypeName<T>

namespace course {

struct NpyError : std::runtime_error { using std::runtime_error::runtime_error; };

template <class T> const char* npy_descr();
template <> inline const char* npy_descr<int32_t>()  { return "<i4"; }
template <> inline const char* npy_descr<uint32_t>() { return "<u4"; }
template <> inline const char* npy_descr<int64_t>()  { return "<i8"; }
template <> inline const char* npy_descr<uint64_t>() { return "<u8"; }
template <> inline const char* npy_descr<float>()    { return "<f4"; }
template <> inline const char* npy_descr<double>()   { return "<f8"; }
template <> inline const char* npy_descr<uint8_t>()  { return "|u1"; }

// The value of `key` in the header dict, e.g. 'descr': '<i4' -> <i4 ; 'shape': (5,) -> (5,)
inline std::string npy_header_field(const std::string& header, const std::string& key,
                                    const std::string& path) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw NpyError(path + ": malformed .npy header (no '" + key + "')");
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw NpyError(path + ": malformed .npy header");
    size_t b = header.find_first_not_of(' ', colon + 1);
    if (b == std::string::npos) throw NpyError(path + ": malformed .npy header");
    size_t e;
    if (header[b] == '\'') e = header.find('\'', b + 1) + 1;
    else if (header[b] == '(') e = header.find(')', b) + 1;
    else e = header.find_first_of(",}", b);
    if (e == std::string::npos || e == 0 || e <= b) throw NpyError(path + ": malformed .npy header");
    return header.substr(b, e - b);
}

// Reads a 1-D array of exactly type T.
template <class T>
std::vector<T> load_npy(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw NpyError(path + ": cannot open (" + std::strerror(errno) + ")");
    struct Closer { FILE* f; ~Closer() { std::fclose(f); } } closer{f};
    unsigned char pre[10];
    if (std::fread(pre, 1, 10, f) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        throw NpyError(path + ": not a .npy file (bad magic)");
    int major = pre[6];
    size_t header_len;
    if (major == 1) header_len = pre[8] | (size_t(pre[9]) << 8);
    else if (major == 2 || major == 3) {
        unsigned char more[2];
        if (std::fread(more, 1, 2, f) != 2) throw NpyError(path + ": truncated .npy header");
        header_len = pre[8] | (size_t(pre[9]) << 8) | (size_t(more[0]) << 16) | (size_t(more[1]) << 24);
    } else throw NpyError(path + ": unsupported .npy format version " + std::to_string(major));
    if (header_len > (1u << 20)) throw NpyError(path + ": malformed .npy header (too long)");
    std::string header(header_len, '\0');
    if (std::fread(&header[0], 1, header_len, f) != header_len)
        throw NpyError(path + ": truncated .npy header");

    std::string descr = npy_header_field(header, "descr", path);
    std::string order = npy_header_field(header, "fortran_order", path);
    std::string shape = npy_header_field(header, "shape", path);
    descr = descr.size() >= 2 ? descr.substr(1, descr.size() - 2) : descr;
    if (order != "False") throw NpyError(path + ": Fortran-order arrays are not supported (save a C-order copy)");
    if (!descr.empty() && descr[0] == '>')
        throw NpyError(path + ": big-endian data ('" + descr + "') is not supported; use .astype('<...')");
    std::string want = npy_descr<T>();
    bool same = descr == want || (sizeof(T) == 1 && descr.substr(1) == want.substr(1)) ||
                (descr.size() == 3 && descr[0] == '=' && descr.substr(1) == want.substr(1));
    if (!same)
        throw NpyError(path + ": dtype '" + descr + "' but this program needs " + TypeName<T>::get() +
                       " ('" + want + "')");
    // shape must be "(N,)": one dimension
    std::string dims = shape.substr(1, shape.size() - 2);
    size_t comma = dims.find(',');
    std::string first = dims.substr(0, comma);
    std::string rest = comma == std::string::npos ? "" : dims.substr(comma + 1);
    if (first.empty() || rest.find_first_not_of(' ') != std::string::npos)
        throw NpyError(path + ": array has shape " + shape + "; a 1-D array is needed");
    uint64_t n = 0;
    for (char c : first) {
        if (c < '0' || c > '9' || n > (uint64_t(1) << 50)) throw NpyError(path + ": malformed shape " + shape);
        n = n * 10 + uint64_t(c - '0');
    }
    std::vector<T> data(n);
    if (n && std::fread(data.data(), sizeof(T), n, f) != n)
        throw NpyError(path + ": truncated data (header says " + std::to_string(n) + " elements)");
    return data;
}

template <class T>
void save_npy(const std::string& path, const T* data, size_t n) {
    std::string header = std::string("{'descr': '") + npy_descr<T>() +
                         "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
    // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw NpyError(path + ": cannot write (" + std::strerror(errno) + ")");
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(header.size() & 255), (unsigned char)(header.size() >> 8)};
    bool ok = std::fwrite(pre, 1, 10, f) == 10 &&
              std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
              (n == 0 || std::fwrite(data, sizeof(T), n, f) == n);
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) throw NpyError(path + ": write failed");
}

}  // namespace course
