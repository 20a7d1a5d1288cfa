#!/usr/bin/env python3
"""torch.topk on the row-wise benchmark's shapes, timed as the course times its own programs.

    python3 tools/torch_topk_rows.py --csv results/torch_rows.csv      (then: plot.py --merge ...)

For each shape of lesson01_topk/rows.cuh's benchmark (rows x cols, k) and each --types dtype
(float32, bfloat16, float16): a matrix of uniform values in [-1, 1) on the GPU (16-bit: the
float32 matrix rounded, as the course makes its inputs), torch.topk(x, k, dim=1) (largest, sorted: the course's semantics),
three warm-up calls, then the median of the timed calls, each between CUDA events with L2 flushed
before it. The CSV rows have the course's columns (lesson 01_topk_rows, version torch.topk), so
plot.py's row-wise table shows them beside rows_05_serving and the segmented-sort bar; copy_gbps is a
device-to-device copy of the same bytes, timed the same way.

PyTorch is not a dependency of the course: without it (or without a GPU) this says so and exits 0.
"""
import argparse
import os
import statistics
import sys

SHAPES = [(1, 128256, 50), (64, 128256, 50), (256, 256000, 1024), (4096, 256, 8), (16384, 128, 8),
          (65536, 64, 2), (4, 1 << 24, 1024), (64, 131072, 256), (256, 262144, 256)]
DTYPES = {"float32": 4, "bfloat16": 2, "float16": 2}
COLUMNS = "gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check,commit,cuda,driver"


def provenance(torch):
    """',commit,cuda,driver' as the course's programs write them (COURSE_COMMIT, else git, else unknown)."""
    import subprocess
    commit = os.environ.get("COURSE_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    driver = "unknown"
    try:
        driver = open("/proc/driver/nvidia/version").read().split("Module", 1)[1].split()[0]
    except (OSError, IndexError):
        pass
    return f",{commit},{torch.version.cuda or 'unknown'},{driver}"


def timed(torch, fn, reps, flush):
    times = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    for _ in range(reps):
        flush.zero_()                      # evict the input from L2, as the course's timer does
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", help="append rows to this CSV (header written when new)")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--types", default="float32,bfloat16",
                    help="comma-separated dtypes among " + ", ".join(DTYPES) + " (default float32,bfloat16)")
    ap.add_argument("--shapes", default="",
                    help="only these shapes, e.g. 64x131072:256,256x262144:256 (default: all of the benchmark's)")
    args = ap.parse_args()
    types = [t for t in args.types.split(",") if t]
    for t in types:
        if t not in DTYPES:
            print(f"torch_topk_rows: unknown dtype '{t}' (choose {', '.join(DTYPES)})", file=sys.stderr)
            return 2
    shapes = SHAPES
    if args.shapes:
        try:
            shapes = []
            for item in args.shapes.split(","):
                dims, k = item.split(":")
                r, c = dims.split("x")
                shapes.append((int(r), int(c), int(k)))
        except ValueError:
            print(f"torch_topk_rows: bad --shapes '{args.shapes}' (e.g. 64x131072:256)", file=sys.stderr)
            return 2
    try:
        import torch
    except ImportError:
        print("torch_topk_rows: PyTorch is not installed; nothing to compare (not an error)")
        return 0
    if not torch.cuda.is_available():
        print("torch_topk_rows: PyTorch sees no CUDA device; nothing to compare (not an error)")
        return 0
    dev = torch.device("cuda")
    gpu = torch.cuda.get_device_name(0)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    gen = torch.Generator(device=dev).manual_seed(12345)
    rows_out = []
    print(f"torch {torch.__version__} on {gpu}")
    for (rows, cols, k), dtype in [(s, t) for s in shapes for t in types]:
        x = (torch.rand((rows, cols), generator=gen, device=dev, dtype=torch.float32) * 2 - 1).to(getattr(torch, dtype))
        vals, idx = torch.topk(x, k, dim=1)
        # a spot check: the first row against a sort
        ref = torch.sort(x[0], descending=True).values[:k]
        ok = bool(torch.equal(vals[0], ref))
        ms, ms_min = timed(torch, lambda: torch.topk(x, k, dim=1), args.reps, flush)
        e = DTYPES[dtype]                             # the problem's bytes, as rows.cuh counts them:
        nbytes = e * rows * cols + (e + 4) * rows * k  # int32 indices (torch's int64 not counted extra)
        src = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        copy_ms, _ = timed(torch, lambda: dst.copy_(src), args.reps, flush)
        gbps, copy = nbytes / (ms * 1e6), nbytes / (copy_ms * 1e6)
        print(f"torch.topk  {dtype:8s} {rows} x {cols} k={k}  {ms:9.4f} ms  {gbps:7.1f} GB/s  {100 * gbps / copy:5.1f}% of copy"
              f"  {'PASS' if ok else 'FAIL'}")
        rows_out.append(f"{gpu},01_topk_rows,torch.topk,{dtype},{rows * cols},uniform:{rows}x{cols},k={k},"
                        f"{args.reps},{ms:.6f},{ms_min:.6f},{gbps:.2f},{copy:.2f},{'PASS' if ok else 'FAIL'}" + provenance(torch))
        del x, vals, idx, src, dst
    if args.csv:
        fresh = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        with open(args.csv, "a") as f:
            if fresh:
                f.write(COLUMNS + "\n")
            f.write("\n".join(rows_out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
