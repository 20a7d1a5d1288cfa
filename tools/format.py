#!/usr/bin/env python3
"""Formats the course's C++/CUDA sources with clang-format (the repository's .clang-format) and
proves that only the layout changed: each file's token stream (comments dropped) must be the
same before and after, or the file is left as it was and the run fails.

  python3 tools/format.py            format every tracked .cu/.cuh/.h/.cpp in place
  python3 tools/format.py --check    change nothing; exit 1 listing the files that would change
  python3 tools/format.py FILE ...   only these files
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTS = (".cu", ".cuh", ".h", ".cpp")
# Longest punctuators first, so '>>>' stays one token and '- -x' differs from '--x'.
PUNCT = ["<<<", ">>>", "<<=", ">>=", "...", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
         "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*"]
TOKEN = re.compile(
    r'//[^\n]*|/\*.*?\*/'                        # comments (dropped)
    r'|(?:u8|u|U|L|R)?"(?:\\.|[^"\\\n])*"'        # string literals
    r"|'(?:\\.|[^'\\\n])*'"                       # character literals
    r'|[A-Za-z_][A-Za-z_0-9]*'                    # identifiers and keywords
    r"|\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.']|)*"   # numbers
    r'|' + '|'.join(re.escape(p) for p in PUNCT) + r'|\S', re.S)


def tokens(text):
    """The file's tokens without comments; a preprocessor line's end is a token of its own."""
    out = []
    for line_group in re.split(r'(?<!\\)\n', text):
        toks = [t for t in TOKEN.findall(line_group) if not t.startswith("//") and not t.startswith("/*")]
        if line_group.lstrip().startswith("#"):
            toks = [t for t in toks if t != "\\"] + ["<eol>"]
        out.extend(toks)
    return out


def tracked_sources():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [f for f in files if f.endswith(EXTS)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="report files that are not formatted; change nothing")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or tracked_sources()
    unformatted, broken = [], []
    for f in files:
        path = os.path.join(ROOT, f)
        old = open(path, encoding="utf-8").read()
        new = subprocess.run(["clang-format", "--style=file", f"--assume-filename={path}", path],
                             capture_output=True, text=True, check=True).stdout
        if new == old:
            continue
        if tokens(new) != tokens(old):
            broken.append(f)
            continue
        unformatted.append(f)
        if not a.check:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(new)
    for f in broken:
        print(f"error: {f}: clang-format would change its tokens, not only its layout; left as it is")
    if a.check and unformatted:
        print("not formatted (run python3 tools/format.py):\n  " + "\n  ".join(unformatted))
        return 1
    if not a.check:
        print(f"{len(unformatted)} files formatted, tokens unchanged")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
