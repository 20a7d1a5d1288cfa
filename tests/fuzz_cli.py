#!/usr/bin/env python3
"""Fuzzes the command line of every program built (host part: no GPU is used).

Every program under <build>/lesson*/ (versions, wrong/, exercises/; row-wise, ragged and multi-GPU
ones included) whose --help prints a usage gets, from the options its own --help lists:
  * each option with each hostile value (sign, hex, exponent, overflow, empty, junk, a missing value);
  * random argument vectors, seeded and reproducible, of valid and hostile values (signs, hex,
    exponents, overflow, empty strings, bytes that are not UTF-8, missing values, repeated options,
    files that do not exist or lie: a lying .npy header, a --lengths file, a directory);
  * the refusals that must come while parsing (REFUSE below: exit 2 even where a GPU would be free).
Each program runs with CUDA_VISIBLE_DEVICES set to nothing, so a vector that passes validation stops
at "no GPU" (exit 77) before any work. Every run must:
  * exit 0 (only with --help), 2 (bad usage or input, with exactly one 'error:' line on stderr)
    or 77 (no GPU);
  * never die from a signal (a crash) or run past its time limit (a hang; the whole process group,
    a multi-GPU program's ranks included, is killed then).
A failure prints the seed and the argument vector.

    python3 tests/fuzz_cli.py --build build [--cases N] [--seed S] [--only REGEX]
--cases: random vectors a program (default 250 where 8 programs or fewer are built, else 40).
Ends with 'N passed, N failed' (one check per program, plus one per failing vector).
"""
import argparse
import concurrent.futures as cf
import glob
import os
import random
import re
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = r"lesson01_topk/(rows_|\d+_(rowwise|sampled_rows))"   # the row-wise programs, bars included
HOSTILE = ["-1", "0x10", "1e6", "abc", "", "2^99", "99999999999999999999999", "1.5"]
# Refused while parsing, GPU or not (exit 2, one line): (program path regex, arguments, why).
REFUSE = [
    (ROWS, ["--dist", "ragged", "--rows", "0"], "a ragged batch of no rows"),
    (r"lesson01_topk/(rows_(?!00)|\d+_(rowwise|sampled_rows))", ["--dist", "ragged", "--k", "5000"],
     "a ragged k past the version's limit"),
    (ROWS, ["--test", "--lengths", "LENGTHS"], "--lengths with --test (it would change the battery)"),
    (r"multi_gpu", ["--gpus", "0"], "no GPUs"),
    (r"multi_gpu", ["--gpus", "-1"], "a negative GPU count"),
]

VALUES = ["1", "0", "7", "1000000", "1<<24", "2^24", "16M", "3K", "1G", "2^40", "2^41", "1<<63", "1<<64",
          "-1", "-0", "+5", "0x10", "1e6", "1.5", "", " ", "abc", "99999999999999999999999", "2^", "<<",
          "uniform", "sorted", "equal", "zipf", "powerlaw", "banded", "int32", "uint32", "float32", "float64",
          "uint8", "text", "--n", "-", "--", "\udcff\udcfe", "nan", "inf", "1,000",
          "ragged", "serving", "bfloat16", "float16", "pairs", "uint64", "2", "3", "8", "65536", "4097",
          # powers whose loop once ran for minutes (1^e, 0^e with a huge e), and their neighbours
          "1^9999999999999999999", "0^9999999999999999999", "2^9999999999999999999", "0^0", "1^0", "7^22", "2^40"]


def options_of(exe):
    """The options a program's --help lists (e.g. --n, --k, --dist)."""
    p = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=20, errors="replace")
    return sorted(set(re.findall(r"(?m)^\s+(--[a-z][a-z0-9-]*)", p.stdout))) or ["--n"]


def vector(rng, opts, files):
    args = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.70:
            o = rng.choice(opts)
            args.append(o)
            if rng.random() < 0.9:
                args.append(rng.choice(VALUES + files) if rng.random() < 0.85 else
                            "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(1, 12))))
        elif r < 0.80:
            args.append(rng.choice(["--help", "--test", "--sweep", "--quick", "--plan", "-n", "--n=5", "---n", "--N", "n"]))
        elif r < 0.88:   # the --flag=value form of any option, flags included (--test=0 must not mean --test)
            args.append(rng.choice(opts + ["--test", "--sweep", "--quick", "--plan"]) + "=" + rng.choice(VALUES))
        else:
            args.append(rng.choice(VALUES))
    return args


def npy(path, descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + payload)
    return path


def built_programs(build):
    """Every program built under build/lesson*/ (versions, wrong/, exercises/), as paths under build."""
    found = []
    for src in sorted(glob.glob(os.path.join(ROOT, "lesson*", "*.cu")) + glob.glob(os.path.join(ROOT, "lesson*", "*", "*.cu"))):
        rel = os.path.relpath(src, ROOT)[:-3]
        if os.path.exists(os.path.join(build, rel)):
            found.append(rel)
    return found


def run_one(exe, args, env, timeout=20):
    """(exit code or 'timeout', stderr). The program runs in its own process group, killed whole on a
    timeout (a multi-GPU program forks its ranks)."""
    argv = [os.fsencode(x) if isinstance(x, str) else x for x in args]
    p = subprocess.Popen([exe] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return "timeout", ""


def one_line_refusal(rc, err):
    # one line: split at newlines only (Python's splitlines would also split at other separators),
    # and no carriage return or escape character inside it
    lines = [l for l in err.split("\n") if l.strip()]
    return rc == 2 and len(lines) == 1 and lines[0].startswith("error:") and "\r" not in err and "\x1b" not in err


def fuzz_program(prog, exe, index, cases, seed0, files, lengths, env, hostile):
    """(passed, failed, lines to print) for one program."""
    out, bad = [], 0
    opts = options_of(exe)
    vectors = []
    for o in opts:   # each option with each hostile value, and with its value missing
        if o == "--help":
            continue
        vectors += [[o, v] for v in hostile] + [[o]]
    for c in range(cases):
        seed = seed0 * 7919 + c * 31 + index
        vectors.append((seed, vector(random.Random(seed), opts, files)))
    for v in vectors:
        seed, args = v if isinstance(v, tuple) else (None, v)
        rc, err = run_one(exe, args, env)
        ok = (rc == 0 and "--help" in args) or rc == 77 or one_line_refusal(rc, err)
        if not ok:
            bad += 1
            if bad <= 5:
                out.append(f"FAIL  {prog}{f' seed={seed}' if seed is not None else ''} argv={args!r}: exit {rc}, "
                           f"stderr {err.strip()[:300]!r}")
    passed = 0
    if not bad:
        passed = 1
        out.append(f"PASS  {prog}: {len(vectors)} argument vectors ({len(vectors) - cases} option x hostile value, "
                   f"{cases} random), each exit 0/2/77 with at most one error line")
    for pattern, args, why in REFUSE:
        if not re.search(pattern, prog):
            continue
        args = [lengths if x == "LENGTHS" else x for x in args]
        if any(x.startswith("--") and x not in opts for x in args):
            continue   # the program has no such option
        rc, err = run_one(exe, args, env)
        if one_line_refusal(rc, err):
            passed += 1
            out.append(f"PASS  {prog} {' '.join(args)}: refused while parsing ({why})")
        else:
            bad += 1
            out.append(f"FAIL  {prog} {' '.join(args)}: {why} must be refused while parsing (exit 2, one line), "
                       f"got exit {rc} {err.strip()[:200]!r}")
    return passed, bad, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", type=int, help="random argument vectors a program (default 250 for up to 8 "
                    "programs, else 40)")
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--only", help="only programs whose path matches this regular expression")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    progs = [p for p in built_programs(a.build) if not a.only or re.search(a.only, p)]
    if not progs:
        print(f"FAIL  no program built under {a.build}")
        print("0 passed, 1 failed")
        return 1
    # A program with no usage (the intro's first program, no harness) has no options to fuzz.
    usage = {}
    for p in progs:
        try:
            h = subprocess.run([os.path.join(a.build, p), "--help"], capture_output=True, text=True, timeout=20,
                               errors="replace", env=env)
            usage[p] = h.returncode == 0 and "usage:" in h.stdout
        except subprocess.TimeoutExpired:
            usage[p] = False
    progs = [p for p in progs if usage[p]]
    # Few programs (make check): many random vectors each; every program (make test, ~100): fewer, so
    # the whole run stays about a minute on 2 cores (a run that stops at "no GPU" takes a few ms).
    cases = a.cases if a.cases is not None else (250 if len(progs) <= 8 else 40)
    hostile = HOSTILE
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as tmp:
        lying = npy(os.path.join(tmp, "lying.npy"), "<i4", "(99999999999999,)", b"\0" * 8)
        lengths = npy(os.path.join(tmp, "lengths.npy"), "<i4", "(3,)",
                      b"".join(x.to_bytes(4, "little", signed=True) for x in (5, 0, 300)))
        negative = npy(os.path.join(tmp, "negative.npy"), "<i4", "(2,)",
                       b"".join(x.to_bytes(4, "little", signed=True) for x in (5, -7)))
        files = [lying, lengths, negative, os.path.join(tmp, "missing.npy"), os.path.join(tmp, "out.npy"),
                 "/dev/null", tmp]
        with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            futures = [pool.submit(fuzz_program, p, os.path.join(a.build, p), i, cases, a.seed, files, lengths, env,
                                   hostile) for i, p in enumerate(progs)]
            for f in futures:
                p_, f_, lines = f.result()
                passed, failed = passed + p_, failed + f_
                for l in lines:
                    print(l, flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
