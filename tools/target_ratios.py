#!/usr/bin/env python3
"""Ratios of the targets step (tools/gpu_batch.sh, STEPS=targets): for every case of a CSV the
programs wrote (lesson, type, n, input, parameter), the library bar's times and, for each other
version, its times and the ratio bar / version of each round (above 1: the course is faster).
A version's ratio uses the bar row that came last before it in the same case, so each round's
ratio compares two runs made one after the other on the same input.

    python3 tools/target_ratios.py gpu-logs/targets_H200.csv
    python3 tools/target_ratios.py --self-test      # the arithmetic on a planted CSV
"""
import csv
import io
import sys

def is_bar(version):
    """Every lesson's library bars are its 00 programs: 00_cub, 00_cub_merge, spmv_00_cusparse..."""
    return version.startswith("00_") or "_00_" in version


def ratios(rows):
    """rows: dicts with lesson, dtype, n, dist, param, version, ms_median, check (file order).
    Returns [(case, bar_times, {version: [(ms, ratio or None, check)]})] in first-seen order."""
    cases = {}
    for r in rows:
        key = (r["lesson"], r["dtype"], r["n"], r["dist"], r["param"])
        bars, versions, last = cases.setdefault(key, ([], {}, [None]))
        ms = float(r["ms_median"])
        if is_bar(r["version"]):
            bars.append((r["version"], ms))
            last[0] = ms
        else:
            ratio = last[0] / ms if last[0] is not None and ms > 0 else None
            versions.setdefault(r["version"], []).append((ms, ratio, r["check"]))
    return [(k, b, v) for k, (b, v, _) in cases.items()]


def report(rows):
    lines = []
    for (lesson, dtype, n, dist, param), bars, versions in ratios(rows):
        head = f"{lesson} {dtype} n={n} {dist}{' ' + param if param else ''}"
        bar = ", ".join(f"{name} {b:.4f}" for name, b in bars) or "-"
        for v, runs in versions.items():
            parts = []
            for ms, ratio, check in runs:
                parts.append(f"{ms:.4f}" + (f" ({ratio:.3f}x)" if ratio is not None else "")
                             + ("" if check == "PASS" else f" {check}"))
            lines.append(f"{head}: bar {bar} | {v} {', '.join(parts)}")
        if not versions:
            lines.append(f"{head}: bar {bar}")
    return "\n".join(lines)


def self_test():
    planted = """gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check
G,04_sort,00_cub,uint32,268435456,uniform,,15,5.5,5.5,1,1,PASS
G,04_sort,08_radix_onesweep,uint32,268435456,uniform,,15,5.0,5.0,1,1,PASS
G,05_histogram,00_cub,uint32,268435456,uniform,bins=65536,15,12.0,12.0,1,1,PASS
G,05_histogram,05_large_bins,uint32,268435456,uniform,bins=65536,15,4.0,4.0,1,1,PASS
G,05_histogram,06_cluster_dsmem,uint32,268435456,uniform,bins=65536,15,3.0,3.0,1,1,FAIL
G,04_sort,00_cub,uint32,268435456,uniform,,15,5.6,5.6,1,1,PASS
G,04_sort,08_radix_onesweep,uint32,268435456,uniform,,15,7.0,7.0,1,1,PASS
G,01_topk,05_radix_select,float32,268435456,uniform,k=1,15,0.4,0.4,1,1,PASS
G,03_spmv,spmv_00_cusparse,float32,4194304,random,per_row=16,15,0.5,0.5,1,1,PASS
G,03_spmv,spmv_05_merge_path,float32,4194304,random,per_row=16,15,0.4,0.4,1,1,PASS
"""
    got = ratios(list(csv.DictReader(io.StringIO(planted))))
    checks = []
    sort_case = got[0]
    checks.append(("two rounds, two bars", [b for _, b in sort_case[1]] == [5.5, 5.6]))
    r = sort_case[2]["08_radix_onesweep"]
    checks.append(("each round against its own bar", abs(r[0][1] - 1.1) < 1e-9 and abs(r[1][1] - 0.8) < 1e-9))
    hist = got[1][2]
    checks.append(("two versions after one bar", abs(hist["05_large_bins"][0][1] - 3.0) < 1e-9
                   and abs(hist["06_cluster_dsmem"][0][1] - 4.0) < 1e-9))
    checks.append(("a failed check is shown", "FAIL" in report(list(csv.DictReader(io.StringIO(planted))))))
    checks.append(("no bar, no ratio", got[2][2]["05_radix_select"][0][1] is None))
    spmv = got[3]
    checks.append(("a bar named lesson_00_library (spmv_00_cusparse) is a bar",
                   [n for n, _ in spmv[1]] == ["spmv_00_cusparse"] and abs(spmv[2]["spmv_05_merge_path"][0][1] - 1.25) < 1e-9))
    failed = 0
    for name, ok in checks:
        print(("PASS  " if ok else "FAIL  ") + name)
        failed += not ok
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0])
        print("usage: target_ratios.py FILE.csv | --self-test")
        return 2
    try:
        with open(argv[1], newline="") as f:
            rows = list(csv.DictReader(f))
        text = report(rows)
    except OSError as e:
        print(f"target_ratios.py: cannot read {argv[1]}: {e.strerror}")
        return 1
    except (KeyError, ValueError) as e:   # a column missing, or a time that is not a number
        print(f"target_ratios.py: {argv[1]} is not a course CSV ({type(e).__name__}: {e})")
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
