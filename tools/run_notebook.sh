#!/usr/bin/env bash
# Runs notebooks/quickstart.ipynb headless with nbclient, in this checkout (the clone cell is
# skipped: COURSE_REPO points here), and saves the executed notebook and a log of every cell's
# output. The GPU tests run it as a T4 would (compute_75 PTX, a T4's limits):
#   ARCH=compute_75 COURSE_GPU_PROFILE=t4 OUT=devout tools/run_notebook.sh
# Needs nbclient, nbformat, ipykernel and jupyter_client (pip install them; on a machine without
# network, from wheels: python3 -m pip install --no-index --no-deps --target DIR .whl/*.whl and
# PYTHONPATH=DIR). Without a GPU the notebook's GPU cells say "no GPU" and move on.
# Writes $OUT/quickstart.executed.ipynb and $OUT/quickstart.log (OUT defaults to build/notebook);
# exit 0 when every cell ran, 1 when one failed, 2 when nbclient is missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
nb=${1:-$root/notebooks/quickstart.ipynb}
out=${OUT:-$root/build/notebook}
python=${PYTHON:-python3}
if ! "$python" -c "import nbclient, nbformat, ipykernel" 2>/dev/null; then
  echo "run_notebook.sh: nbclient, nbformat or ipykernel missing (pip install nbclient nbformat ipykernel)"
  exit 2
fi
mkdir -p "$out"
export COURSE_REPO=${COURSE_REPO:-$root}
# The kernel's connection files and IPython's profile go to a scratch folder, not to $HOME.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export JUPYTER_RUNTIME_DIR=${JUPYTER_RUNTIME_DIR:-$scratch/runtime} IPYTHONDIR=${IPYTHONDIR:-$scratch/ipython}
log="$out/quickstart.log"
"$python" - "$nb" "$out/quickstart.executed.ipynb" "$COURSE_REPO" > >(tee "$log") 2>&1 <<'EOF'
import sys, time
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

src, dst, repo = sys.argv[1:4]
nb = nbformat.read(src, as_version=4)
started = time.time()


def show(cell, cell_index, **_):
    """Prints a code cell's outputs as soon as it has run (the log)."""
    if cell.cell_type != "code":
        return
    print(f"---- cell {cell_index} ({time.time() - started:.0f} s)", flush=True)
    for o in cell.get("outputs", []):
        if o.output_type == "stream":
            print(o.text, end="")
        elif o.output_type == "error":
            print(f"{o.ename}: {o.evalue}")
        elif "image/png" in o.get("data", {}):
            print("[image/png]")
        elif "text/markdown" in o.get("data", {}):
            print(o.data["text/markdown"])
        elif "text/plain" in o.get("data", {}):
            print(o.data["text/plain"])
    sys.stdout.flush()


client = NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": repo}},
                        on_cell_executed=show)
rc = 0
try:
    client.execute()
except CellExecutionError as e:
    print(f"FAIL  a cell raised: {str(e).splitlines()[-1] if str(e) else e}")
    rc = 1
finally:
    nbformat.write(nb, dst)
if rc == 0:
    print(f"PASS  every cell of {src} ran ({time.time() - started:.0f} s)")
print(f"executed notebook: {dst}")
sys.exit(rc)
EOF
rc=$?
wait
echo "log: $log"
exit $rc
