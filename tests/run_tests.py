#!/usr/bin/env python3
"""The course's test runner: `make test` calls it, and so does CI (.ci/run).

Host part (runs anywhere, no GPU needed):
  * the host test programs build/tests/* (harness, CPU references, checkers, .npy, generators)
  * every program's command line: bad usage exits 2 with one line, --help exits 0
  * --input error handling (missing / malformed / wrong-dtype .npy files) exits 2
  * plot.py on a small CSV, including --check
  * tests/fuzz_readers.cpp built with the host compiler under AddressSanitizer + UBSan: thousands of
    mutated .npy and .mtx files, each parsed exactly or refused in one line, and its --plant run,
    which must catch a planted lenient reader; tests/fuzz_cli.py: every program built, each option
    with hostile values and random argument vectors (exit 0/2/77, one error line, no crash or hang)
  * tests/test_notes.py: learner-only lesson notes, version files that hold their own kernels and
    carry no tuning knobs
  * the shell scripts (tests/, tools/, .ci/run) parse; the GPU-only tools (tools/ncu_gaps.sh,
    tools/gpu_batch.sh's targets) exit 77 without a GPU; tools/target_ratios.py's ratios on a planted CSV
GPU part (only where a GPU is present; otherwise each case is reported SKIPPED, never passed,
and if nvidia-smi does list a GPU while the programs cannot use it, that is one FAIL):
  * every version's --test battery (exit 0)
  * every wrong/ program is caught: by the checker (exit 1) or by compute-sanitizer
  * every unfinished exercise fails its checker (exit 1); `--grade` expects them to pass instead
  * .npy in/out end to end, and the memory refusal for a size larger than the GPU

--host-only (make check): the host part alone, over the programs that were built; one not built is
counted in one SKIP line, not failed (make test builds every program and fails a missing one).
--grade (make grade): every exercise's battery on a GPU, expected to pass; with --only, a leaderboard
of the exercise, the course's version of the same step and the library bar (tests/grade_board.txt),
run one after the other. No GPU: one line on stderr, exit 77; it never passes having graded nothing.

Ends with one line 'N passed, N failed, N skipped'; exits 1 if anything failed.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = ["lesson01_topk", "lesson02_scan", "lesson03_compact_spmv", "lesson04_sort", "lesson05_histogram"]
EXIT_NO_DEVICE = 77

PROFILE = None   # --profile: the GPU the programs play (COURSE_GPU_PROFILE)
HOST_ONLY = False   # --host-only (make check): only what was built is tested; a program not built is no failure
not_built = []      # programs the host part skipped for that reason (one line at the end of the host part)
_lock = threading.Lock()
results = {"passed": 0, "failed": 0, "skipped": 0}


def report(status, name, detail=""):
    with _lock:
        results[{"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[status]] += 1
        line = f"{status}  {name}"
        if detail:
            line += f": {detail}"
        print(line, flush=True)


def run(cmd, timeout=120, env=None):
    """Runs a command; returns (exit code, stdout, stderr). A timeout is exit code -9."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return -9, out, f"timed out after {timeout} s"


def tail(text, lines=6):
    t = [l for l in text.strip().splitlines() if l.strip()]
    return " | ".join(t[-lines:])


def programs(build, kind):
    """Built programs of one kind: 'version', 'wrong' or 'exercise'."""
    found = []
    for lesson in LESSONS:
        sub = {"version": "", "wrong": "wrong", "exercise": "exercises", "intro": "intro"}[kind]
        src_dir = os.path.join(ROOT, lesson, sub)
        if not os.path.isdir(src_dir):
            continue
        for f in sorted(os.listdir(src_dir)):
            if not f.endswith(".cu"):
                continue
            exe = os.path.join(build, lesson, sub, f[:-3])
            found.append((os.path.join(lesson, sub, f), exe))
    return found


# ---- host part -------------------------------------------------------------------------------

def missing(label, exe, why="program missing: did make fail?"):
    """A program the tests need is not built: a failure for make test (it builds everything); for
    make check (--host-only), which builds a few programs, the test is left out and counted."""
    if HOST_ONLY:
        with _lock:
            not_built.append(os.path.relpath(exe, os.environ.get("COURSE_BUILD", ".")))
        return
    report("FAIL", label, why)


def host_test_programs(build):
    tdir = os.path.join(build, "tests")
    if not os.path.isdir(tdir):
        report("FAIL", "host tests", f"{tdir} missing: run make first")
        return
    for f in sorted(os.listdir(tdir)):
        exe = os.path.join(tdir, f)
        if f.endswith(".d") or not os.access(exe, os.X_OK) or os.path.isdir(exe):
            continue
        rc, out, err = run([exe], timeout=300)
        m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
        if not m:
            report("FAIL", f"host {f}", f"no summary line (exit {rc}) {tail(out + err)}")
            continue
        fails = [l for l in out.splitlines() if l.startswith("FAIL")]
        for l in fails:
            report("FAIL", f"host {f}: {l[5:]}")
        passed = int(m.group(1))
        with _lock:
            results["passed"] += passed
        print(f"PASS  host {f}: {passed} checks passed", flush=True)
        if rc != 0 and not fails:
            report("FAIL", f"host {f}", f"exit {rc}")


BAD_ARGS = [
    (["--n", "-3"], "negative size"),
    (["--n", "abc"], "not a number"),
    (["--n", "1e99"], "exponent notation"),
    (["--n", "12x"], "trailing junk"),
    (["--n", "0x10"], "hex"),
    (["--n", "1<<70"], "overflow"),
    (["--n"], "missing value"),
    (["--frobnicate"], "unknown option"),
    (["--dist", "no-such-shape"], "unknown --dist"),
    (["--reps", "0"], "zero repetitions"),
    (["--seed", "-1"], "negative seed"),
    (["--test", "--sweep"], "two modes at once"),
    (["--input", "x.npy", "--n", "5"], "--input with --n"),
    (["--n", "2^9999999999999999999"], "a power past the limit"),
    (["--test=0"], "a value given to a flag"),
    (["--sweep=false"], "a value given to a flag"),
    (["--quick=no"], "a value given to a flag"),
    (["--plan", "--test"], "--plan with a mode"),
]

# Programs that need an optional dependency (common/optional.mk): where it was not found they are
# not built, and their tests are skipped with the reason, never failed.
OPTIONAL = [(re.compile(r"multi_gpu\.cu$"), "needs NCCL (python3 -m pip install nvidia-nccl-cu13)"),
            (re.compile(r"/(topk_|rows_)?00_cub_\w*topk(_rows)?\.cu$"), "needs CCCL 3.2+ headers (python3 -m pip install nvidia-cuda-cccl)")]


def optional_missing(src, exe):
    """The reason an optional program was not built, or None (built, or not optional)."""
    if os.path.exists(exe):
        return None
    for pattern, why in OPTIONAL:
        if pattern.search(src):
            return why
    return None


def check_usage_error(name, exe, args, what):
    rc, out, err = run([exe] + args, timeout=30)
    lines = [l for l in err.strip().splitlines() if l.strip()]
    if rc == 2 and len(lines) == 1 and lines[0].startswith("error:"):
        report("PASS", f"usage {name} {' '.join(args)} ({what})")
    else:
        report("FAIL", f"usage {name} {' '.join(args)} ({what})",
               f"expected exit 2 and one 'error:' line, got exit {rc}, stderr {err.strip()[:200]!r}")


def cli_tests(build):
    everything = programs(build, "version") + programs(build, "wrong") + programs(build, "exercise") + \
        programs(build, "intro")
    if not everything:
        report("FAIL", "cli", "no programs built")
        return
    for src, exe in everything:
        if HOST_ONLY and not os.path.exists(exe):
            missing(f"build {src}", exe)
            continue
        if optional_missing(src, exe):
            report("SKIP", f"build {src}", optional_missing(src, exe))
            continue
        if not os.path.exists(exe):
            missing(f"build {src}", exe)
            continue
        name = os.path.relpath(exe, build)
        rc, out, err = run([exe, "--help"], timeout=30)
        if rc == 0 and "usage:" in out:
            report("PASS", f"usage {name} --help")
        else:
            report("FAIL", f"usage {name} --help", f"exit {rc}")
        check_usage_error(name, exe, ["--n", "-3"], "negative size")
        check_usage_error(name, exe, ["--no-such-option"], "unknown option")
        if src.endswith("multi_gpu.cu"):   # refused while parsing, before any rank is forked
            check_usage_error(name, exe, ["--csv", "/nonexistent-dir/x.csv"], "--csv that cannot be opened")
            check_usage_error(name, exe, ["--ranks", "3", "--gpus", "2"], "--ranks with --gpus 2")
    # The whole list on one program per lesson (the parser is shared, the lessons' extras differ).
    for lesson in LESSONS:
        firsts = [p for p in programs(build, "version") if p[0].startswith(lesson) and os.path.exists(p[1])]
        if firsts:
            src, exe = firsts[0]
            for args, what in BAD_ARGS:
                check_usage_error(os.path.relpath(exe, build), exe, args, what)


def npy_file_tests(build, tmp):
    """--input problems are refused with exit 2 before the GPU is asked for."""
    exe = os.path.join(build, "lesson02_scan", "00_cub")
    if not os.path.exists(exe):
        missing("npy input tests", exe, "build/lesson02_scan/00_cub missing")
        return
    def npy(name, descr, payload, shape="(3,)", fortran="False"):
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + payload)
        return path
    cases = [
        (os.path.join(tmp, "does-not-exist.npy"), "missing file"),
        (npy("trunc.npy", "<i4", b"\0" * 4), "truncated data"),
        (npy("fortran.npy", "<i4", b"\0" * 12, fortran="True"), "Fortran order"),
        (npy("bigendian.npy", ">i4", b"\0" * 12), "big-endian"),
        (npy("float64.npy", "<f8", b"\0" * 24), "wrong dtype"),
        (npy("twod.npy", "<i4", b"\0" * 12, shape="(3, 1)"), "2-D array"),
    ]
    junk = os.path.join(tmp, "junk.npy")
    with open(junk, "wb") as f:
        f.write(b"definitely not numpy")
    cases.append((junk, "bad magic"))
    # A header that claims far more than the file holds (10^14 elements in a 128-byte file): refused
    # from the file's size, never allocated (it used to abort with std::bad_alloc, status 134).
    lying = npy("lying.npy", "<i4", b"\0" * 8, shape="(99999999999999,)")
    for path, what in cases:
        check_usage_error("lesson02_scan/00_cub", exe, ["--input", path], f"--input {what}")
    # Every lesson's programs share the reader: the lying header, one program of each.
    for prog, dtype in (("lesson01_topk/topk_05_radix_select", "int32"), ("lesson02_scan/06_decoupled_lookback", "int32"),
                        ("lesson03_compact_spmv/compact_03_lookback", None), ("lesson04_sort/08_radix_onesweep", "uint32"),
                        ("lesson05_histogram/04_per_lane_copies", None)):
        pexe = os.path.join(build, prog)
        if os.path.exists(pexe):
            args = ["--input", lying] + (["--type", dtype] if dtype else [])
            check_usage_error(prog, pexe, args, f"--input with a lying header ({os.path.getsize(lying)} bytes)")
        else:
            missing(f"lying-header test: {prog} missing", pexe, "")
    spmv = os.path.join(build, "lesson03_compact_spmv", "spmv_05_merge_path")
    if os.path.exists(spmv):
        mtx = os.path.join(tmp, "lying.mtx")
        with open(mtx, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 2147483647\n1 1 1.0\n")
        check_usage_error("lesson03_compact_spmv/spmv_05_merge_path", spmv, ["--matrix", mtx],
                          "--matrix whose size line claims 2^31 - 1 rows in a small file")


def sub_suite(cmd, label, fail_prefix, cut, timeout=300, missing_hint=None):
    """Runs a test script that ends with 'N passed, N failed'; its FAIL lines become ours, its
    passes are counted. Returns False when it printed no summary."""
    rc, out, err = run(cmd, timeout=timeout)
    m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
    if not m:
        if missing_hint and missing_hint[0] in err:
            report("FAIL", label, missing_hint[1])
        else:
            report("FAIL", label, f"exit {rc} {tail(out + err)}")
        return False
    for l in out.splitlines():
        if l.startswith("FAIL"):
            report("FAIL", f"{fail_prefix}{l[cut:]}")
    with _lock:
        results["passed"] += int(m.group(1))
    print(f"PASS  {label}: {m.group(1)} checks passed", flush=True)
    return True


def plot_tests(tmp):
    if not sub_suite([sys.executable, os.path.join(ROOT, "tests", "test_plot.py")], "plot.py tests", "plot.py: ", 5,
                     missing_hint=("matplotlib", "matplotlib is missing: pip install -r requirements.txt")):
        return
    # The notes cannot drift from the data: every README table must be what results/ gives.
    rc, out, err = run([sys.executable, os.path.join(ROOT, "plot.py"), "--check", "--no-plots"], timeout=300)
    report("PASS" if rc == 0 else "FAIL", "README tables match results/*.csv (plot.py --check)",
           "" if rc == 0 else tail(out + err))


def matrix_script_tests(build, tmp):
    """lesson03's make_matrices.py: with SciPy and NetworkX it writes three .mtx files that the SpMV
    reader accepts (the program then stops only for want of a GPU, exit 77, never 2 for the file);
    without them it says so and exits 0."""
    script = os.path.join(ROOT, "lesson03_compact_spmv", "make_matrices.py")
    out_dir = os.path.join(tmp, "mtx")
    rc, out, err = run([sys.executable, script, "--out", out_dir, "--scale", "0.002"], timeout=300)
    if rc != 0:
        report("FAIL", "make_matrices.py runs", tail(out + err))
        return
    if "nothing written" in out:
        report("PASS", "make_matrices.py without SciPy/NetworkX says so and exits 0")
        return
    exe = os.path.join(build, "lesson03_compact_spmv", "spmv_05_merge_path")
    for name in ("scalefree", "grid2d", "rect"):
        path = os.path.join(out_dir, name + ".mtx")
        if not os.path.exists(path):
            report("FAIL", f"make_matrices.py writes {name}.mtx", tail(out + err))
            continue
        if not os.path.exists(exe):
            report("SKIP", f"{name}.mtx read by spmv_05", "spmv_05_merge_path not built")
            continue
        rc, o, e = run([exe, "--matrix", path, "--reps", "1"], timeout=120)
        ok = rc in (0, 77)   # read and checked (GPU) or read and stopped for want of a GPU
        report("PASS" if ok else "FAIL", f"make_matrices.py {name}.mtx accepted by the SpMV reader", "" if ok else tail(o + e))


def fuzz_tests(build, tmp):
    """The readers fuzzed under AddressSanitizer + UBSan (host compiler), and the command line fuzzed."""
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("clang++")
    if not cxx:
        report("FAIL", "fuzz_readers under ASan/UBSan", "no host C++ compiler (g++ or clang++) found")
    else:
        exe = os.path.join(tmp, "fuzz_readers_asan")
        rc, out, err = run([cxx, "-std=c++17", "-O1", "-g", "-fsanitize=address,undefined",
                            "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-pthread",
                            os.path.join(ROOT, "tests", "fuzz_readers.cpp"), "-o", exe], timeout=300)
        if rc != 0:
            report("FAIL", "fuzz_readers under ASan/UBSan: build", tail(out + err))
        else:
            env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
            rc, out, err = run([exe], timeout=300, env=env)
            m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
            ok = rc == 0 and m and int(m.group(2)) == 0 and "ERROR: AddressSanitizer" not in err and "runtime error" not in err
            summary = "; ".join(l[5:] for l in out.splitlines() if " fuzz " in l)
            report("PASS" if ok else "FAIL", f"fuzz_readers under ASan/UBSan: {summary}",
                   "" if ok else f"exit {rc} {tail(out + err, 12)}")
            # The fuzzer can fail: --plant fuzzes a copy of load_npy that ignores bytes after the data
            # and plants a too-large allocation and a flipped byte. All three must be reported (exit 1,
            # '0 passed, 3 failed'), the lenient reader by the fuzzing itself, with no sanitizer error.
            rc, out, err = run([exe, "--plant"], timeout=300, env=env)
            m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
            caught = [what for what, line in (("lenient reader", r"^FAIL fuzz planted load_npy: \d+ cases, [1-9]"),
                                              ("allocation", r"^FAIL planted allocation "),
                                              ("comparison", r"^FAIL planted compare ")) if re.search(line, out, re.M)]
            ok = rc == 1 and m and m.groups() == ("0", "3") and len(caught) == 3 and \
                "ERROR: AddressSanitizer" not in err and "runtime error" not in err
            report("PASS" if ok else "FAIL", "fuzz_readers --plant: a lenient copy of load_npy, a too-large allocation "
                   "and a flipped byte are each caught", "" if ok else f"exit {rc}, caught {caught} {tail(out + err, 6)}")
    rc, out, err = run([sys.executable, os.path.join(ROOT, "tests", "fuzz_cli.py"), "--build", build], timeout=1800)
    m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
    ok = rc == 0 and m and int(m.group(2)) == 0
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    report("PASS" if ok else "FAIL", f"fuzz_cli: every program built, each option with hostile values, random argument "
           f"vectors, the refusals due while parsing ({m.group(1) if m else '?'} checks)",
           "" if ok else " | ".join(fails[:8]) or tail(out + err, 8))


def plan_tests(build):
    """Every launch plan, evaluated for every GPU profile against its limits (tests/test_plans.py)."""
    # CI builds the versions that have a plan for the newest GPUs too (sm_100, sm_120) into
    # <build>_newest (.ci/run): their ptxas counts join the check.
    extra = ["--res-dir", build + "_newest"] if os.path.isdir(build + "_newest") else []
    sub_suite([sys.executable, os.path.join(ROOT, "tests", "test_plans.py"), "--build", build] + extra,
              "launch plans against the limits of every GPU profile", "plans: ", 6, timeout=600)


def notes_tests():
    """The shape a reader sees: learner-only notes, version files with their own kernels, no knobs."""
    sub_suite([sys.executable, os.path.join(ROOT, "tests", "test_notes.py")], "notes and version files", "notes: ", 6,
              timeout=120)


def format_tests(tmp):
    """Every C++/CUDA source is laid out by the repository's .clang-format (tools/format.py --check),
    and the check fails on a planted unformatted file."""
    if not shutil.which("clang-format"):
        report("SKIP", "format: every source laid out by .clang-format", "clang-format not installed")
        return
    fmt = os.path.join(ROOT, "tools", "format.py")
    planted = os.path.join(tmp, "planted_unformatted.cu")
    with open(planted, "w") as f:
        f.write("int   f( int x ){return x+1;}\n")
    rc, out, err = run([sys.executable, fmt, "--check", planted], timeout=60)
    report("PASS" if rc == 1 and "planted_unformatted" in out else "FAIL",
           "format: the check fails on a planted unformatted file", tail(out + err))
    rc, out, err = run([sys.executable, fmt, "--check"], timeout=300)
    report("PASS" if rc == 0 else "FAIL", "format: every source laid out by .clang-format", tail(out + err, 12))


def notebook_tests():
    """notebooks/quickstart.ipynb is valid and every command it runs exists (tests/test_notebook.py)."""
    sub_suite([sys.executable, os.path.join(ROOT, "tests", "test_notebook.py")], "the quick-start notebook",
              "notebook: ", 6, timeout=60)


def script_tests(tmp):
    """The shell scripts parse (bash -n), and the GPU-only ones say 'skipped' (77) without a GPU."""
    scripts = sorted(glob.glob(os.path.join(ROOT, "tests", "*.sh")) + glob.glob(os.path.join(ROOT, "tools", "*.sh"))) + \
        [os.path.join(ROOT, ".ci", "run")]
    bad = [os.path.relpath(f, ROOT) for f in scripts if run(["bash", "-n", f])[0] != 0]
    report("PASS" if not bad else "FAIL", f"shell scripts parse ({len(scripts)})", ", ".join(bad))
    sub_suite([sys.executable, os.path.join(ROOT, "tests", "sanitize.py"), "--self-test"],
              "sanitize.py's filter of NCCL's handled API errors, on planted reports", "sanitize: ", 6, timeout=60)
    sub_suite([sys.executable, os.path.join(ROOT, "tools", "target_ratios.py"), "--self-test"],
              "target_ratios.py (the targets step's ratios) on a planted CSV", "target_ratios: ", 6, timeout=60)
    if not gpu_visible():
        out_dir = os.path.join(tmp, "targets")
        rc, out, err = run(["bash", os.path.join(ROOT, "tools", "gpu_batch.sh")],
                           env=dict(os.environ, OUT=out_dir, STEPS="targets"))
        built = os.path.exists(os.path.join(out_dir, "targets_build.log"))
        ok = rc == EXIT_NO_DEVICE and "no GPU" in out and not built
        report("PASS" if ok else "FAIL", "gpu_batch.sh STEPS=targets without a GPU: says so, builds nothing, exit 77",
               "" if ok else f"exit {rc}, built {built}: {tail(out + err)}")
    if gpu_visible() and shutil.which("ncu"):
        report("SKIP", "ncu_gaps.sh without a GPU", "this machine has a GPU and ncu")
        return
    out_dir = os.path.join(tmp, "ncu_gaps")
    rc, out, err = run(["bash", os.path.join(ROOT, "tools", "ncu_gaps.sh")], env=dict(os.environ, OUT=out_dir))
    built = os.path.exists(os.path.join(out_dir, "ncu_build.log"))
    ok = rc == EXIT_NO_DEVICE and "no GPU or no ncu" in out and not built
    report("PASS" if ok else "FAIL", "ncu_gaps.sh without a GPU or ncu: says so, builds nothing, exit 77",
           "" if ok else f"exit {rc}, built {built}: {tail(out + err)}")


# ---- GPU part --------------------------------------------------------------------------------

def gpu_visible():
    """True when nvidia-smi lists a GPU (it is absent or fails on a machine without one)."""
    if not shutil.which("nvidia-smi"):
        return False
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0 and "GPU" in p.stdout


def gpu_present(build):
    # Any built version can ask the driver for a GPU (exit 77 when there is none). Prefer the scan
    # bar, but take whatever was built, so `make lesson04 && run_tests.py --only lesson04` works.
    candidates = [os.path.join(build, "lesson02_scan", "00_cub")] + [exe for _, exe in programs(build, "version")]
    probe = next((c for c in candidates if os.path.exists(c)), None)
    if probe is None:
        return False, "no program built to probe the GPU with (run make first)"
    rc, out, err = run([probe, "--n", "1000", "--reps", "1"], timeout=120)
    if rc == EXIT_NO_DEVICE:
        return False, err.strip().splitlines()[-1] if err.strip() else "no GPU"
    return True, ""


def caught_by(src):
    with open(os.path.join(ROOT, src), errors="replace") as f:
        for line in f:
            m = re.match(r"\s*//\s*CAUGHT-BY:\s*(\S+)(.*)$", line)
            if m:
                return m.group(1), m.group(2).split("(")[0].split()
    return None, []


def gpu_jobs(build, quick, grade, has_sanitizer):
    jobs = []
    q = ["--quick"] if quick else []
    if not grade:
        for src, exe in programs(build, "version"):
            jobs.append(("version", src, [exe, "--test"] + q, 0, exe))
            if src.endswith("multi_gpu.cu") and not PROFILE:   # P ranks' partition, exchange, merge on one GPU (copy transport)
                for ranks in (2, 3, 4, 8):
                    jobs.append(("version", src, [exe, "--test", "--quick", "--ranks", str(ranks)], 0, exe))
        for src, exe in programs(build, "wrong"):
            tool, args = caught_by(src)
            if tool is None:
                jobs.append(("bad-tag", src, None, None, exe))
            elif tool == "checker":
                jobs.append(("wrong", src, [exe, "--test", "--quick"] + args, 1, exe))   # args: e.g. --ranks 3
            elif tool in ("racecheck", "memcheck", "synccheck", "initcheck"):
                if not has_sanitizer:
                    jobs.append(("skip", src, None, "compute-sanitizer not found", exe))
                else:
                    cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "42"]
                    if tool == "racecheck":
                        cmd += ["--racecheck-report", "hazard"]
                    jobs.append(("wrong", src, cmd + [exe] + args, 42, exe))
            elif tool == "none":
                jobs.append(("built", src, None, None, exe))
            else:
                jobs.append(("bad-tag", src, None, None, exe))
        for src, exe in programs(build, "intro"):
            jobs.append(("intro", src, [exe], 0, exe))
    for src, exe in programs(build, "exercise"):
        if grade:
            jobs.append(("exercise", src, [exe, "--test", "--quick"], 0, exe))
        elif skeleton_state(src) == "pristine":
            jobs.append(("exercise", src, [exe, "--test", "--quick"], 1, exe))
        else:   # a student's work in progress: graded by `make grade EX=...`, not by make test
            jobs.append(("skip", src, None, f"changed from its skeleton: make grade EX={os.path.basename(src)[:-3]} grades it", exe))
    return jobs


# The exercises as handed out: make test expects an unfinished skeleton to fail its checker, but
# only while it is unchanged (its SHA-256 is in this list), so a student's solved exercise never
# turns make test red. tests/run_tests.py --update-skeletons rewrites the list; in CI a skeleton
# that differs from the list fails (whoever edits a skeleton updates the list in the same commit).
SKELETONS = os.path.join(ROOT, "tests", "exercise_skeletons.txt")


def skeleton_hashes():
    known = {}
    if os.path.exists(SKELETONS):
        for line in open(SKELETONS):
            if line.strip() and not line.startswith("#"):
                digest, path = line.split()
                known[path] = digest
    return known


def sha256_of(src):
    import hashlib
    with open(os.path.join(ROOT, src), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def skeleton_state(src):
    return "pristine" if skeleton_hashes().get(src) == sha256_of(src) else "changed"


def update_skeletons():
    srcs = sorted(glob.glob(os.path.join(ROOT, "lesson*", "exercises", "*.cu")))
    with open(SKELETONS, "w") as f:
        f.write("# SHA-256 of each exercise skeleton as handed out (tests/run_tests.py --update-skeletons)\n")
        for path in srcs:
            rel = os.path.relpath(path, ROOT)
            f.write(f"{sha256_of(rel)} {rel}\n")
    print(f"wrote {len(srcs)} skeleton hashes to {os.path.relpath(SKELETONS, ROOT)}")


def skeleton_tests():
    """In CI the skeletons must be the handed-out ones (the list is kept up to date)."""
    srcs = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "lesson*", "exercises", "*.cu")))
    changed = [s for s in srcs if skeleton_state(s) != "pristine"]
    if not changed:
        report("PASS", f"exercise skeletons match tests/exercise_skeletons.txt ({len(srcs)})")
    elif os.environ.get("CI"):
        report("FAIL", "exercise skeletons", "changed without tests/run_tests.py --update-skeletons: " + ", ".join(changed))
    else:
        report("SKIP", "exercise skeletons", "changed here (your work?): " + ", ".join(changed))


def run_gpu_job(build, job):
    kind, src, cmd, want, exe = job
    if kind == "bad-tag":
        report("FAIL", f"gpu {src}", "wrong/ program without a valid '// CAUGHT-BY:' line")
        return
    if kind == "skip":
        report("SKIP", f"gpu {src}", want)
        return
    if kind == "built":
        report("PASS" if os.path.exists(exe) else "FAIL", f"build {src} (performance pitfall, not run)")
        return
    if optional_missing(src, exe):
        report("SKIP", f"gpu {src}", optional_missing(src, exe))
        return
    if not os.path.exists(exe):
        report("FAIL", f"gpu {src}", "program missing: did make fail?")
        return
    start = time.time()
    rc, out, err = run(cmd, timeout=900)
    secs = time.time() - start
    label = {"version": "battery", "wrong": "caught", "exercise": "unfinished fails", "intro": "runs"}[kind]
    if PROFILE and kind in ("version", "intro"):
        label += f" as {PROFILE}"
    if kind == "exercise" and want == 0:
        label = "graded"
    if rc == EXIT_NO_DEVICE:
        report("SKIP", f"gpu {src} {label}", "no CUDA device")
    elif PROFILE and rc == 2 and len([l for l in err.splitlines() if l.strip()]) == 1:
        # Under a smaller GPU's profile a version may refuse what that GPU cannot run: one line.
        report("PASS", f"gpu {src} {label}: refused in one line: {err.strip()[:160]}")
    elif rc == want:
        summary = re.findall(r"(\d+ passed, \d+ failed.*)$", out, re.M)
        report("PASS", f"gpu {src} {label} ({secs:.0f} s{', ' + summary[-1] if summary and kind == 'version' else ''})")
    else:
        fails = [l for l in out.splitlines() if l.startswith("FAIL")][:5]
        report("FAIL", f"gpu {src} {label}", f"exit {rc}, expected {want}; " + (" | ".join(fails) or tail(out + err)))


def gpu_extras(build, tmp):
    exe = os.path.join(build, "lesson02_scan", "00_cub")
    rc, out, err = run([exe, "--n", "2^40"], timeout=120)
    if rc == 2 and "needs" in err and ("free" in err or "available" in err):
        report("PASS", "gpu a size larger than the GPU is refused with what it needs and what is free")
    else:
        report("FAIL", "gpu size larger than the GPU", f"exit {rc} {err.strip()[:200]}")
    try:
        import numpy as np
    except ImportError:
        report("SKIP", "gpu .npy end to end", "numpy not installed")
        return
    x = (np.arange(100003, dtype=np.int64) * 2654435761 % 2001 - 1000).astype(np.int32)
    src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
    np.save(src, x)
    rc, out, err = run([exe, "--input", src, "--output", dst, "--reps", "3"], timeout=120)
    ok = rc == 0 and os.path.exists(dst) and np.array_equal(np.load(dst), np.cumsum(x, dtype=np.int64).astype(np.int32))
    report("PASS" if ok else "FAIL", "gpu .npy end to end: --input / --output match numpy.cumsum",
           "" if ok else f"exit {rc} {tail(out + err)}")
    # A sort of pairs saves the sorted keys and, beside them, the stable argsort.
    sort = os.path.join(build, "lesson04_sort", "08_radix_onesweep")
    keys = (np.arange(100003, dtype=np.uint64) * 2654435761 % 997).astype(np.uint32)   # many ties
    ksrc, kdst = os.path.join(tmp, "keys.npy"), os.path.join(tmp, "sorted.npy")
    np.save(ksrc, keys)
    rc, out, err = run([sort, "--type", "pairs", "--input", ksrc, "--output", kdst, "--reps", "3"], timeout=120)
    idx = os.path.join(tmp, "sorted_idx.npy")
    ok = rc == 0 and os.path.exists(kdst) and os.path.exists(idx) and \
        np.array_equal(np.load(kdst), np.sort(keys, kind="stable")) and \
        np.array_equal(np.load(idx).astype(np.int64), np.argsort(keys, kind="stable"))
    report("PASS" if ok else "FAIL", "gpu .npy end to end: a pairs sort's --output gives the sorted keys and the stable argsort",
           "" if ok else f"exit {rc} {tail(out + err)}")
    # Row-wise top-k reads a (rows, cols) matrix and writes (rows, k) values and column indices.
    rows_exe = os.path.join(build, "lesson01_topk", "rows_05_serving")
    m = ((np.arange(7 * 4097, dtype=np.int64) * 2654435761 % 100003) / 1000.0 - 50).astype(np.float32).reshape(7, 4097)
    msrc, mdst = os.path.join(tmp, "logits.npy"), os.path.join(tmp, "top.npy")
    np.save(msrc, m)
    rc, out, err = run([rows_exe, "--input", msrc, "--k", "50", "--output", mdst, "--reps", "3"], timeout=120)
    midx = os.path.join(tmp, "top_idx.npy")
    ok = rc == 0 and os.path.exists(mdst) and os.path.exists(midx)
    if ok:
        vals, cols = np.load(mdst), np.load(midx).astype(np.int64)
        want = -np.sort(-m, axis=1)[:, :50]
        ok = vals.shape == (7, 50) and cols.shape == (7, 50) and np.array_equal(vals, want) and \
            np.array_equal(np.take_along_axis(m, cols, axis=1), vals)
    report("PASS" if ok else "FAIL", "gpu .npy end to end: row-wise top-k of a (7, 4097) matrix gives (7, 50) values "
           "and columns matching numpy", "" if ok else f"exit {rc} {tail(out + err)}")
    # 16-bit logits: float16 is NumPy's '<f2'; bfloat16 travels as its bit patterns, '<u2'.
    bits = (m.view(np.uint32) >> 16).astype(np.uint16)              # float32 -> bfloat16 by truncation
    for dtype, arr, as_float in (("float16", m.astype(np.float16), lambda a: a.astype(np.float32)),
                                 ("bfloat16", bits, lambda a: (a.astype(np.uint32) << 16).view(np.float32))):
        src, dst = os.path.join(tmp, f"logits_{dtype}.npy"), os.path.join(tmp, f"top_{dtype}.npy")
        np.save(src, arr)
        rc, out, err = run([rows_exe, "--input", src, "--type", dtype, "--k", "50", "--output", dst, "--reps", "3"],
                           timeout=120)
        idx = dst.replace(".npy", "_idx.npy")
        ok = rc == 0 and os.path.exists(dst) and os.path.exists(idx)
        if ok:
            vals, cols = as_float(np.load(dst)), np.load(idx).astype(np.int64)
            full = as_float(arr)
            want = -np.sort(-full, axis=1)[:, :50]
            ok = vals.shape == (7, 50) and np.array_equal(vals, want) and \
                np.array_equal(np.take_along_axis(full, cols, axis=1), vals)
        report("PASS" if ok else "FAIL", f"gpu .npy end to end: row-wise top-k of {dtype} logits ('{arr.dtype.str}') "
               "matches numpy", "" if ok else f"exit {rc} {tail(out + err)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build folder (default build)")
    ap.add_argument("--quick", action="store_true", help="smaller GPU batteries")
    ap.add_argument("--grade", action="store_true", help="grade the exercises only (expect them to pass)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "3")),
                    help="GPU test programs run at once (default 3, or $TEST_JOBS)")
    ap.add_argument("--only", help="GPU part: only programs whose source path matches this regular expression")
    ap.add_argument("--gpu-only", action="store_true", help="skip the host part")
    ap.add_argument("--host-only", action="store_true", help="the host part only (make check): no GPU part, and the "
                    "programs not built are left out of it (counted in one line), not failed")
    ap.add_argument("--profile", help="GPU part as another GPU: COURSE_GPU_PROFILE for every program (t4, a100, l4, ...); "
                    "versions and the first program only, a one-line refusal (exit 2) counts as handled")
    ap.add_argument("--update-skeletons", action="store_true", help="record the exercises as handed out, and stop")
    args = ap.parse_args()
    if args.update_skeletons:
        update_skeletons()
        return 0
    global PROFILE, HOST_ONLY
    HOST_ONLY = args.host_only
    if args.profile:
        PROFILE = args.profile
        os.environ["COURSE_GPU_PROFILE"] = args.profile
    build = os.path.abspath(args.build)
    os.environ["COURSE_BUILD"] = build
    if args.grade:
        return grade(build, args)
    tmp = tempfile.mkdtemp(prefix="course-tests-")
    try:
        if not args.grade and not args.gpu_only:
            print("== host part", flush=True)
            host_test_programs(build)
            cli_tests(build)
            npy_file_tests(build, tmp)
            plot_tests(tmp)
            notes_tests()
            format_tests(tmp)
            notebook_tests()
            skeleton_tests()
            plan_tests(build)
            script_tests(tmp)
            matrix_script_tests(build, tmp)
            fuzz_tests(build, tmp)
            if not_built:
                report("SKIP", f"{len(not_built)} programs not built, left out of the host part",
                       "make check builds a few; make test builds and checks every program")
        if HOST_ONLY:
            return finish()
        print("== GPU part", flush=True)
        has_gpu, why = gpu_present(build)
        jobs = gpu_jobs(build, args.quick, args.grade, shutil.which("compute-sanitizer") is not None)
        if args.only:
            jobs = [j for j in jobs if re.search(args.only, j[1])]
        if PROFILE:   # the portability step: every version's battery as that GPU
            jobs = [j for j in jobs if j[0] in ("version", "intro")]
        if not has_gpu:
            if gpu_visible():   # a GPU machine where nothing ran is a failure, not a skip
                report("FAIL", "gpu part", f"nvidia-smi sees a GPU but the GPU tests cannot run: {why}")
            for kind, src, cmd, want, exe in jobs:
                report("SKIP", f"gpu {src}", f"no GPU ({why})")
            if not args.grade:
                report("SKIP", "gpu extras (.npy end to end, memory refusal)", f"no GPU ({why})")
        else:
            with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                list(pool.map(lambda j: run_gpu_job(build, j), jobs))
            if not args.grade and not args.only and not PROFILE:
                gpu_extras(build, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish()


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed, {results['skipped']} skipped", flush=True)
    return 1 if results["failed"] else 0


# ---- make grade ------------------------------------------------------------------------------

BOARD = os.path.join(ROOT, "tests", "grade_board.txt")
LINE = re.compile(r"\s([\d.]+) ms\s+([\d.]+) GB/s\s+([\d.]+)% of copy\s+(PASS|FAIL)")


def board_entry(exercise):
    """(course version, library bar, extra arguments) of an exercise, from tests/grade_board.txt."""
    for line in open(BOARD):
        f = line.split()
        if f and not line.startswith("#") and f[0] == exercise:
            return f[1], f[2], f[3:]
    return None


def leaderboard(build, src):
    """The exercise, the course's version of the same step and the library bar, one after the other
    at the lesson's default size: time, GB/s and % of copy of each (three rows)."""
    name = os.path.basename(src)[:-3]
    entry = board_entry(name)
    if entry is None:
        report("FAIL", f"leaderboard {name}", "no line in tests/grade_board.txt")
        return
    course, bar, extra = entry
    print(f"       leaderboard, same run, {' '.join(extra) or 'default size'} (median of the program's repetitions):")
    for who, prog in (("yours", os.path.join(os.path.dirname(src), name)), ("course", course), ("library", bar)):
        exe = os.path.join(build, prog)
        if not os.path.exists(exe):
            print(f"       {who:8} {prog:48} not built", flush=True)
            continue
        rc, out, err = run([exe] + extra, timeout=300)
        m = LINE.search(out)
        if rc == 0 and m:
            print(f"       {who:8} {prog:48} {float(m.group(1)):10.4f} ms {float(m.group(2)):8.1f} GB/s "
                  f"{float(m.group(3)):5.1f}% of copy  {m.group(4)}", flush=True)
        else:
            print(f"       {who:8} {prog:48} exit {rc}: {tail(out + err, 1)[:100]}", flush=True)


def grade(build, args):
    """make grade: every exercise (or --only's) must pass its battery on a GPU. Never 'passed' without
    having run one: no GPU is one line and exit 77; no exercise to grade is a failure."""
    has_gpu, why = gpu_present(build)
    if not has_gpu:
        if gpu_visible():
            print(f"FAIL  grade: nvidia-smi sees a GPU but the programs cannot use it: {why}", flush=True)
            return 1
        print(f"make grade needs a GPU ({why}): nothing was graded", file=sys.stderr, flush=True)
        return EXIT_NO_DEVICE
    jobs = gpu_jobs(build, args.quick, True, False)
    if args.only:
        jobs = [j for j in jobs if re.search(args.only, j[1])]
    if not jobs:
        report("FAIL", "grade", f"no exercise matches {args.only!r}")
    for job in jobs:   # one at a time: the leaderboard's timings share the GPU with nothing else
        run_gpu_job(build, job)
        if args.only and os.path.exists(job[4]):
            leaderboard(build, job[1])
    return finish()


if __name__ == "__main__":
    sys.exit(main())
