#!/usr/bin/env python3
"""Writes notebooks/quickstart.ipynb (plain JSON, nbformat 4, outputs empty).

  python3 notebooks/make_quickstart.py          rewrite the notebook from the cells below
  python3 notebooks/make_quickstart.py --check  exit 1 if the notebook differs from them

Edit the cells here, not the .ipynb: tests/test_notebook.py checks that the two agree and that
every command the notebook runs names a make target, program or file of the repository.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NOTEBOOK = os.path.join(HERE, "quickstart.ipynb")

CELLS = []


def md(text):
    CELLS.append(("markdown", text.strip("\n")))


def code(text):
    CELLS.append(("code", text.strip("\n")))


md("""
# GPU Primitives: a quick start on a hosted GPU

This notebook takes the course from a fresh clone to a graded exercise, on the free T4 of a hosted
notebook (Colab: *Runtime > Change runtime type > T4 GPU*) or on any NVIDIA GPU of compute
capability 7.5 or newer. It builds lesson 02 (prefix sum) for the GPU it finds, runs every
version once, charts them, opens a version's notes, then solves and grades an exercise.

Run the cells in order. Every command goes through `sh(...)`, which prints what it runs; a cell
that needs a GPU says `no GPU` and moves on when there is none.
""")

md("""
## 1. Settings
`REPO_URL` is where the course is cloned from: put your fork's address there. `ARCH=native`
builds for the GPU found here; `ARCH=compute_75` builds a T4's PTX (the driver compiles it at
load time), and `COURSE_GPU_PROFILE=t4` makes the programs see a T4's limits: together they let a
bigger GPU play a T4 (README, "The GPUs it runs on").
""")

code("""
import os

REPO_URL = os.environ.get("COURSE_REPO_URL", "https://github.com/YOUR-NAME/gpu-primitives.git")  # placeholder
COURSE_DIR = os.environ.get("COURSE_REPO", "")     # an existing checkout: the clone is skipped
ARCH = os.environ.get("ARCH") or "native"          # or compute_75 (a T4's PTX), "75 90", ...
GPU_PROFILE = os.environ.get("COURSE_GPU_PROFILE", "")   # t4, a100, l4: play that GPU's limits

os.environ["ARCH"] = ARCH              # make reads ARCH from the environment
if GPU_PROFILE:
    os.environ["COURSE_GPU_PROFILE"] = GPU_PROFILE
print(f"ARCH={ARCH}  COURSE_GPU_PROFILE={GPU_PROFILE or '(none: the GPU as it is)'}")
""")

code("""
import subprocess


def sh(cmd, ok=(0,)):
    \"\"\"Runs one shell command, prints its output as it comes and returns its exit code.
    An exit code outside `ok` stops the notebook (ok=None accepts any).\"\"\"
    print("$", cmd, flush=True)
    p = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout:
        print(line, end="", flush=True)
    rc = p.wait()
    if ok is not None and rc not in ok:
        raise RuntimeError(f"`{cmd}` exited {rc}")
    return rc
""")

md("""
## 2. Clone the course
Skipped when `COURSE_REPO` names a checkout (how `tools/run_notebook.sh` runs this notebook).
""")

code("""
if COURSE_DIR:
    os.chdir(COURSE_DIR)
else:
    if not os.path.isdir("gpu-primitives"):
        sh(f"git clone --depth 1 {REPO_URL} gpu-primitives")
    os.chdir("gpu-primitives")
print("working in", os.getcwd())
""")

md("""
## 3. Which GPU is here
`nvidia-smi` names the GPU and the newest CUDA its driver runs; `nvcc` is the compiler. The course
is built and tested with CUDA 13 (a driver of the 580 series or newer).
""")

code("""
import re
import shutil

HAVE_GPU = False
if shutil.which("nvidia-smi"):
    found = subprocess.run("nvidia-smi -L", shell=True, capture_output=True, text=True)
    HAVE_GPU = found.returncode == 0 and "GPU" in found.stdout
if HAVE_GPU:
    sh("nvidia-smi")
    sh("nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv")
    banner = subprocess.run("nvidia-smi", shell=True, capture_output=True, text=True).stdout
    m = re.search(r"CUDA Version: (\\d+)\\.(\\d+)", banner)
    if m and int(m.group(1)) < 13:
        print(f"note: this driver runs CUDA {m.group(1)}.{m.group(2)} at most; the course needs 13.0")
else:
    print("no GPU: the cells that run programs say so and move on (Colab: Runtime > Change runtime type > T4 GPU)")
if shutil.which("nvcc"):
    sh("nvcc --version")
else:
    print("no nvcc on PATH: install the CUDA Toolkit 13 (or add /usr/local/cuda/bin to PATH)")
""")

md("""
## 4. Build lesson 02 and run every version
`make lesson02` builds the lesson's versions in parallel (one compiler per core; a first build
takes a few minutes on 2 cores), runs each once at its default size and prints one table: time,
GB/s, how close each comes to a plain copy of the same bytes, and the library bar (CUB).
""")

code("""
if HAVE_GPU:
    sh("make lesson02")
else:
    print("no GPU: skipping make lesson02 (it builds the versions, then runs each on the GPU)")
""")

md("""
One version alone, at a size of your choice, and its test battery (every size, input and kind
checked against the CPU reference):
""")

code("""
if HAVE_GPU:
    sh("build/lesson02_scan/06_decoupled_lookback --n 2^24")
    sh("build/lesson02_scan/06_decoupled_lookback --test --quick")
else:
    print("no GPU: skipping build/lesson02_scan/06_decoupled_lookback")
""")

md("""
## 5. The chart
`make lesson02` left its rows in `build/lesson02_scan.summary.csv`; `plot.py` draws them (here into
`build/notebook_plots/`, leaving the notes' tables alone). Below it, the course's own sweep on an
H100 from `results/`.
""")

code("""
from IPython.display import Image, Markdown, display

if HAVE_GPU:
    sh("python3 plot.py build/lesson02_scan.summary.csv --readmes --plots build/notebook_plots")
    display(Image(filename="build/notebook_plots/02_scan_bars.png"))
else:
    print("no GPU: no rows of this GPU to draw")
display(Image(filename="plots/02_scan_throughput.png"))
""")

md("""
## 6. A version's notes
Every lesson's `README.md` explains each version: the idea, its cost model, what the measurement
showed. Here the single-pass scan's section:
""")

code("""
def section(path, heading):
    \"\"\"The part of a Markdown file from the heading that starts with `heading` to the next
    heading of the same or a higher level.\"\"\"
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(heading))
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level), len(lines))
    return "\\n".join(lines[start:end])


display(Markdown(section("lesson02_scan/README.md", "### 06_decoupled_lookback")))
""")

md("""
## 7. Solve and grade an exercise
Each lesson's `exercises/` folder holds versions with their key part cut out and marked `TODO`.
They build, run, and fail the checker until completed; `make grade EX=name` builds one and runs
its battery. Here `exclusive_from_inclusive`: the lesson's best scan computes an inclusive scan,
and the missing kernel turns it into an exclusive one. First, graded as handed out (it fails):
""")

code("""
EXERCISE = "lesson02_scan/exercises/exclusive_from_inclusive.cu"
skeleton = open(EXERCISE).read()
print(skeleton[skeleton.index("// The exercise"):skeleton.index("template <class T> void")])
if HAVE_GPU:
    rc = sh("make grade EX=exclusive_from_inclusive", ok=None)
    print("unsolved: FAIL, as expected" if rc != 0 else "unexpected: the skeleton passed")
else:
    print("no GPU: skipping make grade EX=exclusive_from_inclusive")
""")

md("""
The solution: each thread copies the inclusive prefix one place to its left (element 0 gets 0).
Why not `inclusive[i] - in[i]`? For floats it cancels once the prefix is large; the header of the
exercise asks you to explain why. The cell writes it over the `TODO` lines of the skeleton.
""")

code("""
TODO_LINES = \"\"\"    // TODO: out[i] = exclusive prefix of element i (see the header).
    (void)in;
    (void)inclusive;
    (void)out;
    (void)n;
\"\"\"
SOLUTION = \"\"\"    // out[i] = the inclusive prefix one place to the left; element 0 gets 0.
    (void)in;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = i == 0 ? T(0) : inclusive[i - 1];
\"\"\"
assert TODO_LINES in skeleton, f"{EXERCISE} no longer holds the TODO lines this cell replaces"
with open(EXERCISE, "w") as f:
    f.write(skeleton.replace(TODO_LINES, SOLUTION))
print("wrote the solution into", EXERCISE)
""")

code("""
if HAVE_GPU:
    sh("make grade EX=exclusive_from_inclusive")
else:
    print("no GPU: building the solved exercise only (grading runs it on a GPU)")
    sh("make build/lesson02_scan/exercises/exclusive_from_inclusive")
""")

md("""
## 8. Your turn
The next cell puts the skeleton back, so that you can write the kernel yourself (edit the file in
the file browser, then run `make grade EX=exclusive_from_inclusive` again). The other exercises:
`ls lesson*/exercises`; each lesson's notes list them under "Exercises" with their build and grade
lines.
""")

code("""
with open(EXERCISE, "w") as f:
    f.write(skeleton)
print("skeleton restored:", EXERCISE)
rc = sh("ls lesson*/exercises")
""")


def notebook():
    cells = []
    for kind, text in CELLS:
        source = [l + "\n" for l in text.split("\n")]
        source[-1] = source[-1].rstrip("\n")
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    meta = {
        "accelerator": "GPU",
        "colab": {"gpuType": "T4", "provenance": []},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def render():
    nb = notebook()
    for i, c in enumerate(nb["cells"]):
        c["id"] = f"cell-{i:02d}"
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        old = open(NOTEBOOK).read() if os.path.exists(NOTEBOOK) else ""
        if old != text:
            print(f"{os.path.relpath(NOTEBOOK)} differs from notebooks/make_quickstart.py: run it")
            return 1
        print(f"{os.path.relpath(NOTEBOOK)} matches notebooks/make_quickstart.py")
        return 0
    with open(NOTEBOOK, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(NOTEBOOK)} ({len(CELLS)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
