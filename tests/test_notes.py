#!/usr/bin/env python3
"""Checks the shape of the course that a reader sees (host only, no GPU, no build needed).

Lesson notes (lessonNN_*/README*.md):
  * learner text only: no dates, no log file paths, no issue numbers (those go to TUNING.md);
  * at most about 300 lines (lesson 03, three primitives: 450);
  * the lesson's TUNING.md exists and the notes link it.
Version files (lessonNN_*/NN_*.cu and lesson 03's <part>_NN_*.cu):
  * open with a header comment that gives the standalone build line within its first 25 lines;
  * carry no tuning knobs: no #ifdef/#ifndef/#if on a macro of their own, except COURSE_NO_MAIN
    (the switch that lets an exercise or a wrong/ program include a version for its kernels) and
    toolkit/architecture guards (CUB_VERSION, __CUDA_ARCH__, __has_include);
  * are not a bare main over a header only they use: a version with no kernel of its own must
    include only headers that some other version (or the library bar) shares.
Lesson headers (*.cuh, *.h in a lesson folder) carry no tuning knobs either.

`python3 tests/test_notes.py` prints PASS/FAIL lines and 'N passed, N failed'; exit 1 on a failure.
`--self-test` shows that each check fails on a planted defect.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = ["lesson01_topk", "lesson02_scan", "lesson03_compact_spmv", "lesson04_sort", "lesson05_histogram"]
MAX_LINES = {"lesson03_compact_spmv": 450}
DEFAULT_MAX_LINES = 300
SLACK = 20   # "about" 300 lines

DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b\d{1,2}:\d\d UTC\b|\bUTC\b")
LOG_PATH = re.compile(r"results/(logs|ncu)/|\b[\w.-]+\.log\b")
ISSUE = re.compile(r"\b[Ii]ssues? #?\d+|(?<![\w&])#\d{1,4}\b")
ALLOWED_MACROS = {"COURSE_NO_MAIN", "CUB_VERSION", "__CUDA_ARCH__", "__has_include", "TOPK_HAVE_CUB_TOPK"}
KNOB = re.compile(r"^\s*#\s*(ifndef|ifdef|if|elif)\b(.*)$")


def version_files(lesson):
    out = []
    for f in sorted(glob.glob(os.path.join(ROOT, lesson, "*.cu"))):
        if re.match(r"^([a-z]+_)?\d\d_", os.path.basename(f)):
            out.append(f)
    return out


def check_notes_text(name, text, max_lines):
    """Returns a list of problems with one README's text."""
    problems = []
    lines = text.splitlines()
    if len(lines) > max_lines + SLACK:
        problems.append(f"{len(lines)} lines (at most about {max_lines})")
    for i, line in enumerate(lines, 1):
        for what, rx in (("a date", DATE), ("a log path", LOG_PATH), ("an issue number", ISSUE)):
            m = rx.search(line)
            if m:
                problems.append(f"line {i} has {what}: {m.group(0)!r}")
    return problems


def knob_lines(text):
    """The preprocessor conditionals that test a macro the course may not use as a knob."""
    found = []
    in_comment = False
    for i, line in enumerate(text.splitlines(), 1):
        m = KNOB.match(line)
        if not m:
            continue
        cond = m.group(2)
        cond = cond.split("//")[0]
        names = set(re.findall(r"[A-Za-z_]\w*", cond)) - {"defined"}
        # include guards of the form #ifndef X_H / X_CUH
        if m.group(1) == "ifndef" and len(names) == 1 and re.fullmatch(r"\w+_(H|CUH|HPP)_?", next(iter(names))):
            continue
        bad = [n for n in names if n not in ALLOWED_MACROS and not n.startswith("__")]
        # a guard like `#if __has_include(<cub/...>)` has path words in it: ignore lowercase words
        bad = [n for n in bad if not n.islower()]
        if bad:
            found.append(f"line {i}: {line.strip()}")
    return found


def includes(text):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)


def check_version_file(path, text, shared_headers):
    problems = []
    head = "\n".join(text.splitlines()[:25])
    if not text.lstrip().startswith("//"):
        problems.append("does not open with a header comment")
    if "nvcc" not in head:
        problems.append("its first 25 lines give no standalone build line (nvcc ...)")
    for k in knob_lines(text):
        problems.append(f"tuning knob {k}")
    base = os.path.basename(path)
    is_bar = re.match(r"^([a-z]+_)?00_", base) is not None
    if not is_bar and "__global__" not in text:
        own = [h for h in includes(text) if not h.startswith("..") and h not in shared_headers]
        if own:
            problems.append(f"no kernel of its own, and its header(s) {own} serve no other version")
    return problems


def shared_lesson_headers(lesson):
    """Headers of a lesson included by two or more of its version files, or by another lesson."""
    users = {}
    for f in version_files(lesson):
        for h in includes(open(f).read()):
            users.setdefault(h, set()).add(f)
    shared = {h for h, u in users.items() if len(u) >= 2}
    # a header another lesson includes is shared too
    for other in LESSONS:
        if other == lesson:
            continue
        for f in glob.glob(os.path.join(ROOT, other, "**", "*.cu*"), recursive=True) + \
                glob.glob(os.path.join(ROOT, other, "*.h")):
            for h in includes(open(f).read()):
                if h.startswith(f"../{lesson}/") or h.startswith(f"../../{lesson}/"):
                    shared.add(h.split("/")[-1])
    return shared


results = {"passed": 0, "failed": 0}


def report(ok, name, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f": {detail}" if detail and not ok else ""), flush=True)


def run_checks():
    for lesson in LESSONS:
        max_lines = MAX_LINES.get(lesson, DEFAULT_MAX_LINES)
        readmes = sorted(glob.glob(os.path.join(ROOT, lesson, "README*.md")))
        report(bool(readmes), f"{lesson}: has a README.md")
        for r in readmes:
            probs = check_notes_text(r, open(r).read(), max_lines if r.endswith("README.md") else DEFAULT_MAX_LINES)
            report(not probs, f"{os.path.relpath(r, ROOT)}: learner text, length", "; ".join(probs[:5]))
        tuning = os.path.join(ROOT, lesson, "TUNING.md")
        linked = any("TUNING.md" in open(r).read() for r in readmes)
        report(os.path.exists(tuning) and linked, f"{lesson}: TUNING.md exists and the notes link it")
        shared = shared_lesson_headers(lesson)
        for f in version_files(lesson):
            probs = check_version_file(f, open(f).read(), shared)
            report(not probs, f"{os.path.relpath(f, ROOT)}: header, no knobs, kernels in the file", "; ".join(probs))
        for h in sorted(glob.glob(os.path.join(ROOT, lesson, "*.cuh")) + glob.glob(os.path.join(ROOT, lesson, "*.h"))):
            k = knob_lines(open(h).read())
            report(not k, f"{os.path.relpath(h, ROOT)}: no tuning knobs", "; ".join(k))


def self_test():
    """Each check must fail on a planted defect (a checker that cannot fail is a defect)."""
    ok = True
    planted = {
        "date": "Measured on 2026-11-23 at 19:00 UTC.",
        "log path": "See results/logs/H100_sweep.log for the run.",
        "issue": "The target of issue 16 is met.",
    }
    for what, text in planted.items():
        if not check_notes_text("x", text, 300):
            print(f"FAIL  self-test: a README with {what} passed"); ok = False
    if not check_notes_text("x", "line\n" * 400, 300):
        print("FAIL  self-test: a 400-line README passed"); ok = False
    if check_notes_text("x", "# Lesson\nThe scan reads n and writes n elements.\n", 300):
        print("FAIL  self-test: a clean README failed"); ok = False
    knob = "// h\n// nvcc -O3 x.cu\n#ifndef MERGE_ITEMS\n#define MERGE_ITEMS 32\n#endif\n__global__ void k() {}\n"
    if not check_version_file("05_x.cu", knob, set()):
        print("FAIL  self-test: a version with a knob passed"); ok = False
    clean = "// h\n// nvcc -O3 x.cu\n#ifndef COURSE_NO_MAIN\nint main() {}\n#endif\n__global__ void k() {}\n"
    if check_version_file("05_x.cu", clean, set()):
        print("FAIL  self-test: a clean version failed"); ok = False
    bare = '// h\n// nvcc -O3 x.cu\n#include "radix_select.cuh"\nint main() {}\n'
    if not check_version_file("05_x.cu", bare, set()):
        print("FAIL  self-test: a bare main over a one-program header passed"); ok = False
    if check_version_file("05_x.cu", bare, {"radix_select.cuh"}):
        print("FAIL  self-test: a version over a shared header failed"); ok = False
    print("self-test " + ("passed" if ok else "FAILED"))
    return ok


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        sys.exit(0 if self_test() else 1)
    if not self_test():
        sys.exit(1)
    run_checks()
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)
