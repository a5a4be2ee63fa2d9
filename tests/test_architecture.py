"""The architecture holds (docs/architecture.md): the import graph of drills/, built from
the source with every import counted (module level, inside functions, under
TYPE_CHECKING), has no circle and points only downward between the top-level packages;
no module is over 400 lines and no folder holds more than 20; the pure domain imports no
terminal or storage library and does no terminal I/O (principle 7)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "drills"

# What each top-level unit of drills/ may import besides itself: the layers of
# docs/architecture.md, lowest first. A unit is a package (drills/engine/) or a module
# directly in drills/ (drills/paths.py); "drills" is drills/__init__.py.
ALLOWED: dict[str, set[str]] = {
    "drills": set(),
    "safetext": set(),
    "paths": set(),
    "runner": set(),
    "display": {"safetext"},  # Style.wrap shows control characters (visible), never sends them
    "engine": {"safetext"},
    "answers": {"engine"},
    "model": {"engine"},
    "grading": {"engine", "answers", "model", "safetext"},
    "trec": {"engine", "answers", "model", "grading", "safetext"},
    "coding": {"engine", "answers", "model", "grading", "safetext"},
    "generators": {"engine", "answers", "model", "grading", "safetext"},
    "packs": {"drills", "engine", "answers", "model", "grading", "coding", "generators",
              "safetext", "paths"},
    "store": {"drills", "grading", "model", "safetext", "paths"},
    "quiz": {"engine", "answers", "model", "grading", "coding", "generators", "packs",
             "safetext"},
    "authoring": {"engine", "answers", "model", "grading", "coding", "generators", "quiz",
                  "packs", "safetext"},
    "config": {"paths"},
    "gate": {"safetext"},
    "tui": {"engine", "answers", "model", "grading", "coding", "quiz", "safetext", "display",
            "gate", "paths", "config"},
    "publish": {"engine", "answers", "model", "grading", "coding", "generators", "quiz",
                "safetext", "display"},
    "cli": {"drills", "safetext", "paths", "runner", "display", "engine", "answers", "model",
            "grading", "trec", "coding", "generators", "packs", "store", "quiz", "authoring",
            "config", "gate", "tui", "publish"},
    "__main__": {"cli"},
}
# The pure domain: no terminal or storage library, no print or input.
PURE = ["engine", "answers", "model", "grading", "trec", "coding", "generators", "quiz",
        "authoring", "packs", "safetext"]
FORBIDDEN = {"click", "prompt_toolkit", "sqlite3", "fsrs"}
MAX_LINES = 400
MAX_MODULES_IN_A_FOLDER = 20


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_name(f): f for f in sorted(PACKAGE.rglob("*.py"))}
PACKAGES = {_name(f) for f in PACKAGE.rglob("__init__.py")}


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The drills modules one import statement loads (the closest existing module)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            here = module if module in PACKAGES else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                here = here.rpartition(".")[0]
            base = f"{here}.{base}" if base else here
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                 for a in node.names]
    found = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.startswith("drills") and name != module:
            found.append(name)
    return found


def import_graph() -> dict[str, dict[str, tuple[Path, int]]]:
    """module -> {imported module: (file, line)}, every import statement counted."""
    graph: dict[str, dict[str, tuple[Path, int]]] = {}
    for module, path in MODULES.items():
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, node):
                    edges.setdefault(target, (path, node.lineno))
    return graph


def circles(graph: dict[str, dict[str, tuple[Path, int]]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "drills"


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def layering_errors(graph: dict[str, dict[str, tuple[Path, int]]]) -> list[str]:
    errors = []
    for module, edges in sorted(graph.items()):
        for target, (path, line) in sorted(edges.items()):
            a, b = unit(module), unit(target)
            if a != b and b not in ALLOWED.get(a, set()):
                errors.append(f"{_where(path, line)}: {module} imports {target}: "
                              f"{a} may not import {b} (see ALLOWED and docs/architecture.md)")
    return errors


def test_every_unit_has_a_row_in_the_table():
    assert {unit(m) for m in MODULES} <= set(ALLOWED)
    assert all(b in ALLOWED for allowed in ALLOWED.values() for b in allowed)


def test_the_import_graph_has_no_circle():
    graph = import_graph()
    lines = []
    for component in circles(graph):
        inside = set(component)
        lines.append("circle: " + ", ".join(component))
        lines += [f"  {_where(*graph[a][b])}: {a} imports {b}"
                  for a in component for b in sorted(graph[a]) if b in inside]
    assert not lines, "\n".join(lines)


def test_imports_point_only_downward():
    errors = layering_errors(import_graph())
    assert not errors, "\n".join(errors)


def test_an_upward_import_fails_with_its_file_and_line():
    graph = import_graph()
    cli_init = PACKAGE / "cli" / "__init__.py"
    graph["drills.engine.exact"] = {**graph["drills.engine.exact"],
                                    "drills.cli": (PACKAGE / "engine" / "exact.py", 7)}
    assert ("drills/engine/exact.py:7: drills.engine.exact imports drills.cli: engine may not "
            "import cli (see ALLOWED and docs/architecture.md)") in layering_errors(graph)
    graph["drills.cli"] = {**graph["drills.cli"], "drills.engine.exact": (cli_init, 3)}
    assert any({"drills.cli", "drills.engine.exact"} <= set(c) for c in circles(graph))


def test_no_module_is_over_400_lines_and_no_folder_over_20_modules():
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in MODULES.values()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, "\n".join(long)
    crowded = [f"{d.relative_to(ROOT)}: {n} modules" for d in [PACKAGE, *PACKAGE.rglob("*/")]
               if d.is_dir() and (n := len(list(d.glob("*.py")))) > MAX_MODULES_IN_A_FOLDER]
    assert not crowded, "\n".join(crowded)
    assert not (PACKAGE / "core").exists()


def test_importing_the_pure_core_loads_no_terminal_or_storage_library():
    names = [m for m in MODULES if unit(m) in PURE]
    code = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True, timeout=120).stdout
    loaded = set(json.loads(out))
    assert "drills" in loaded
    assert not FORBIDDEN & loaded


def test_the_pure_core_does_no_terminal_io():
    for module, path in MODULES.items():
        if unit(module) not in PURE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not {"print", "input"} & calls, path


def test_an_import_inside_a_function_says_why():
    """Imports inside functions only defer a slow part for start-up, and say so in a
    comment on the import or just above it (they never close a loop: the graph counts them)."""
    silent = []
    for path in MODULES.values():
        lines = path.read_text(encoding="utf-8").splitlines()
        for func in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                name = (node.module if isinstance(node, ast.ImportFrom)
                        else node.names[0].name if isinstance(node, ast.Import) else None)
                if name and name.startswith("drills"):
                    nearby = lines[max(0, node.lineno - 4):node.end_lineno]
                    if not any("#" in line for line in nearby):
                        silent.append(f"{_where(path, node.lineno)}: {lines[node.lineno - 1].strip()}")
    assert not silent, "\n".join(sorted(set(silent)))


def test_every_dataclass_says_what_it_holds():
    """A docstring on each dataclass: it documents the record, and a dataclass without one
    has its signature worked out by ``inspect`` as it is made (its default __doc__), which
    costs every launch that imports it (issue 25: the first question)."""
    import dataclasses
    import importlib
    import inspect

    bare = []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == name \
                    and "__doc__" in obj.__dict__ and (obj.__doc__ or "").startswith(f"{attr}("):
                bare.append(f"{name}.{attr}")
    assert not bare, bare
