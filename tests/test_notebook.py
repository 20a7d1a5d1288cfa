#!/usr/bin/env python3
"""Host checks of notebooks/quickstart.ipynb (no GPU, no Jupyter needed):
  * it is nbformat 4 JSON (validated by nbformat when installed), with no outputs stored, and it
    is what notebooks/make_quickstart.py writes;
  * every code cell is valid Python;
  * every command it runs through sh(...) names what exists here: a make target of the Makefile
    (or a program whose .cu exists), an exercise for EX=, a script or file of the repository, or
    one of a few outside tools (git, nvidia-smi, nvcc, ls);
  * every repository path the cells name exists (files the notebook itself makes under build/ are
    checked by what makes them), the TODO lines the solution cell replaces are in the skeleton,
    and the notes heading it opens is in the README;
  * tools/run_notebook.sh, which executes it headless, exists and parses.
Prints PASS/FAIL lines and 'N passed, N failed'; exit 1 on a failure.
"""
import ast
import glob
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "notebooks", "quickstart.ipynb")
GENERATOR = os.path.join(ROOT, "notebooks", "make_quickstart.py")
OUTSIDE_TOOLS = {"git", "nvidia-smi", "nvcc", "ls"}
REPO_PATH = re.compile(r"^(?:lesson\d\d_\w+|plots|tools|notebooks|common|tests|results)/[\w./*-]+$|^[\w-]+\.(?:py|md)$")

counts = {"passed": 0, "failed": 0}


def report(ok, what, why=""):
    counts["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'}  {what}" + ("" if ok or not why else f": {why}"), flush=True)


def make_targets():
    """Targets the Makefile defines: rule heads, .PHONY names, and the lessonNN targets."""
    text = open(os.path.join(ROOT, "Makefile")).read().replace("\\\n", " ")
    targets = set()
    for line in text.splitlines():
        m = re.match(r"^\.PHONY\s*:(.*)$", line)
        if m:
            targets.update(m.group(1).split())
            continue
        m = re.match(r"^([A-Za-z][\w.-]*)\s*:(?!=)", line)
        if m:
            targets.add(m.group(1))
    for m in re.finditer(r"\$\(call lesson_target,(\d\d),(\w+)\)", text):
        targets.add(f"lesson{m.group(1)}")
    return targets


def literal(node):
    """A string constant or f-string as text; formatted parts become X."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    return None


def program_source(path):
    """build/<lesson>/<name> -> <lesson>/<name>.cu when it exists."""
    rel = path[len("build/"):] if path.startswith("build/") else None
    return rel and os.path.exists(os.path.join(ROOT, rel + ".cu"))


def check_command(cmd, targets):
    """Problems with one shell command of the notebook (empty when everything it names exists)."""
    problems = []
    words = shlex.split(cmd)
    if not words:
        return ["empty command"]
    tool, args = words[0], words[1:]
    if tool == "make":
        for a in args:
            if a.startswith("-"):
                continue
            if "=" in a:
                var, val = a.split("=", 1)
                if var == "EX" and not glob.glob(os.path.join(ROOT, "lesson*", "exercises", val + ".cu")):
                    problems.append(f"no exercise {val} (lesson*/exercises/{val}.cu)")
                continue
            if a not in targets and not program_source(a):
                problems.append(f"make {a}: no such target or program")
    elif tool in ("python3", "python"):
        script = next((a for a in args if not a.startswith("-")), None)
        if not script or not os.path.exists(os.path.join(ROOT, script)):
            problems.append(f"{tool} {script}: no such file")
        if script == "plot.py":
            csvs = [a for a in args[1:] if a.endswith(".csv")]
            for c in csvs:
                m = re.match(r"build/(lesson\d\d_\w+)\.summary\.csv$", c)
                if m and not os.path.isdir(os.path.join(ROOT, m.group(1))):
                    problems.append(f"{c}: no lesson {m.group(1)} writes it")
            opts = {a for a in args if a.startswith("--")}
            known = set(re.findall(r'add_argument\("(--[\w-]+)"', open(os.path.join(ROOT, "plot.py")).read()))
            problems += [f"plot.py has no option {o}" for o in sorted(opts - known)]
    elif tool.startswith("build/"):
        if not program_source(tool):
            problems.append(f"{tool}: no {tool[len('build/'):]}.cu")
    elif tool in ("bash", "sh"):
        if not args or not os.path.exists(os.path.join(ROOT, args[0])):
            problems.append(f"{tool} {args[:1]}: no such script")
    elif tool in OUTSIDE_TOOLS:
        if tool == "ls":
            for a in args:
                if not a.startswith("-") and not glob.glob(os.path.join(ROOT, a)):
                    problems.append(f"ls {a}: matches nothing")
    elif not os.path.exists(os.path.join(ROOT, tool)):
        problems.append(f"{tool}: neither a repository file nor a known tool")
    return problems


def main():
    try:
        raw = open(NOTEBOOK).read()
        nb = json.loads(raw)
    except (OSError, ValueError) as e:
        report(False, "notebooks/quickstart.ipynb is JSON", str(e))
        print(f"{counts['passed']} passed, {counts['failed']} failed")
        return 1
    report(True, "notebooks/quickstart.ipynb is JSON")

    shape = nb.get("nbformat") == 4 and isinstance(nb.get("cells"), list) and \
        nb.get("metadata", {}).get("kernelspec", {}).get("name") == "python3" and \
        all(c.get("cell_type") in ("code", "markdown") and isinstance(c.get("source"), (list, str)) for c in nb["cells"])
    report(shape, "nbformat 4: cells of code and markdown, a python3 kernel")
    try:
        import nbformat
    except ImportError:
        nbformat = None
    if nbformat is not None:
        try:
            nbformat.validate(nbformat.reads(raw, as_version=4))
            report(True, "nbformat.validate accepts it")
        except Exception as e:   # nbformat's ValidationError and its JSON schema errors
            report(False, "nbformat.validate accepts it", str(e).splitlines()[0])
    code_cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    dirty = [i for i, c in enumerate(code_cells) if c.get("outputs") or c.get("execution_count") is not None]
    report(not dirty, "no outputs stored (cells run fresh)", f"code cells {dirty}")

    spec = importlib.util.spec_from_file_location("make_quickstart", GENERATOR)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    report(gen.render() == raw, "the notebook is what notebooks/make_quickstart.py writes",
           "run python3 notebooks/make_quickstart.py")

    targets = make_targets()
    commands, paths, assigned, trees = [], [], {}, []
    for i, c in enumerate(code_cells):
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            report(False, f"code cell {i} is valid Python", str(e))
            continue
        trees.append(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sh" and node.args:
                text = literal(node.args[0])
                if text is None:
                    report(False, f"code cell {i}: sh() of a computed command", ast.unparse(node))
                else:
                    commands.append(text)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = literal(node.value)
                if v is not None:
                    assigned[node.targets[0].id] = v
            v = literal(node) if isinstance(node, (ast.Constant, ast.JoinedStr)) else None
            if v and REPO_PATH.match(v):
                paths.append(v)
    report(len(trees) == len(code_cells), f"every code cell is valid Python ({len(code_cells)})")

    report(len(commands) >= 8, f"the notebook runs its commands through sh() ({len(commands)})")
    for cmd in commands:
        probs = check_command(cmd, targets)
        report(not probs, f"command names what exists: {cmd}", "; ".join(probs))
    planted = {"make lesson09": 1, "make grade EX=no_such_exercise": 1, "build/lesson02_scan/99_none --test": 1,
               "python3 plot.py --no-such-option": 1, "make lesson02 ARCH=compute_75": 0}
    wrong = [c for c, bad in planted.items() if bool(check_command(c, targets)) != bool(bad)]
    report(not wrong, "self-test: planted commands judged right", f"misjudged {wrong}")
    needed = {"make lesson02", "make grade EX=", "plot.py", "nvidia-smi"}
    missing = [w for w in sorted(needed) if not any(w in c for c in commands)]
    report(not missing, "it builds a lesson, runs plot.py, checks the GPU and grades an exercise", f"missing {missing}")

    for p in sorted(set(paths)):
        report(bool(glob.glob(os.path.join(ROOT, p))), f"path exists: {p}")
    for name in ("build/notebook_plots/02_scan_bars.png",):
        made = any(name in c for c in commands) or any(name in ast.unparse(t) for t in trees)
        if made:   # plot.py draws it with the name of the committed chart of the same lesson
            report(os.path.exists(os.path.join(ROOT, "plots", os.path.basename(name))),
                   f"{name}: plot.py's name for it (plots/{os.path.basename(name)} exists)")

    ex, todo = assigned.get("EXERCISE"), assigned.get("TODO_LINES")
    ok = ex and todo and os.path.exists(os.path.join(ROOT, ex)) and todo in open(os.path.join(ROOT, ex)).read()
    report(bool(ok), f"the solution cell's TODO lines are in {ex}", "the skeleton changed: update the notebook")
    if ex:
        name = os.path.basename(ex)[:-3]
        report(any(f"make grade EX={name}" == c for c in commands), f"it grades the exercise it solves ({name})")
    headings = re.findall(r"""section\(['"]([^'"]+)['"], ['"]([^'"]+)['"]\)""", "".join(ast.unparse(t) for t in trees))
    report(bool(headings), "it opens a version's notes")
    for path, heading in headings:
        lines = open(os.path.join(ROOT, path)).read().splitlines() if os.path.exists(os.path.join(ROOT, path)) else []
        report(any(l.startswith(heading) for l in lines), f"{path} has a heading '{heading}'")

    runner = os.path.join(ROOT, "tools", "run_notebook.sh")
    ok = os.path.exists(runner) and os.access(runner, os.X_OK) and \
        subprocess.run(["bash", "-n", runner], capture_output=True).returncode == 0
    report(ok, "tools/run_notebook.sh exists, is executable and parses")

    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
