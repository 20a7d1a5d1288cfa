// common/text.h — showing text that came from a user's file inside a one-line error message.
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>

namespace course {

// What a program refuses rather than fails at: a bad option or input file, a case this GPU or this
// version cannot run. drive() turns any of them into one line and exit 2; any other exception is a
// bug and still ends the program loudly. (SkipCase, UsageError: device.cuh; NpyError: npy.h.)
struct Refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `s` made safe to show inside a one-line message: every control character (newline, carriage
// return, escape, ...) is written as \xNN, so no file or argument can split the line into several
// or send the terminal an escape sequence. The two options:
//   max         stop once the result holds `max` characters; `cut_mark` is added if that left
//               some of `s` out ("..." says so; "" cuts silently)
//   ascii_only  also write bytes 127..255 as \xNN (true), or keep them, so that a UTF-8 file
//               name stays readable (false; DEL, 127, is still escaped)
inline std::string escaped(const std::string& s, size_t max, bool ascii_only, const char* cut_mark) {
    std::string out;
    size_t i = 0;
    for (; i < s.size() && out.size() < max; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        bool shown_as_is = c >= 32 && c != 127 && (c < 127 || !ascii_only);
        if (shown_as_is) out += char(c);
        else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        }
    }
    return i < s.size() ? out + cut_mark : out;
}

// A short quote of a file's contents (a dtype, a shape, a word of a header): at most `max`
// characters, ASCII only, "..." when cut, so a hostile file cannot fill the error line either.
inline std::string printable(const std::string& s, size_t max = 60) { return escaped(s, max, true, "..."); }

// The whole of a message (up to 2000 characters) on one line, UTF-8 kept. Every "error: ..." line
// the course prints goes through it.
inline std::string one_line(const std::string& s) { return escaped(s, 2000, false, ""); }

}   // namespace course
