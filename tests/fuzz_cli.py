#!/usr/bin/env python3
"""Fuzzes the command line of one program of each lesson (host part: no GPU is used).

Random argument vectors, seeded and reproducible, are built from each program's own --help (its
real options), valid and hostile values (signs, hex, exponents, overflow, empty strings, bytes that
are not UTF-8, missing values, repeated options, files that do not exist or lie). Each program runs
with CUDA_VISIBLE_DEVICES set to nothing, so a vector that passes validation stops at "no GPU"
(exit 77) before any work. Every run must:
  * exit 0 (only with --help), 2 (bad usage or input, with exactly one 'error:' line on stderr)
    or 77 (no GPU);
  * never die from a signal (a crash) or run past its time limit (a hang).
A failure prints the seed and the argument vector.

    python3 tests/fuzz_cli.py --build build [--cases 250] [--seed S]
Ends with 'N passed, N failed' (one check per program, plus one per failing vector).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = ["lesson01_topk/topk_05_radix_select", "lesson02_scan/06_decoupled_lookback",
            "lesson03_compact_spmv/compact_03_lookback", "lesson03_compact_spmv/spmv_05_merge_path",
            "lesson04_sort/08_radix_onesweep", "lesson05_histogram/04_per_lane_copies"]

VALUES = ["1", "0", "7", "1000000", "1<<24", "2^24", "16M", "3K", "1G", "2^40", "2^41", "1<<63", "1<<64",
          "-1", "-0", "+5", "0x10", "1e6", "1.5", "", " ", "abc", "99999999999999999999999", "2^", "<<",
          "uniform", "sorted", "equal", "zipf", "powerlaw", "banded", "int32", "uint32", "float32", "float64",
          "uint8", "text", "--n", "-", "--", "\udcff\udcfe", "nan", "inf", "1,000",
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", type=int, default=250, help="argument vectors per program")
    ap.add_argument("--seed", type=int, default=20261124)
    a = ap.parse_args()
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as tmp:
        lying = os.path.join(tmp, "lying.npy")
        header = "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999,), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(lying, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 8)
        files = [lying, os.path.join(tmp, "missing.npy"), os.path.join(tmp, "out.npy"), "/dev/null", tmp]
        for prog in PROGRAMS:
            exe = os.path.join(a.build, prog)
            if not os.path.exists(exe):
                print(f"FAIL  {prog}: not built ({exe})")
                failed += 1
                continue
            opts = options_of(exe)
            bad = 0
            for c in range(a.cases):
                seed = a.seed * 7919 + c * 31 + PROGRAMS.index(prog)
                rng = random.Random(seed)
                args = vector(rng, opts, files)
                argv = [os.fsencode(x) if isinstance(x, str) else x for x in args]
                try:
                    p = subprocess.run([exe] + argv, capture_output=True, timeout=20, env=env)
                    rc, err = p.returncode, p.stderr.decode(errors="replace")
                except subprocess.TimeoutExpired:
                    rc, err = "timeout", ""
                # one line: split at newlines only (Python's splitlines would also split at other
                # separators), and no carriage return or escape character inside it
                lines = [l for l in err.split("\n") if l.strip()]
                ok = (rc == 0 and "--help" in args) or rc == 77 or \
                     (rc == 2 and len(lines) == 1 and lines[0].startswith("error:") and
                      "\r" not in err and "\x1b" not in err)
                if not ok:
                    bad += 1
                    if bad <= 5:
                        print(f"FAIL  {prog} seed={seed} argv={args!r}: exit {rc}, stderr {err.strip()[:300]!r}")
            if bad:
                failed += bad
            else:
                passed += 1
                print(f"PASS  {prog}: {a.cases} random argument vectors, each exit 0/2/77 with at most one error line")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
