#!/usr/bin/env python3
"""Host tests of plot.py on a small made-up CSV: plots are written, README tables are filled and
--check notices a table that drifted from the data. Prints one line per check and 'N passed, N failed'."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOT = os.path.join(ROOT, "plot.py")
passed = failed = 0


def expect(ok, name, why=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def plot(*args):
    p = subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


OLD_HEADER = "gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check\n"
HEADER = OLD_HEADER.rstrip("\n") + ",commit,cuda,driver\n"
# Rows measured by the code here now: HEAD (plot.py marks rows whose version's code changed since).
HEAD = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                      text=True).stdout.strip() or "unknown"


def row(version, n, ms, dist="uniform", gpu="NVIDIA H100 80GB HBM3", lesson="02_scan", param="exclusive=0",
        commit=None, old=False):
    gbps = 8.0 * n / (ms * 1e6)
    line = f"{gpu},{lesson},{version},int32,{n},{dist},{param},10,{ms},{ms * 0.9},{gbps:.2f},3000.00,PASS"
    return line + ("\n" if old else f",{commit or HEAD},13.0,580.159.04\n")


def main():
    tmp = tempfile.mkdtemp(prefix="plot-test-")
    try:
        csv_path = os.path.join(tmp, "r.csv")
        with open(csv_path, "w") as f:
            f.write(HEADER)
            for n in (1 << 10, 1 << 24, 1 << 28):
                f.write(row("00_cub", n, n * 8 / 2.4e12 * 1e3 + 0.005))
                f.write(row("01_naive", n, n * 8 / 0.2e12 * 1e3 + 0.01))
                f.write(row("02_better", n, n * 8 / 1.2e12 * 1e3 + 0.006))
            f.write(row("03_one_block", 1 << 10, 0.004))                # runs only in one block (n <= 1024)
            f.write(row("01_naive", 1 << 28, 999.0, dist="equal"))      # another input: not in the table
            f.write(row("00_cub", 1 << 24, 5.0))                         # a re-measurement: the last row wins
            for v, ms in (("00_cub_segmented_rows", 0.9), ("06_rowwise", 0.07)):   # a lesson shown as shapes
                f.write(row(v, 64 * 128256, ms, dist="uniform:64x128256", lesson="01_topk_rows", param="k=50"))
        readme = os.path.join(tmp, "README.md")
        with open(readme, "w") as f:
            f.write("# t\n\n<!-- results:begin lesson=02_scan -->\nold text\n<!-- results:end -->\n\nafter\n")
        plots = os.path.join(tmp, "plots")

        rc, out = plot(csv_path, "--readmes", readme, "--check")
        expect(rc == 1, "--check fails on a README whose table is out of date", out)
        rc, out = plot(csv_path, "--readmes", readme, "--plots", plots)
        expect(rc == 0, "plot.py runs on a small CSV", out)
        for name in ("02_scan_throughput.png", "02_scan_bars.png"):
            p = os.path.join(plots, name)
            expect(os.path.exists(p) and os.path.getsize(p) > 1000, f"writes plots/{name}")
        rows_plots = [n for n in os.listdir(plots) if n.startswith("01_topk_rows")]
        expect(not rows_plots, "no plots of its own for a lesson shown as a shapes table (01_topk_rows)", str(rows_plots))
        text = open(readme).read()
        expect("old text" not in text and "`02_better`" in text and text.rstrip().endswith("after"),
               "README table rewritten between the markers only", text)
        expect("| `00_cub` |" in text and "5.000 |" in text, "the last row of a repeated case wins", text)
        expect("999" not in text, "rows of other inputs stay out of the table")
        one = next((l for l in text.splitlines() if l.startswith("| `03_one_block`")), "")
        cells = [c.strip() for c in one.strip("|").split("|")]
        expect(len(cells) == 9 and cells[2] == "0.0040 @ 2^10" and cells[3].endswith("@ 2^10") and cells[4] == "—"
               and all(c.endswith("@ 2^10") for c in cells[6:]) and "`@ n`" in text,
               "a version measured only below the table's sizes shows its largest size, marked '@ 2^10'", one)
        expect("@ 2^" not in next(l for l in text.splitlines() if l.startswith("| `02_better`")),
               "a version measured at the table's sizes is not marked")
        rc, out = plot(csv_path, "--readmes", readme, "--check")
        expect(rc == 0, "--check passes once the tables are regenerated", out)
        with open(readme, "w") as f:
            f.write(text.replace("5.000", "4.000"))
        rc, out = plot(csv_path, "--readmes", readme, "--check")
        expect(rc == 1 and "out of date" in out, "--check catches a hand-edited number", out)

        rc, out = plot("--summary", csv_path)
        expect(rc == 0 and "02_better" in out and "vs library" in out, "--summary prints one table", out)

        merged = os.path.join(tmp, "merged.csv")
        shutil.copy(csv_path, merged)
        new = os.path.join(tmp, "new.csv")
        with open(new, "w") as f:
            f.write(HEADER + row("02_better", 1 << 28, 7.5))
        rc, out = plot("--merge", new, "--into", merged)
        lines = open(merged).read().splitlines()
        hits = [l for l in lines if ",02_better,int32,268435456,uniform," in l]
        expect(rc == 0 and len(hits) == 1 and ",7.500000," in hits[0], "--merge replaces the same case", "\n".join(hits))

        # An older CSV (no commit,cuda,driver) merges into a new one: its rows read 'unknown'.
        old_csv = os.path.join(tmp, "old.csv")
        with open(old_csv, "w") as f:
            f.write(OLD_HEADER + row("02_better", 1 << 20, 0.5, old=True))
        rc, out = plot("--merge", old_csv, "--into", merged)
        lines = open(merged).read().splitlines()
        hit = [l for l in lines if ",02_better,int32,1048576,uniform," in l]
        expect(rc == 0 and lines[0] + "\n" == HEADER and len(hit) == 1 and hit[0].endswith(",unknown,unknown,unknown")
               and any(l.endswith(f",{HEAD},13.0,580.159.04") for l in lines),
               "--merge of an old-header CSV into a new one: one header with commit,cuda,driver, old rows 'unknown'",
               "\n".join(lines[:3] + hit))
        into_old = os.path.join(tmp, "into_old.csv")
        shutil.copy(old_csv, into_old)
        rc, out = plot("--merge", new, "--into", into_old)
        lines = open(into_old).read().splitlines()
        expect(rc == 0 and lines[0] + "\n" == HEADER and len(lines) == 3, "--merge of a new CSV into an old one rewrites "
               "it with the new header", "\n".join(lines))

        # Stale rows: a version whose code changed since the row's commit, an unknown commit, a commit
        # this history does not hold: each marked with a dagger and named in a warning; HEAD's is not.
        first = subprocess.run(["git", "-C", ROOT, "rev-list", "--max-parents=0", "HEAD"], capture_output=True,
                               text=True).stdout.split()
        if HEAD == "unknown" or not first:
            expect(True, "stale rows (skipped: not a git checkout)")
        else:
            stale_csv = os.path.join(tmp, "stale.csv")
            with open(stale_csv, "w") as f:
                f.write(HEADER)
                for v, c in (("00_cub", HEAD), ("01_hillis_steele", "unknown"), ("02_blelloch", "0123456789ab"),
                             ("06_decoupled_lookback", first[0][:12])):
                    f.write(row(v, 1 << 24, 1.0, commit=c) + row(v, 1 << 28, 9.0, commit=c))
            sreadme = os.path.join(tmp, "STALE.md")
            with open(sreadme, "w") as f:
                f.write("<!-- results:begin lesson=02_scan -->\n<!-- results:end -->\n")
            rc, out = plot(stale_csv, "--readmes", sreadme, "--no-plots")
            text = open(sreadme).read()
            marked = {v: f"| `{v}` †" in text for v in ("00_cub", "01_hillis_steele", "02_blelloch", "06_decoupled_lookback")}
            expect(rc == 0 and marked == {"00_cub": False, "01_hillis_steele": True, "02_blelloch": True,
                                          "06_decoupled_lookback": True} and "† measured on code" in text,
                   "stale rows marked † with a footnote (changed code, unknown commit, commit not in history); "
                   "HEAD's row not", f"{marked} {out}")
            expect("warning: 02_scan 06_decoupled_lookback: rows code changed since" in out and
                   "warning: 02_scan 01_hillis_steele: rows measured by an unknown commit" in out and
                   "not in this history" in out, "a warning line names each stale version", out)

        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("gpu,lesson\nx,y\n")
        rc, out = plot(bad, "--readmes", readme, "--no-plots")
        expect(rc != 0 and "missing columns" in out, "a CSV without the columns is refused", out)
        rc, out = plot("--help")
        expect(rc == 0 and "usage" in out, "--help works")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
