// common/text.h — showing text that came from a user's file inside a one-line error message.
#pragma once
#include <cstdio>
#include <string>

namespace course {

// At most `max` characters of `s`, anything unprintable written as \xNN, "..." when cut: a hostile
// file cannot turn the course's one-line error into many lines or a terminal escape sequence.
inline std::string printable(const std::string& s, size_t max = 60) {
    std::string out;
    size_t i = 0;
    for (; i < s.size() && out.size() < max; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 32 && c < 127) out += char(c);
        else { char b[8]; std::snprintf(b, sizeof b, "\\x%02x", c); out += b; }
    }
    return i < s.size() ? out + "..." : out;
}

// The whole of `s` (up to 2000 characters) on one line: control characters (newline, carriage
// return, escape, ...) written as \xNN, other bytes (UTF-8 file names) kept. Every "error: ..."
// line the course prints goes through it, so no argument or file can split it into several lines.
inline std::string one_line(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size() && out.size() < 2000; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 32 || c == 127) { char b[8]; std::snprintf(b, sizeof b, "\\x%02x", c); out += b; }
        else out += char(c);
    }
    return out;
}

}  // namespace course
