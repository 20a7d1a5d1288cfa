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
Every program a student opens (lessonNN_*/*.cu, wrong/, exercises/, intro/):
  * at most 20 lines before its first #include (what changed, the idea, one measured number, the
    build/run line; tuning tables and per-case timings belong in TUNING.md).
No path outside the repository, in any note (every *.md) or code comment (the lessons, common/,
tests/, plot.py, the Makefile): no ../shared or seeds/ folder, no ../ that climbs out of the
repository, no absolute /work, /tmp, /home, /root, /mnt path, no "seed 001" / "post 003" label (a
number only the course's authors can look up). The source posts are cited by title.
No measured figure in a code comment (the lessons' .cu/.cuh/.h and common/): a number followed by
ms, us, GB/s, TB/s, % of copy (or of CUB/the library), or a ratio with decimals (1.03x). One
exception: a version file's header (before its first #include) may carry one line of exactly this
form, and only if a row of results/<GPU>.csv matches it:
    // Measured: <ms> ms for n=<n> <dist> <dtype> <param> on <GPU csv stem>
(version = the file's stem; ms_median rounded to the digits given; n as an integer or 2^k) and
that row is not stale: its commit holds the same code as now for the file and the lesson headers it
includes, comments and whitespace aside (plot.py's rule, which marks stale rows in the tables).
Lesson notes (lessonNN_*/README*.md): no ms, us, GB/s, TB/s, % of copy or decimal ratio outside the
tables plot.py generates (between its marker comments), except on a line tagged with the row it
quotes, which is verified the same way; every figure on such a line must be one of the tagged rows'
values (ms_median or ms_min in ms or us, gbps, copy_gbps, % of copy, or the ratio of two tagged
rows' times), rounded to the digits given:
    ... 0.912 ms (2354 GB/s, 79% of copy) ... <!-- measured: H100_80GB_HBM3 06_decoupled_lookback n=268435456 uniform int32 exclusive=0 -->
Every kernel (a __global__ definition or declaration in a lesson's .cu/.cuh files, wrong/ and
exercises/ included) has a // comment line directly above it, or above its `template <...>` line:
the one-line delta a student reads before the kernel (what it does, what changed since the previous
version's).
Files in PENDING (work in progress elsewhere) print TODO instead of FAIL for the header and figure
checks, and say so when they pass (remove the entry then); nothing new can be added silently.

`python3 tests/test_notes.py` prints PASS/FAIL lines and 'N passed, N failed'; exit 1 on a failure.
`--self-test` shows that each check fails on a planted defect.
"""
import csv
import glob
import os
import re
import sys
import tempfile

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


HEADER_MAX = 20
OUTSIDE = [
    (re.compile(r"\.\./shared\b|(?<![\w-])shared/seeds\b|(?<![\w./-])seeds/"), "the course-authoring folder (cite the post instead)"),
    (re.compile(r"(?<![\w.~-])/(work|tmp|home|root|mnt|scratch)/"), "an absolute path on one machine"),
    (re.compile(r"\b(?:seed|post) 00\d\b"), "a seed number the reader cannot look up (name the post: README's Sources)"),
]
CLIMB = re.compile(r"(?:\.\./)+[\w.-]*")
# A measured figure: a number and a unit; a ratio only with decimals (2x is a cost-model count).
FIGURE = re.compile(r"(?<![\w.^/-])(\d+(?:\.\d+)?)(?:\s*(ms|us|µs)\b|\s*(GB/s|TB/s)|\s*(% of (?:the |a )?(?:copy|CUB|cub|library))"
                    r"|(?<=\.\d)(x)(?![\w])|(?<=\.\d\d)(x)(?![\w])|(?<=\.\d\d\d)(x)(?![\w]))")
# Files whose header or comments other work is still fixing: TODO, not FAIL. Remove an entry when
# its file passes (the run prints 'passes now: remove it'). Add none: fix the file instead.
PENDING = {
    "header": set(),
    "paths": set(),
    "figures": set(),
}


def program_files(lesson):
    """Every .cu a student opens: versions, wrong/, exercises/, intro/."""
    out = []
    for sub in ("", "wrong", "exercises", "intro"):
        out += sorted(glob.glob(os.path.join(ROOT, lesson, sub, "*.cu")))
    return out


def header_lines(text):
    """Lines before the first #include (the whole file if it has none)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*#\s*include\b", line):
            return i
    return len(lines)


def split_lines(text):
    """Each line of a C/C++ source as (code, [comment pieces]): // and /* */ comments taken out of
    the code. String literals are not parsed: a '//' inside a string counts as a comment (none in
    the course)."""
    out, in_block = [], False
    for line in text.splitlines():
        code, notes = "", []
        while line:
            if in_block:
                e = line.find("*/")
                notes.append(line if e < 0 else line[:e])
                if e < 0:
                    break
                line, in_block = line[e + 2:], False
                continue
            k, b = line.find("//"), line.find("/*")
            if k >= 0 and (b < 0 or k < b):
                code += line[:k]
                notes.append(line[k + 2:])
                break
            if b < 0:
                code += line
                break
            code, line, in_block = code + line[:b], line[b + 2:], True
        out.append((code, notes))
    return out


def comments(text, hash_comments=False):
    """(line number, comment text) of every // and /* */ comment (or # comment) in a source file."""
    if hash_comments:
        return [(i, line[line.find("#") + 1:]) for i, line in enumerate(text.splitlines(), 1)
                if "#" in line and not line.lstrip().startswith("#!")]
    return [(i, n) for i, (_, notes) in enumerate(split_lines(text), 1) for n in notes]


def outside_paths(path, text):
    """Paths in a note or comment text that leave the repository (path: the file it is in)."""
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        for rx, what in OUTSIDE:
            m = rx.search(line)
            if m:
                found.append(f"line {i}: {m.group(0)!r} ({what})")
        for m in CLIMB.finditer(line):
            target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(0)))
            if os.path.relpath(target, ROOT).startswith(".."):
                found.append(f"line {i}: {m.group(0)!r} (climbs out of the repository)")
    return found


def comment_text(path, text):
    """A source file's comments as lines of text at their own line numbers."""
    hashed = path.endswith((".py", ".sh", ".mk")) or os.path.basename(path) == "Makefile"
    lines = [""] * (len(text.splitlines()) + 1)
    for i, c in comments(text, hashed):
        lines[i - 1] += " " + c
    return "\n".join(lines)


def code_lines(text):
    """Each line of a C/C++ source with its comments blanked (split_lines)."""
    return [code for code, _ in split_lines(text)]


TEMPLATE_HEAD = 4   # lines a `template <...>` head may span above its kernel


def kernels_without_comment(text):
    """(line number, line) of every __global__ kernel, definition or declaration, with no // comment
    line directly above it or above its `template <...>` head."""
    lines, code = text.splitlines(), code_lines(text)
    found = []
    for i, c in enumerate(code):
        if not re.search(r"\b__global__\b", c):
            continue
        j = i - 1
        if not c.lstrip().startswith("template"):
            # walk over the template head: its first line starts with `template`, the ones below
            # it are code that neither ends a statement nor opens a body
            for k in range(i - 1, max(-1, i - 1 - TEMPLATE_HEAD), -1):
                if not code[k].strip() or code[k].rstrip().endswith((";", "{", "}")):
                    break
                if code[k].lstrip().startswith("template"):
                    j = k - 1
                    break
        if j < 0 or not lines[j].lstrip().startswith("//"):
            found.append((i + 1, lines[i].strip()))
    return found


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
    # The limit is on the prose a learner reads: the tables plot.py generates (between its marker
    # comments) grow with the data (a row a version, a footnote for stale rows) and are not counted.
    prose, generated = 0, False
    for line in lines:
        if GENERATED.match(line):
            generated = True
        elif generated and GENERATED_END.match(line):
            generated = False
        elif not generated:
            prose += 1
    if prose > max_lines + SLACK:
        problems.append(f"{prose} lines of prose outside the generated tables (at most about {max_lines})")
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
    # A multi-GPU version's algorithm is the decomposition and the exchange (NCCL calls in this
    # file) around the one-GPU version's kernels, which it includes rather than copies.
    is_multi_gpu = "multi_gpu" in base and "nccl" in text.lower()
    if not is_bar and not is_multi_gpu and "__global__" not in text:
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
        for f in program_files(lesson):
            n = header_lines(open(f).read())
            probs = [f"{n} lines before the first #include (at most {HEADER_MAX})"] if n > HEADER_MAX else []
            report_pending("header", os.path.relpath(f, ROOT), probs, f"header at most {HEADER_MAX} lines")
    check_paths()
    check_code_timings()
    check_note_figures()
    check_kernel_comments()


def check_kernel_comments():
    """Every kernel of the lessons has its one-line comment directly above it (or its template)."""
    kernels = files = 0
    for f in repo_files(["lesson*/**/*.cu", "lesson*/**/*.cuh"]):
        text = open(f, errors="replace").read()
        n = sum(1 for c in code_lines(text) if re.search(r"\b__global__\b", c))
        if not n:
            continue
        missing = kernels_without_comment(text)
        if missing:
            report(False, f"{os.path.relpath(f, ROOT)}: a // comment line directly above every kernel",
                   "; ".join(f"line {i}: {line[:60]!r}" for i, line in missing[:6]))
        kernels, files = kernels + n, files + 1
    report(True, f"kernels of the lessons: {kernels} in {files} files checked for their comment line")


def report_pending(kind, rel, probs, what):
    """FAIL, or TODO for a file in PENDING[kind]; a PENDING file that passes fails (remove it)."""
    if rel in PENDING[kind]:
        if probs:
            results["todo"] = results.get("todo", 0) + 1
            print(f"TODO  {rel}: {what} (in PENDING): {'; '.join(probs[:4])}", flush=True)
        else:   # not a failure: the file's owner may fix it while this list is edited elsewhere
            results["cleared"] = results.get("cleared", 0) + 1
            print(f"PASS  {rel}: {what} (passes now: remove it from PENDING['{kind}'])", flush=True)
        return
    report(not probs, f"{rel}: {what}", "; ".join(probs[:6]))


def repo_files(patterns):
    out = set()
    for pat in patterns:
        out |= set(glob.glob(os.path.join(ROOT, pat), recursive=True))
    return sorted(f for f in out if os.path.isfile(f) and not os.path.relpath(f, ROOT).startswith(("build" + os.sep, ".git" + os.sep)))


def check_paths():
    """No note and no code comment points outside the repository."""
    for f in repo_files(["**/*.md"]):
        found = outside_paths(f, open(f, errors="replace").read())
        report_pending("paths", os.path.relpath(f, ROOT), found, "no path outside the repository, no seed number")
    code = repo_files(["lesson*/**/*.cu", "lesson*/**/*.cuh", "lesson*/**/*.h", "lesson*/**/*.py", "common/*",
                       "tests/*", "tools/*", "plot.py", "Makefile"])
    code = [f for f in code if f != os.path.abspath(__file__)]   # its self-test plants these paths
    clean = 0
    for f in code:
        found = outside_paths(f, comment_text(f, open(f, errors="replace").read()))
        rel = os.path.relpath(f, ROOT)
        if found or rel in PENDING["paths"]:
            report_pending("paths", rel, found, "no path outside the repository or seed number in its comments")
        else:
            clean += 1
    report(True, f"code comments of {clean} more files: no path outside the repository")


MEASURED = re.compile(r"^\s*//\s*Measured: (\d+(?:\.\d+)?) ms for n=(\d+|2\^\d+) (\S+) (\S+) (\S+) on ([\w.-]+)\s*$")
NOTE_TAG = re.compile(r"<!--\s*measured:\s*([\w.-]+)\s+(\S+)\s+n=(\d+|2\^\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s*-->")
GENERATED = re.compile(r"^<!-- (results|headline|shapes):begin")
GENERATED_END = re.compile(r"^<!-- results:end -->")


def as_n(text):
    return 1 << int(text[2:]) if text.startswith("2^") else int(text)


class Rows:
    """results/<GPU>.csv rows by (GPU stem, version, n, dist, dtype, param), and whether each is fresh
    (plot.py's stale rule: the row's commit holds the code that is here now)."""

    def __init__(self, csv_paths, fresh=None):
        self.rows = {}
        for p in csv_paths:
            stem = os.path.splitext(os.path.basename(p))[0]
            with open(p, newline="") as f:
                for r in csv.DictReader(f):
                    try:
                        key = (stem, r["version"], int(r["n"]), r["dist"], r["dtype"], r["param"])
                    except (KeyError, ValueError):
                        continue
                    self.rows[key] = r
        self.fresh = fresh or plot_fresh

    def find(self, stem, version, n, dist, dtype, param):
        return self.rows.get((stem, version, as_n(n), dist, dtype, param))


def plot_fresh(row):
    """None when the row measured the code here now, else why not (plot.stale_reason)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    import plot   # one rule for the tables and for this check
    row = dict(row)
    for c in ("commit", "cuda", "driver"):
        row[c] = (row.get(c) or "").strip() or "unknown"
    return plot.stale_reason(row)


def digits(text):
    return len(text.split(".")[1]) if "." in text else 0


def same_value(text, value):
    return f"{value:.{digits(text)}f}" == text


def code_timings(path, text, rows):
    """Measured figures in a source file's comments, and what is wrong with its 'Measured:' line."""
    found, head, measured = [], header_lines(text), 0
    lines = text.splitlines()
    for i, c in comments(text):
        line = lines[i - 1] if i - 1 < len(lines) else ""
        m = MEASURED.match(line)
        if m and i <= head and c == line.split("//", 1)[1]:
            measured += 1
            if measured > 1:
                found.append(f"line {i}: a second 'Measured:' line (one a header)")
                continue
            ms, n, dist, dtype, param, stem = m.groups()
            version = os.path.splitext(os.path.basename(path))[0]
            row = rows.find(stem, version, n, dist, dtype, param)
            if row is None:
                found.append(f"line {i}: no row of results/{stem}.csv for {version} n={n} {dist} {dtype} {param}")
            elif not same_value(ms, float(row["ms_median"])):
                found.append(f"line {i}: {ms} ms, but results/{stem}.csv says {float(row['ms_median']):.6f}")
            else:
                why = rows.fresh(row)
                if why:
                    found.append(f"line {i}: its row is stale ({why})")
            continue
        for f in FIGURE.finditer(c):
            found.append(f"line {i}: {f.group(0).strip()!r}")
    return found


def note_figures(text, rows):
    """Measured figures in a lesson note's prose (outside generated tables) that no verified tag backs."""
    found, generated = [], False
    for i, line in enumerate(text.splitlines(), 1):
        if GENERATED.match(line):
            generated = True
        if generated:
            generated = not GENERATED_END.match(line)
            continue
        figures = list(FIGURE.finditer(line))
        if not figures:
            continue
        tagged, problems = [], []
        for t in NOTE_TAG.finditer(line):
            stem, version, n, dist, dtype, param = t.groups()
            row = rows.find(stem, version, n, dist, dtype, param)
            if row is None:
                problems.append(f"line {i}: tag names no row of results/{stem}.csv ({version} n={n} {dist} {dtype} {param})")
            elif rows.fresh(row):
                problems.append(f"line {i}: tagged row of {version} is stale ({rows.fresh(row)})")
            else:
                tagged.append(row)
        if problems:
            found += problems
            continue
        for f in figures:
            if any(t.start() <= f.start() < t.end() for t in NOTE_TAG.finditer(line)):
                continue   # the tag's own n=, not a figure
            num = f.group(1)
            unit = f.group(2) or f.group(3) or f.group(4) or "x"
            values = []
            for r in tagged:
                ms, mn, g, c = (float(r[k]) for k in ("ms_median", "ms_min", "gbps", "copy_gbps"))
                if unit == "ms":
                    values += [ms, mn]
                elif unit in ("us", "µs"):
                    values += [ms * 1000, mn * 1000]
                elif unit == "GB/s":
                    values += [g, c]
                elif unit == "TB/s":
                    values += [g / 1000, c / 1000]
                elif unit.startswith("%"):
                    values += [100 * g / c] if c > 0 else []
            if unit == "x" or unit.startswith("%"):
                values += [float(a["ms_median"]) / float(b["ms_median"]) * (100 if unit.startswith("%") else 1)
                           for a in tagged for b in tagged if a is not b and float(b["ms_median"]) > 0]
            if not any(same_value(num, v) for v in values):
                found.append(f"line {i}: {f.group(0).strip()!r}" + (" (not a value of the tagged rows)" if tagged else ""))
    return found


def results_csvs():
    return sorted(glob.glob(os.path.join(ROOT, "results", "*.csv")))


def check_code_timings():
    """No measured figure in a code comment, except a header's 'Measured:' line that results/ backs."""
    rows = Rows(results_csvs())
    files = repo_files(["lesson*/**/*.cu", "lesson*/**/*.cuh", "lesson*/**/*.h", "common/*.cuh", "common/*.h"])
    clean = 0
    for f in files:
        rel = os.path.relpath(f, ROOT)
        found = code_timings(rel, open(f, errors="replace").read(), rows)
        if found or rel in PENDING["figures"]:
            report_pending("figures", rel, found, "no measured figure in comments but a header's checked 'Measured:' line")
        else:
            clean += 1
    report(True, f"comments of {clean} more source files: no measured figure")


def check_note_figures():
    """Lesson notes: figures only in generated tables or on a line tagged with the row it quotes."""
    rows = Rows(results_csvs())
    for f in repo_files(["lesson*/README*.md"]):
        found = note_figures(open(f, errors="replace").read(), rows)
        report_pending("figures", os.path.relpath(f, ROOT), found,
                       "figures only in generated tables or on a line tagged with its verified row")


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
    header = "".join(f"// line {i}\n" for i in range(HEADER_MAX)) + "#include <cstdio>\n"
    if header_lines(header) != HEADER_MAX or header_lines("// one more\n" + header) <= HEADER_MAX:
        print("FAIL  self-test: a 21-line header was not counted as too long"); ok = False
    lesson_readme = os.path.join(ROOT, "lesson02_scan", "README.md")
    for what, text in (("../shared", "The naive end is post 003 (`../shared/seeds/`)."),
                       ("a /tmp path", "Run it on /tmp/big.npy."),
                       ("a ../ out of the repository", "See [the posts](../../elsewhere/posts.md).")):
        if not outside_paths(lesson_readme, text):
            print(f"FAIL  self-test: a note with {what} passed"); ok = False
    if not outside_paths(lesson_readme, "| `compact_01` | the textbook compaction (seed 001) |"):
        print("FAIL  self-test: a note with a seed number passed"); ok = False
    if outside_paths(lesson_readme, "See [the course](../README.md) and `lesson04_sort/README.md`."):
        print("FAIL  self-test: a link inside the repository failed"); ok = False
    src = '// h\n#include "x.cuh"\nint t = 4096;   // see /work/main/notes.txt\n__global__ void k() {}\n'
    if not outside_paths("lesson02_scan/x.cu", comment_text("lesson02_scan/x.cu", src)):
        print("FAIL  self-test: a code comment with /work passed"); ok = False
    if outside_paths("x.py", comment_text("tests/x.py", 'p = "/tmp/x"   # a scratch file\n')):
        print("FAIL  self-test: a /tmp path in code (not a comment) failed"); ok = False
    fd, csv_path = tempfile.mkstemp(suffix=".csv", prefix="H100_80GB_HBM3-")
    stem = os.path.splitext(os.path.basename(csv_path))[0]
    try:
        with os.fdopen(fd, "w") as f:
            f.write("gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check,commit,cuda,driver\n"
                    "G,02_scan,00_cub,int32,268435456,uniform,exclusive=0,5,0.880812,0.87,2437.9,2900.0,PASS,fresh,13.0,x\n"
                    "G,02_scan,06_x,int32,268435456,uniform,exclusive=0,5,0.858912,0.85,2500.1,3000.0,PASS,fresh,13.0,x\n"
                    "G,02_scan,05_old,int32,268435456,uniform,exclusive=0,5,1.5,1.4,1500,3000.0,PASS,old,13.0,x\n")
        rows = Rows([csv_path], fresh=lambda r: None if r["commit"] == "fresh" else "code changed since old")
    finally:
        os.remove(csv_path)
    line = f"// Measured: 0.8589 ms for n=2^28 uniform int32 exclusive=0 on {stem}\n"
    head = "// 06_x -- the idea.\n// 2x fewer bytes, 128 x 4 tiles\n"
    body = '#include "x.cuh"\nfloat t = 0.1234; // no unit: not a figure\n'
    if code_timings("lesson02_scan/06_x.cu", head + line + body, rows):
        print(f"FAIL  self-test: a header's checked Measured line flagged: "
              f"{code_timings('lesson02_scan/06_x.cu', head + line + body, rows)}"); ok = False
    for what, path, text in (
            ("a timing in a comment", "lesson02_scan/06_x.cu", head + body + "int x;  // 0.8589 ms on the H100\n"),
            ("a ratio to the library", "lesson02_scan/06_x.cu", head + body + "/* the best is\n   1.03x CUB */\n"),
            ("a % of copy", "lesson02_scan/06_x.cu", head + "// 86% of copy\n" + body),
            ("a bandwidth in common/", "common/x.cuh", "// streams at 2500 GB/s\n" + body),
            ("a Measured line whose value differs", "lesson02_scan/06_x.cu", head + line.replace("0.8589", "0.8512") + body),
            ("a Measured line of another version", "lesson02_scan/07_y.cu", head + line + body),
            ("a Measured line of a stale row", "lesson02_scan/05_old.cu",
             head + f"// Measured: 1.5 ms for n=2^28 uniform int32 exclusive=0 on {stem}\n" + body),
            ("a Measured line below the header", "lesson02_scan/06_x.cu", head + body + line),
            ("two Measured lines", "lesson02_scan/06_x.cu", head + line + line + body)):
        if not code_timings(path, text, rows):
            print(f"FAIL  self-test: {what} passed the timing check"); ok = False
    tag = f"<!-- measured: {stem} 06_x n=268435456 uniform int32 exclusive=0 -->"
    bar = f"<!-- measured: {stem} 00_cub n=2^28 uniform int32 exclusive=0 -->"
    good = (f"06 takes 0.859 ms (2500 GB/s, 83% of copy) at 2^28. {tag}\n"
            f"That is 1.03x CUB. {tag} {bar}\n2x fewer bytes; 4 x 4 tiles.\n"
            "<!-- results:begin lesson=02_scan -->\n| `06_x` | 0.8589 | 2500 |\n<!-- results:end -->\n")
    if note_figures(good, rows):
        print(f"FAIL  self-test: a note with tagged figures flagged: {note_figures(good, rows)}"); ok = False
    for what, text in (("an untagged time", "06 takes 0.859 ms at 2^28.\n"),
                       ("an untagged ratio", "That is 1.03x CUB.\n"),
                       ("a figure the tag's row does not give", f"06 takes 0.912 ms at 2^28. {tag}\n"),
                       ("a tag naming no row", f"0.859 ms <!-- measured: {stem} 06_x n=2^20 uniform int32 exclusive=0 -->\n"),
                       ("a stale tagged row", f"1.5 ms <!-- measured: {stem} 05_old n=2^28 uniform int32 exclusive=0 -->\n"),
                       ("a figure after a generated table", "<!-- results:begin lesson=02_scan -->\n<!-- results:end -->\n"
                                                            "It runs at 86% of copy.\n")):
        if not note_figures(text, rows):
            print(f"FAIL  self-test: a note with {what} passed"); ok = False
    kernel = "__global__ void k(int* p) {\n    *p = 1;\n}\n"
    for what, text in (("a kernel with no comment", "#include <cstdio>\n\n" + kernel),
                       ("a comment above a blank line", "// k sets *p.\n\n" + kernel),
                       ("a template kernel with no comment", "int x;\ntemplate <class T>\n" + kernel),
                       ("a comment only at the end of the line above", "int x;   // x\n" + kernel),
                       ("an uncommented declaration", "// k: below.\n" + kernel + "__global__ void k2(int* p);\n"),
                       ("a two-line template head with no comment", "}\ntemplate <class T,\n          int N>\n" + kernel)):
        if not kernels_without_comment(text):
            print(f"FAIL  self-test: {what} passed the kernel-comment check"); ok = False
    for what, text in (("a comment above the kernel", "// Delta from 01: k sets *p.\n" + kernel),
                       ("a comment above its template line", "// k sets *p.\ntemplate <class T>\n" + kernel),
                       ("a comment above a two-line template head",
                        "// k sets *p.\ntemplate <class T,\n          int N>\n__global__ void __launch_bounds__(N)\nk(T* p) {}\n"),
                       ("__global__ in a comment", "int x;\n// a __global__ function is a kernel\n/* __global__ */ int y;\n")):
        if kernels_without_comment(text):
            print(f"FAIL  self-test: {what} failed the kernel-comment check: {kernels_without_comment(text)}"); ok = False
    print("self-test " + ("passed" if ok else "FAILED"))
    return ok


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        sys.exit(0 if self_test() else 1)
    if not self_test():
        sys.exit(1)
    run_checks()
    todo, cleared = results.get("todo", 0), results.get("cleared", 0)
    print(f"{results['passed']} passed, {results['failed']} failed"
          + (f" ({todo} TODO in PENDING)" if todo else "") + (f" ({cleared} PENDING entries can go)" if cleared else ""))
    sys.exit(1 if results["failed"] else 0)
