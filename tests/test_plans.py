#!/usr/bin/env python3
"""Every launch plan of the course, checked against the limits of every GPU in the profile table
(common/gpu_limits.h: T4, A100, RTX 3090, L4, RTX 4090, H100, H200, B200, RTX 5090), on the host.

A version whose plan depends on the GPU prints it with --plan; under COURSE_GPU_PROFILE=<gpu> it
needs no GPU. ptxas's resource report, kept beside each program as <program>.res by the Makefile,
gives each kernel's registers and static shared memory for each architecture built. For each plan
line (a kernel launch: threads, dynamic shared memory, the blocks per SM it counts on, cluster
size) and each profile this checks:
  * one block fits: threads <= 1024, static + dynamic shared memory <= the block's opt-in maximum,
    registers x threads <= the SM's registers (allocated per warp, 256 at a time);
  * the blocks per SM the plan counts on fit together: threads, shared memory (with the 1 KB the
    runtime keeps a block), registers, the SM's block limit;
  * a cluster only where the GPU has clusters, and at most 8 blocks.
Registers come from the architecture built that the profile's GPU would run: the newest built
sm_XY with the same major version and XY <= its compute capability (an sm_75 build for a T4, an
sm_90 build for an H100). A profile with no such build is checked without registers, and says so.

    python3 tests/test_plans.py --build build [--res-dir build_newest]   (make test runs it)
    python3 tests/test_plans.py --self-test        (planted over-limit plans must fail)
Ends with 'N passed, N failed'.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILES = ["t4", "a100", "rtx3090", "l4", "rtx4090", "h100", "h200", "b200", "rtx5090"]
# The cases whose plans differ, per lesson (a set a program does not accept is skipped).
ARG_SETS = {
    "lesson01_topk": [[], ["--k", "2048"], ["--n", "2^20", "--k", "32"], ["--type", "bfloat16"],
                      ["--rows", "4", "--n", "2^24", "--k", "1024"],   # rows past 2^20 (row-wise programs)
                      ["--rows", "4", "--n", "2^24", "--k", "1024", "--type", "bfloat16"]],
    "lesson02_scan": [[], ["--type", "float32"]],
    "lesson03_compact_spmv": [[], ["--type", "float64"]],
    "lesson04_sort": [["--type", "uint32"], ["--type", "uint64"], ["--type", "pairs"], ["--type", "float32"]],
    "lesson05_histogram": [["--type", "uint8"], ["--type", "uint32", "--bins", "4096"],
                           ["--type", "uint32", "--bins", "65536"], ["--type", "uint32", "--bins", "131072"]],
}


def parse_resources(text):
    """{arch (75, 90, ...): {mangled kernel name: (registers, static shared bytes)}} from ptxas -v."""
    res, name, arch = {}, None, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for 'sm_(\d+)[a-z]?'", line)
        if m:
            name, arch = m.group(1), int(m.group(2))
            continue
        m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", line)
        if m and name:
            res.setdefault(arch, {})[name] = (int(m.group(1)), int(m.group(2)))
            name = None
        elif name and re.search(r"Used (\d+) registers", line):   # no shared memory at all
            res.setdefault(arch, {})[name] = (int(re.search(r"Used (\d+) registers", line).group(1)), 0)
            name = None
    return res


def parse_plan(text):
    """(limits dict, [plan dicts]) from a program's --plan output."""
    limits, plans = None, []
    for line in text.splitlines():
        if line.startswith("limits "):
            limits = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
        elif line.startswith("plan threads="):
            m = re.match(r'plan threads=(\d+) dyn_smem=(\d+) blocks_per_sm=(\d+) cluster=(\d+) kernel="([^"]*)"', line)
            if m:
                plans.append({"kernel": m.group(5), "threads": int(m.group(1)), "dyn_smem": int(m.group(2)),
                              "blocks_per_sm": int(m.group(3)), "cluster": int(m.group(4)),
                              "note": line.split("#", 1)[1].strip() if "#" in line else ""})
            else:
                plans.append(None)
    return limits, plans


def arch_for(cc, built):
    same = [a for a in built if a // 10 == cc // 10 and a <= cc]
    return max(same) if same else None


_demangled = {}


def demangle(names):
    """Readable names (c++filt) for ptxas's mangled ones, cached; a name c++filt lacks stays as it is."""
    todo = [n for n in names if n not in _demangled]
    if todo:
        try:
            out = subprocess.run(["c++filt"], input="\n".join(todo), capture_output=True, text=True, timeout=60).stdout
            for n, d in zip(todo, out.splitlines()):
                _demangled[n] = d
        except (OSError, subprocess.TimeoutExpired):
            pass
    return {n: _demangled.get(n, n) for n in names}


def kernel_resources(kernel, arch_res):
    """Largest registers and static shared memory over the kernels the plan's name matches: a plain
    name matches every instantiation of that kernel; a pattern with '<' or '*' (fnmatch) matches the
    demangled signature, e.g. 'onesweep_pass<*, unsigned int, *, *, false, false, *>'."""
    import fnmatch
    names = demangle(list(arch_res))
    if "<" in kernel or "*" in kernel:
        hits = [v for n, v in arch_res.items() if fnmatch.fnmatchcase(names[n], "*" + kernel + "*")]
    else:
        hits = [v for n, v in arch_res.items() if re.search(r"(^|[\s:])" + re.escape(kernel) + r"[<(]", names[n])]
    if not hits:
        return None
    return max(h[0] for h in hits), max(h[1] for h in hits)


def regs_per_block(regs, threads):
    warps = (threads + 31) // 32
    return warps * ((regs * 32 + 255) // 256 * 256)


def check_plan(limits, plan, resources):
    """A list of what this plan asks beyond these limits (empty: it fits). `resources` is
    (registers, static shared bytes) or None (not known for this architecture)."""
    bad = []
    t, dyn, per_sm, cl = plan["threads"], plan["dyn_smem"], plan["blocks_per_sm"], plan["cluster"]
    regs, static = resources if resources else (0, 0)
    smem = dyn + static
    if t < 1 or t > 1024:
        bad.append(f"{t} threads a block")
    if smem > limits["smem_block"]:
        bad.append(f"{smem} B shared memory a block > {limits['smem_block']}")
    if resources and regs_per_block(regs, t) > limits["regs_sm"]:
        bad.append(f"{regs} registers x {t} threads > {limits['regs_sm']} registers")
    if per_sm > 0:
        if per_sm * t > limits["threads_sm"]:
            bad.append(f"{per_sm} blocks of {t} threads an SM > {limits['threads_sm']}")
        if per_sm > limits["blocks_sm"]:
            bad.append(f"{per_sm} blocks an SM > {limits['blocks_sm']}")
        if smem and per_sm * (smem + 1024) > limits["smem_sm"]:
            bad.append(f"{per_sm} blocks x {smem + 1024} B shared > {limits['smem_sm']} an SM")
        if resources and per_sm * regs_per_block(regs, t) > limits["regs_sm"]:
            bad.append(f"{per_sm} blocks x {regs} registers x {t} threads > {limits['regs_sm']}")
    if cl > 1 and not limits["clusters"]:
        bad.append(f"a cluster of {cl} on a GPU without clusters")
    if cl > 8:
        bad.append(f"a cluster of {cl} blocks > 8")
    return bad


def query(exe, profile, args):
    env = dict(os.environ, COURSE_GPU_PROFILE=profile, CUDA_VISIBLE_DEVICES="")
    env.pop("COURSE_PLAN_ARCH", None)
    try:
        p = subprocess.run([exe, "--plan"] + args, capture_output=True, text=True, timeout=60, env=env, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -9, "", "timed out"


RES_DIRS = []   # --res-dir: more builds of the same programs for other architectures (CI: sm_100, sm_120)


def check_program(exe, src):
    """Returns (passed, [failure lines])."""
    lesson = src.split("/")[0]
    resources = {}
    for res_file in [exe + ".res"] + [os.path.join(d, src[:-3]) + ".res" for d in RES_DIRS]:
        if os.path.exists(res_file):
            for arch, kernels in parse_resources(open(res_file, errors="replace").read()).items():
                resources.setdefault(arch, {}).update(kernels)
    built = sorted(resources)
    passed, fails = 0, []
    rc, out, err = query(exe, "t4", ARG_SETS.get(lesson, [[]])[0])
    if rc == 0 and "plan: fixed" in out:
        return 1, []   # no choice depends on the GPU
    for profile in PROFILES:
        for args in ARG_SETS.get(lesson, [[]]):
            rc, out, err = query(exe, profile, args)
            what = f"{src} as {profile} {' '.join(args)}".strip()
            if rc == 2 and re.search(r"unknown (option|--type|--dist)|not a count|must be between", err):
                continue          # this program does not take that case
            if rc == 2 and len(err.strip().splitlines()) == 1:
                passed += 1       # a one-line refusal of what that GPU cannot run is a plan too
                continue
            if rc != 0:
                fails.append(f"FAIL  {what}: --plan exit {rc}: {(err or out).strip()[:200]}")
                continue
            limits, plans = parse_plan(out)
            if limits is None or not plans or None in plans:
                fails.append(f"FAIL  {what}: --plan printed no limits or no plan line")
                continue
            arch = arch_for(limits["cc"], built)
            for plan in plans:
                r = kernel_resources(plan["kernel"], resources.get(arch, {})) if arch else None
                if arch and r is None:
                    fails.append(f"FAIL  {what}: kernel '{plan['kernel']}' is not in ptxas's report for sm_{arch}")
                    continue
                bad = check_plan(limits, plan, r)
                if bad:
                    fails.append(f"FAIL  {what}: {plan['kernel']} ({plan['note']}): " + "; ".join(bad))
                else:
                    passed += 1
    return passed, fails


def blocks_that_fit(limits, plan, resources):
    """Blocks of this plan's kernel one SM holds at once (threads, shared memory with the 1 KB a block the
    runtime keeps, registers, the SM's block limit): what the GPU runs."""
    regs, static = resources
    t = plan["threads"]
    fit = min(limits["threads_sm"] // t, limits["blocks_sm"], limits["regs_sm"] // regs_per_block(regs, t))
    return min(fit, limits["smem_sm"] // (plan["dyn_smem"] + static + 1024))


# The row-wise serving build's long rows: its chunks fill the blocks an SM holds, so the plan must count
# exactly those (with no GPU, from the build's static shared memory and registers), not just fit in them.
EXACT_PLANS = [("lesson01_topk/rows_05_serving", args, "sampled_rows<*, true, *")
               for args in (["--rows", "4", "--n", "2^24", "--k", "1024"],
                            ["--rows", "4", "--n", "2^24", "--k", "1024", "--type", "bfloat16"],
                            ["--rows", "2", "--n", "2^21", "--k", "50", "--dist", "ragged_equal"])]


def check_exact(build):
    """Returns (passed, [failure lines]) for EXACT_PLANS."""
    passed, fails = 0, []
    for src, args, kernel in EXACT_PLANS:
        exe = os.path.join(build, src)
        if not os.path.exists(exe):
            continue
        resources = {}
        for res_file in [exe + ".res"] + [os.path.join(d, src) + ".res" for d in RES_DIRS]:
            if os.path.exists(res_file):
                for arch, kernels in parse_resources(open(res_file, errors="replace").read()).items():
                    resources.setdefault(arch, {}).update(kernels)
        for profile in PROFILES:
            rc, out, err = query(exe, profile, args)
            what = f"{src} as {profile} {' '.join(args)}"
            limits, plans = parse_plan(out)
            plans = [p for p in plans if p and p["kernel"].startswith(kernel.split("<")[0])]
            if rc != 0 or limits is None or len(plans) != 1:
                fails.append(f"FAIL  {what}: no '{kernel}' plan line (exit {rc}): {(err or out).strip()[:200]}")
                continue
            arch = arch_for(limits["cc"], sorted(resources))
            r = kernel_resources(kernel, resources.get(arch, {})) if arch else None
            if r is None:
                passed += 1   # no build for this architecture: nothing to compare with
                continue
            fit = blocks_that_fit(limits, plans[0], r)
            m = re.match(r"(\d+) blocks a row", plans[0]["note"])
            chunks = int(m.group(1)) if m else -1
            rows = int(args[args.index("--rows") + 1])
            want_chunks = limits["sms"] * fit // rows
            if plans[0]["blocks_per_sm"] != fit or chunks != want_chunks:
                fails.append(f"FAIL  {what}: plans {plans[0]['blocks_per_sm']} blocks an SM and {chunks} blocks a row; "
                             f"sm_{arch}'s build ({r[0]} registers, {r[1]} B static) runs {fit} an SM, {want_chunks} a row")
            else:
                passed += 1
    return passed, fails


def check_file_plans(build):
    """--plan with --input (and --lengths) plans the file's shape: the same plan as the shape given by
    --rows/--n (ragged: the rows and the longest row). Returns (passed, [failure lines])."""
    exe = os.path.join(build, "lesson01_topk", "rows_05_serving")
    if not os.path.exists(exe):
        return 0, []
    import tempfile
    import numpy as np
    passed, fails = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        m, v, lens = (os.path.join(tmp, f) for f in ("m.npy", "v.npy", "lens.npy"))
        np.save(m, np.zeros((3, 1 << 21), dtype=np.float32))
        np.save(v, np.zeros(3 << 20, dtype=np.float32))
        np.save(lens, np.array([1 << 21, 1 << 20], dtype=np.int32))
        pairs = [(["--input", m, "--k", "50"], ["--rows", "3", "--n", "2^21", "--k", "50"]),
                 (["--input", v, "--lengths", lens, "--k", "50"], ["--dist", "ragged", "--rows", "2", "--n", "2^21", "--k", "50"])]
        for profile in ("h100", "t4"):
            for file_args, shape_args in pairs:
                (rc1, out1, err1), (rc2, out2, err2) = query(exe, profile, file_args), query(exe, profile, shape_args)
                got = [l for l in out1.splitlines() if l.startswith("plan ")]
                want = [l for l in out2.splitlines() if l.startswith("plan ")]
                if rc1 != 0 or rc2 != 0 or not want or got != want:
                    fails.append(f"FAIL  rows_05_serving --plan {' '.join(file_args[2:])} with a file as {profile}: "
                                 f"{(got or [err1.strip()])[0][:160]} is not the plan of {' '.join(shape_args)}: "
                                 f"{(want or [err2.strip()])[0][:160]}")
                else:
                    passed += 1
    return passed, fails


def self_test():
    """Planted plans: each over-limit one must be caught, the honest ones must pass."""
    t4 = {"cc": 75, "sms": 40, "smem_block": 65536, "smem_sm": 65536, "threads_sm": 1024, "blocks_sm": 16,
          "regs_sm": 65536, "clusters": 0}
    h100 = dict(t4, cc=90, smem_block=232448, smem_sm=233472, threads_sm=2048, blocks_sm=32, clusters=1)
    plan = lambda t, dyn, per_sm, cl=1: {"threads": t, "dyn_smem": dyn, "blocks_per_sm": per_sm, "cluster": cl}
    cases = [
        ("08's 8192-key uint64 tile on a T4", t4, plan(256, 84008, 2), (120, 0), True),
        ("the same tile on an H100", h100, plan(256, 84008, 2), (120, 0), False),
        ("4 x 512 threads on a 1024-thread SM", t4, plan(512, 32768, 4), (32, 0), True),
        ("a cluster on a T4", t4, plan(512, 65536 // 4, 1, 4), (40, 0), True),
        ("a cluster on an H100", h100, plan(512, 65536, 1, 4), (40, 0), False),
        ("255 registers x 512 threads", h100, plan(512, 0, 1), (255, 0), True),
        ("3 blocks x 80 registers x 256 threads on a T4", t4, plan(256, 0, 3), (80, 0), False),
        ("4 blocks x 80 registers x 256 threads on a T4", t4, plan(256, 0, 4), (80, 0), True),
        ("static 40 KB + dynamic 30 KB on a T4", t4, plan(256, 30000, 1), (32, 40960), True),
    ]
    passed = failed = 0
    for what, lim, p, r, must_fail in cases:
        got = bool(check_plan(lim, p, r))
        if got == must_fail:
            passed += 1
            print(f"PASS  {what}: {'caught' if must_fail else 'fits'}")
        else:
            failed += 1
            print(f"FAIL  {what}: expected {'a violation' if must_fail else 'no violation'}")
    res = parse_resources("ptxas info    : Compiling entry function '_ZN8onesweep13onesweep_passIjjLb1EEEvPKv' for 'sm_75'\n"
                          "ptxas info    : Used 80 registers, used 1 barriers, 16 bytes smem, 400 bytes cmem[0]\n")
    ok = kernel_resources("onesweep_pass", res.get(75, {})) == (80, 16) and kernel_resources("count", res.get(75, {})) is None \
        and kernel_resources("onesweep_pass<unsigned int, unsigned int, true>", res.get(75, {})) == (80, 16) \
        and kernel_resources("onesweep_pass<*, unsigned long, *>", res.get(75, {})) is None
    print(f"{'PASS' if ok else 'FAIL'}  ptxas's report parsed, kernels matched by name")
    passed, failed = passed + ok, failed + (not ok)
    return passed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--res-dir", action="append", default=[],
                    help="another build folder whose <program>.res adds architectures (repeatable)")
    a = ap.parse_args()
    RES_DIRS.extend(a.res_dir)
    passed, failed = self_test()
    if not a.self_test:
        srcs = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "lesson*", "*.cu")))
        todo = [(os.path.join(a.build, s[:-3]), s) for s in srcs if os.path.exists(os.path.join(a.build, s[:-3]))]
        if not todo:
            print("FAIL  no program built to ask for its plan")
            failed += 1
        with cf.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            for (exe, src), (p, fails) in zip(todo, pool.map(lambda t: check_program(*t), todo)):
                passed += p
                failed += len(fails)
                for f in fails:
                    print(f)
                if not fails and p > 1:
                    print(f"PASS  {src}: {p} plans within every profile's limits")
        p, fails = check_exact(a.build)
        p2, fails2 = check_file_plans(a.build)
        p, fails = p + p2, fails + fails2
        passed += p
        failed += len(fails)
        for f in fails:
            print(f)
        if p and not fails:
            print(f"PASS  {p} long-row and file plans: the blocks an SM each profile runs (ptxas's registers, static "
                  "shared memory), and --input/--lengths planned as the file's shape")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
