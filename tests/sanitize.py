#!/usr/bin/env python3
"""`make sanitize`: compute-sanitizer's four tools on every version at small sizes (GPU only).

memcheck (out-of-bounds and misaligned accesses), racecheck (shared-memory hazards), synccheck
(barriers in divergent code) and initcheck (reads of device memory nothing wrote). Each program
runs one case at two small sizes, plus the cases in EXTRA for paths that only larger or other
inputs reach; any report is a failure. Ends with 'N passed, N failed, N skipped'.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
SIZES = ["1000", "4097"]   # a partial tile (within every single-block limit), and a tile boundary plus one
# Paths that those sizes never reach, checked with every tool as well (each list is one run's
# arguments). topk_06_sampled_one_launch samples and filters (S0, S1, F) only from 2^22 keys, and stops on
# ties only when the candidates are one key: its race on a widened shared load showed only at
# 2^22 all-equal. The histograms' large-bin paths need keys and more bins than bytes have; 08's
# full tiles (8192 keys, every type) start past the sizes, it carries values only for pairs, and
# its one-digit and dominant-digit warps need repeated keys (`few`). 05_merge_path merges only
# past one tile sort (8192 keys; 4096 for pairs and uint64). spmv_05 loads a tile's last slots
# after its batch only in tiles inside a row longer than a tile (the giant row). The row-wise
# top-k's multi-block paths need longer rows than the sizes (their comment below).
EXTRA = {
    "lesson01_topk/topk_06_sampled_one_launch": [["--n", "2^22", "--k", "2048"],
                                                  ["--n", "2^22", "--k", "1024", "--dist", "equal"]],
    "lesson01_topk/topk_05_radix_select": [["--n", "2^22", "--k", "1024", "--dist", "equal"]],
    "lesson05_histogram/05_large_bins": [["--type", "uint32", "--bins", "65536", "--n", "100000"]],
    "lesson05_histogram/06_cluster_dsmem": [["--type", "uint32", "--bins", "65536", "--n", "100000"]],
    "lesson04_sort/08_radix_onesweep": [["--n", "20001"], ["--type", "pairs", "--n", "20001"],
                                        ["--type", "uint64", "--n", "20001"],
                                        ["--n", "20001", "--dist", "few"],   # one-digit and dominant warps
                                        ["--type", "pairs", "--n", "20001", "--dist", "few"],
                                        ["--type", "uint64", "--n", "20001", "--dist", "few"]],
    "lesson04_sort/05_merge_path": [["--n", "50001"], ["--type", "pairs", "--n", "20001"],
                                    ["--type", "uint64", "--n", "20001"]],
    "lesson03_compact_spmv/spmv_05_merge_path": [["--gen", "giant_row", "--n", "20001"]],
    # Row-wise top-k: several blocks a row (the sampled pass's hand-over), rows past 2^20 (its list in
    # global memory, its spill on sorted rows, the M fallback on equal rows), k over 2048 (M with CUB).
    "lesson01_topk/rows_05_serving": [["--rows", "7", "--n", "128256", "--k", "256"],
                                      ["--rows", "2", "--n", "2097157", "--k", "2048", "--dist", "sorted"],
                                      ["--rows", "2", "--n", "2097157", "--k", "50", "--dist", "equal"],
                                      ["--dist", "ragged", "--rows", "4", "--n", "2097157", "--k", "1024"],
                                      ["--rows", "2", "--n", "40001", "--k", "3000"],
                                      # a row past 2^20 beside constant rows of 2^20 (1.0, -inf, NaN): the
                                      # short rows' chunks keep more than the shared buffer holds
                                      ["--dist", "ragged_equal", "--rows", "4", "--n", "2097152", "--k", "50"]],
    # The TMA ring refills a stage only once there are more tiles than resident blocks (3 an SM:
    # 396 on an H100): 513 tiles of 8192; 100003 ends in a partial tile that skips the ring.
    "lesson02_scan/08_tma_pipeline": [["--n", "4194307"], ["--n", "4194307", "--type", "float32", "--exclusive", "1"],
                                      ["--n", "100003", "--dist", "sorted"]],
}


# API errors that a library we link makes and handles itself, each (error, call, library in the
# host backtrace). NCCL asks cudaFuncGetAttributes of each of its kernels at start-up, skips those
# with no image for this GPU and clears the error with cudaGetLastError (ncclInitKernelsForDevice);
# memcheck reports every failed API call, so the multi-GPU programs would fail it though none of
# their own calls failed (CUDA_CHECK would have stopped them).
BENIGN_API_ERRORS = [("cudaErrorNoKernelImageForDevice", "cudaFuncGetAttributes", "libnccl"),
                     ("cudaErrorNoKernelImageForDevice", "cudaGetLastError", "libnccl")]


def benign_api_errors(out):
    """How many of memcheck's reports in `out` are API errors listed in BENIGN_API_ERRORS, and
    whether every report is one of them (then the run is clean of our own errors)."""
    blocks, cur = [], None
    for line in out.splitlines():
        if line.startswith("========= ") and not line.startswith("=========  "):
            cur = [line] if "Program hit" in line or "Invalid" in line or "Error" in line else None
            if cur is not None and "ERROR SUMMARY" not in line:
                blocks.append(cur)
        elif cur is not None and line.startswith("=========  "):
            cur.append(line)
    benign = sum(1 for b in blocks if any(e in b[0] and c in b[0] and any(lib in l for l in b[1:])
                                          for e, c, lib in BENIGN_API_ERRORS))
    # The summary counts a repeated report (same call, same backtrace) each time, the listing once.
    m = re.search(r"ERROR SUMMARY: (\d+) error", out)
    return benign, bool(m) and benign == len(blocks) and 0 < benign <= int(m.group(1)) and "not printed" not in out


def self_test():
    """The filter on planted reports: NCCL's handled probe passes; the same error from elsewhere, or
    beside a real report, does not ('N passed, N failed', as run_tests' host part reads it)."""
    nccl = ("========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to \"no kernel image\" "
            "on CUDA API call to cudaFuncGetAttributes.\n=========     Saved host backtrace\n"
            "=========         Host Frame: [0x1] in libcuda.so.1\n=========         Host Frame: [0x2] in libnccl.so.2\n"
            "=========\n")
    real = "========= Invalid __global__ read of size 4 bytes\n=========     at kernel+0x10\n=========\n"
    cleared = nccl.replace("cudaFuncGetAttributes", "cudaGetLastError")
    cases = [("NCCL's probe alone", nccl + "========= ERROR SUMMARY: 1 error", True),
             ("NCCL's probe and its cleared error, twice", (nccl + cleared) * 2 + "========= ERROR SUMMARY: 4 errors", True),
             ("the same error outside NCCL", nccl.replace("libnccl", "libcourse") + "========= ERROR SUMMARY: 1 error", False),
             ("NCCL's probe beside an invalid read", nccl + real + "========= ERROR SUMMARY: 2 errors", False),
             ("no summary line", nccl, False)]
    failed = 0
    for what, out, want in cases:
        got = benign_api_errors(out)[1]
        failed += got != want
        print(f"{'PASS' if got == want else 'FAIL'}  benign API errors: {what} -> {got}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--lessons", default="lesson01_topk lesson02_scan lesson03_compact_spmv lesson04_sort lesson05_histogram")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "6")))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated --n values")
    ap.add_argument("--only", help="only programs whose path matches this regular expression")
    ap.add_argument("--self-test", action="store_true", help="check the report filter on planted output (no GPU)")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not shutil.which("compute-sanitizer"):
        print("compute-sanitizer not found (it ships with the CUDA toolkit)\n0 passed, 0 failed, 1 skipped")
        return 0
    jobs = []
    for lesson in args.lessons.split():
        folder = os.path.join(ROOT, lesson)
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if f.endswith(".cu") and (not args.only or re.search(args.only, os.path.join(lesson, f))):
                exe = os.path.join(args.build, lesson, f[:-3])
                runs = [["--n", n] for n in args.sizes.split(",")] + EXTRA.get(f"{lesson}/{f[:-3]}", [])
                for tool in args.tools.split(","):
                    for run in runs:
                        jobs.append((exe, tool, run))
    counts = {"passed": 0, "failed": 0, "skipped": 0}

    def one(job):
        exe, tool, run = job
        cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "42"]
        cmd += [exe] + run + ["--reps", "1"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, errors="replace")
            rc, out = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            rc, out = -9, "timed out"
        name = f"{os.path.relpath(exe, args.build)} {tool} {' '.join(run)}"
        if rc == 77:
            return "skipped", f"SKIP  {name}: no GPU"
        refused = "terminated before first instrumented API call" in out and "error:" in out
        if rc == 2 or refused:   # beyond a version's stated limit (e.g. one block): nothing to check at this size
            why = next((l for l in out.splitlines() if l.startswith("error:")), "refused")
            return "skipped", f"SKIP  {name}: refused by the program ({why[:120]})"
        cdp_notice = "CUDA Dynamic Parallelism is not supported by the selected tool"
        if cdp_notice in out:   # racecheck/synccheck count their own notice as a hazard/error
            findings = [l for l in out.splitlines() if l.startswith("=========") and cdp_notice not in l
                        and "SUMMARY" not in l and re.search(r"Error|Warning|Race|Hazard|Invalid", l)]
            if not findings:
                return "skipped", f"SKIP  {name}: {tool} cannot check programs that use dynamic parallelism"
        clean = ("ERROR SUMMARY: 0 errors" in out) if tool != "racecheck" else \
            bool(re.search(r"RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)", out))
        if rc == 0 and clean:
            return "passed", f"PASS  {name}"
        if tool == "memcheck" and rc == 42:
            benign, only = benign_api_errors(out)
            if only:
                return "passed", f"PASS  {name} ({benign} API errors inside NCCL, which handles them: BENIGN_API_ERRORS)"
        detail = [l for l in out.splitlines() if "=========" in l and ("Error" in l or "Invalid" in l or "Race" in l
                                                                    or "Hazard" in l.title() or "Frame" in l)][:8]
        return "failed", f"FAIL  {name}: exit {rc} " + " | ".join(detail or out.strip().splitlines()[-3:])

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for status, line in pool.map(one, jobs):
            counts[status] += 1
            print(line, flush=True)
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
