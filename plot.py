#!/usr/bin/env python3
"""Charts and tables from the course's measured results.

  python3 plot.py                      results/*.csv -> plots/*.png and every lesson README's table
                                       (no plots of its own for a lesson shown as a shapes table)
  python3 plot.py --check              exit 1 if a README table differs from what the CSVs give
  python3 plot.py --summary FILE.csv   print one table (what `make lessonNN` shows)
  python3 plot.py --merge NEW --into OLD   replace OLD's rows of the same cases by NEW's

CSV columns: gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check,
             commit,cuda,driver (who measured the row; a CSV without them reads as 'unknown')
A row is stale when its version's code (the .cu file and the lesson headers it includes, comments
and whitespace aside) differs between the row's commit and now: the tables mark it with a dagger
and a footnote, and a warning line names it.
A README table lives between two marker lines; the first may narrow the rows it shows:
  <!-- results:begin lesson=02_scan dist=uniform dtype=int32 param=exclusive=0 sizes=16777216,268435456 -->
  <!-- results:end -->
The version whose name contains '00_' is the library bar, the one with '01_' the naive version.
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["gpu", "lesson", "version", "dtype", "n", "dist", "param", "reps", "ms_median", "ms_min",
           "gbps", "copy_gbps", "check"]
PROVENANCE = ["commit", "cuda", "driver"]
KEY = ("gpu", "lesson", "version", "dtype", "n", "dist", "param")
BEGIN = re.compile(r"^<!-- (results|headline|shapes):begin(.*?)-->\s*$")
END = re.compile(r"^<!-- results:end -->\s*$")


def read_rows(paths):
    """Rows from every CSV, the last one winning where the same case was measured twice."""
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"error: {path}: missing columns {', '.join(missing)}")
            for r in reader:
                try:
                    r["n"] = int(r["n"])
                    for c in ("ms_median", "ms_min", "gbps", "copy_gbps"):
                        r[c] = float(r[c])
                except ValueError as e:
                    sys.exit(f"error: {path}: bad number in row {r}: {e}")
                for c in PROVENANCE:   # an older CSV has no provenance columns
                    r[c] = (r.get(c) or "").strip() or "unknown"
                r.pop(None, None)
                rows[tuple(r[k] for k in KEY)] = r
    return list(rows.values())


def write_rows(path, rows):
    rows = sorted(rows, key=lambda r: (r["gpu"], r["lesson"], r["version"], r["dtype"], r["dist"], r["param"], r["n"]))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS + PROVENANCE, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            out = dict(r)
            for c in ("ms_median", "ms_min"):
                out[c] = f"{r[c]:.6f}"
            for c in ("gbps", "copy_gbps"):
                out[c] = f"{r[c]:.2f}"
            w.writerow(out)


# ---- provenance: was a row measured on the code that is here now? ----------------------------

def strip_code(text):
    """C++ source without its comments and whitespace (string and character literals kept): two
    versions of a file that differ only in comments or formatting give the same text."""
    def keep(m):
        return m.group(0) if m.group(0)[0] in "\"'" else " "
    text = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', keep, text, flags=re.S)
    return re.sub(r"\s+", "", text)


class CodeHistory:
    """A version's code at a commit (git cat-file) and now (the working tree): the .cu file and the
    lesson headers it includes, followed through their own includes, comments and whitespace aside."""

    def __init__(self, root=ROOT):
        self.root = root
        self.blobs, self.commits, self.names, self.prints = {}, {}, {}, {}
        self.proc = None
        try:
            ok = subprocess.run(["git", "-C", root, "rev-parse", "--verify", "HEAD"], capture_output=True).returncode == 0
        except OSError:
            ok = False
        self.has_git = ok

    def _git(self, *args):
        p = subprocess.run(["git", "-C", self.root] + list(args), capture_output=True, text=True, errors="replace")
        return p.stdout if p.returncode == 0 else None

    def commit(self, rev):
        """The full hash of rev, or None when it is not in this repository's history."""
        if rev not in self.commits:
            out = self._git("rev-parse", "--verify", "--quiet", rev + "^{commit}") if re.fullmatch(r"[0-9a-fA-F]{4,40}", rev) else None
            self.commits[rev] = out.strip() if out else None
        return self.commits[rev]

    def read(self, commit, path):
        """The file's text at a commit (None: now, the working tree); None when it did not exist."""
        if commit is None:
            full = os.path.join(self.root, path)
            return open(full, errors="replace").read() if os.path.isfile(full) else None
        key = (commit, path)
        if key not in self.blobs:
            if self.proc is None:
                self.proc = subprocess.Popen(["git", "-C", self.root, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE)
            self.proc.stdin.write(f"{commit}:{path}\n".encode())
            self.proc.stdin.flush()
            head = self.proc.stdout.readline().decode().split()
            if len(head) == 3 and head[1] == "blob":
                data = self.proc.stdout.read(int(head[2]) + 1)[:-1]
                self.blobs[key] = data.decode(errors="replace")
            else:
                self.blobs[key] = None
        return self.blobs[key]

    def older_names(self, path):
        """The path and the names the file had before (git log --follow), newest first."""
        if path not in self.names:
            out = self._git("log", "--follow", "--name-only", "--format=", "--", path) or ""
            seen = [path]
            for line in out.splitlines():
                if line.strip() and line.strip() not in seen:
                    seen.append(line.strip())
            self.names[path] = seen
        return self.names[path]

    def fingerprint(self, commit, path):
        """Stripped code of path and of the lesson headers it reaches through #include "...", or None."""
        key = (commit, path)
        if key in self.prints:
            return self.prints[key]
        start = path
        if commit is not None and self.read(commit, path) is None:   # renamed since: its name then
            start = next((p for p in self.older_names(path) if self.read(commit, p) is not None), None)
        parts, todo, seen = [], [start] if start else [], set()
        while todo:
            f = todo.pop(0)
            if f in seen:
                continue
            seen.add(f)
            text = self.read(commit, f)
            if text is None:
                continue
            parts.append(strip_code(text))
            for inc in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
                dep = os.path.normpath(os.path.join(os.path.dirname(f), inc))
                if dep.startswith("lesson"):   # the lesson's own headers; common/ is the harness, not the version
                    todo.append(dep)
        self.prints[key] = "\n".join(parts) if parts else None
        return self.prints[key]


HISTORY = None
STALE = {}   # (lesson, version, commit) -> why, for the warning lines


def version_source(lesson, version):
    paths = glob.glob(os.path.join(ROOT, f"lesson{lesson[:2]}_*", version + ".cu"))
    return os.path.relpath(paths[0], ROOT) if paths else None


def stale_reason(r):
    """Why a row may not describe the code here now, or None: its commit is unknown or not in this
    history, or its version's code changed since. Rows of no version file here (an outside baseline
    such as torch.topk) are never stale."""
    global HISTORY
    src = version_source(r["lesson"], r["version"])
    if src is None:
        return None
    if HISTORY is None:
        HISTORY = CodeHistory()
    if not HISTORY.has_git:
        return None
    c = r.get("commit", "unknown")
    if c == "unknown":
        why = "measured by an unknown commit"
    elif HISTORY.commit(c) is None:
        why = f"commit {c} is not in this history"
    else:
        then = HISTORY.fingerprint(HISTORY.commit(c), src)
        now = HISTORY.fingerprint(None, src)
        why = None if then == now else f"code changed since {c}"
    if why:
        STALE[(r["lesson"], r["version"], c)] = why
    return why


DAGGER = " †"
STALE_NOTE = ("† measured on code that has changed since (comments and formatting aside), or by a commit this "
              "history does not hold: `make bench` on a GPU, then `make plot`.")


def dagger(*rows):
    return DAGGER if any(r and stale_reason(r) for r in rows) else ""


def is_library(version):
    return "00_" in version


def is_naive(version):
    return "01_" in version


def idea_of(version, lesson, limit=160):
    """The idea from the version's source header, '// NN_name — idea ...' (in the lesson's own
    folder): its first sentence, which may run on over the next comment lines; cut at a word
    boundary with '…' past `limit` characters."""
    for path in glob.glob(os.path.join(ROOT, f"lesson{lesson[:2]}_*", version + ".cu")):
        with open(path, errors="replace") as f:
            lines = [f.readline().strip() for _ in range(6)]
        m = re.match(r"//\s*\S+\s*[—-]+\s*(.*)", lines[0])
        if not m:
            continue
        text = m.group(1).strip()
        for line in lines[1:]:   # the sentence goes on until a full stop or a blank comment line
            if re.search(r"\.(\s|$)", text) or not line.startswith("//") or not line[2:].strip():
                break
            text += " " + line[2:].strip()
        text = re.split(r"\.(?:\s|$)", text, maxsplit=1)[0].strip()
        if len(text) > limit:
            text = text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return text
    return ""


def most_common(values, prefer=()):
    for p in prefer:
        if p in values:
            return p
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(sorted(counts), key=lambda v: counts[v]) if counts else ""


def choose_gpu(rows, wanted=None):
    gpus = sorted({r["gpu"] for r in rows})
    if wanted:
        match = [g for g in gpus if wanted in g]
        if not match:
            sys.exit(f"error: no rows for a GPU matching '{wanted}' (have: {', '.join(gpus)})")
        return match[0]
    for g in gpus:
        if "H100" in g:
            return g
    return gpus[0] if gpus else None


def select(rows, lesson, gpu, dist=None, dtype=None, param=None):
    """The rows of one lesson's headline series, with the filters filled in by the commonest value."""
    mine = [r for r in rows if r["lesson"] == lesson and r["gpu"] == gpu]
    if not mine:
        return [], {}
    dist = dist or most_common([r["dist"] for r in mine], prefer=("uniform",))
    mine = [r for r in mine if r["dist"] == dist]
    dtype = dtype or most_common([r["dtype"] for r in mine], prefer=("int32", "uint32", "float32", "uint8"))
    mine = [r for r in mine if r["dtype"] == dtype]
    param = param if param is not None else most_common([r["param"] for r in mine])
    mine = [r for r in mine if r["param"] == param]
    return mine, {"dist": dist, "dtype": dtype, "param": param}


def fmt_ms(ms):
    return f"{ms:.4f}" if ms < 1 else f"{ms:.3f}" if ms < 100 else f"{ms:.0f}"


def pow2(n):
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e else f"{n:,}"


def table(rows, lesson, gpu, filters):
    sizes = [int(s) for s in filters["sizes"].split(",")] if filters.get("sizes") else None
    mine, chosen = select(rows, lesson, gpu, filters.get("dist"), filters.get("dtype"), filters.get("param"))
    if not mine:
        return [f"_No measurements for {lesson} yet: run `make bench` on a GPU, then `make plot`._"]
    by_version = {}
    for r in mine:
        by_version.setdefault(r["version"], {})[r["n"]] = r
    if sizes is None:
        all_n = sorted({r["n"] for r in mine})
        sizes = [n for n in (1 << 24, 1 << 28) if n in all_n] or all_n[-2:]
    big = sizes[-1]
    library = next((v for v in sorted(by_version) if is_library(v)), None)
    naive = next((v for v in sorted(by_version) if is_naive(v)), None)
    what = ", ".join(f"{k} {v}" for k, v in chosen.items() if v and v != "-")
    lines = [f"Measured on {gpu}" + (f" ({what})" if what else "") + ". Generated by `plot.py` from `results/`.", ""]
    head = ["version", "idea"]
    for n in sizes:
        head += [f"ms @ {pow2(n)}", f"GB/s @ {pow2(n)}"]
    head += [f"% of copy @ {pow2(big)}", "vs library", "vs naive"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    smaller = False
    marked = False
    for v in sorted(by_version):
        mark_stale = dagger(*(by_version[v].get(n) for n in sizes), by_version[v].get(max(by_version[v])))
        marked = marked or bool(mark_stale)
        cells = [f"`{v}`{mark_stale}", idea_of(v, lesson)]
        # A version measured only below the table's sizes (a single-block scan: n <= 2048) shows
        # its largest size in the first columns, each number marked '@ n', instead of a row of —.
        at = big
        if not any(n in by_version[v] for n in sizes) and max(by_version[v]) < sizes[0]:
            at = max(by_version[v])
            smaller = True
        mark = f" @ {pow2(at)}" if at != big else ""
        for n in sizes:
            r = by_version[v].get(at if mark and n == sizes[0] else n)
            gb = f"{r['gbps']:.0f}" if r and (not mark or r["gbps"] >= 10) else f"{r['gbps']:.2g}" if r else ""
            cells += [fmt_ms(r["ms_median"]) + mark, gb + mark] if r else ["—", "—"]
        r = by_version[v].get(at)
        lib = by_version.get(library, {}).get(at) if library else None
        nav = by_version.get(naive, {}).get(at) if naive else None
        cells.append(f"{100 * r['gbps'] / r['copy_gbps']:.0f}%{mark}" if r and r["copy_gbps"] > 0 else "—")
        ratio = lib["ms_median"] / r["ms_median"] if r and lib else None
        cells.append("—" if ratio is None else f"{ratio:.2f}x{mark}" if not mark or ratio >= 0.1 else f"{ratio:.2g}x{mark}")
        cells.append(f"{nav['ms_median'] / r['ms_median']:.1f}x{mark}" if r and nav else "—")
        if r and r["check"] != "PASS":
            cells[0] += " (FAILED)"
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("`vs library` and `vs naive`: that version's speed-up over the library bar and over the naive "
                 "version at the largest size (their time / this time; above 1 is faster). "
                 "`% of copy`: GB/s over a device-to-device copy of the same bytes in the same run."
                 + (" `@ n`: a version that does not run at the table's sizes (one block, or "
                    "quadratic work), shown at the largest size it was measured at, against the library and the naive "
                    "version at that size." if smaller else ""))
    if marked:
        lines += ["", STALE_NOTE]
    return lines


MARKS = {}   # each lesson's first README results marker (filled in main): the headline series


def headline_rows(rows, gpu):
    """Per lesson: (lesson, n, library row or None, best course row) at the largest size of the
    lesson's headline series (its notes' first results marker) on one GPU."""
    out = []
    for lesson in sorted({r["lesson"] for r in rows if r["gpu"] == gpu}):
        f = MARKS.get(lesson, {})
        mine, _ = select(rows, lesson, gpu, f.get("dist"), f.get("dtype"), f.get("param"))
        if not mine:
            continue
        big = max(r["n"] for r in mine)
        at = [r for r in mine if r["n"] == big and r["check"] == "PASS"]
        lib = [r for r in at if is_library(r["version"])]
        ours = [r for r in at if not is_library(r["version"])]
        if not ours:
            continue
        best = min(ours, key=lambda r: r["ms_median"])
        libr = min(lib, key=lambda r: r["ms_median"]) if lib else None
        out.append((lesson, big, libr, best))
    return out


def headline(rows, gpu):
    """One line per lesson group: the fastest non-library version at the largest size vs the library."""
    lines = [f"Measured on {gpu}; generated by `plot.py` from `results/` (headline input of each lesson, largest size).", "",
             "| lesson | n | library | ms | best of the course | ms | vs library | % of copy |",
             "|---|---:|---|---:|---|---:|---:|---:|"]
    marked = False
    for lesson, big, libr, best in headline_rows(rows, gpu):
        lib_mark, best_mark = dagger(libr), dagger(best)
        marked = marked or bool(lib_mark or best_mark)
        pct = f"{100 * best['gbps'] / best['copy_gbps']:.0f}%" if best["copy_gbps"] > 0 else "—"
        lines.append(f"| {lesson} | {pow2(big)} | {('`' + libr['version'] + '`' + lib_mark) if libr else '—'} | "
                     f"{fmt_ms(libr['ms_median']) if libr else '—'} | `{best['version']}`{best_mark} | {fmt_ms(best['ms_median'])} | "
                     f"{(libr['ms_median'] / best['ms_median']):.2f}x | {pct} |" if libr else
                     f"| {lesson} | {pow2(big)} | — | — | `{best['version']}`{best_mark} | {fmt_ms(best['ms_median'])} | — | {pct} |")
    if marked:
        lines += ["", STALE_NOTE]
    return lines


def plot_headline(rows, gpus, outdir):
    """plots/headline.png: each lesson's best version over its library bar, one bar per GPU."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    per_gpu = {g: {h[0]: h for h in headline_rows(rows, g) if h[2]} for g in gpus}
    lessons = sorted({l for g in gpus for l in per_gpu[g]})
    if not lessons:
        return []
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(lessons) * max(1, len(gpus)) + 1.8))
    height = 0.8 / max(1, len(gpus))
    for k, g in enumerate(gpus):
        ys, xs = [], []
        for y, l in enumerate(lessons):
            if l in per_gpu[g]:
                _, _, libr, best = per_gpu[g][l]
                ys.append(y + (k - (len(gpus) - 1) / 2) * height)
                xs.append(libr["ms_median"] / best["ms_median"])
        ax.barh(ys, xs, height=height * 0.9, label=g)
        for y, x in zip(ys, xs):
            ax.text(x, y, f" {x:.2f}x", va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(lessons)))
    ax.set_yticklabels([f"{l}\n{per_gpu[gpus[0]][l][3]['version'] if l in per_gpu[gpus[0]] else ''}" for l in lessons],
                       fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("library time / course time at the largest size (above 1: the course is faster)")
    ax.set_title("The best version of each lesson against its library bar, per GPU", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = os.path.join(outdir, "headline.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def parse_filters(text):
    out = {}
    for tok in text.split():
        if "=" not in tok:
            sys.exit(f"error: bad results marker attribute '{tok}' (want key=value)")
        k, v = tok.split("=", 1)
        out[k] = v
    return out


def shape_key(case):
    """'uniform:64x128256' -> (64, 128256) for ordering; other names last."""
    m = re.search(r":(\d+)x(\d+)$", case[0])
    return (int(m.group(2)) * int(m.group(1)), int(m.group(1))) if m else (1 << 62, 0)


def shapes_table(rows, lesson, gpu):
    """One line per case (input shape, parameter) of a lesson whose cases are shapes, not sizes (the
    row-wise top-k): each version's time, then the course's best against the library bar and against
    any outside baseline measured in the same run (a version whose name does not start with a digit,
    e.g. torch.topk from tools/torch_topk_rows.py)."""
    mine = [r for r in rows if r["lesson"] == lesson and r["gpu"] == gpu]
    if not mine:
        return [f"_No measurements for {lesson} yet: run `make bench` on a GPU, then `make plot`._"]
    versions = sorted({r["version"] for r in mine})
    libraries = [v for v in versions if is_library(v)]
    outside = [v for v in versions if not v[:1].isdigit()]
    course = [v for v in versions if v[:1].isdigit() and not is_library(v)]
    by_case = {}
    for r in mine:
        by_case.setdefault((r["dist"], r["param"]), {})[r["version"]] = r
    lines = [f"Measured on {gpu}. Generated by `plot.py` from `results/`.", ""]
    marked = False
    head = ["input (rows x cols)", "k"] + [f"`{v}` ms" for v in versions] + \
           ["best vs library"] + [f"best vs {v}" for v in outside] + ["best: % of copy"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    for case in sorted(by_case, key=shape_key):
        got = by_case[case]
        cells = [case[0], case[1].split("=")[-1]]
        cells += [fmt_ms(got[v]["ms_median"]) + dagger(got[v]) + ("" if got[v]["check"] == "PASS" else " (FAILED)")
                  if v in got else "—" for v in versions]
        marked = marked or any(dagger(got[v]) for v in versions if v in got)
        mine_best = min((got[v] for v in course if v in got), key=lambda r: r["ms_median"], default=None)
        fastest_bar = min((got[v] for v in libraries if v in got), key=lambda r: r["ms_median"], default=None)
        for o in [fastest_bar] + [got.get(v) for v in outside]:
            cells.append(f"{o['ms_median'] / mine_best['ms_median']:.2f}x" if o and mine_best else "—")
        cells.append(f"{100 * mine_best['gbps'] / mine_best['copy_gbps']:.0f}%"
                      if mine_best and mine_best["copy_gbps"] > 0 else "—")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("`best vs X`: X's time over the course's fastest version's time on that shape, in the same run "
                 "(above 1 is faster); `library` is the fastest library bar measured on that shape. "
                 "`% of copy`: GB/s over a device-to-device copy of the same bytes.")
    if marked:
        lines += ["", STALE_NOTE]
    return lines


def render_readme(path, rows, gpu):
    """The README's text with every marked table regenerated."""
    with open(path) as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        filters = parse_filters(m.group(2))
        if m.group(1) == "headline":
            while i < len(lines) and not END.match(lines[i]):
                i += 1
            if i == len(lines):
                sys.exit(f"error: {path}: headline:begin without results:end")
            if not gpu:
                out += ["_No measurements yet._"]
            else:   # one table per GPU measured, the chosen one first: ratios hold per GPU, in the same run
                others = sorted({r["gpu"] for r in rows} - {gpu})
                for k, g in enumerate([gpu] + others):
                    out += ([""] if k else []) + headline(rows, g)
            out.append(lines[i])
            i += 1
            continue
        if "lesson" not in filters:
            sys.exit(f"error: {path}: results marker without lesson=")
        while i < len(lines) and not END.match(lines[i]):
            i += 1
        if i == len(lines):
            sys.exit(f"error: {path}: {m.group(1)}:begin without results:end")
        if not gpu:
            out += ["_No measurements yet._"]
        elif m.group(1) == "shapes":
            out += shapes_table(rows, filters["lesson"], gpu)
        else:
            out += table(rows, filters["lesson"], gpu, filters)
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def headline_filters(readmes):
    """Each lesson's first results marker: its filters choose the series the plots draw."""
    found = {}
    for path in readmes:
        with open(path) as f:
            for line in f:
                m = BEGIN.match(line.rstrip("\n"))
                if m and m.group(1) in ("results", "shapes"):   # a shapes table's dist= picks its headline case
                    flt = parse_filters(m.group(2))
                    found.setdefault(flt.get("lesson"), flt)
    return found


def shapes_lessons(readmes):
    """Lessons whose notes show a shapes table (the row-wise top-k). Their cases are shapes, not a
    series of sizes, so they get no plots of their own: a throughput-over-n chart would have one
    point per version, and the bars would repeat one row of the table. They stay in the headline."""
    found = set()
    for path in readmes:
        with open(path) as f:
            for line in f:
                m = BEGIN.match(line.rstrip("\n"))
                if m and m.group(1) == "shapes":
                    found.add(parse_filters(m.group(2)).get("lesson"))
    return found


def plot_lesson(rows, lesson, gpu, outdir, filters=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    f = filters or {}
    mine, chosen = select(rows, lesson, gpu, f.get("dist"), f.get("dtype"), f.get("param"))
    if not mine:
        return []
    what = ", ".join(f"{k} {v}" for k, v in chosen.items() if v and v != "-")
    versions = sorted({r["version"] for r in mine})
    fig, ax = plt.subplots(figsize=(9, 5.5))
    copy = {}
    for r in mine:
        if r["copy_gbps"] > 0:
            copy.setdefault(r["n"], []).append(r["copy_gbps"])
    if copy:
        ns = sorted(copy)
        ax.plot(ns, [sorted(copy[n])[len(copy[n]) // 2] for n in ns], color="black", linestyle=":", linewidth=2,
                label="device copy (roofline)")
    for v in versions:
        pts = sorted((r["n"], r["gbps"]) for r in mine if r["version"] == v)
        style = dict(linewidth=3, linestyle="--", color="tab:gray") if is_library(v) else dict(linewidth=1.6, marker="o", markersize=3)
        ax.plot([p[0] for p in pts], [max(p[1], 1e-3) for p in pts], label=v, **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("GB/s (bytes the problem must move / time)")
    ax.set_title(f"{lesson} on {gpu}\n{what}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    files = [os.path.join(outdir, f"{lesson}_throughput.png")]
    fig.savefig(files[0], dpi=110)
    plt.close(fig)

    big = max(r["n"] for r in mine)
    at_big = sorted((r for r in mine if r["n"] == big), key=lambda r: r["version"])
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(at_big) + 1.5))
    names = [r["version"] for r in at_big]
    ax.barh(names, [r["ms_median"] for r in at_big],
            color=["tab:gray" if is_library(n) else "tab:blue" for n in names])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(f"ms at n = {pow2(big)} (median; lower is faster)")
    ax.set_title(f"{lesson}: time at the largest size ({what})", fontsize=10)
    for y, r in enumerate(at_big):
        ax.text(r["ms_median"], y, f" {fmt_ms(r['ms_median'])} ms", va="center", fontsize=8)
    fig.tight_layout()
    files.append(os.path.join(outdir, f"{lesson}_bars.png"))
    fig.savefig(files[1], dpi=110)
    plt.close(fig)
    return files


def summary(path):
    if not os.path.exists(path):
        print("no results to show: no program produced a row (is there a GPU? see the messages above)")
        return 1
    rows = read_rows([path])
    if not rows:
        print("no rows (did every program fail to run?)")
        return 1
    for lesson in sorted({r["lesson"] for r in rows}):
        mine = sorted((r for r in rows if r["lesson"] == lesson), key=lambda r: r["version"])
        lib = next((r for r in mine if is_library(r["version"])), None)
        print(f"\n{lesson} on {mine[0]['gpu']}")
        print(f"{'version':28} {'n':>11} {'input':>10} {'ms':>10} {'GB/s':>8} {'% copy':>7} {'vs library':>10}  check")
        for r in mine:
            pct = f"{100 * r['gbps'] / r['copy_gbps']:.0f}%" if r["copy_gbps"] > 0 else "-"
            vs = f"{lib['ms_median'] / r['ms_median']:.2f}x" if lib and lib["n"] == r["n"] else "-"
            print(f"{r['version']:28} {r['n']:>11} {r['dist']:>10} {r['ms_median']:>10.4f} {r['gbps']:>8.1f} "
                  f"{pct:>7} {vs:>10}  {r['check']}")
    print("\nvs library: the library bar's time over this version's (above 1 = faster than the library)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="*", help="results CSVs (default results/*.csv)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a README table is out of date; write nothing")
    ap.add_argument("--summary", metavar="CSV", help="print one table of a CSV and exit")
    ap.add_argument("--merge", metavar="NEW", help="merge NEW's rows into --into, replacing the same cases")
    ap.add_argument("--into", metavar="OLD", help="the CSV --merge writes")
    ap.add_argument("--gpu", help="which GPU's rows make the tables and plots (default: an H100 if present)")
    ap.add_argument("--plots", default=os.path.join(ROOT, "plots"), help="folder for the PNGs (default plots/)")
    ap.add_argument("--readmes", nargs="*", help="README files to update (default lesson*/README*.md)")
    ap.add_argument("--no-plots", action="store_true", help="tables only")
    args = ap.parse_args()

    if args.summary:
        return summary(args.summary)
    if args.merge:
        if not args.into:
            ap.error("--merge needs --into")
        old = read_rows([args.into]) if os.path.exists(args.into) else []
        merged = {tuple(r[k] for k in KEY): r for r in old}
        for r in read_rows([args.merge]):
            merged[tuple(r[k] for k in KEY)] = r
        write_rows(args.into, list(merged.values()))
        return 0

    paths = args.csv or sorted(glob.glob(os.path.join(ROOT, "results", "*.csv")))
    for p in paths:
        if not os.path.exists(p):
            ap.error(f"no such CSV: {p}")
    rows = read_rows(paths) if paths else []
    gpu = choose_gpu(rows, args.gpu) if rows else None
    readmes = args.readmes if args.readmes is not None else (
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "lesson*", "README*.md"))))

    lesson_notes = sorted(glob.glob(os.path.join(ROOT, "lesson*", "README*.md")))
    MARKS.update(headline_filters(lesson_notes))
    stale = []
    for path in readmes:
        with open(path) as f:
            old = f.read()
        new = render_readme(path, rows, gpu)
        if new != old:
            stale.append(path)
            if not args.check:
                with open(path, "w") as f:
                    f.write(new)
    for (lesson, version, commit), why in sorted(STALE.items()):
        print(f"warning: {lesson} {version}: rows {why} (marked †)", file=sys.stderr)
    if args.check:
        for p in stale:
            print(f"out of date: {os.path.relpath(p)} (run `make plot`)")
        print("README tables match the CSVs" if not stale else f"{len(stale)} README(s) differ from the CSVs")
        return 1 if stale else 0
    for p in stale:
        print(f"updated {os.path.relpath(p)}")
    if not args.no_plots and rows:
        os.makedirs(args.plots, exist_ok=True)
        marks = MARKS
        for lesson in sorted({r["lesson"] for r in rows if r["gpu"] == gpu} - shapes_lessons(lesson_notes)):
            for f in plot_lesson(rows, lesson, gpu, args.plots, marks.get(lesson)):
                print(f"wrote {os.path.relpath(f)}")
        for f in plot_headline(rows, [gpu] + sorted({r["gpu"] for r in rows} - {gpu}), args.plots):
            print(f"wrote {os.path.relpath(f)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
