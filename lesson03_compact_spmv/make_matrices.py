#!/usr/bin/env python3
"""Three matrices with real-world structure for the SpMV programs (`--matrix F.mtx`).

    python3 lesson03_compact_spmv/make_matrices.py --out mtx          # then, for example:
    build/lesson03_compact_spmv/spmv_05_merge_path --matrix mtx/scalefree.mtx --type float64

  scalefree.mtx  the adjacency matrix of a Barabasi-Albert graph (NetworkX; nodes = 2^19 x scale,
                 8 edges per new node): most rows hold 8 to 20 entries, the hubs thousands. Both
                 directions of every edge are stored, with different random values.
  grid2d.mtx     the 2-D 5-point Laplacian of a W x W grid (SciPy, a Kronecker sum of two 1-D
                 second-difference matrices; W = 2048 x sqrt(scale)): 5 entries a row, near the
                 diagonal, the structure of a finite-difference solve.
  rect.mtx       a rectangular matrix of 2 x 2^19 x scale rows and half as many columns, 16
                 random columns a row (repeats summed), so x is shorter than y.

Values are uniform in [-1, 1) (the grid keeps 4 and -1), with a fixed seed: the same files every
time. The files are large (the defaults: about 0.26, 0.30 and 0.53 GB of text) and are not
part of the repository. SciPy and NetworkX are not dependencies of the course: without them this
script says so and exits 0, and the programs' own generators (`--gen`) cover the same shapes.
"""
import argparse
import math
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="mtx", help="folder for the .mtx files (created)")
    ap.add_argument("--scale", type=float, default=1.0, help="size factor (1: 2^19-node graph, 2048^2 grid, 2^20 x 2^19 matrix)")
    ap.add_argument("--only", choices=["scalefree", "grid2d", "rect"], help="write one matrix only")
    args = ap.parse_args()
    if not (args.scale > 0 and args.scale <= 64):
        ap.error("--scale must be in (0, 64]")
    try:
        import numpy as np
        import scipy.io
        import scipy.sparse as sp
        import networkx as nx
    except ImportError as e:
        print(f"make_matrices.py needs SciPy and NetworkX ({e.name} is missing): nothing written; "
              "the SpMV programs' --gen families need neither")
        return 0
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(20261124)

    def write(name, a, note):
        path = os.path.join(args.out, name)
        t = time.time()
        a = sp.coo_matrix(a)
        scipy.io.mmwrite(path, a, comment=note, field="real", symmetry="general")
        lengths = np.diff(sp.csr_matrix(a).indptr)
        print(f"{path}: {a.shape[0]} x {a.shape[1]}, {a.nnz} entries, row lengths {lengths.min()}..{lengths.max()} "
              f"(mean {a.nnz / a.shape[0]:.1f}), written in {time.time() - t:.1f} s")

    if args.only in (None, "scalefree"):
        n = max(16, int(2**19 * args.scale))
        g = nx.barabasi_albert_graph(n, 8, seed=20261124)
        edges = np.array(g.edges(), dtype=np.int64)
        rows = np.concatenate([edges[:, 0], edges[:, 1]])
        cols = np.concatenate([edges[:, 1], edges[:, 0]])
        vals = rng.uniform(-1.0, 1.0, rows.size)
        write("scalefree.mtx", sp.coo_matrix((vals, (rows, cols)), shape=(n, n)),
              f"Barabasi-Albert graph, {n} nodes, 8 edges per new node (NetworkX), random values")
    if args.only in (None, "grid2d"):
        w = max(2, int(round(2048 * math.sqrt(args.scale))))
        d = sp.diags([-np.ones(w - 1), 2 * np.ones(w), -np.ones(w - 1)], [-1, 0, 1])
        eye = sp.identity(w)
        write("grid2d.mtx", sp.kron(eye, d) + sp.kron(d, eye),
              f"2-D 5-point Laplacian on a {w} x {w} grid (SciPy)")
    if args.only in (None, "rect"):
        cols = max(16, int(2**19 * args.scale))
        rows = 2 * cols
        per_row = 16
        r = np.repeat(np.arange(rows, dtype=np.int64), per_row)
        c = rng.integers(0, cols, rows * per_row)
        vals = rng.uniform(-1.0, 1.0, rows * per_row)
        a = sp.csr_matrix((vals, (r, c)), shape=(rows, cols))   # repeated (row, column) pairs are summed
        write("rect.mtx", a, f"{rows} x {cols}, {per_row} random columns a row (repeats summed), random values")
    return 0


if __name__ == "__main__":
    sys.exit(main())
